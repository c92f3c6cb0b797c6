"""Snapshots that compact a room's journal: the room as it stood when its current match began.

A room lives as long as people play in it, match after match; replaying every event since it
was created would make a restart as slow as the oldest room is old. When a rematch starts, what
the room then is (seats, host, settings, how many matches, the series totals so far) is kept as
a snapshot at that event's number, and the events before it are deleted: a room is rebuilt from
its snapshot and the events of its current match alone. Nothing of a match that is over is
needed to play on (its rounds are in the history).
"""

from __future__ import annotations

from typing import Any

from app.rooms.events import decode
from app.rooms.seats import Seat
from app.rooms.settings import RoomSettings
from app.rooms.state import Event, RoomState, Status
from app.storage.journal import Snapshot

START = "start"  # a match's first event, in the journal's form (a first match or a rematch)


def snapshot_of(state: RoomState, first: int, events: list[Event]) -> Snapshot | None:
    """A snapshot at the rematch among ``events`` (numbered from ``first``), if there is one.

    Taken after the events are applied: nothing it keeps changes during a match but the host,
    which the events after the snapshot set again if it passed.
    """
    starts = [n for n, event in enumerate(events) if event.get("type") == START]
    if not starts or state.matches < 2:
        return None
    kept: dict[str, Any] = {
        "seats": [[seat.name, seat.token_hash, seat.bot, seat.key_hash] for seat in state.seats],
        "host": state.host,
        "settings": state.settings.model_dump(),
        "matches": state.matches - 1,
        "series_base": list(state.series_base),
    }
    return Snapshot(state.code, first + starts[-1], kept)


def rebuild(
    code: str, settings: RoomSettings, created_at: int, snapshot: Snapshot, events: list[Event]
) -> RoomState:
    """The room from its snapshot and the events numbered from the snapshot's ``seq``."""
    state = RoomState(code, settings, created_at)
    kept = snapshot.state
    # A seat kept before player keys has three fields.
    state.seats = [
        Seat(name, token_hash, bot=bot, key_hash=key[0] if key else "")
        for name, token_hash, bot, *key in kept["seats"]
    ]
    state.host = kept["host"]
    state.settings = RoomSettings.model_validate(kept["settings"])
    state.matches = kept["matches"]
    state.series_base = list(kept["series_base"])
    state.status = Status.FINISHED  # as it was when the rematch began
    for event in events:
        state.apply(decode(event))
    state.event_count = snapshot.seq + len(events)
    return state
