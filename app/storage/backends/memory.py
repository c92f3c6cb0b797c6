"""The journal kept in this process's memory: for tests of what sits above a backend."""

from __future__ import annotations

from app.rooms.store import FinishedRound
from app.storage.journal import (
    Batch,
    Events,
    Fence,
    Forget,
    JournalRoom,
    NewRoom,
    Rewrite,
    Snapshot,
)


class MemoryJournal:
    """Rooms, their events and finished rounds in dictionaries, kept as a database keeps them."""

    inline = False
    lanes = 1

    def __init__(self) -> None:
        self.rooms: dict[str, JournalRoom] = {}
        self.rounds: dict[tuple[str, int], FinishedRound] = {}
        self.batches: list[Batch] = []

    async def write(self, batch: Batch) -> None:
        """Apply the batch; like the databases', writing it again changes nothing."""
        for op in batch.ops:
            if isinstance(op, NewRoom):
                self.rooms.setdefault(op.code, JournalRoom(op.code, op.settings, op.created_at))
            elif isinstance(op, Events):
                room = self.rooms.get(op.code)
                if room is not None and room.created_at == op.created_at:
                    for n, event in enumerate(op.events):
                        room.events.setdefault(op.first + n, event)
            elif isinstance(op, Snapshot):
                room = self.rooms.get(op.code)
                if room is not None and (room.snapshot is None or room.snapshot.seq < op.seq):
                    room.snapshot = op
                    room.events = {n: e for n, e in room.events.items() if n >= op.seq}
            elif isinstance(op, Forget):
                self.rooms.pop(op.code, None)
            elif isinstance(op, Rewrite):
                room = self.rooms.get(op.code)
                if room is not None:
                    room.created_at, room.snapshot = op.created_at, op.snapshot
                    room.events = {op.first + n: event for n, event in enumerate(op.events)}
            elif isinstance(op, Fence):
                continue  # one process: no other owner to fence out
            else:
                self.rounds.setdefault((op.match_id, op.result.number), op)
        self.batches.append(batch)

    async def restore(self) -> list[JournalRoom]:
        """Copies of the rooms kept."""
        return [
            JournalRoom(room.code, room.settings, room.created_at, dict(room.events), room.snapshot)
            for room in self.rooms.values()
        ]

    def take(self) -> None:
        """Nothing to take: the journal is this process's own."""

    async def ping(self) -> None:
        """Always reachable."""

    async def close(self) -> None:
        """Nothing to let go of."""
