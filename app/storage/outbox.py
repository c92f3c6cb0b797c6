"""Journal operations the database did not take before a stop, kept in a local file.

At a stop the writer waits for the database a few seconds; what it still holds then is written
here, flushed to the disk (``fsync``) and renamed into place, so that the file is whole or
absent. The next start writes these operations to the database before it restores any room,
then deletes the file. The file is read only by the server that wrote it (the same code), so
the operations are kept as ``pickle`` does, with the name of the database they are for: a
server on another database started from the same folder (PostgreSQL's outbox is in the working
folder by default) moves the file aside rather than write another database's rooms into its
own.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import re
from pathlib import Path

from sqlalchemy.engine import URL

from app.storage.journal import Op


def outbox_for(database: URL) -> Path:
    """Where the outbox is kept by default: beside an SQLite file, else in the working folder."""
    if database.get_backend_name() == "sqlite" and database.database:
        return Path(f"{database.database}-outbox")
    return Path("spectrum-outbox")


def database_name(database: URL) -> str:
    """The name an outbox gives the database it is for: the database's own name (an SQLite
    file's name), which stays the same when its host is reached another way."""
    return Path(database.database or "").name


class ForeignOutbox(Exception):
    """The outbox holds another database's operations."""

    def __init__(self, database: str) -> None:
        super().__init__(database)
        self.database = database


class Outbox:
    """The file of operations kept at a stop, for the database named ``database`` (empty:
    any; a file of an earlier version, with no name, is taken by any database)."""

    def __init__(self, path: Path, database: str = "") -> None:
        self.path = path
        self.database = database

    def keep(self, ops: list[Op]) -> None:
        """Write the operations to the disk, replacing what the file held (they include it)."""
        temporary = self.path.with_name(self.path.name + ".new")
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with temporary.open("wb") as file:
            kept = {"database": self.database, "ops": ops}
            pickle.dump(kept, file, protocol=pickle.HIGHEST_PROTOCOL)
            file.flush()
            os.fsync(file.fileno())
        os.replace(temporary, self.path)
        folder = os.open(self.path.parent, os.O_RDONLY)
        try:
            os.fsync(folder)
        finally:
            os.close(folder)

    def read(self) -> list[Op]:
        """The operations kept, oldest first (none if there is no file); ``ForeignOutbox`` if
        they are another database's."""
        try:
            with self.path.open("rb") as file:
                kept = pickle.load(file)  # noqa: S301 (written by this server)
        except FileNotFoundError:
            return []
        if isinstance(kept, list):  # an earlier version's file
            return kept
        if kept["database"] and self.database and kept["database"] != self.database:
            raise ForeignOutbox(kept["database"])
        ops: list[Op] = kept["ops"]
        return ops

    def move_aside(self, database: str) -> Path:
        """Rename the file after the database it is for (never over another file); the new
        path."""
        tidy = re.sub(r"[^A-Za-z0-9_.-]", "_", database) or "database"
        for number in range(1, 1000):
            suffix = f".{tidy}" if number == 1 else f".{tidy}-{number}"
            aside = self.path.with_name(self.path.name + suffix)
            if not aside.exists():
                os.rename(self.path, aside)
                return aside
        raise FileExistsError(f"no free name beside {self.path}")

    def clear(self) -> None:
        """The operations are in the database: delete the file."""
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()
