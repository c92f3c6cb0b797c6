"""Database engines and sessions for SQLite (the default) and PostgreSQL."""

from __future__ import annotations

from typing import Any

import orjson
from sqlalchemy import event
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import AsyncEngine, async_sessionmaker, create_async_engine


def json_text(value: Any) -> str:
    """``value`` as JSON text, as every JSON column stores it."""
    return orjson.dumps(value).decode()


def is_sqlite(url: str) -> bool:
    """Whether ``url`` names an SQLite database."""
    return make_url(url).get_backend_name() == "sqlite"


def make_engine(url: str, **options: Any) -> AsyncEngine:
    """An async engine for ``url``; SQLite gets WAL, foreign keys and a busy timeout."""
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
            cursor.close()

        return engine
    return create_async_engine(
        url,
        json_serializer=json_text,
        json_deserializer=orjson.loads,
        pool_pre_ping=True,
        **options,
    )


def make_sessions(engine: AsyncEngine) -> async_sessionmaker[Any]:
    """Sessions that keep loaded objects usable after commit."""
    return async_sessionmaker(engine, expire_on_commit=False)
