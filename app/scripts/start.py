"""Start the server: check the settings, wait for the database, migrate it if needed, serve.

Run: python -m app.scripts.start   (the container's entry point, and `make run`'s)

Every way it can fail ends in one log line that says what is wrong and how to fix it, and a
non-zero exit: 2 for refused settings, 1 for a database that cannot be used. It never changes a
database it does not understand (one migrated by a newer version is left as it is).
"""

from __future__ import annotations

import gc

# No collection while the start imports: what importing makes lives as long as the process,
# and the serving process takes up collecting with its own policy (app.collection).
gc.disable()

import asyncio
import contextlib
import errno
import logging
import os
import signal
import socket
import sys
import time
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import TypeVar

from sqlalchemy import text
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import AsyncEngine

from app.config import Settings, load_settings, warn_of_misspelt_settings
from app.logs import configure_logging
from app.settings_checks import hide_password
from app.storage.db import SQLITE_JOURNALS, is_sqlite, make_engine
from app.storage.eventlog import EventLog, folder_for
from app.storage.filelock import NoLocks, hand_over, hold_to_serve, lock_path
from app.storage.journal import DatabaseInUse
from app.storage.migrations import (
    MIGRATIONS,
    current_revision,
    head_revision,
    known_revisions,
    newer_than_known,
)
from app.storage.outbox import outbox_for
from app.storage.private import keep_files_private, make_private

log = logging.getLogger("app.start")

# Seconds one connection attempt may take, so a host that drops packets is retried in time.
ATTEMPT_SECONDS = 5.0
# PostgreSQL's settings the database's upkeep needs: autovacuum reclaims deleted rows and
# refreshes the planner's statistics, from the counts track_counts keeps. Both are on by default.
UPKEEP = ("autovacuum", "track_counts")
UPKEEP_QUERY = "SELECT " + ", ".join(f"current_setting('{name}', true)" for name in UPKEEP)
# SQLite's primary result codes: another connection holds the file, which waiting cures;
# the disk is full.
_SQLITE_BUSY = {5, 6}
_SQLITE_FULL = 13
# An extended code: SQLite could not grow the -shm file, which a full disk causes.
_SQLITE_IOERR_SHMSIZE = 4874
# SQLSTATE codes that waiting will not cure.
_FINAL_STATES = {
    "28P01": "the database refused the password for user {user}; if POSTGRES_PASSWORD was "
    "changed after the database was first created, the database still has the old one "
    "(README: 'Changing the database password')",
    "28000": "the database refused user {user}; check the user name in DATABASE_URL",
    "3D000": "the database {database} does not exist; create it or fix DATABASE_URL",
}


class Unusable(Exception):
    """The database cannot be used; the message says why and what to do."""


class Stopped(BaseException):
    """SIGTERM or SIGINT arrived before the server was serving (not an error to retry)."""


@dataclass(frozen=True)
class Target:
    """Where the database is, said without its password."""

    url: str
    where: str
    user: str
    database: str

    @classmethod
    def of(cls, url: str) -> Target:
        parsed = make_url(url)
        return cls(
            url,
            hide_password(parsed.render_as_string(hide_password=True)),
            parsed.username or "",
            parsed.database or "",
        )


def _causes(error: BaseException) -> Iterator[BaseException]:
    """An error and its causes: what the driver raised, under SQLAlchemy's wrapping."""
    seen: BaseException | None = error
    while seen is not None:
        yield seen
        seen = seen.__cause__ or getattr(seen, "orig", None)


def _sqlstate(error: BaseException) -> str | None:
    """The SQLSTATE of a database error, wherever it sits in the chain of causes."""
    for seen in _causes(error):
        state = getattr(seen, "sqlstate", None) or getattr(seen, "pgcode", None)
        if isinstance(state, str):
            return state
    return None


def _sqlite_code(error: BaseException) -> int | None:
    """SQLite's primary result code for an error of SQLite's own; None for any other."""
    code = getattr(error, "sqlite_errorcode", None)
    return code & 0xFF if isinstance(code, int) else None


