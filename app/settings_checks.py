"""What makes the server's settings refusable: each value's checks, the checks of settings
taken together, and the problems of refused settings named by environment variable."""

from __future__ import annotations

import ipaddress
import re
import socket
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from pydantic import SecretStr, ValidationError
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError

if TYPE_CHECKING:
    from app.config import Settings

DATABASE_SCHEMES = ("sqlite+aiosqlite://", "postgresql+asyncpg://")
# The options a PostgreSQL DATABASE_URL may have after '?': SQLAlchemy hands each to
# asyncpg.connect() as a keyword of that name (and prepared_statement_cache_size to itself).
# libpq's names that asyncpg does not share (sslmode, connect_timeout, application_name) would
# fail every connection.
ASYNCPG_OPTIONS = frozenset(
    {
        "host",
        "port",
        "user",
        "password",
        "passfile",
        "service",
        "servicefile",
        "database",
        "timeout",
        "statement_cache_size",
        "max_cached_statement_lifetime",
        "max_cacheable_statement_size",
        "command_timeout",
        "ssl",
        "direct_tls",
        "server_settings",
        "target_session_attrs",
        "krbsrvname",
        "gsslib",
        "prepared_statement_cache_size",
    }
)
SSL_MODES = ("disable", "allow", "prefer", "require", "verify-ca", "verify-full")
# A node's id and a cluster's name: they are parts of paths and of Redis keys.
NAME_PATTERN = r"^[a-z0-9][a-z0-9_-]{0,31}$"


def split_origins(value: object) -> object:
    """ALLOWED_ORIGINS as a list: comma-separated, blanks and trailing slashes dropped."""
    if isinstance(value, str):
        return [origin.strip().rstrip("/") for origin in value.split(",") if origin.strip()]
    return value


def origins(value: list[str]) -> list[str]:
    """Each an origin such as https://example.org, or '*'."""
    for origin in value:
        if origin != "*" and not origin.startswith(("http://", "https://")):
            raise ValueError(f"{origin!r} is not an origin such as https://example.org")
    return value


def split_hosts(value: object) -> object:
    """ALLOWED_HOSTS as a list: comma-separated, lower-cased, blanks dropped."""
    if isinstance(value, str):
        return [name.strip().lower() for name in value.split(",") if name.strip()]
    return value


HOST_NAME = re.compile(
    r"^\.?(?:[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?\.)*[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?$"
)


def host_names(value: list[str]) -> list[str]:
    """Each a host name (cards.example.org), a domain and its names (.example.org), or '*';
    never a port, a scheme or a path."""
    for name in value:
        if name != "*" and not HOST_NAME.fullmatch(name):
            raise ValueError(
                f"{name!r} is not a host name such as cards.example.org or .example.org "
                "(no scheme, port or path)"
            )
    return value


def public_url(value: str) -> str:
    """Empty, or an http(s) URL of a site's root (the client is served from ``/``), without
    its trailing slash."""
    if value and not value.startswith(("http://", "https://")):
        raise ValueError("must start with http:// or https://")
    parts = urlsplit(value)
    if value and not parts.hostname:
        raise ValueError("names no host")
    if parts.path.strip("/") or parts.query or parts.fragment:
        raise ValueError(
            "must be the site's root, such as https://cards.example.org: the server cannot "
            "be served under a path (give it a host name of its own)"
        )
    return value.rstrip("/")


def forwarded_allow_ips(value: str) -> str:
    """'*' alone, or comma-separated addresses and networks (127.0.0.1, 172.16.0.0/12, ::1),
    each as uvicorn reads it: a network with host bits set (10.0.0.5/24) would trust nobody."""
    items = [part.strip() for part in value.split(",") if part.strip()]
    if items == ["*"]:
        return value
    for item in items:
        if item == "*":
            raise ValueError("'*' trusts anyone only on its own, not in a list")
        try:
            ipaddress.ip_network(item)
        except ValueError:
            raise ValueError(
                f"{item!r} is not an address or a network such as 172.16.0.0/12"
            ) from None
    return value


def host(value: str) -> str:
    """An address to listen on: an IP address, or a name this machine can resolve."""
    try:
        ipaddress.ip_address(value)
    except ValueError:
        try:
            socket.getaddrinfo(value, None)
        except (OSError, UnicodeError):
            raise ValueError(
                f"{value!r} is neither an IP address nor a name this machine knows"
            ) from None
    return value


