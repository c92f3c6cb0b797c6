"""Every setting of the server, read from the environment (or a .env file) and checked."""

from __future__ import annotations

from functools import lru_cache
from typing import Annotated, Literal

from pydantic import Field, field_validator, model_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict


class Settings(BaseSettings):
    """Server settings; each field is an environment variable of the same name in capitals."""

    model_config = SettingsConfigDict(env_file=".env", extra="ignore", frozen=True)

    host: str = Field("127.0.0.1", description="Address the server listens on.")
    port: int = Field(8000, ge=1, le=65535, description="Port the server listens on.")
    database_url: str = Field(
        "sqlite+aiosqlite:///./spectrum.db",
        description="Where finished rounds and live rooms are kept: an SQLite file "
        "(sqlite+aiosqlite:///path) or PostgreSQL (postgresql+asyncpg://user:password@host/db).",
    )
    journal_flush_ms: int = Field(
        10,
        ge=0,
        le=1000,
        description="Milliseconds live-room changes are gathered before one database write.",
    )
    public_url: str = Field(
        "",
        description="Base URL players reach the server at, used in share links; "
        "empty means the address the request came to.",
    )
    allowed_origins: Annotated[list[str], NoDecode] = Field(
        default_factory=list,
        description="Comma-separated origins allowed to open WebSockets besides the "
        "server's own; '*' allows any.",
    )
    max_body_bytes: int = Field(
        65536, ge=1024, description="Largest HTTP request body accepted, in bytes."
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
        10.0, gt=0, description="Seconds a new WebSocket has to send its hello."
    )
    ready_seconds: float = Field(
        30.0, gt=0, le=3600, description="Seconds between rounds before the next is dealt anyway."
    )
    room_idle_seconds: float = Field(
        900.0, gt=0, description="Seconds a room with nobody connected is kept in memory."
    )
    max_rooms: int = Field(10_000, ge=1, description="Rooms held in memory at most.")
    rooms_per_address_per_minute: int = Field(
        30, ge=1, description="Rooms one address may create per minute."
    )
    room_misses_per_minute: int = Field(
        30, ge=1, description="Unknown room codes one address may try per minute."
    )
    log_level: Literal["debug", "info", "warning", "error"] = Field(
        "info", description="Least severe log level written."
    )
    log_json: bool = Field(False, description="Write logs as one JSON object a line.")

    @field_validator("allowed_origins", mode="before")
    @classmethod
    def _split_origins(cls, value: object) -> object:
        if isinstance(value, str):
            return [origin.strip().rstrip("/") for origin in value.split(",") if origin.strip()]
        return value

    @field_validator("database_url")
    @classmethod
    def _check_database_url(cls, value: str) -> str:
        if not value.startswith(("sqlite+aiosqlite://", "postgresql+asyncpg://")):
            raise ValueError(
                "DATABASE_URL must start with sqlite+aiosqlite:// or postgresql+asyncpg://"
            )
        return value

    @field_validator("public_url")
    @classmethod
    def _check_public_url(cls, value: str) -> str:
        if value and not value.startswith(("http://", "https://")):
            raise ValueError("PUBLIC_URL must start with http:// or https://")
        return value.rstrip("/")

    @model_validator(mode="after")
    def _check_origins(self) -> Settings:
        for origin in self.allowed_origins:
            if origin != "*" and not origin.startswith(("http://", "https://")):
                raise ValueError(f"ALLOWED_ORIGINS entry {origin!r} must start with http(s)://")
        return self


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    """The settings of this process, read once."""
    return Settings()