def _no_space(folder: Path) -> str:
    return f"no space left on the file system holding {folder}: free disk space there"


def _final(error: BaseException, target: Target) -> str | None:
    """What to say of an error that waiting will not cure; None for one that may pass (a
    database not up yet: refused connections, timeouts, a name not resolvable yet, a server
    still starting up, an SQLite file another connection holds)."""
    state = _sqlstate(error)
    if state in _FINAL_STATES:
        said = _FINAL_STATES[state].format(user=target.user, database=target.database)
        return f"{said} ({target.where})"
    for seen in _causes(error):
        if isinstance(seen, ConnectionError) and "rejected SSL upgrade" in str(seen):
            # asyncpg's words for a server that answers its TLS request neither yes nor no
            # (another program, not PostgreSQL), or no when TLS is required.
            asked = make_url(target.url).query.get("ssl") or os.environ.get("PGSSLMODE", "")
            if str(asked).replace("_", "-") in ("require", "verify-ca", "verify-full"):
                return (
                    f"the database at {target.where} takes no TLS, which ssl= in DATABASE_URL "
                    "asks for: turn TLS on in PostgreSQL, or write ssl=prefer (TLS when the "
                    "server offers it) or ssl=disable"
                )
            return (
                f"what answers at {target.where} is not PostgreSQL: check DATABASE_URL's "
                "host and port"
            )
        code = _sqlite_code(seen)
        if code is not None:
            if code in _SQLITE_BUSY:
                return None
            path = Path(target.database).resolve()
            if code == _SQLITE_FULL:
                return f"cannot write the SQLite database at {path} ({_reason(seen)}); " + (
                    _no_space(path.parent)
                )
            if getattr(seen, "sqlite_errorcode", None) == _SQLITE_IOERR_SHMSIZE:
                return (
                    f"cannot write the SQLite database at {path} ({_reason(seen)} growing "
                    f"{path.name}-shm, as when its file system is full); free disk space on "
                    f"the file system holding {path.parent}"
                )
            return f"cannot use the SQLite database at {path}: {_reason(seen)}"
        if isinstance(seen, TypeError | ValueError):
            # Raised before any connection: the driver refused what DATABASE_URL gave it.
            said = f"the database driver cannot use DATABASE_URL ({_reason(seen)}): fix it"
            if is_sqlite(target.url):
                return f"{said} ({target.where})"
            return (
                f"{said} ({target.where}); its options after '?' go to asyncpg as they are, "
                "so fix or remove them (ssl=require, not libpq's sslmode=require)"
            )
    return None


def _reason(error: BaseException) -> str:
    """An error's own words on one line, or its class when it has none."""
    text = " ".join(str(error).split())
    return text or error.__class__.__name__


def check_sqlite_file(url: str, made: list[Path] | None = None) -> None:
    """Refuse an SQLite database whose file or folder the server cannot write, or one of the
    files an earlier run left beside it that the server cannot read and write: SQLite's -wal
    and -shm, the lock (``<database>.lock``), the event log of live rooms (a folder of
    segments). Rooms could not be saved then, nor those of the last run restored. The
    folders made for the database are added to ``made``."""
    database = make_url(url).database or ""
    path = Path(database).expanduser().resolve()
    uid = os.getuid()
    hint = (
        "mount a writable volume there (the image keeps its database in /srv/spectrum/data) "
        "or point DATABASE_URL at a folder this user can write"
    )
    check_writable(path, (path.parent, path), "the SQLite database", hint, made=made)
    if path.exists() and not path.is_file():
        kind = "a folder" if path.is_dir() else "no regular file (a device, a pipe or a socket)"
        raise Unusable(
            f"DATABASE_URL names {path}, which is {kind}: name the SQLite database's file, "
            "as in sqlite+aiosqlite:///./spectrum.db"
        )
    beside = (
        path.with_name(f"{path.name}-wal"),
        path.with_name(f"{path.name}-shm"),
        _lock(database),
    )
    keep = (
        f"make the files beside it readable and writable by uid {uid} (chown), and keep "
        "them: the -wal file holds the database's latest changes"
    )
    check_writable(path, beside, "the SQLite database", keep, os.R_OK)
    live = folder_for(database).resolve()
    if not live.exists():
        return  # made when the first room is saved, in the folder just checked
    keep = (
        f"make the folder and every file in it readable and writable by uid {uid} "
        "(chown -R), and keep them: they hold live rooms' latest moves, which the database "
        "may not have yet"
    )
    if not live.is_dir():
        raise Unusable(f"the event log of live rooms at {live} is not a folder; {keep}")
    segments = tuple(EventLog(live).segments())
    check_writable(live, (live, *segments), "the event log of live rooms", keep, os.R_OK)


