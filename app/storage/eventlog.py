"""Live rooms' events appended to files beside an SQLite database, one write per batch.

Writing an event this way costs one ``write`` system call, where a transaction of the database
costs several and rewrites whole pages; like an SQLite commit in WAL mode with
``synchronous=NORMAL``, the event then survives the server being killed. The files are
segments named by number in a folder beside the database (``spectrum.db-live/00000001.jsonl``);
one line per batch of a room's events, with the room's creation time so that events of a room
that was forgotten (and a later room given the same code) are never taken for another's. A
full segment is closed and a new one begun; closed segments are folded into the database's
``live_room_events`` table in the background and then deleted (see ``backends/sqlite.py``).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterator, Sequence
from pathlib import Path

import orjson

from app.storage.journal import Events

log = logging.getLogger(__name__)

SEGMENT_BYTES = 8 << 20
_SUFFIX = ".jsonl"


def folder_for(database: str) -> Path:
    """The folder of segments that belongs to an SQLite database file."""
    return Path(f"{database}-live")


class EventLog:
    """The segment being written, and the closed ones waiting to be folded."""

    def __init__(self, folder: Path, segment_bytes: int = SEGMENT_BYTES) -> None:
        self.folder = folder
        self.segment_bytes = segment_bytes
        self._fd: int | None = None
        self._path: Path | None = None
        self._size = 0

    def segments(self) -> list[Path]:
        """Every segment on disk, oldest first."""
        if not self.folder.is_dir():
            return []
        return sorted(p for p in self.folder.iterdir() if p.suffix == _SUFFIX and p.stem.isdigit())

    def closed(self) -> list[Path]:
        """Segments no longer written to, oldest first."""
        return [path for path in self.segments() if path != self._path]

    def append(self, batch: Sequence[Events]) -> bool:
        """Write the batch at the end of the open segment (beginning one if there is none).

        Returns True when the segment is full and has been closed. After a failed write the
        segment is closed too, so a line cut short there is never continued by the next one.
        """
        # orjson writes a dataclass as the object of its fields, in their order.
        data = b"".join(orjson.dumps(e, option=orjson.OPT_APPEND_NEWLINE) for e in batch)
        if self._fd is None:
            self._open()
        assert self._fd is not None
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(self._fd, view) :]
        except OSError:
            self.close()
            raise
        self._size += len(data)
        if self._size >= self.segment_bytes:
            self.close()
            return True
        return False

    def _open(self) -> None:
        self.folder.mkdir(mode=0o700, exist_ok=True)
        existing = self.segments()
        number = int(existing[-1].stem) + 1 if existing else 1
        self._path = self.folder / f"{number:08d}{_SUFFIX}"
        self._fd = os.open(self._path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o600)
        self._size = 0

    def close(self) -> None:
        """Close the open segment; the next write begins a new one."""
        fd, self._fd, self._path = self._fd, None, None
        if fd is not None:
            os.close(fd)


def read_segment(path: Path) -> Iterator[Events]:
    """The batches a segment holds; a line that is not whole (cut short when the server was
    killed mid-write, or by a full disk) is skipped."""
    try:
        with path.open("rb") as file:
            for number, line in enumerate(file, 1):
                try:
                    record = orjson.loads(line)
                    yield Events(
                        record["code"], record["created_at"], record["first"], record["events"]
                    )
                except (orjson.JSONDecodeError, KeyError, TypeError):
                    log.warning("skipping an incomplete line %d of %s", number, path)
    except FileNotFoundError:  # folded and deleted meanwhile: the database holds its events
        return
