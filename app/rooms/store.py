"""What rooms need from storage, so that the room code does not depend on a database."""

from __future__ import annotations

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

    async def save_events(self, state: RoomState) -> None:
        """Make the room's unsaved events durable (waiting a bounded time for it)."""

    async def save_round(self, finished: FinishedRound) -> None:
        """Write a finished round into the history, or keep it to retry until it is."""

    def forget(self, code: str) -> None:
        """The room is gone from memory: drop what was kept to restore it."""


class NullStore:
    """Keeps nothing: rooms live and die with the process."""

    async def save_events(self, state: RoomState) -> None:
        """Drop the events."""
        state.take_unsaved()

    async def save_round(self, finished: FinishedRound) -> None:
        """Drop the round."""

    def forget(self, code: str) -> None:
        """Nothing to forget."""
