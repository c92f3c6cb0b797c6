"""What makes the server's settings refusable: each value's checks, the checks of settings
taken together, and the problems of refused settings named by environment variable."""

from __future__ import annotations

import ipaddress
import re
import socket
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import parse_qs, urlsplit

from pydantic import SecretStr, ValidationError
from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import ArgumentError

from app.storage.db import SQLITE_JOURNALS

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


def is_utf8(value: str) -> bool:
    """Whether ``value`` is text (the environment gives other bytes as lone surrogates)."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def split_origins(value: object) -> object:
    """ALLOWED_ORIGINS as a list: comma-separated, blanks and trailing slashes dropped."""
    if isinstance(value, str):
        return [origin.strip().rstrip("/") for origin in value.split(",") if origin.strip()]
    return value


def origins(value: list[str]) -> list[str]:
    """Each an origin such as https://example.org (a scheme, a host and maybe a port, as a
    browser says its page's origin), or '*'."""
    for origin in value:
        if origin == "*":
            continue
        if not origin.startswith(("http://", "https://")):
            raise ValueError(f"{origin!r} is not an origin such as https://example.org")
        problem = site_problem(origin)
        parts = urlsplit(origin)
        if problem is None and parts.path:
            problem = "an origin has no path"
        # A '?' or '#' with nothing after it is no query or fragment to urlsplit, but an
        # origin so written matches no browser's.
        if problem is None and ("?" in origin or "#" in origin):
            problem = "an origin has no query (?…) or fragment (#…)"
        if problem is not None:
            raise ValueError(f"{origin!r} is not an origin such as https://example.org: {problem}")
    return value


