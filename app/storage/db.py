"""Database engines and sessions for SQLite (the default) and PostgreSQL.

Every wait on the database is bounded: SQLite's busy timeout; with PostgreSQL, given
``timeout_seconds``, a connect timeout and a command timeout in the driver, the server's own
statement and idle-in-transaction timeouts, and TCP keepalive both ways, so that a database
that stops answering becomes an error within seconds instead of a wait without end.
"""

from __future__ import annotations

import socket
from typing import Any

import orjson
from sqlalchemy import event
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import AsyncEngine, async_sessionmaker, create_async_engine

# The files SQLite keeps beside a database, by what follows the database's own name.
SQLITE_JOURNALS = ("-wal", "-shm", "-journal")
# The size a writer cuts SQLite's log back to when it starts the log over. The log holds what
# came since the last checkpoint (a few MB under rooms playing on); after a spike (a long event
# log folded at once, a restore) it would otherwise keep the spike's size on disk for good.
SQLITE_LOG_BYTES = 16 << 20
SQLITE_LOG_LIMIT = f"journal_size_limit={SQLITE_LOG_BYTES}"


def json_text(value: Any) -> str:
    """``value`` as JSON text, as every JSON column stores it."""
    return orjson.dumps(value).decode()


def is_sqlite(url: str) -> bool:
    """Whether ``url`` names an SQLite database."""
    return make_url(url).get_backend_name() == "sqlite"


def make_engine(
    url: str, timeout_seconds: float | None = None, name: str | None = None, **options: Any
) -> AsyncEngine:
    """An async engine for ``url``; SQLite gets WAL, foreign keys and a busy timeout;
    PostgreSQL, with ``timeout_seconds``, the timeouts above (migrations run without them),
    and with ``name`` that application name on its connections."""
    if is_sqlite(url):
        engine = create_async_engine(
            url, json_serializer=json_text, json_deserializer=orjson.loads, **options
        )

        @event.listens_for(engine.sync_engine, "connect")
        def _pragmas(connection: Any, record: Any) -> None:
            cursor = connection.cursor()
            cursor.execute("PRAGMA journal_mode=WAL")
            cursor.execute("PRAGMA synchronous=NORMAL")
            cursor.execute("PRAGMA foreign_keys=ON")
            cursor.execute("PRAGMA busy_timeout=5000")
            cursor.execute(f"PRAGMA {SQLITE_LOG_LIMIT}")
            cursor.close()

        return engine
    if timeout_seconds is not None:
        options["connect_args"] = postgres_timeouts(timeout_seconds)
    if name is not None:
        connect_args = options.setdefault("connect_args", {})
        connect_args.setdefault("server_settings", {})["application_name"] = name
    engine = create_async_engine(
        url,
        json_serializer=json_text,
        json_deserializer=orjson.loads,
        pool_pre_ping=True,
        **options,
    )
    if timeout_seconds is not None:
        event.listen(engine.sync_engine, "connect", _keepalive)
    return engine


def postgres_timeouts(seconds: float) -> dict[str, Any]:
    """asyncpg's connect arguments that bound every wait to about ``seconds``."""
    milliseconds = str(int(seconds * 1000))
    return {
        "timeout": seconds,
        "command_timeout": seconds,
        "server_settings": {
            "statement_timeout": milliseconds,
            "idle_in_transaction_session_timeout": str(int(seconds * 2000)),
            "tcp_keepalives_idle": "5",
            "tcp_keepalives_interval": "2",
            "tcp_keepalives_count": "3",
        },
    }


KEEPALIVE = (("TCP_KEEPIDLE", 5), ("TCP_KEEPINTVL", 2), ("TCP_KEEPCNT", 3))


def _keepalive(connection: Any, record: Any) -> None:
    """Probe an idle connection from our side too: a peer gone silent is noticed."""
    transport = connection.driver_connection._transport  # asyncpg keeps no public handle
    sock = transport.get_extra_info("socket") if transport is not None else None
    if sock is None or sock.family not in (socket.AF_INET, socket.AF_INET6):
        return
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)
    for name, value in KEEPALIVE:
        if hasattr(socket, name):
            sock.setsockopt(socket.IPPROTO_TCP, getattr(socket, name), value)


def make_sessions(engine: AsyncEngine) -> async_sessionmaker[Any]:
    """Sessions that keep loaded objects usable after commit."""
    return async_sessionmaker(engine, expire_on_commit=False)
