"""Snapshots that compact a room's journal: the room as it stood when its current match began.

A room lives as long as people play in it, match after match; replaying every event since it
was created would make a restart as slow as the oldest room is old. When a rematch starts, what
the room then is (seats, host, settings, how many matches, the series totals so far, and the
chat: its recent lines, who is muted, whether spectators may chat) is kept as a snapshot at
that event's number, and the events before it are deleted: a room is rebuilt from
its snapshot and the events of its current match alone. Nothing of a match that is over is
needed to play on (its rounds are in the history).
"""

from __future__ import annotations

from dataclasses import astuple
from typing import Any

from app.rooms.chat import ChatLine
from app.rooms.events import decode
from app.rooms.seats import Seat
from app.rooms.settings import RoomSettings
from app.rooms.state import Event, RoomState, Status
from app.storage.journal import Snapshot

START = "start"  # a match's first event, in the journal's form (a first match or a rematch)
CHAT_EVENTS = frozenset({"chat", "mute", "spectator_chat"})


def snapshot_of(state: RoomState, first: int, events: list[Event]) -> Snapshot | None:
    """A snapshot at the rematch among ``events`` (numbered from ``first``), if there is one.

    Taken after the events are applied: of what it keeps, only the host and the chat change
    during a match. The events after the snapshot set the host again if it passed; one that
    changed the chat would be applied twice, so no snapshot is taken then (the next rematch's
    will do).
    """
    starts = [n for n, event in enumerate(events) if event.get("type") == START]
    if not starts or state.matches < 2:
        return None
    if any(event.get("type") in CHAT_EVENTS for event in events[starts[-1] :]):
        return None
    chat = state.chat
    kept: dict[str, Any] = {
        "seats": [
            [seat.name, seat.token_hash, seat.bot, seat.key_hash, seat.muted]
            for seat in state.seats
        ],
        "host": state.host,
        "settings": state.settings.model_dump(),
        "matches": state.matches - 1,
        "series_base": list(state.series_base),
        # The chat lives with the room, not with a match: it outlives the events before.
        "chat": {
            "count": chat.count,
            "spectators": chat.spectators,
            "lines": [list(astuple(line)) for line in chat.lines],
        },
    }
    return Snapshot(state.code, first + starts[-1], kept)


def rebuild(
    code: str, settings: RoomSettings, created_at: int, snapshot: Snapshot, events: list[Event]
) -> RoomState:
    """The room from its snapshot and the events numbered from the snapshot's ``seq``."""
    state = RoomState(code, settings, created_at)
    kept = snapshot.state
    # A seat kept before player keys has three fields, one kept before mutes four.
    state.seats = [
        Seat(
            name,
            token_hash,
            bot=bot,
            key_hash=more[0] if more else "",
            muted=bool(more[1]) if len(more) > 1 else False,
        )
        for name, token_hash, bot, *more in kept["seats"]
    ]
    state.host = kept["host"]
    state.settings = RoomSettings.model_validate(kept["settings"])
    state.matches = kept["matches"]
    state.series_base = list(kept["series_base"])
    state.status = Status.FINISHED  # as it was when the rematch began
    chat = kept.get("chat")  # none in a snapshot kept before the chat was
    if chat is not None:
        state.chat.count = chat["count"]
        state.chat.spectators = chat["spectators"]
        state.chat.lines.extend(ChatLine(*line) for line in chat["lines"])
    for event in events:
        state.apply(decode(event))
    state.event_count = snapshot.seq + len(events)
    return state
