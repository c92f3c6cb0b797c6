"""Journal operations the database did not take before a stop, kept in a local file.

At a stop the writer waits for the database a few seconds; what it still holds then is written
here, flushed to the disk (``fsync``) and renamed into place, so that the file is whole or
absent. The next start writes these operations to the database before it restores any room,
then deletes the file. The file is read only by the server that wrote it (the same code), so
the operations are kept as ``pickle`` does.
"""

from __future__ import annotations

import contextlib
import os
import pickle
from pathlib import Path

from sqlalchemy.engine import URL

from app.storage.journal import Op


def outbox_for(database: URL) -> Path:
    """Where the outbox is kept by default: beside an SQLite file, else in the working folder."""
    if database.get_backend_name() == "sqlite" and database.database:
        return Path(f"{database.database}-outbox")
    return Path("spectrum-outbox")


class Outbox:
    """The file of operations kept at a stop."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def keep(self, ops: list[Op]) -> None:
        """Write the operations to the disk, replacing what the file held (they include it)."""
        temporary = self.path.with_name(self.path.name + ".new")
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with temporary.open("wb") as file:
            pickle.dump(ops, file, protocol=pickle.HIGHEST_PROTOCOL)
            file.flush()
            os.fsync(file.fileno())
        os.replace(temporary, self.path)
        folder = os.open(self.path.parent, os.O_RDONLY)
        try:
            os.fsync(folder)
        finally:
            os.close(folder)

    def read(self) -> list[Op]:
        """The operations kept, oldest first (none if there is no file)."""
        try:
            with self.path.open("rb") as file:
                ops: list[Op] = pickle.load(file)  # noqa: S301 (written by this server)
        except FileNotFoundError:
            return []
        return ops

    def clear(self) -> None:
        """The operations are in the database: delete the file."""
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()
