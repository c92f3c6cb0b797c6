"""What rooms need from storage (so that the room code does not depend on a database), and
which finished rounds are still to be written to the history."""

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
    # Per seat: the level of a computer player (None for a person), and the hash of a person's
    # player key ("" without one). Empty when not known: every seat is then a person without one.
    bots: tuple[str | None, ...] = ()
    key_hashes: tuple[str, ...] = ()


class RoomStore(Protocol):
    """Where rooms keep their events and finished rounds."""

    async def save(self, state: RoomState | None, rounds: Sequence[FinishedRound] = ()) -> bool:
        """Make the room's unsaved events and these finished rounds durable, together; True
        once they are, False if not within a bounded wait (they are kept, in order, and
        retried)."""

    async def saved(self, room: str | None = None) -> None:
        """Wait, however long it takes, until everything handed to ``save`` (for ``room`` alone,
        if given) is durable."""

    def forget(self, code: str) -> None:
        """The room is gone from memory: drop what was kept to restore it."""


class NullStore:
    """Keeps nothing: rooms live and die with the process."""

    async def save(self, state: RoomState | None, rounds: Sequence[FinishedRound] = ()) -> bool:
        """Drop the events and rounds."""
        if state is not None:
            state.take_unsaved()
        return True

    async def saved(self, room: str | None = None) -> None:
        """Nothing is ever waiting."""

    def forget(self, code: str) -> None:
        """Nothing to forget."""


class RoundLedger:
    """Which of the current match's finished rounds were already handed to the history."""

    __slots__ = ("match_id", "written")

    def __init__(self, state: RoomState) -> None:
        self.match_id = state.match_id
        self.written = len(state.match.results) if state.match else 0

    def rewrite(self, state: RoomState) -> None:
        """Hand the current match's rounds over again after a restart, a finished match's too:
        with SQLite a round is committed after the events that ended it reach the event log,
        so a server stopped between the two comes back with a round the history lacks. A round
        is stored once, and a match keeps the end time it was first stored with."""
        self.written = 0

    def take(self, state: RoomState, now: int) -> list[FinishedRound]:
        """Rounds finished since the last call, as the history keeps them."""
        match = state.match
        if match is None:
            return []
        start = self.written if self.match_id == state.match_id else 0
        if len(match.results) == start:
            return []
        self.match_id, self.written = state.match_id, len(match.results)
        names = tuple(seat.name for seat in state.seats)
        bots = tuple(seat.bot for seat in state.seats)
        key_hashes = tuple(seat.key_hash for seat in state.seats)
        places = tuple(match.places())
        return [
            FinishedRound(
                match_id=state.match_id or "",
                room_code=state.code,
                settings=state.settings.model_dump(),
                started_at=state.match_started_at or now,
                names=names,
                result=result,
                ended_at=now,
                final=match.finished and result is match.results[-1],
                places=places,
                bots=bots,
                key_hashes=key_hashes,
            )
            for result in match.results[start:]
        ]
