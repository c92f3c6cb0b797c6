"""Every setting of the server, read from the environment (or a .env file) and checked.

Each field is an environment variable of the same name in capitals. docs/configuration.md and
.env.example list them all; a test keeps both in step with this file.
"""

from __future__ import annotations

import io
import logging
import os
import sys
from functools import lru_cache
from pathlib import Path
from typing import Annotated, Literal

from pydantic import (
    Field,
    SecretStr,
    TypeAdapter,
    ValidationError,
    field_validator,
    model_validator,
)
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from app import settings_checks as checks
from app.logs import configure_logging

# The most a count or a rate of the limits may be: far past any server's means (each connection
# is an open file, and the server opens at most 1,048,576).
COUNT_MAX = 1_000_000
# Read from the working folder, besides the environment (whose variables win).
ENV_FILE = ".env"


class Settings(BaseSettings):
    """Server settings."""

    # An empty variable means "not set", so compose files can pass every setting through.
    # No number is infinite or not a number, and each has a bound: past it a value would only
    # fail later, in a request (a burst past what a float holds, a timer set for ever).
    model_config = SettingsConfigDict(
        env_file=ENV_FILE,
        extra="ignore",
        frozen=True,
        env_ignore_empty=True,
        allow_inf_nan=False,
        # A refusal read as pydantic writes it (alembic run by hand, a bare uvicorn) would say
        # a URL back with its password; load_settings says each value back without it.
        hide_input_in_errors=True,
    )

    # Serving.
    host: str = Field(
        "127.0.0.1", description="Address the server listens on: an IP address or a known name."
    )
    port: int = Field(8000, ge=1, le=65535, description="Port the server listens on.")
    public_url: str = Field(
        "",
        description="Base URL players reach the server at, used in share links and QR codes: "
        "a site's root (https://cards.example.org), never a path under it; empty means the "
        "address each request came to.",
    )
    allowed_origins: Annotated[list[str], NoDecode] = Field(
        default_factory=list,
        description="Comma-separated web origins, besides the server's own, whose pages may "
        "open WebSockets; '*' allows any.",
    )
    allowed_hosts: Annotated[list[str], NoDecode] = Field(
        default_factory=list,
        description="Comma-separated host names, besides localhost, IP addresses and the names "
        "in PUBLIC_URL, ALLOWED_ORIGINS and HOST, that requests may name in their Host "
        "header; '.example.org' allows the name and every name under it, '*' allows any.",
    )
    forwarded_allow_ips: str = Field(
        "127.0.0.1",
        description="Comma-separated addresses of proxies trusted to set X-Forwarded-For and "
        "X-Forwarded-Proto; networks such as 172.16.0.0/12 are accepted, anything else is "
        "refused. '*' on its own trusts anyone, "
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
        "database (spectrum.db-outbox), else ./spectrum-outbox. The server refuses to start "
        "if it could not write it; one kept for another database is renamed after it and left.",
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
    request_head_seconds: float = Field(
        20.0,
        ge=1,
        le=300,
        description="Seconds an HTTP request's line and headers may take to arrive (from the "
        "connection, or the answer before), and its body after them; past it the request is "
        "answered 408 and closed. A client that leaves answers unread as long (the "
        "connection's buffer full) has its connection reset.",
    )
    max_message_bytes: int = Field(
        4096,
        ge=1024,
        le=1_048_576,
        description="Largest WebSocket message accepted, in bytes (at least 1,024, so that a "
        "chat line of 200 characters fits in any script).",
    )
    messages_per_second: float = Field(
        20.0,
        gt=0,
        le=COUNT_MAX,
        description="WebSocket messages a connection may send per second on average.",
    )
    message_burst: int = Field(
        40,
        ge=1,
        le=COUNT_MAX,
        description="WebSocket messages a connection may send in a quick burst.",
    )
    connections_per_address: int = Field(
        32, ge=1, le=COUNT_MAX, description="WebSocket connections open at once from one address."
    )
    pending_connections: int = Field(
        1024,
        ge=1,
        le=COUNT_MAX,
        description="WebSocket connections that have not said hello yet, from all addresses "
        "together; past it a new one is closed with 1013 (try again later).",
    )
    pending_connections_per_address: int = Field(
        8,
        ge=1,
        le=COUNT_MAX,
        description="WebSocket connections from one address that have not said hello yet; "
        "past it a new one is closed with 4029.",
    )
    rate_limit_grace: int = Field(
        40,
        ge=1,
        le=COUNT_MAX,
        description="Messages past its rate a connection may send (one more forgiven each "
        "second) before it is closed with 1008.",
    )
    send_queue_frames: int = Field(
        256,
        ge=4,
        le=COUNT_MAX,
        description="Messages queued for a slow client before it is disconnected.",
    )
    send_queue_kb: int = Field(
        1024,
        ge=64,
        le=1 << 20,
        description="Kilobytes of messages queued for a slow client before it is disconnected.",
    )
    hello_seconds: float = Field(
        10.0,
        ge=1,
        le=300,
        description="Seconds a new WebSocket has to send its hello (at least 1: a client over "
        "a slow link needs that long).",
    )
    # At least 1: a client answers each ping with a pong, and past two control frames a second
    # (after a burst) its connection is closed as a flood (app.rooms.inbound).
    heartbeat_seconds: float = Field(
        4.0,
        ge=1,
        le=60,
        description="Seconds between the server's pings on a WebSocket that sends nothing "
        "meanwhile (whatever it sends counts as an answer); a connection that has not "
        "answered within as long again is closed, and its player shown as away.",
    )
    # At least 6: the browser client pings every 5 s; below that its links were closed as dead
    # every few seconds, and its players shown as away and back again.
    client_silence_seconds: float = Field(
        7.0,
        ge=6,
        le=300,
        description="Seconds a client that sends its own pings (the browser client does, "
        "every 5 s) may go without sending anything before its link is taken for dead and "
        "closed (1011).",
    )
    max_rooms: int = Field(10_000, ge=1, le=COUNT_MAX, description="Rooms held in memory at most.")
    rooms_per_address_per_minute: int = Field(
        30, ge=1, le=COUNT_MAX, description="Rooms one address may create per minute."
    )
    room_misses_per_minute: int = Field(
        30, ge=1, le=COUNT_MAX, description="Unknown room codes one address may try per minute."
    )
    api_requests_per_second: float = Field(
        20.0,
        gt=0,
        le=COUNT_MAX,
        description="Requests under /api/ one address may make per second on average; past "
        "it they are answered 429 with Retry-After.",
    )
    api_request_burst: int = Field(
        200,
        ge=1,
        le=COUNT_MAX,
        description="Requests under /api/ one address may make in a quick burst.",
    )

    # Play.
    ready_seconds: float = Field(
        30.0, gt=0, le=3600, description="Seconds between rounds before the next is dealt anyway."
    )
    room_idle_seconds: float = Field(
        900.0,
        ge=1,
        le=30 * 86400,
        description="Seconds a room with nobody connected is kept in memory (at least 1: a room "
        "made, or joined with nobody connected, is closed unless someone connects to it within "
        "that time).",
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
        "0 thinks in the server's own process. Hints are worked out in as many more workers "
        "of their own (none with 0), each started when hints asked at once find no other free, "
        "so that a person asking one never waits behind the bots' turns.",
    )
    standin_seconds: float = Field(
        10.0,
        ge=0,
        le=600,
        description="Seconds a player may be away on their turn before a bot plays it for "
        "them, and between rounds before the next is dealt without waiting for them.",
    )
    host_grace_seconds: float = Field(
        60.0,
        ge=0,
        le=3600,
        description="Seconds the host may be away while the room needs a host (in the lobby, "
        "or once the match is finished) before the role passes to the next player connected.",
    )

    # Operations.
    log_level: Literal["trace", "debug", "info", "warning", "error"] = Field(
        "info",
        description="Least severe log level written; trace adds the server's every message "
        "event, with their contents left out.",
    )
    log_json: bool = Field(False, description="Write logs as one JSON object a line.")
    metrics: bool = Field(True, description="Serve Prometheus metrics at /metrics.")

    # Cluster (several game nodes behind one load balancer; README: "More players than one
    # process"). Without REDIS_URL the server is one node and needs no Redis.
    redis_url: str = Field(
        "",
        description="Redis the nodes of a cluster share (redis://host:6379/0); setting it "
        "switches cluster mode on, which needs PostgreSQL and a NODE_ID. Empty: one node.",
    )
    node_id: str = Field(
        "",
        description="This node's id in the cluster, its own among the nodes: lower-case "
        "letters, digits, '-' and '_', at most 32.",
    )
    node_path: str = Field(
        "",
        description="Path prefix the load balancer sends to this node alone; empty means "
        "/n/NODE_ID. Room sockets are given at this prefix.",
    )
    cluster_name: str = Field(
        "spectrum",
        pattern=checks.NAME_PATTERN,
        description="Name of the cluster, the same on each of its nodes; its keys in Redis "
        "begin with it, so that several clusters can share one Redis (not one database).",
    )
    lease_ms: int = Field(
        5000,
        ge=500,
        le=60_000,
        description="Milliseconds a node's hold on a room lasts unless renewed; a node that "
        "dies gives its rooms up this long after its last renewal.",
    )
    redis_wait_seconds: int = Field(
        60,
        ge=0,
        le=3600,
        description="Seconds a node waits at start for Redis to answer before it gives up.",
    )

    @property
    def ws_max_bytes(self) -> int:
        """The protocol layer's own limit on a WebSocket message, past which it ends the
        connection (1009): twice MAX_MESSAGE_BYTES, so that a message somewhat too large is
        answered ``too_large`` (and takes a token of the rate) while none much larger is read."""
        return 2 * self.max_message_bytes

    @field_validator("allowed_origins", mode="before")
    @classmethod
    def _split_origins(cls, value: object) -> object:
        return checks.split_origins(value)

    @field_validator("allowed_origins")
    @classmethod
    def _check_origins(cls, value: list[str]) -> list[str]:
        return checks.origins(value)

    @field_validator("allowed_hosts", mode="before")
    @classmethod
    def _split_hosts(cls, value: object) -> object:
        return checks.split_hosts(value)

    @field_validator("allowed_hosts")
    @classmethod
    def _check_hosts(cls, value: list[str]) -> list[str]:
        return checks.host_names(value)

    @field_validator("public_url")
    @classmethod
    def _check_public_url(cls, value: str) -> str:
        return checks.public_url(value)

    @field_validator("forwarded_allow_ips")
    @classmethod
    def _check_forwarded_allow_ips(cls, value: str) -> str:
        return checks.forwarded_allow_ips(value)

    @field_validator("host")
    @classmethod
    def _check_host(cls, value: str) -> str:
        return checks.host(value)

    @field_validator("outbox_path")
    @classmethod
    def _check_outbox_path(cls, value: str) -> str:
        checks.no_home(value, "the path")
        return value

    @field_validator("database_url")
    @classmethod
    def _check_database_url(cls, value: str) -> str:
        return checks.database_url(value)

    @model_validator(mode="before")
    @classmethod
    def _trim(cls, data: object) -> object:
        """Spaces around a value are no part of it, and a value of spaces alone is empty: the
        default (a line of a .env file or a compose file easily ends in a space, which would
        otherwise be part of a file's name or a URL). A password is taken as it is written."""
        if not isinstance(data, dict):
            return data
        trimmed: dict[str, object] = {}
        for name, value in data.items():
            if isinstance(value, str) and not checks.is_utf8(value):
                # Bytes of another encoding, as the environment gave them: said to no driver.
                raise ValueError(f"{name.upper()} is not UTF-8 text: write it in UTF-8")
            if isinstance(value, str) and name not in checks.SECRETS:
                value = value.strip()
                if not value:
                    continue
            trimmed[name] = value
        return trimmed

    @model_validator(mode="after")
    def _check_consistency(self) -> Settings:
        checks.consistency(self)
        if self.database_password is not None:
            # The URL everything connects with carries the password, escaped.
            merged = checks.with_password(self.database_url, self.database_password)
            object.__setattr__(self, "database_url", merged)
        return self

    @property
    def cluster(self) -> bool:
        """Whether this server is one node of several (REDIS_URL is set)."""
        return bool(self.redis_url)

    @property
    def node_prefix(self) -> str:
        """The path prefix the load balancer sends to this node alone."""
        return self.node_path or f"/n/{self.node_id}"


def env_file_problem(path: Path) -> str | None:
    """What keeps the .env file from being read whole, if anything: a line that is no setting
    (python-dotenv would pass over it with a warning, and its setting keep its default), a
    name alone without ``=`` (read as no value, its setting's default kept), or text that is
    not UTF-8."""
    if not path.is_file():
        return None
    from dotenv.parser import parse_stream

    where = path.resolve()
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as error:
        line = error.object[: error.start].count(b"\n") + 1
        return (
            f"line {line} of {where} is not UTF-8 text (byte {error.start + 1}): save it as UTF-8"
        )
    except OSError as error:
        return f"cannot read {where}: {error.strerror or error}"
    for binding in parse_stream(io.StringIO(text)):
        if binding.error:
            # Its text is not said back: it may hold a password.
            return (
                f"line {binding.original.line} of {where} is not a setting: write "
                "NAME=value (a quoted value needs its closing quote)"
            )
        if binding.key is not None and binding.value is None:
            # A name alone, without '=': python-dotenv reads it as no value, and the setting
            # it names would keep its default without a word.
            return (
                f"line {binding.original.line} of {where} is a name without a value: write "
                "NAME=value (NAME= alone keeps the default)"
            )
    return None


def json_lines_wanted(dotenv: bool) -> bool:
    """Whether LOG_JSON asks for JSON lines, as the settings would read it (from the
    environment, else from the .env file when it can be read), though other settings are
    refused."""
    given = next((v for k, v in os.environ.items() if k.upper() == "LOG_JSON" and v.strip()), None)
    if given is None and dotenv and Path(ENV_FILE).is_file():
        from dotenv import dotenv_values

        given = dotenv_values(ENV_FILE, encoding="utf-8").get("LOG_JSON")
    try:
        return TypeAdapter(bool).validate_python((given or "").strip() or False)
    except ValidationError:
        return False


def load_settings() -> Settings:
    """The environment's settings, or exit 2 with one line naming every refused setting."""
    problems = []
    unreadable = env_file_problem(Path(ENV_FILE))
    if unreadable is not None:
        problems.append(unreadable)
    else:
        try:
            return Settings()
        except ValidationError as error:
            problems = checks.problems(error)
    configure_logging("info", json_lines=json_lines_wanted(unreadable is None))
    logging.getLogger("app.start").error(
        "cannot start; fix these settings: %s", "; ".join(problems)
    )
    sys.exit(2)


def misspelt_settings() -> list[tuple[str, str]]:
    """Variables of the environment or of the .env file (read once :func:`load_settings` has
    found it readable) that this server does not read but whose names are so close to a
    setting's that they are likely meant for it, each with that setting's name
    (``HEARTBEAT_SECOND``, ``HEARTBEAT_SECONDS``): a setting misspelt is otherwise left at its
    default without a word."""
    import difflib

    names = [name.upper() for name in Settings.model_fields]
    given = set(os.environ)
    if Path(ENV_FILE).is_file():
        from dotenv import dotenv_values

        given |= set(dotenv_values(ENV_FILE, encoding="utf-8"))
    found = []
    for name in sorted(given):
        if name.upper() in names:
            continue
        close = difflib.get_close_matches(name.upper(), names, n=1, cutoff=0.85)
        if close:
            found.append((name, close[0]))
    return found


def warn_of_misspelt_settings() -> None:
    """Log a warning for each variable :func:`misspelt_settings` finds."""
    for name, meant in misspelt_settings():
        logging.getLogger("app.start").warning(
            "%s is not a setting of this server and is ignored; did you mean %s?", name, meant
        )


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    """The settings of this process, read once."""
    return Settings()
