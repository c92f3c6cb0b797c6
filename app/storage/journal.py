"""What the live-room journal writes and reads, and the interface every database behind it offers.

Rooms' changes reach the journal as operations (a new room, a room's numbered events, a room to
forget, a snapshot of a room that compacts its events, a room's journal written again after it
lost events, a finished round), gathered into a ``Batch`` that a backend writes as one unit.
Every operation can be written again after a failure without harm: rows are keyed, events
numbered.
The backend is chosen from the database URL's scheme, and imported only when chosen.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from sqlalchemy.ext.asyncio import AsyncEngine

from app.rooms.state import Event
from app.rooms.store import FinishedRound


@dataclass(slots=True)
class NewRoom:
    """A room's first write: its code, first settings and creation time."""

    code: str
    settings: dict[str, Any]
    created_at: int


@dataclass(slots=True)
class Events:
    """Events of a room (created at ``created_at``), numbered from ``first``."""

    code: str
    created_at: int
    first: int
    events: list[Event]


@dataclass(slots=True)
class Forget:
    """The room is gone: delete what was kept of it."""

    code: str


@dataclass(slots=True)
class Snapshot:
    """A room as it stood before its event ``seq`` (the start of its current match): the
    events before it are no longer needed to rebuild the room."""

    code: str
    seq: int
    state: dict[str, Any]


@dataclass(slots=True)
class Rewrite:
    """A room whose journal lost events (a damaged event log): what is left of it before the
    first one missing (its snapshot, if any, and the events numbered from ``first``) replaces
    all it held, under a new ``created_at``. Events written before under the old one, those
    after the gap among them, are left out from then on: the room numbers its next events
    from the gap again."""

    code: str
    created_at: int
    snapshot: Snapshot | None
    first: int
    events: list[Event]


@dataclass(slots=True)
class Tenure:
    """A node's hold on a room: the epoch its writes carry, raised in place when the node
    claims the room again while holding it (after Redis forgot the lease)."""

    epoch: int


@dataclass(slots=True)
class Fence:
    """What follows for the room is written by its owner at the tenure's epoch (read when
    written): refused (``Fenced``) when the database holds a newer epoch for the room."""

    code: str
    tenure: Tenure


class Fenced(Exception):
    """A write was refused: the database holds a newer epoch for these rooms than the epochs
    the write carried (``epochs``, by room)."""

    def __init__(self, codes: set[str], epochs: dict[str, int]) -> None:
        super().__init__(f"a newer owner holds {', '.join(sorted(codes))}")
        self.codes = codes
        self.epochs = epochs


def refused_for_its_data(error: BaseException) -> bool:
    """Whether the database turned a write down for what it holds: an error with a SQLSTATE of
    class 22 (bad data) or 23 (a broken constraint)."""
    return str(getattr(error, "sqlstate", ""))[:2] in {"22", "23"}


Op = NewRoom | Events | Forget | Snapshot | Rewrite | FinishedRound | Fence


# A write hands the backend one object rather than a list, so that what a write must carry
# besides its operations (the epoch of a room's owner, for one) is added here and checked by the
# backends without changing their interface.
@dataclass(slots=True)
class Batch:
    """Operations written together, in order, all or none."""

    ops: list[Op] = field(default_factory=list)


@dataclass(slots=True)
class JournalRoom:
    """A room as the journal holds it: first settings, creation time, events by number, and
    its latest snapshot (the events before the snapshot's ``seq`` may be gone)."""

    code: str
    settings: dict[str, Any]
    created_at: int
    events: dict[int, Event] = field(default_factory=dict)
    snapshot: Snapshot | None = None


class JournalBackend(Protocol):
    """A database the journal is kept in."""

    # Whether ``write`` completes without suspending (in the caller's thread), so that a
    # write is cheaper done at once than handed to the writer task.
    inline: bool
    # How many batches ``write`` may be given at once (one connection each).
    lanes: int

    async def write(self, batch: Batch) -> None:
        """Make the batch durable as one unit, or raise (the batch can be written again)."""

    async def restore(self) -> list[JournalRoom]:
        """Every room kept, with the events written for it."""

    def take(self) -> None:
        """Take the database for this process, before anything is read or written: raise
        ``DatabaseInUse`` if it is a file another process serves."""

    async def ping(self) -> None:
        """Raise if the database cannot be reached."""

    async def close(self) -> None:
        """Finish background work and let go of connections."""


class DatabaseInUse(RuntimeError):
    """Another process is serving the database file (or restoring it: ``doing``)."""

    def __init__(self, message: str, doing: str = "") -> None:
        super().__init__(message)
        self.doing = doing


def open_backend(engine: AsyncEngine, segment_bytes: int) -> JournalBackend:
    """The backend for ``engine``'s database, by the scheme of its URL."""
    scheme = engine.url.get_backend_name()
    if scheme == "sqlite":
        from app.storage.backends.sqlite import SqliteJournal

        return SqliteJournal(engine, segment_bytes)
    if scheme == "postgresql":
        from app.storage.backends.postgresql import PostgresJournal

        return PostgresJournal(engine)
    raise ValueError(f"no journal for {scheme!r} databases")
