"""Start errors that waiting cannot cure end the start at once, in one line that fits them,
instead of being retried for DATABASE_WAIT_SECONDS and then blamed on DATABASE_URL's host and
port: a full disk under an SQLite database; and DATABASE_URL options the driver would fail on are
refused with the settings, before anything is tried."""

import contextlib
import inspect
import json
import os
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import asyncpg
import pytest
from asyncpg.connect_utils import SessionAttribute, SSLMode
from sqlalchemy.engine import make_url

from app.config import Settings
from app.settings_checks import ASYNCPG_OPTIONS, SESSION_ATTRIBUTES, SSL_MODES
from tests.databases import fetch_value, postgres_database
from tests.server import ROOT, free_port, server_env

# Long enough that a start which waits is seen to, whatever the machine's load.
WAIT = "600"


def start(url: str) -> tuple[int, list[dict[str, object]]]:
    """``python -m app.scripts.start`` on ``url``: its exit status and its log's lines."""
    result = subprocess.run(
        [sys.executable, "-m", "app.scripts.start"],
        cwd=ROOT,
        env=server_env(
            DATABASE_URL=url,
            DATABASE_WAIT_SECONDS=WAIT,
            HOST="127.0.0.1",
            PORT=str(free_port()),
            LOG_JSON="true",
        ),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    said = result.stdout + result.stderr
    assert "Traceback" not in said, said
    return result.returncode, [json.loads(line) for line in said.splitlines() if line.strip()]


def error_of(said: list[dict[str, object]]) -> str:
    (error,) = [record for record in said if record["level"] == "error"]
    return str(error["message"])


@contextmanager
def full_disk(folder: Path, pages_free: int) -> Iterator[Path]:
    """A small file system of its own at ``folder``, filled up but for ``pages_free`` pages."""
    folder.mkdir()
    page = os.sysconf("SC_PAGE_SIZE")
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={64 * page}", "tmpfs", str(folder)],
        capture_output=True,
        check=False,
    )
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a small file system here: {mounted.stderr!r}")
    try:
        room = os.statvfs(folder)
        filler = folder / "filler"
        filler.write_bytes(bytes(room.f_bavail * room.f_frsize - pages_free * page))
        assert os.statvfs(folder).f_bavail == pages_free
        yield folder
    finally:
        subprocess.run(["umount", str(folder)], check=True)


@pytest.mark.parametrize(
    ("pages_free", "what"),
    [
        (0, "cannot write the lock {disk}/spectrum.db.lock for the SQLite database"),
        (1, "cannot write the SQLite database at {disk}/spectrum.db (database or disk is full)"),
        (4, "cannot write the SQLite database at {disk}/spectrum.db (disk I/O error growing"),
        (16, "migrating the database failed"),
    ],
)
def test_a_full_disk_is_said_at_once(tmp_path: Path, pages_free: int, what: str) -> None:
    """However little room is left (none for the lock, some for the database but not for its
    -shm file, not enough for the migrations), the start exits 1 at once saying to free disk
    space, and takes away the files it made."""
    with full_disk(tmp_path / "disk", pages_free) as disk:
        returncode, said = start(f"sqlite+aiosqlite:///{disk}/spectrum.db")
        assert returncode == 1
        message = error_of(said)
        assert message.startswith(f"cannot start: {what.format(disk=disk)}"), message
        assert "free disk space" in message
        assert "did not answer" not in message
        assert not any("waiting for the database" in str(line["message"]) for line in said)
        assert sorted(path.name for path in disk.iterdir()) == ["filler"]


def test_a_database_file_that_was_there_is_kept(tmp_path: Path) -> None:
    with full_disk(tmp_path / "disk", 1) as disk:
        (disk / "spectrum.db").touch()
        returncode, said = start(f"sqlite+aiosqlite:///{disk}/spectrum.db")
        assert returncode == 1
        assert "database or disk is full" in error_of(said)
        assert (disk / "spectrum.db").exists()