def check_outbox(settings: Settings, made: list[Path] | None = None) -> Path:
    """Refuse an outbox (OUTBOX_PATH) the server could not write at a stop: the changes the
    database has not taken would be lost then. Returns its path."""
    chosen = settings.outbox_path
    path = (Path(chosen) if chosen else outbox_for(make_url(settings.database_url))).resolve()
    hint = "set OUTBOX_PATH to a file in a folder this user can write (a volume in a container)"
    # The file is written beside itself and renamed into place: the folder is what counts.
    check_writable(path, (path.parent,), "the outbox", hint, made=made)
    if path.is_dir():
        raise Unusable(f"the outbox at {path} is a folder; {hint}")
    # One there already holds what the last run's database did not take: it is read first.
    keep = (
        f"make it readable and writable by uid {os.getuid()} (chown), and keep it: it holds "
        "changes the database did not take before the last stop"
    )
    check_writable(path, (path,), "the outbox", keep, os.R_OK)
    return path


def check_writable(
    path: Path,
    places: tuple[Path, ...],
    what: str,
    hint: str,
    also: int = 0,
    made: list[Path] | None = None,
) -> None:
    """Refuse ``what`` at ``path`` when its folder cannot be made or one of ``places`` that
    exists cannot be written by this user (a folder: written in; ``also``: further access
    ``os.access`` is asked for, such as ``os.R_OK``). The folders made are added to ``made``,
    outermost first."""
    folder = path.parent
    missing = [place for place in (folder, *folder.parents) if not place.exists()]
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise Unusable(
            f"cannot create the folder {folder} for {what}: {error.strerror}; {hint}"
        ) from None
    finally:
        if made is not None:
            made.extend(place for place in reversed(missing) if place.is_dir())
    for place in places:
        if not place.exists():
            continue
        needed = os.W_OK | also | (os.X_OK if place.is_dir() else 0)
        if not os.access(place, needed):
            why = "read-only file system" if _read_only(place) else "permission denied"
            raise Unusable(
                f"cannot write {what} at {path} ({why} for uid {os.getuid()} on {place}); {hint}"
            )


def _read_only(place: Path) -> bool:
    return bool(os.statvfs(place).f_flag & os.ST_RDONLY)


async def _connect_once(engine: AsyncEngine) -> str | None:
    """The database's migration, after one successful connection."""
    async with asyncio.timeout(ATTEMPT_SECONDS):
        return await current_revision(engine)


async def warn_without_upkeep(engine: AsyncEngine) -> None:
    """On PostgreSQL, say in the log when autovacuum, or the counts it works from, are off. A
    check, never a reason not to start: a server that cannot answer it is left as it is."""
    if engine.dialect.name != "postgresql":
        return
    try:
        async with asyncio.timeout(ATTEMPT_SECONDS), engine.connect() as connection:
            values = (await connection.execute(text(UPKEEP_QUERY))).one()
    except Exception:  # gone again meanwhile: what follows the start says so
        return
    off = [name for name, value in zip(UPKEEP, values, strict=True) if value == "off"]
    if off:
        log.warning(
            "the database runs with %s off: the rows of live rooms' events, deleted as they "
            "are folded, are not reclaimed, and the history's statistics go stale, so its "
            "queries (the leaderboard's first) slow down as it grows; turn %s on (in "
            "postgresql.conf or the provider's parameters, and not off for this database or "
            "user), or run VACUUM ANALYZE often",
            " and ".join(off),
            " and ".join(off),
        )


