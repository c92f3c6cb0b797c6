"""The claim a process lays on an SQLite database file: a lock on ``<database>.lock``, held while
the process serves (or restores) the file, and let go by the system if it dies. The file says
which process holds it and what for, so that whoever is refused can be told."""

from __future__ import annotations

import fcntl
import os

from app.storage.journal import DatabaseInUse

SERVING = "served by another server"
RESTORING = "being restored"


class NoLocks(OSError):
    """The file system cannot lock files."""


# Locks taken before the server began (by the start, before it migrated the database), by
# their database's real path: the journal takes each over instead of locking again.
_handed: dict[str, int] = {}


def lock_path(database: str) -> str:
    """The lock file of ``database``: beside the file itself, whatever path names it."""
    return f"{os.path.realpath(database)}.lock"


def hold(database: str, doing: str) -> int:
    """Lock ``<database>.lock`` for this process, which is ``doing`` this with the file; the
    open descriptor (closing it lets go), or the one ``hand_over`` left for it.
    ``DatabaseInUse`` if another process holds it, with what that one does in ``doing``;
    ``NoLocks`` if the file system cannot lock."""
    handed = _handed.pop(os.path.realpath(database), None)
    if handed is not None:
        return handed
    fd = os.open(lock_path(database), os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        said = os.pread(fd, 64, 0).decode(errors="replace").strip()
        os.close(fd)
        holder, _, theirs = said.partition(" ")
        theirs = theirs if theirs in (SERVING, RESTORING) else SERVING
        by = f" (process {holder})" if holder.isdigit() else ""
        raise DatabaseInUse(f"{database} is {theirs}{by}", theirs) from None
    except OSError as error:
        os.close(fd)
        raise NoLocks(error.errno, error.strerror) from None
    try:
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()} {doing}\n".encode(), 0)
    except OSError:
        os.close(fd)
        raise
    return fd


def hold_to_serve(database: str) -> int:
    """``hold`` for a server: refused with what to do, whether another server serves the file
    or a restore is putting a backup in its place."""
    try:
        return hold(database, SERVING)
    except DatabaseInUse as error:
        then = "wait for it to end" if error.doing == RESTORING else "stop it first"
        raise DatabaseInUse(
            f"{error}: {then}, or give this one a database of its own (DATABASE_URL)"
        ) from None


def hand_over(database: str, fd: int) -> None:
    """Leave the lock ``fd`` on ``database`` for the next ``hold`` of it in this process."""
    _handed[os.path.realpath(database)] = fd