def test_libpq_sslmode_is_refused_with_the_settings() -> None:
    url = "postgresql+asyncpg://spectrum:Secret@db.invalid/spectrum?sslmode=disable"
    returncode, said = start(url)
    assert returncode == 2
    (line,) = said
    assert str(line["message"]).startswith(
        "cannot start; fix these settings: DATABASE_URL: asyncpg takes no sslmode (libpq's "
        "name): write ssl= instead, ssl=disable|allow|prefer|require|verify-ca|verify-full "
        "(got 'postgresql+asyncpg://spectrum:***@db.invalid/spectrum?sslmode=disable')"
    )


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ("connect_timeout=10", "connect_timeout is not an option asyncpg takes"),
        ("application_name=cards", "application_name is not an option asyncpg takes"),
        ("ssl=true", "ssl must be one of disable|allow|prefer|require|verify-ca|verify-full"),
        ("statement_cache_size=0", "asyncpg cannot take statement_cache_size from a URL"),
        ("timeout=10", "timeout is given to asyncpg by the server, which would pass this one"),
        ("command_timeout=5", "command_timeout is given to asyncpg by the server, which would"),
        ("server_settings=x", "server_settings is given to asyncpg by the server"),
        ("port=abc", "is not a URL the database driver can use (Received non-integer port"),
        ("host=db1&host=db2", "is not a URL the database driver can use (All ports"),
        ("direct_tls=false", "direct_tls must be true, with ssl=require, verify-ca or"),
        ("target_session_attrs=main", "target_session_attrs must be one of any|primary|"),
        ("gsslib=kerberos", "gsslib must be one of gssapi|sspi"),
        ("prepared_statement_cache_size=abc", "prepared_statement_cache_size must be a whole"),
        ("ssl=require&ssl=disable", "ssl is given more than once"),
    ],
)
def test_options_asyncpg_cannot_use_are_refused_with_the_settings(
    options: str, message: str
) -> None:
    """Options asyncpg does not take, would be handed as text it cannot use, or would take
    otherwise than written, are refused before any connection is tried (exit 2), not at each
    attempt."""
    returncode, said = start(f"postgresql+asyncpg://spectrum@db.invalid/spectrum?{options}")
    assert returncode == 2
    (line,) = said
    assert f"DATABASE_URL: {message}" in str(line["message"])


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("postgresql+asyncpg://spectrum@db.invalid:99999/spectrum", "port 99999 is not a port"),
        ("postgresql+asyncpg://spectrum@db.invalid/", "names no database: end it with the"),
        ("postgresql+asyncpg://spectrum@db.invalid", "names no database"),
    ],
)
def test_a_postgresql_url_without_a_port_or_a_database_is_refused(url: str, message: str) -> None:
    """Without a database's name PostgreSQL takes the user's own (often the maintenance
    database, postgres), which the start would then fill with the server's tables."""
    returncode, said = start(url)
    assert returncode == 2
    (line,) = said
    assert f"DATABASE_URL: {message}" in str(line["message"])


def test_a_database_may_be_named_as_an_option() -> None:
    settings = Settings(database_url="postgresql+asyncpg://spectrum@db/?database=cards")
    assert make_url(settings.database_url).query == {"database": "cards"}


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("sqlite+aiosqlite:///{folder}/spectrum.db?timeout=abc", "takes no options after '?'"),
        ("sqlite+aiosqlite:///{folder}/spectrum.db?timeout=5", "(timeout given)"),
        ("sqlite+aiosqlite:///{folder}/spectrum.db?check_same_thread=maybe", "no options"),
        ("sqlite+aiosqlite:///{folder}/spectrum.db?uri=true&mode=ro", "(mode, uri given)"),
        ("sqlite+aiosqlite:///{folder}/spectrum.db?isolation_level=NONE", "no options"),
        ("sqlite+aiosqlite://files{folder}/spectrum.db", "an SQLite URL names a file, not a host"),
    ],
)
def test_an_sqlite_url_with_options_or_a_host_is_refused(
    tmp_path: Path, url: str, message: str
) -> None:
    """The server sets SQLite's options itself; one in the URL would fail the start with the
    driver's words (a timeout that is no number), be dropped unsaid, or open another file than
    the one locked (uri=true: 'spectrum.db?mode=ro'). The start makes nothing."""
    returncode, said = start(url.format(folder=tmp_path))
    assert returncode == 2
    (line,) = said
    assert "DATABASE_URL: an SQLite URL" in str(line["message"])
    assert message in str(line["message"])
    assert list(tmp_path.iterdir()) == []


def test_the_options_are_asyncpgs() -> None:
    """What the settings let through, asyncpg takes: a newer asyncpg that drops one fails here."""
    taken = set(inspect.signature(asyncpg.connect).parameters)
    assert ASYNCPG_OPTIONS - {"prepared_statement_cache_size"} <= taken
    assert set(SSL_MODES) == {mode.name.replace("_", "-") for mode in SSLMode}
    assert set(SESSION_ATTRIBUTES) == {attribute.value for attribute in SessionAttribute}


def test_tls_a_database_does_not_take_is_said_at_once() -> None:
    """A server that answers but takes no TLS (the test database) was waited for as if it were
    not up yet, then blamed on DATABASE_URL's host and port."""
    with postgres_database() as url:
        if fetch_value(url, "SHOW ssl") == "on":
            pytest.skip("the test database takes TLS")
        returncode, said = start(f"{url}?ssl=require")
    assert returncode == 1
    message = error_of(said)
    assert message.startswith("cannot start: the database at postgresql+asyncpg://")
    assert "takes no TLS, which ssl= in DATABASE_URL asks for: turn TLS on in PostgreSQL" in message
    assert not any("waiting for the database" in str(line["message"]) for line in said)


def test_another_program_on_the_databases_port_is_said_at_once() -> None:
    """A program that is not PostgreSQL answering on DATABASE_URL's port (an HTTP server, a
    port mistyped) was said to take no TLS "which ssl= in DATABASE_URL asks for", though the
    URL asks for none."""
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]

    def answer_as_http() -> None:
        with contextlib.suppress(OSError):
            while True:
                connection, _ = listener.accept()
                with connection:
                    connection.recv(1024)
                    connection.sendall(b"HTTP/1.1 400 Bad Request\r\n\r\n")

    threading.Thread(target=answer_as_http, daemon=True).start()
    try:
        returncode, said = start(f"postgresql+asyncpg://spectrum@127.0.0.1:{port}/spectrum")
    finally:
        listener.close()
    assert returncode == 1
    message = error_of(said)
    assert message == (
        f"cannot start: what answers at postgresql+asyncpg://spectrum@127.0.0.1:{port}/spectrum "
        "is not PostgreSQL: check DATABASE_URL's host and port"
    )
    assert not any("waiting for the database" in str(line["message"]) for line in said)