def site_problem(url: str) -> str | None:
    """What is wrong with an http(s) URL's host and port, if anything: a host that is no host
    name or IP address, a port that is no port from 1 to 65535, a user or a password."""
    parts = urlsplit(url)
    try:
        port = parts.port
    except ValueError:
        port = 0
    if port is not None and not 1 <= port <= 65535:
        return "its port must be a number from 1 to 65535"
    if parts.username is not None or parts.password is not None:
        return "it names a user: give the host alone"
    hostname = parts.hostname or ""
    if not hostname:
        return "it names no host"
    try:
        ipaddress.ip_address(hostname)
    except ValueError:
        try:
            ascii_name = hostname.rstrip(".").encode("idna").decode("ascii")
        except UnicodeError:
            ascii_name = ""
        if hostname.startswith(".") or not HOST_NAME.fullmatch(ascii_name):
            return f"{hostname!r} is not a host name or an IP address"
        if ascii_name != hostname.rstrip("."):
            # Browsers name it so in the Host and Origin headers, which are compared with it.
            return f"write the name {hostname!r} as browsers send it: {ascii_name}"
    return None


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
    problem = site_problem(value) if value else None
    if problem is not None:
        raise ValueError(f"must be a site's address, such as https://cards.example.org: {problem}")
    if parts.path.strip("/"):
        raise ValueError(
            "must be the site's root, such as https://cards.example.org: the server cannot "
            "be served under a path (give it a host name of its own)"
        )
    if "?" in value or "#" in value:  # with nothing after it, no query to urlsplit
        raise ValueError(
            "must be the site's root, such as https://cards.example.org: a query (?…) or a "
            "fragment (#…) has no place in it (share links add the room's path after it)"
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
            meant = socket.inet_ntoa(socket.inet_aton(value))
        except OSError:
            pass
        else:
            # The system reads '0' as 0.0.0.0 (every address), '127.1' as 127.0.0.1.
            raise ValueError(
                f"{value!r} is no IP address as written, though the system would take it for "
                f"{meant}: write {meant} if that is meant"
            ) from None
        try:
            socket.getaddrinfo(value, None)
        except (OSError, UnicodeError):
            raise ValueError(
                f"{value!r} is neither an IP address nor a name this machine knows"
            ) from None
    return value


def database_url(value: str) -> str:
    """An SQLite file or a PostgreSQL database, through their asynchronous drivers, with
    nothing the driver would refuse (or take otherwise than meant) once the server connects."""
    if not value.startswith(DATABASE_SCHEMES):
        raise ValueError(f"must start with {' or '.join(DATABASE_SCHEMES)}")
    try:
        url = make_url(value)
        port = url.port
    except (ArgumentError, ValueError):
        raise ValueError("is not a database URL") from None
    if url.get_backend_name() == "sqlite":
        sqlite_url(url, value)
    else:
        if port is not None and not 1 <= port <= 65535:
            raise ValueError(f"port {port} is not a port: give one from 1 to 65535")
        if not url.database and "database" not in url.query:
            raise ValueError(
                "names no database: end it with the database's name, as in "
                "postgresql+asyncpg://user@host/spectrum (without one the user's own "
                "database would be taken, and its tables made there)"
            )
        asyncpg_options(dict(url.query))
    try:
        # What the driver is given, as the engine will work it out: a value it cannot read
        # (a port that is no number, hosts without their ports) is refused here.
        url.get_dialect()().create_connect_args(url)
    except (ArgumentError, ValueError) as error:
        said = " ".join(str(error).split("\n")[0].split())
        raise ValueError(f"is not a URL the database driver can use ({said})") from None
    return value


SQLITE_FORM = "sqlite+aiosqlite:///relative/path.db or sqlite+aiosqlite:////absolute/path.db"


def sqlite_url(url: URL, value: str) -> None:
    """A file of its own, named by its path alone: no host, and no options after '?' (the
    server sets SQLite's own: WAL, foreign keys, a busy timeout)."""
    if url.database in (None, "", ":memory:") or "mode=memory" in value:
        raise ValueError(
            "an in-memory SQLite database loses every round when the server stops; "
            "name a file, as in sqlite+aiosqlite:///./spectrum.db"
        )
    if url.host or url.username or url.password or url.port:
        raise ValueError(f"an SQLite URL names a file, not a host: write {SQLITE_FORM}")
    no_home(url.database or "", "the SQLite file's path")
    if url.query:
        names = ", ".join(sorted(url.query))
        raise ValueError(
            f"an SQLite URL takes no options after '?' ({names} given); the server sets "
            f"SQLite's own: remove them, as in {SQLITE_FORM}"
        )


# asyncpg's options the server gives asyncpg itself, in place of any a URL gives: what sets them.
SERVER_SET_OPTIONS = {
    "timeout": "DATABASE_TIMEOUT_SECONDS sets it",
    "command_timeout": "DATABASE_TIMEOUT_SECONDS sets it",
    "server_settings": "the server sets its own (statement_timeout from DATABASE_TIMEOUT_SECONDS)",
}
# asyncpg's options that it takes only as numbers, never as the text a URL gives: each would
# fail every connection.
UNUSABLE_OPTIONS = frozenset(
    {"statement_cache_size", "max_cached_statement_lifetime", "max_cacheable_statement_size"}
)
SESSION_ATTRIBUTES = ("any", "primary", "standby", "prefer-standby", "read-write", "read-only")
GSS_LIBRARIES = ("gssapi", "sspi")


def asyncpg_options(options: dict[str, str | tuple[str, ...]]) -> None:
    """A PostgreSQL URL's options are asyncpg's, not libpq's, each with a value asyncpg takes
    as text."""
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
        if name in SERVER_SET_OPTIONS:
            raise ValueError(
                f"{name} is given to asyncpg by the server, which would pass this one over: "
                f"remove it; {SERVER_SET_OPTIONS[name]}"
            )
        if name in UNUSABLE_OPTIONS:
            raise ValueError(
                f"asyncpg cannot take {name} from a URL (it wants a number, and a URL gives "
                "text): remove it"
            )
        if isinstance(given, tuple) and name not in ("host", "port"):
            raise ValueError(f"{name} is given more than once: give it once")
        if name == "ssl" and given not in SSL_MODES:
            raise ValueError(f"ssl must be one of {modes}")
        if name == "direct_tls" and (
            given != "true" or options.get("ssl") not in ("require", "verify-ca", "verify-full")
        ):
            raise ValueError(
                "direct_tls must be true, with ssl=require, verify-ca or verify-full "
                "(asyncpg takes any other text as true too): otherwise remove it"
            )
        if name == "target_session_attrs" and given not in SESSION_ATTRIBUTES:
            raise ValueError(f"target_session_attrs must be one of {'|'.join(SESSION_ATTRIBUTES)}")
        if name == "gsslib" and given not in GSS_LIBRARIES:
            raise ValueError(f"gsslib must be one of {'|'.join(GSS_LIBRARIES)}")
        if name == "prepared_statement_cache_size" and not (
            isinstance(given, str) and given.isascii() and given.isdigit()
        ):
            raise ValueError("prepared_statement_cache_size must be a whole number, 0 or more")


def with_password(url: str, password: SecretStr) -> str:
    """The PostgreSQL URL with DATABASE_PASSWORD in it, escaped."""
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":
        raise ValueError("DATABASE_PASSWORD is for PostgreSQL; an SQLite file has none")
    if parsed.password is not None:
        # One of the two would be used unsaid.
        raise ValueError(
            "DATABASE_URL has a password and DATABASE_PASSWORD is set too: give it in one place"
        )
    merged = parsed.set(password=password.get_secret_value())
    return merged.render_as_string(hide_password=False)


def consistency(settings: Settings) -> None:
    """Settings that are each valid but cannot go together."""
    if settings.message_burst < settings.messages_per_second:
        raise ValueError(
            "MESSAGE_BURST must be at least MESSAGES_PER_SECOND, or a connection could "
            "never send its allowed rate"
        )
    if settings.api_request_burst < settings.api_requests_per_second:
        raise ValueError(
            "API_REQUEST_BURST must be at least API_REQUESTS_PER_SECOND, or an address could "
            "never make its allowed rate"
        )
    cluster(settings)
    if settings.journal_flush_ms >= settings.shutdown_grace_seconds * 1000:
        raise ValueError("JOURNAL_FLUSH_MS must be shorter than SHUTDOWN_GRACE_SECONDS")
    outbox_apart(settings)


# An SQLite database's own file and those beside it: SQLite's journals, the server's lock.
SQLITE_BESIDE = ("", *SQLITE_JOURNALS, ".lock")


def outbox_apart(settings: Settings) -> None:
    """OUTBOX_PATH is a file of its own: never an SQLite database or a file the server or SQLite
    keeps beside it (the outbox is read at a start, and one that cannot be read is moved
    aside at a stop: the database itself would be)."""
    url = make_url(settings.database_url)
    if not settings.outbox_path or url.get_backend_name() != "sqlite" or not url.database:
        return
    chosen = Path(settings.outbox_path).resolve()
    named = Path(url.database)
    database = named.resolve()  # as SQLite opens it, and the lock is named
    taken = {database.with_name(database.name + end) for end in SQLITE_BESIDE}
    # The event log's folder is named after the path as written.
    for live in (database.with_name(f"{database.name}-live"), Path(f"{named}-live").resolve()):
        if chosen in taken or chosen == live or chosen.is_relative_to(live):
            raise ValueError(
                f"OUTBOX_PATH {settings.outbox_path!r} is the SQLite database's own file or "
                "one the server keeps beside it: give the outbox a file of its own, or leave "
                f"OUTBOX_PATH empty for {named.name}-outbox beside the database"
            )


def no_home(value: str, what: str) -> None:
    """A path is taken as written, '~' and all (no shell expands it here)."""
    if value == "~" or value.startswith("~/"):
        raise ValueError(
            f"{what} begins with '~', which is not expanded here (it would be a folder named "
            "'~' in the working folder): write the full path"
        )


# The settings of cluster mode besides REDIS_URL, which switches it on.
CLUSTER_SETTINGS = ("node_id", "node_path", "cluster_name", "lease_ms", "redis_wait_seconds")


def cluster(settings: Settings) -> None:
    """Cluster mode (REDIS_URL set) needs PostgreSQL and a NODE_ID; one node needs neither."""
    if not settings.redis_url:
        # Given without it, each would be passed over: a cluster's node started as one alone.
        given = [name.upper() for name in CLUSTER_SETTINGS if name in settings.model_fields_set]
        if given:
            raise ValueError(
                f"{', '.join(given)} {'is' if len(given) == 1 else 'are'} for cluster mode: "
                f"set REDIS_URL too, or unset {'it' if len(given) == 1 else 'them'}"
            )
        return
    if not settings.redis_url.startswith(("redis://", "rediss://", "unix://")):
        raise ValueError("REDIS_URL must start with redis://, rediss:// or unix://")
    redis_url(settings.redis_url)
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


# Options of a Redis URL taken as text by the connection, besides those redis-py reads itself
# (URL_QUERY_ARGUMENT_PARSERS); those of TLS with rediss:// alone.
REDIS_TEXT_OPTIONS = frozenset({"client_name", "lib_name", "lib_version"})
REDIS_TLS_OPTIONS = frozenset(
    {"ssl_ca_certs", "ssl_ca_path", "ssl_cert_reqs", "ssl_certfile", "ssl_keyfile", "ssl_ciphers"}
)


def redis_url(value: str) -> None:
    """A Redis URL redis-py reads as written: its port a port, its path a database number, its
    options known with values it can read (redis-py would take a path that is no number for
    database 0, and pass an unknown option on to fail every connection)."""
    from redis.connection import URL_QUERY_ARGUMENT_PARSERS, parse_url

    escape = "escape a password's characters other than letters and digits as %XX (/ as %2F)"
    try:
        parts = urlsplit(value)
        parse_url(value)  # type: ignore[no-untyped-call]
        port = parts.port
    except ValueError as error:
        said = str(error)
        if "out of range" in said:
            raise ValueError("REDIS_URL's port must be a number from 1 to 65535") from None
        if "port" in said.lower():  # its words repeat what stood for the port
            raise ValueError(
                "REDIS_URL's port cannot be read: write it as a number after the host, and "
                + escape
            ) from None
        if hide_password(value) != value:
            # Their words may repeat the URL's start, password and all.
            raise ValueError(f"REDIS_URL is not a Redis URL redis-py can read: {escape}") from None
        raise ValueError(f"REDIS_URL is not a Redis URL redis-py can read: {said}") from None
    if parts.scheme != "unix" and "@" in parts.path + parts.fragment:
        # A password's '/' or '#' written as it is: what follows would be said back below.
        raise ValueError(f"REDIS_URL has an '@' after its host: {escape}")
    if port is not None and not 1 <= port <= 65535:
        raise ValueError("REDIS_URL's port must be a number from 1 to 65535")
    if parts.scheme == "unix":
        if not parts.path:
            raise ValueError("REDIS_URL names no socket: write unix:///path/to/redis.sock")
    elif not parts.path.strip("/").isdigit() and parts.path.strip("/"):
        raise ValueError(
            f"REDIS_URL's path must be a database number, as in redis://host:6379/0 "
            f"(got {parts.path!r})"
        )
    known = set(URL_QUERY_ARGUMENT_PARSERS) | REDIS_TEXT_OPTIONS
    if parts.scheme == "rediss":
        known |= REDIS_TLS_OPTIONS
    options = parse_qs(parts.query, keep_blank_values=True)
    if "db" in options and parts.scheme != "unix":
        # redis-py would take it over the path's.
        raise ValueError(
            "REDIS_URL: the database number is its path (redis://host:6379/3), not db=: remove it"
        )
    for name in sorted(options):
        if name not in known:
            if "@" in parts.query:  # the name may be a password's '?' and what follows
                raise ValueError(
                    f"REDIS_URL: an option after '?' is not one redis-py takes: {escape}"
                )
            raise ValueError(
                f"REDIS_URL: {name} is not an option redis-py takes here"
                + (" (TLS options need rediss://)" if name in REDIS_TLS_OPTIONS else "")
                + ": remove it"
            )


# A password given as an option of a URL (asyncpg takes ?password=).
PASSWORD_OPTION = re.compile(r"([?&]password=)[^&#]*", re.IGNORECASE)


def hide_password(url: str) -> str:
    """``url`` with its password, if any, written ***: whatever follows the user up to the
    URL's last '@' (a password written unescaped may hold '/', ' ' or '@'), and a ?password=
    option. Said wherever a URL is said back (logs are read by more people than the settings).
    """
    scheme, separator, rest = url.partition("://")
    if separator and "@" in rest:
        userinfo, _, after = rest.rpartition("@")
        user, colon, _ = userinfo.partition(":")
        rest = f"{user}{':***' if colon else ''}@{after}"
    return PASSWORD_OPTION.sub(r"\1***", scheme + separator + rest)


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
            value = item["input"]
            said = repr(hide_password(value)) if isinstance(value, str) else repr(value)
            message += f" (got {said})"
        lines.append(f"{name}: {message}")
    return lines