T = TypeVar("T")


async def wait_until_answered(
    what: str,
    seconds: float,
    attempt: Callable[[], Awaitable[T]],
    passing: type[Exception] | tuple[type[Exception], ...],
    final: Callable[[Exception], str | None],
    advice: str,
) -> T:
    """What ``attempt`` answers, tried again each second through the errors of ``passing``
    (saying once that it waits for ``what``) for up to ``seconds``; Unusable at once with the
    words ``final`` has for an error that waiting cannot cure, or with ``advice`` once the time
    is out. Any other error is raised as it is."""
    deadline = time.monotonic() + seconds
    announced = False
    while True:
        try:
            return await attempt()
        except passing as error:  # not up yet, or refused for good: told apart here
            words = final(error)
            if words is not None:
                raise Unusable(words) from None
            reason = "no answer" if isinstance(error, TimeoutError) else _reason(error)
            if time.monotonic() >= deadline:
                raise Unusable(
                    f"{what} did not answer within {seconds:.0f} s ({reason}); {advice}"
                ) from None
            if not announced:
                log.info("waiting for %s (%s)", what, reason)
                announced = True
            await asyncio.sleep(1)


async def wait_for_database(target: Target, seconds: float) -> str | None:
    """The database's current migration, once it answers; Unusable after ``seconds``."""
    engine = make_engine(target.url)
    try:
        revision = await wait_until_answered(
            f"the database at {target.where}",
            seconds,
            lambda: _connect_once(engine),
            Exception,
            lambda error: _final(error, target),
            "check DATABASE_URL's host and port and that the database is running, or raise "
            "DATABASE_WAIT_SECONDS",
        )
        await warn_without_upkeep(engine)
    finally:
        await engine.dispose()
    log.info("database ready: %s", target.where)
    return revision


def check_revision(revision: str | None, where: str) -> bool:
    """Whether the database needs migrating; Unusable when a newer version migrated it."""
    head = head_revision()
    if revision == head:
        log.info("database at migration %s, the newest: nothing to migrate", head)
        return False
    if revision is not None and revision not in known_revisions():
        raise Unusable(
            newer_than_known(f"the database at {where}", revision) + "has migrated it. Run "
            "that version again, or restore a backup taken before the upgrade; nothing was changed"
        )
    return True


def migrate(url: str) -> None:
    """Bring the database to the newest migration, logging through the server's handler."""
    from alembic import command
    from alembic.config import Config

    config = Config(str(MIGRATIONS.parent / "alembic.ini"))
    config.set_main_option("script_location", str(MIGRATIONS))
    config.attributes["database_url"] = url
    config.attributes["configure_logger"] = False
    # At the server's LOG_LEVEL, as every other logger: alembic's steps are info.
    logging.getLogger("alembic").setLevel(logging.NOTSET)
    try:
        command.upgrade(config, "head")
    except Exception as error:  # any failure of a migration: said once, nothing half-done kept
        said = f"migrating the database failed: {_reason(error)}"
        if any(_sqlite_code(seen) == _SQLITE_FULL for seen in _causes(error)):
            folder = Path(make_url(url).database or "").resolve().parent
            said += f"; {_no_space(folder)}"
        raise Unusable(said) from None
    log.info("database migrated to %s", head_revision())


def _stop(signum: int, _: FrameType | None) -> None:
    raise Stopped(signal.Signals(signum).name)