def database_url(value: str) -> str:
    """An SQLite file or a PostgreSQL database, through their asynchronous drivers."""
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
    if url.get_backend_name() == "postgresql":
        asyncpg_options(dict(url.query))
    return value


def asyncpg_options(options: dict[str, str | tuple[str, ...]]) -> None:
    """A PostgreSQL URL's options are asyncpg's, not libpq's."""
    modes = "|".join(SSL_MODES)
    for name, given in options.items():
        if name == "sslmode":
            raise ValueError(
                f"asyncpg takes no sslmode (libpq's name): write ssl= instead, ssl={modes}"
            )
        if name not in ASYNCPG_OPTIONS:
            raise ValueError(
                f"{name} is not an option asyncpg takes (the options after '?' go to "
                "asyncpg.connect(), whose names are not all libpq's): remove it"
            )
        if name == "ssl" and given not in SSL_MODES:
            raise ValueError(f"ssl must be one of {modes}")


def with_password(url: str, password: SecretStr) -> str:
    """The PostgreSQL URL with DATABASE_PASSWORD in it, escaped."""
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":
        raise ValueError("DATABASE_PASSWORD is for PostgreSQL; an SQLite file has none")
    merged = parsed.set(password=password.get_secret_value())
    return merged.render_as_string(hide_password=False)


def consistency(settings: Settings) -> None:
    """Settings that are each valid but cannot go together."""
    if settings.message_burst < settings.messages_per_second:
        raise ValueError(
            "MESSAGE_BURST must be at least MESSAGES_PER_SECOND, or a connection could "
            "never send its allowed rate"
        )
    cluster(settings)
    if settings.journal_flush_ms >= settings.shutdown_grace_seconds * 1000:
        raise ValueError("JOURNAL_FLUSH_MS must be shorter than SHUTDOWN_GRACE_SECONDS")


def cluster(settings: Settings) -> None:
    """Cluster mode (REDIS_URL set) needs PostgreSQL and a NODE_ID; one node needs neither."""
    if not settings.redis_url:
        if settings.node_id:
            raise ValueError("NODE_ID is for cluster mode: set REDIS_URL too, or unset it")
        return
    if not settings.redis_url.startswith(("redis://", "rediss://", "unix://")):
        raise ValueError("REDIS_URL must start with redis://, rediss:// or unix://")
    if make_url(settings.database_url).get_backend_name() != "postgresql":
        raise ValueError(
            "cluster mode (REDIS_URL set) needs PostgreSQL, which every node shares: an "
            "SQLite file belongs to one process. Set DATABASE_URL to "
            "postgresql+asyncpg://user@host/db"
        )
    if not settings.node_id:
        raise ValueError(
            "cluster mode (REDIS_URL set) needs NODE_ID, this node's own id, such as node-1"
        )
    if not re.fullmatch(NAME_PATTERN, settings.node_id):
        raise ValueError(
            f"NODE_ID {settings.node_id!r} must be 1 to 32 lower-case letters, digits, '-' or "
            "'_', starting with a letter or digit"
        )
    if settings.node_path and not re.fullmatch(r"(/[A-Za-z0-9._~-]+)+", settings.node_path):
        raise ValueError("NODE_PATH must be a path such as /n/node-1, without a trailing /")


# A URL's password (scheme://user:password@host), hidden wherever a refused value is said back.
URL_PASSWORD = re.compile(r"(://[^/@:\s]*:)[^/\s]*@")
# Settings whose values are never said back.
SECRETS = {"database_password"}


def problems(error: ValidationError) -> list[str]:
    """The problems of refused settings, one line each, named by environment variable; the
    values said back never with a password (logs are read by more people than the settings)."""
    lines = []
    for item in error.errors(include_url=False):
        name = ".".join(str(part) for part in item["loc"]).upper() or "settings"
        message = str(item["msg"]).removeprefix("Value error, ")
        if item["loc"] and "input" in item and item["loc"][0] not in SECRETS:
            said = URL_PASSWORD.sub(r"\1***@", repr(item["input"]))
            message += f" (got {said})"
        lines.append(f"{name}: {message}")
    return lines
