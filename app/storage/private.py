"""The server's files are its user's alone.

The database, the event log of live rooms beside it, the outbox and a backup hold the seed of
every round being played, from which the whole deck's order follows: another account of the
machine that could read them would see every hand. Whatever the server and its scripts make is
made readable and writable by their own user alone, and the files an earlier version made
readable by others are made private at the start.
"""

from __future__ import annotations

import contextlib
import os
import stat
from pathlib import Path

# The permissions taken away: the group's and everyone else's.
OTHERS = 0o077


def keep_files_private() -> None:
    """Whatever this process makes from now on, its user alone may read and write."""
    os.umask(os.umask(OTHERS) | OTHERS)


def make_private(*paths: Path) -> None:
    """Take the group's and others' permissions off ``paths`` this user owns, and off what a
    folder among them holds; a link, or a path missing or owned by another user, is left as
    it is (SQLite's journals take their database's permissions when they are made again)."""
    for path in paths:
        try:
            status = path.lstat()
        except OSError:
            continue
        if status.st_uid != os.geteuid() or stat.S_ISLNK(status.st_mode):
            continue
        mode = stat.S_IMODE(status.st_mode)
        if mode & OTHERS:
            with contextlib.suppress(OSError):
                os.chmod(path, mode & ~OTHERS)
        if stat.S_ISDIR(status.st_mode):
            with contextlib.suppress(OSError):
                make_private(*path.iterdir())