def check_port_free(settings: Settings) -> None:
    """Refuse a HOST and PORT another program listens on, naming them (the server would
    otherwise start, then stop with the system's words alone). Each address is tried as the
    server binds it: address reuse on, an IPv6 socket for IPv6 alone."""
    try:
        found = socket.getaddrinfo(
            settings.host, settings.port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
        )
        for family, kind, proto, _, address in found:
            with socket.socket(family, kind, proto) as probe:
                probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                if family == socket.AF_INET6:
                    probe.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
                probe.bind(address)
    except OSError as error:
        if error.errno == errno.EADDRINUSE:
            raise Unusable(
                f"PORT {settings.port} on HOST {settings.host} is taken by another program; "
                "stop it, or choose another PORT"
            ) from None
        raise Unusable(
            f"cannot listen on HOST {settings.host}, PORT {settings.port}: "
            f"{error.strerror or error}"
        ) from None


def prepare(settings: Settings) -> None:
    """Make the database ready to serve from, or raise Unusable. A start that does not get
    there (refused, stopped, failed) takes away the files and folders it made."""
    target = Target.of(settings.database_url)
    # What this start makes holds nothing yet (a full disk leaves an empty database file); the
    # journals of a database that was there are SQLite's to keep. The database is judged once
    # the file is this start's: a restore that ended just before is not taken for its making.
    made: list[Path] = []
    try:
        if is_sqlite(target.url):
            check_sqlite_file(target.url, made)
            database, *journals, lock = sqlite_files(target.url)
            if not lock.exists():
                made.append(lock)
            claim_sqlite_file(target.url)
            if not database.exists():
                made += [database, *(path for path in journals if not path.exists())]
            # Those a restore put aside hold the seeds of the rounds they were playing too.
            aside = database.parent.glob(f"{database.name}-replaced-*")
            make_private(database, *journals, folder_for(str(database)), *aside)
        _prepare(settings, target, made)
    except BaseException:
        for path in reversed(made):
            if path.is_dir():
                with contextlib.suppress(OSError):  # kept if anything else is in it now
                    path.rmdir()
            else:
                path.unlink(missing_ok=True)
        raise


def _prepare(settings: Settings, target: Target, made: list[Path]) -> None:
    make_private(check_outbox(settings, made))
    revision = asyncio.run(wait_for_database(target, settings.database_wait_seconds))
    if check_revision(revision, target.where):
        migrate(target.url)


def sqlite_files(url: str) -> tuple[Path, ...]:
    """The SQLite database's file and those a start may make beside it: SQLite's journals,
    the lock."""
    database = make_url(url).database or ""
    path = Path(database).resolve()  # as SQLite opens it, and the lock is named
    return (path, *(path.with_name(path.name + end) for end in SQLITE_JOURNALS), _lock(database))


def _lock(database: str) -> Path:
    return Path(lock_path(database))


def claim_sqlite_file(url: str) -> None:
    """Take the SQLite file for this server before anything is read or migrated (the journal
    keeps the lock for as long as the server runs): ``DatabaseInUse`` if another server, or a
    restore, has it. A second server would otherwise migrate the file under the first."""
    database = make_url(url).database or ""
    try:
        fd = hold_to_serve(database)
    except NoLocks:  # the journal says what is at stake as it starts
        return
    except OSError as error:
        lock = _lock(database)
        if error.errno == errno.ENOSPC:
            raise Unusable(
                f"cannot write the lock {lock} for the SQLite database ({error.strerror}); "
                + _no_space(lock.parent)
            ) from None
        raise Unusable(
            f"cannot write the lock {lock} for the SQLite database: {error.strerror or error}"
        ) from None
    hand_over(database, fd)


async def check_cluster_alone(settings: Settings) -> None:
    """No node of another cluster (another CLUSTER_NAME) uses the database: each cluster
    keeps its leases under its own name in Redis, so such a node would see this cluster's
    rooms as held by nobody and claim them from under their players."""
    from sqlalchemy.exc import SQLAlchemyError

    from app.cluster.epochs import other_clusters

    where = Target.of(settings.database_url).where
    engine = make_engine(settings.database_url, settings.database_timeout_seconds)
    try:
        others = await other_clusters(engine, settings.cluster_name)
    except (OSError, SQLAlchemyError) as error:  # it answered a moment ago
        raise Unusable(
            f"the database at {where} stopped answering ({_reason(error)}); start again once "
            "it answers"
        ) from None
    finally:
        await engine.dispose()
    if others:
        names = ", ".join(others)
        raise Unusable(
            f"nodes of another cluster (CLUSTER_NAME {names}) use the database at {where}: "
            "give this node the same CLUSTER_NAME as theirs, or a database of its own (it is "
            f"{settings.cluster_name})"
        )


