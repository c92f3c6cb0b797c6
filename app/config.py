"""Every setting of the server, read from the environment (or a .env file) and checked.

Each field is an environment variable of the same name in capitals. docs/configuration.md and
.env.example list them all; a test keeps both in step with this file.
"""

from __future__ import annotations

import logging
import os
import sys
from functools import lru_cache
from typing import Annotated, Literal

from pydantic import Field, SecretStr, ValidationError, field_validator, model_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError

from app.logs import configure_logging

DATABASE_SCHEMES = ("sqlite+aiosqlite://", "postgresql+asyncpg://")


class Settings(BaseSettings):
    """Server settings."""

    # An empty variable means "not set", so compose files can pass every setting through.
    model_config = SettingsConfigDict(
        env_file=".env", extra="ignore", frozen=True, env_ignore_empty=True
    )

    # Serving.
    host: str = Field("127.0.0.1", description="Address the server listens on.")
    port: int = Field(8000, ge=1, le=65535, description="Port the server listens on.")
    public_url: str = Field(
        "",
        description="Base URL players reach the server at, used in share links and QR codes; "
        "empty means the address each request came to.",
    )
    allowed_origins: Annotated[list[str], NoDecode] = Field(
        default_factory=list,
        description="Comma-separated web origins, besides the server's own, whose pages may "
        "open WebSockets; '*' allows any.",
    )
    forwarded_allow_ips: str = Field(
        "127.0.0.1",
        description="Comma-separated addresses of proxies trusted to set X-Forwarded-For and "
        "X-Forwarded-Proto; networks such as 172.16.0.0/12 are accepted. '*' trusts anyone, "
        "so any client could choose its own address: only behind a proxy that is the sole way in.",
    )
    shutdown_grace_seconds: int = Field(
        10, ge=1, le=600, description="Seconds given to open connections when stopping."
    )

    # Storage.
    database_url: str = Field(
        "sqlite+aiosqlite:///./spectrum.db",
        description="Where rounds, history and live rooms are kept: an SQLite file "
        "(sqlite+aiosqlite:///path) or PostgreSQL (postgresql+asyncpg://user:password@host/db).",
    )
    database_password: SecretStr | None = Field(
        None,
        description="Password for the database in DATABASE_URL, if it is not written there; "
        "any characters, no escaping needed.",
    )
    database_wait_seconds: int = Field(
        60,
        ge=0,
        le=3600,
        description="Seconds the server waits for the database at start before it gives up.",
    )
    event_log_segment_kb: int = Field(
        8192,
        ge=64,
        le=1048576,
        description="With SQLite: kilobytes of live-room events appended to a segment of the "
        "event log beside the database before a new segment is begun and the full one moved "
        "into the database.",
    )
    database_timeout_seconds: float = Field(
        5.0,
        ge=0.5,
        le=120,
        description="Seconds any one database command, connection or journal write may take "
        "before it counts as failed (with PostgreSQL also the server's statement timeout).",
    )
    outbox_path: str = Field(
        "",
        description="File where live-room changes the database has not taken are kept when the "
        "server stops, and written first at the next start; empty means beside an SQLite "
        "database (spectrum.db-outbox), else ./spectrum-outbox.",
    )
    journal_flush_ms: int = Field(
        0,
        ge=0,
        le=1000,
        description="Least milliseconds between two database writes of live-room changes; "
        "what comes meanwhile goes into the next write. At 0 a write starts as soon as the "
        "previous one is done.",
    )

    # Limits.
    max_body_bytes: int = Field(
        65536, ge=1024, le=16_777_216, description="Largest HTTP request body accepted, in bytes."
    )
    max_message_bytes: int = Field(
        4096, ge=256, le=1_048_576, description="Largest WebSocket message accepted, in bytes."
    )
    messages_per_second: float = Field(
        20.0, gt=0, description="WebSocket messages a connection may send per second on average."
    )
    message_burst: int = Field(
        40, ge=1, description="WebSocket messages a connection may send in a quick burst."
    )
    connections_per_address: int = Field(
        32, ge=1, description="WebSocket connections open at once from one address."
    )
    send_queue_frames: int = Field(
        256, ge=4, description="Messages queued for a slow client before it is disconnected."
    )
    hello_seconds: float = Field(
        10.0, gt=0, le=300, description="Seconds a new WebSocket has to send its hello."
    )
    heartbeat_seconds: float = Field(
        4.0,
        gt=0,
        le=60,
        description="Seconds between the server's pings on each WebSocket; a connection that "
        "has not answered within as long again is closed, and its player shown as away.",
    )
    max_rooms: int = Field(10_000, ge=1, description="Rooms held in memory at most.")
    rooms_per_address_per_minute: int = Field(
        30, ge=1, description="Rooms one address may create per minute."
    )
    room_misses_per_minute: int = Field(
        30, ge=1, description="Unknown room codes one address may try per minute."
    )

    # Play.
    ready_seconds: float = Field(
        30.0, gt=0, le=3600, description="Seconds between rounds before the next is dealt anyway."
    )
    room_idle_seconds: float = Field(
        900.0, gt=0, description="Seconds a room with nobody connected is kept in memory."
    )
    bot_delay_seconds: float = Field(
        1.0,
        ge=0,
        le=30,
        description="Seconds a bot, or a bot standing in for an absent player, waits before "
        "playing, so that people can follow its moves.",
    )
    bot_workers: int = Field(
        1,
        ge=0,
        le=16,
        description="Worker processes bots think in, so the server never waits on them; "
        "0 thinks in the server's own process.",
    )
    standin_seconds: float = Field(
        10.0,
        ge=0,
        le=600,
        description="Seconds a player may be away on their turn before a bot plays it for them.",
    )

    # Operations.
    log_level: Literal["debug", "info", "warning", "error"] = Field(
        "info", description="Least severe log level written."
    )
    log_json: bool = Field(False, description="Write logs as one JSON object a line.")
    metrics: bool = Field(True, description="Serve Prometheus metrics at /metrics.")

    @field_validator("allowed_origins", mode="before")
    @classmethod
    def _split_origins(cls, value: object) -> object:
        if isinstance(value, str):
            return [origin.strip().rstrip("/") for origin in value.split(",") if origin.strip()]
        return value

    @field_validator("allowed_origins")
    @classmethod
    def _check_origins(cls, value: list[str]) -> list[str]:
        for origin in value:
            if origin != "*" and not origin.startswith(("http://", "https://")):
                raise ValueError(f"{origin!r} is not an origin such as https://example.org")
        return value

    @field_validator("public_url")
    @classmethod
    def _check_public_url(cls, value: str) -> str:
        if value and not value.startswith(("http://", "https://")):
            raise ValueError("must start with http:// or https://")
        return value.rstrip("/")

    @field_validator("database_url")
    @classmethod
    def _check_database_url(cls, value: str) -> str:
        if not value.startswith(DATABASE_SCHEMES):
            raise ValueError(f"must start with {' or '.join(DATABASE_SCHEMES)}")
        try:
            url = make_url(value)
        except (ArgumentError, ValueError):
            raise ValueError("is not a database URL") from None
        if url.get_backend_name() == "sqlite" and (
            url.database in (None, "", ":memory:") or "mode=memory" in value
        ):
            raise ValueError(
                "an in-memory SQLite database loses every round when the server stops; "
                "name a file, as in sqlite+aiosqlite:///./spectrum.db"
            )
        return value

    @model_validator(mode="after")
    def _check_consistency(self) -> Settings:
        if self.message_burst < self.messages_per_second:
            raise ValueError(
                "MESSAGE_BURST must be at least MESSAGES_PER_SECOND, or a connection could "
                "never send its allowed rate"
            )
        if self.journal_flush_ms >= self.shutdown_grace_seconds * 1000:
            raise ValueError("JOURNAL_FLUSH_MS must be shorter than SHUTDOWN_GRACE_SECONDS")
        if self.database_password is not None:
            url = make_url(self.database_url)
            if url.get_backend_name() == "sqlite":
                raise ValueError("DATABASE_PASSWORD is for PostgreSQL; an SQLite file has none")
            password = self.database_password.get_secret_value()
            # The URL everything connects with carries the password, escaped.
            merged = url.set(password=password).render_as_string(hide_password=False)
            object.__setattr__(self, "database_url", merged)
        return self


def settings_problems(error: ValidationError) -> list[str]:
    """The problems of refused settings, one line each, named by environment variable."""
    lines = []
    for item in error.errors(include_url=False):
        name = ".".join(str(part) for part in item["loc"]).upper() or "settings"
        message = str(item["msg"]).removeprefix("Value error, ")
        if item["loc"] and "input" in item:
            message += f" (got {item['input']!r})"
        lines.append(f"{name}: {message}")
    return lines


def load_settings() -> Settings:
    """The environment's settings, or exit 2 with one line naming every refused setting."""
    try:
        return Settings()
    except ValidationError as error:
        wanted = os.environ.get("LOG_JSON", "").strip().lower() in ("1", "true", "yes", "on")
        configure_logging("info", json_lines=wanted)
        logging.getLogger("app.start").error(
            "cannot start; fix these settings: %s", "; ".join(settings_problems(error))
        )
        sys.exit(2)


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    """The settings of this process, read once."""
    return Settings()
