"""The database behind rooms: their journal of events, and the finished rounds of match history.

A room's unsaved events and finished rounds are written together (``batching.py``) to the
backend that suits the database (``journal.py``); the rooms that wrote them announce the change
only once that write is done (``save`` says whether it was, within a bounded wait; ``saved``
waits for it without a bound): what players saw survives a SIGKILL, and a round is stored
before its results are shown. At start, what the outbox kept at the last stop is written
first, then every room the journal holds is rebuilt from its events.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from pathlib import Path

from sqlalchemy.ext.asyncio import AsyncEngine

from app.rooms.settings import RoomSettings
from app.rooms.state import Event, RoomState
from app.rooms.store import FinishedRound
from app.storage.batching import BatchWriter
from app.storage.eventlog import SEGMENT_BYTES
from app.storage.journal import (
    Events,
    Fence,
    Forget,
    NewRoom,
    Op,
    Rewrite,
    Snapshot,
    Tenure,
    open_backend,
)
from app.storage.outbox import Outbox, database_name, outbox_for
from app.storage.snapshots import rebuild, snapshot_of

log = logging.getLogger(__name__)


class DatabaseStore(BatchWriter):
    """Rooms' events and finished rounds in an SQL database."""

    def __init__(
        self,
        engine: AsyncEngine,
        flush_seconds: float,
        wait_seconds: float = 2.0,
        segment_bytes: int = SEGMENT_BYTES,
        write_seconds: float = 10.0,
        outbox: Path | None = None,
    ) -> None:
        super().__init__(
            open_backend(engine, segment_bytes),
            flush_seconds,
            wait_seconds,
            write_seconds,
            Outbox(outbox or outbox_for(engine.url), database_name(engine.url)),
        )
        self.engine = engine
        # This node's hold on each room, in cluster mode: its writes are fenced by its epoch.
        self.epochs: dict[str, Tenure] = {}
        # In cluster mode a room's writes go only with its fence: one this node does not hold
        # (any more) writes nothing, rather than something no other node's epoch can stop.
        self.fencing = False
        # Rooms a restore left out, the database refusing their last changes: restored once it
        # takes them (``on_accepted``), and until then not unknown to their players.
        self.left_out: set[str] = set()

    async def save(self, state: RoomState | None, rounds: Sequence[FinishedRound] = ()) -> bool:
        """Queue a room's unsaved events and finished rounds; True once they are written, False
        if not within ``wait_seconds`` (they stay queued, in order)."""
        ops: list[Op] = []
        if state is not None:
            tenure = self.epochs.get(state.code)
            if tenure is not None:
                ops.append(Fence(state.code, tenure))
            elif self.fencing:
                log.warning(
                    "room %s: not held by this node, its changes are not written", state.code
                )
                return False
            first, events = state.take_unsaved()
            if first == 0 and events:
                settings = state.initial_settings.model_dump()
                ops.append(NewRoom(state.code, settings, state.created_at))
            if events:
                ops.append(Events(state.code, state.created_at, first, events))
                snapshot = snapshot_of(state, first, events)
                if snapshot is not None:
                    ops.append(snapshot)
        ops.extend(rounds)
        return await self.write(ops)

    def forget(self, code: str) -> None:
        """Drop a room's journal (queued after its last events); in cluster mode only with the
        room's fence, so that a node that lost the room deletes nothing of its new owner's."""
        tenure = self.epochs.get(code)
        if tenure is not None:
            self.queue(Fence(code, tenure), Forget(code))
        elif self.fencing:
            log.warning("room %s: not held by this node, its journal is not deleted", code)
        else:
            self.queue(Forget(code))

    def rewrite(self, rewrite: Rewrite) -> bool:
        """Queue a room's journal written again (``rebuilt``); in cluster mode only with the
        room's fence. False if it cannot be: the room must then not play on."""
        tenure = self.epochs.get(rewrite.code)
        if tenure is not None:
            self.queue(Fence(rewrite.code, tenure), rewrite)
        elif self.fencing:
            log.warning("room %s: not held by this node, its journal is not written", rewrite.code)
            return False
        else:
            self.queue(rewrite)
        return True

    async def ping(self) -> None:
        """Raise if the database cannot be reached."""
        await self.backend.ping()

    async def restore(self, only: set[str] | None = None) -> list[RoomState]:
        """Every room the journal holds (or those of ``only``), rebuilt from its events. A room
        with writes not yet in the database is not: one held here, a write of its under way,
        or one whose last changes the database refuses, which is left out (``left_out``) until
        the database takes them (``on_accepted``)."""
        states = []
        # Before the read and after it: a write taken while the rooms were read is not in what
        # was read.
        held, refused = self.unsaved_rooms(), dict(self.refused)
        rooms = await self.backend.restore()
        held |= self.unsaved_rooms()
        refused |= self.refused
        found = set()
        for room in rooms:
            if only is not None and room.code not in only:
                continue
            found.add(room.code)
            if room.code in held:
                if room.code in refused:  # its journal is behind what its players saw
                    log.error(
                        "room %s is not restored: the database refuses its last changes (%s)",
                        room.code,
                        refused[room.code],
                    )
                    self.left_out.add(room.code)
                    if room.code not in self.refused and self.on_accepted is not None:
                        self.on_accepted(room.code)  # taken while the rooms were read
                continue
            self.left_out.discard(room.code)
            try:
                settings = RoomSettings.model_validate(room.settings)
                state, rewrite = rebuilt(
                    room.code, settings, room.created_at, room.snapshot, room.events
                )
            except Exception:  # a room that cannot be rebuilt must not stop the others
                log.exception("room %s could not be restored", room.code)
                continue
            if rewrite is not None and not self.rewrite(rewrite):
                continue
            states.append(state)
        # Gone from the journal (forgotten, its players gone, once its writes were taken).
        self.left_out -= (set(self.left_out) if only is None else only) - found
        return states


def rebuilt(
    code: str,
    settings: RoomSettings,
    created_at: int,
    snapshot: Snapshot | None,
    numbered: dict[int, Event],
) -> tuple[RoomState, Rewrite | None]:
    """The room from its journal: its snapshot, if any, then its events in order up to the
    first one missing. When one is missing and later ones are kept (a damaged event log), the
    room is rebuilt up to the gap, and its journal must hold just that before it writes again
    (the ``Rewrite``, under a new creation time): the room numbers its next events from the
    gap, and those after it, of what was lost, would be taken for them."""
    first = 0 if snapshot is None else snapshot.seq
    events: list[Event] = []
    while first + len(events) in numbered:
        events.append(numbered[first + len(events)])
    later = sum(1 for n in numbered if n >= first)  # those before a snapshot are not needed
    rewrite = None
    if len(events) < later:
        log.error(
            "room %s: events after #%d are missing; restored up to there, and its journal "
            "written again from there (%d later events left out)",
            code,
            first + len(events),
            later - len(events),
        )
        # A time of its own, not one after the last: a rewrite lost (a power cut, a backup of
        # the database taken before it and of the event log after) is made again under
        # another, and the events written after the first are left out like the rest.
        created_at = max(created_at + 1, time.time_ns() // 1_000_000)
        rewrite = Rewrite(code, created_at, snapshot, first, events)
    if snapshot is None:
        return RoomState.replay(code, settings, created_at, events), rewrite
    return rebuild(code, settings, created_at, snapshot, events), rewrite