async def check_node_free(settings: Settings) -> None:
    """In cluster mode: Redis answers (waited for up to REDIS_WAIT_SECONDS) and no other
    running node holds this NODE_ID, nor does another cluster use the database."""
    from redis.exceptions import (
        AuthenticationError,
        ClusterDownError,
        NoPermissionError,
        RedisError,
        ResponseError,
        TryAgainError,
    )

    from app.cluster.nodes import eviction_policy, node_id_holder

    where = hide_password(settings.redis_url)

    def refused(error: Exception) -> str | None:
        """It answered, and said no (a password, a database number); None: not up yet, or
        there but not serving yet: a script still running (BUSY), a replica cut off from its
        primary (MASTERDOWN), a slot moving (TRYAGAIN), which waiting cures as it cures no
        answer (a Redis still loading its data is a connection error already)."""
        if not isinstance(error, AuthenticationError | ResponseError) or isinstance(
            error, ClusterDownError | TryAgainError
        ):
            return None
        reason = _reason(error)
        if reason.startswith("BUSY "):
            return None
        if isinstance(error, AuthenticationError):
            hint = "check REDIS_URL's user name and password"
        elif isinstance(error, NoPermissionError):
            hint = "give REDIS_URL's user the rights to every command and key (+@all ~*)"
        elif "DB index" in reason:
            hint = "check REDIS_URL's database number"
        elif reason.startswith("WRONGTYPE"):
            hint = "another program uses this cluster's keys: set another CLUSTER_NAME"
        else:
            hint = "check that REDIS_URL names a Redis server"
        return f"Redis at {where} refused this server ({reason}); {hint}"

    holder = await wait_until_answered(
        f"Redis at {where}",
        settings.redis_wait_seconds,
        lambda: node_id_holder(settings, patience=2 * settings.lease_ms / 1000),
        (RedisError, OSError),
        refused,
        "cluster mode needs it to start. Check REDIS_URL and that Redis is running, or raise "
        "REDIS_WAIT_SECONDS",
    )
    log.info("Redis ready: %s", where)
    if holder is not None:
        raise Unusable(
            f"node id {settings.node_id!r} is in use by another running node (at {holder}); "
            "give every node its own NODE_ID"
        )
    await check_cluster_alone(settings)
    # It answered a moment ago: this is only a warning, which nothing it says stops.
    with contextlib.suppress(RedisError, OSError, ValueError, TypeError):
        policy = await eviction_policy(settings)
        if policy is not None:
            log.warning(
                "Redis at %s may drop keys when its memory is full (maxmemory-policy %s): a room "
                "whose lease it drops can move to another node mid-match. Set maxmemory-policy "
                "noeviction, or give the cluster a Redis of its own",
                where,
                policy,
            )


def main() -> None:
    """Start, or exit with one line saying why not."""
    keep_files_private()
    settings = load_settings()
    configure_logging(
        settings.log_level, settings.log_json, settings.node_id if settings.cluster else ""
    )
    warn_of_misspelt_settings()
    # As the container's first process nothing would stop it before the server's own handlers.
    previous = {sig: signal.signal(sig, _stop) for sig in (signal.SIGTERM, signal.SIGINT)}
    try:
        check_port_free(settings)
        prepare(settings)
        if settings.cluster:
            asyncio.run(check_node_free(settings))
    except Unusable as problem:
        log.error("cannot start: %s", problem)
        sys.exit(1)
    except DatabaseInUse as problem:
        log.error("cannot start: %s", problem)
        sys.exit(3)
    except Stopped as stop:
        log.info("stopped by %s before serving", stop)
        sys.exit(0)
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)

    from app.__main__ import serve

    serve(settings)


if __name__ == "__main__":
    main()
