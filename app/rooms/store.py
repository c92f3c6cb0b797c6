"""What rooms need from storage, so that the room code does not depend on a database."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from app.engine.match import RoundResult
from app.rooms.state import RoomState


@dataclass(frozen=True, slots=True)
class FinishedRound:
    """A round to write into the match history, with what the history needs of its match."""

    match_id: str
    room_code: str
    settings: dict[str, Any]
    started_at: int
    names: tuple[str, ...]
    result: RoundResult
    ended_at: int
    final: bool
    places: tuple[int, ...]


class RoomStore(Protocol):
    """Where rooms keep their events and finished rounds."""

    async def save(self, state: RoomState | None, rounds: Sequence[FinishedRound] = ()) -> None:
        """Make the room's unsaved events and these finished rounds durable, together (waiting
        a bounded time); what cannot be written yet is kept and retried."""

    def forget(self, code: str) -> None:
        """The room is gone from memory: drop what was kept to restore it."""


class NullStore:
    """Keeps nothing: rooms live and die with the process."""

    async def save(self, state: RoomState | None, rounds: Sequence[FinishedRound] = ()) -> None:
        """Drop the events and rounds."""
        if state is not None:
            state.take_unsaved()

    def forget(self, code: str) -> None:
        """Nothing to forget."""
