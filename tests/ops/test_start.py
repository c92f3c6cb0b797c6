"""The server's start (the container's entry point), run for real against PostgreSQL and SQLite."""

import json
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from sqlalchemy.engine import make_url

from app.scripts.start import UPKEEP, Unusable, claim_sqlite_file, warn_without_upkeep
from app.storage.db import make_engine
from app.storage.migrations import head_revision
from tests import fetch
from tests.databases import admin, fetch_value, postgres_database, set_connections_allowed
from tests.server import ROOT, end_group, free_port, migrate, server_env

STARTED: list[subprocess.Popen[bytes]] = []


@pytest.fixture(autouse=True)
def _end_what_was_started() -> Iterator[None]:
    """Every start a test made is ended with what it started, even when the test failed."""
    yield
    while STARTED:
        end_group(STARTED.pop())


def start(
    url: str, port: int, log: Path, wait: int = 60, cwd: Path = ROOT, **env: str
) -> subprocess.Popen[bytes]:
    """The start on ``url`` and ``port`` (``env`` over both), in ``cwd``, its output in
    ``log``; ended after the test."""
    settings = {"DATABASE_URL": url, "HOST": "127.0.0.1", "PORT": str(port)}
    settings |= {"DATABASE_WAIT_SECONDS": str(wait), "LOG_JSON": "true", **env}
    with log.open("wb") as output:
        process = subprocess.Popen(
            [sys.executable, "-m", "app.scripts.start"],
            cwd=cwd,
            env=server_env(**settings),
            stdout=output,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own process group, to be ended whole
        )
    STARTED.append(process)
    return process


def records(log: Path) -> list[dict[str, object]]:
    """Every line of the log, each of which must be one JSON object."""
    return [json.loads(line) for line in log.read_text().splitlines() if line.strip()]


def messages(log: Path) -> list[str]:
    return [str(record["message"]) for record in records(log)]


def wait_until_ready(process: subprocess.Popen[bytes], port: int, log: Path) -> dict[str, object]:
    deadline = time.monotonic() + 60
    while True:
        assert process.poll() is None, log.read_text()
        try:
            ready = fetch.get(f"http://127.0.0.1:{port}/readyz", timeout=2)
            if ready.status_code == 200:
                body: dict[str, object] = ready.json()
                return body
        except httpx.TransportError:
            pass
        assert time.monotonic() < deadline, log.read_text()
        time.sleep(0.2)


def stop(process: subprocess.Popen[bytes]) -> int:
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
    return process.wait(30)


def until_logged(log: Path, text: str, process: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 60
    while text not in log.read_text():
        assert process.poll() is None, log.read_text()
        assert time.monotonic() < deadline, log.read_text()
        time.sleep(0.1)


def served(url: str, log: Path, **env: str) -> None:
    """The start on ``url`` (``env`` over its settings), until it serves; then stopped."""
    port = free_port()
    process = start(url, port, log, **env)
    try:
        wait_until_ready(process, port, log)
    finally:
        stop(process)


def test_waits_for_the_database_then_migrates_and_serves(tmp_path: Path) -> None:
    with postgres_database() as url:
        set_connections_allowed(url, False)
        port, log = free_port(), tmp_path / "start.log"
        process = start(url, port, log)
        try:
            until_logged(log, "waiting for the database", process)
            assert make_url(url).database in log.read_text()
            set_connections_allowed(url, True)
            assert wait_until_ready(process, port, log)["migrations"] == head_revision()
        finally:
            # uvicorn ends by raising the signal it caught again (ignored only by a container's
            # first process, which then exits 0).
            assert stop(process) in (0, -signal.SIGTERM)
        said = messages(log)
        assert any(message.startswith("database migrated to") for message in said)
        assert "Application shutdown complete." in said
        # What the database's server was set up with, said if it leaves the upkeep off.
        assert upkeep_said(said) == upkeep_off(url)


def upkeep_off(url: str) -> list[str]:
    """Those of PostgreSQL's autovacuum and track_counts that are off for ``url``'s database."""
    return [name for name in UPKEEP if fetch_value(url, f"SHOW {name}") == "off"]


def upkeep_said(said: list[str]) -> list[str]:
    """The settings the start's warning named as off ([] when there was none)."""
    warnings = [message for message in said if message.startswith("the database runs with ")]
    assert len(warnings) <= 1, warnings
    if not warnings:
        return []
    named = warnings[0].removeprefix("the database runs with ").partition(" off: ")[0]
    return named.split(" and ")


def test_a_database_left_without_its_upkeep_is_said(tmp_path: Path) -> None:
    """track_counts, which autovacuum works from, can be turned off for one database: the start
    names it (and autovacuum too, if the server runs without it), and serves."""
    with postgres_database() as url:
        admin(f'ALTER DATABASE "{make_url(url).database}" SET track_counts = off')
        expected = upkeep_off(url)
        assert "track_counts" in expected
        served(url, tmp_path / "start.log")
        said = messages(tmp_path / "start.log")
        assert upkeep_said(said) == expected
        warning = next(message for message in said if message.startswith("the database runs"))
        assert "VACUUM ANALYZE" in warning


async def test_the_upkeep_check_never_stops_a_start(caplog: pytest.LogCaptureFixture) -> None:
    """A database gone again between the start's wait and the check: nothing is said of the
    upkeep, and nothing raised (what comes next in the start says the database is gone)."""
    engine = make_engine(f"postgresql+asyncpg://postgres@127.0.0.1:{free_port()}/spectrum")
    try:
        await warn_without_upkeep(engine)
    finally:
        await engine.dispose()
    assert [record for record in caplog.records if record.name == "app.start"] == []


def test_a_database_at_head_is_not_migrated_again(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path}/spectrum.db"
    migrate(url)
    served(url, tmp_path / "start.log")
    said = messages(tmp_path / "start.log")
    assert f"database at migration {head_revision()}, the newest: nothing to migrate" in said
    assert not any("Running upgrade" in message for message in said)


@pytest.mark.parametrize("earlier", [False, True], ids=["new", "left-readable-by-an-earlier-run"])
def test_the_database_and_what_lies_beside_it_are_their_user_s_alone(
    tmp_path: Path, earlier: bool
) -> None:
    """The database and the event log of live rooms beside it hold the seed of each round
    being played (the whole deck's order): no other account of the machine may read them,
    whether the start makes them or an earlier version left them readable."""
    folder = tmp_path / "data"
    folder.mkdir()
    database = folder / "spectrum.db"
    url = f"sqlite+aiosqlite:///{database}"
    left = folder / "spectrum.db-live" / "left.txt"  # whatever an earlier run left in it
    aside = folder / "spectrum.db-replaced-20261201T120000" / "spectrum.db"  # by a restore
    if earlier:
        migrate(url)
        for path in (left, aside):
            path.parent.mkdir()
            path.write_text("")
        for path in (database, left.parent, left, aside.parent, aside):
            path.chmod(0o755 if path.is_dir() else 0o644)
    given = folder.stat().st_mode
    port, log = free_port(), tmp_path / "start.log"
    process = start(url, port, log)
    try:
        wait_until_ready(process, port, log)
        base = f"http://127.0.0.1:{port}"
        room = fetch.post(f"{base}/api/rooms", json={"name": "Ann"})
        assert room.status_code == 201, room.text
        joined = fetch.post(f"{base}/api/rooms/{room.json()['code']}/join", json={"name": "Bob"})
        assert joined.status_code == 201, joined.text
        segments = list((folder / "spectrum.db-live").glob("*.jsonl"))
        assert segments, "the room's events are in the event log"
        kept = [database, folder / "spectrum.db-wal", folder / "spectrum.db-live", *segments]
        for path in kept + ([left, aside.parent, aside] if earlier else []):
            assert path.stat().st_mode & 0o077 == 0, (path, oct(path.stat().st_mode))
    finally:
        stop(process)
    assert folder.stat().st_mode == given  # the folder given is left as it is


def test_the_migrations_are_logged_at_the_server_s_log_level(tmp_path: Path) -> None:
    """LOG_LEVEL=warning writes no info line: alembic's steps ("Running upgrade ...") were
    written at info whatever LOG_LEVEL said."""
    url = f"sqlite+aiosqlite:///{tmp_path}/spectrum.db"
    served(url, tmp_path / "start.log", LOG_LEVEL="warning")
    said = records(tmp_path / "start.log")
    assert [record for record in said if record["level"] == "info"] == []


def test_a_password_given_as_an_option_is_never_said(tmp_path: Path) -> None:
    """asyncpg takes the password as ?password= too; the start's lines about the database
    ("waiting for", "ready", "did not answer") hid only the one before the host."""
    with postgres_database() as url:
        url += "?password=Sup3rSecret"  # the test server asks none: it is not checked
        set_connections_allowed(url, False)
        port, log = free_port(), tmp_path / "start.log"
        process = start(url, port, log)
        try:
            until_logged(log, "waiting for the database", process)
            set_connections_allowed(url, True)
            wait_until_ready(process, port, log)
        finally:
            stop(process)
        said = log.read_text()
        assert "Sup3rSecret" not in said
        assert "?password=***" in said


def test_gives_up_when_the_database_never_comes(tmp_path: Path) -> None:
    with postgres_database() as url:
        set_connections_allowed(url, False)
        log = tmp_path / "start.log"
        process = start(url, free_port(), log, wait=2)
        assert process.wait(30) == 1
        (error,) = [r for r in records(log) if r["level"] == "error"]
        assert "did not answer within 2 s" in str(error["message"])
        assert "check DATABASE_URL's host and port" in str(error["message"])
        set_connections_allowed(url, True)


def test_a_missing_database_is_named_at_once(tmp_path: Path) -> None:
    with postgres_database() as url:
        missing = make_url(url).set(database="spectrum_nowhere").render_as_string(False)
        log = tmp_path / "start.log"
        process = start(missing, free_port(), log, wait=600)
        assert process.wait(30) == 1
        (error,) = [r for r in records(log) if r["level"] == "error"]
        assert "the database spectrum_nowhere does not exist" in str(error["message"])


def test_a_database_migrated_by_a_newer_version_is_left_alone(tmp_path: Path) -> None:
    with postgres_database() as url:
        migrate(url)
        version = "zz_from_the_future"
        _set_version(url, version)
        log = tmp_path / "start.log"
        process = start(url, free_port(), log)
        assert process.wait(30) == 1
        (error,) = [r for r in records(log) if r["level"] == "error"]
        assert f"is at migration {version}, which this version does not know" in str(
            error["message"]
        )
        assert _version(url) == version


def test_a_file_another_server_holds_is_left_as_it_is(tmp_path: Path) -> None:
    """Started on a file another server serves, the start says so in one line and exits 3
    before it reads or migrates anything: a second server of a newer version would otherwise
    migrate the database under the first."""
    url = f"sqlite+aiosqlite:///{tmp_path}/spectrum.db"
    migrate(url)
    first_log = tmp_path / "first.log"
    first = start(url, free_port(), first_log)
    until_logged(first_log, "Application startup complete", first)
    log = tmp_path / "second.log"
    second = start(url, free_port(), log)
    assert second.wait(30) == 3
    (error,) = [r for r in records(log) if r["level"] == "error"]
    assert str(error["message"]) == (
        f"cannot start: {tmp_path}/spectrum.db is served by another server (process "
        f"{first.pid}): stop it first, or give this one a database of its own (DATABASE_URL)"
    )
    said = log.read_text()
    assert "Traceback" not in said
    assert "database at migration" not in said  # not even read
    assert stop(first) in (0, -signal.SIGTERM)


def test_an_unwritable_sqlite_folder_is_refused(tmp_path: Path) -> None:
    (tmp_path / "taken").write_text("a file where the folder should be")
    url = f"sqlite+aiosqlite:///{tmp_path}/taken/data/spectrum.db"
    log = tmp_path / "start.log"
    process = start(url, free_port(), log)
    assert process.wait(30) == 1
    (error,) = [r for r in records(log) if r["level"] == "error"]
    assert f"cannot create the folder {tmp_path}/taken/data" in str(error["message"])
    assert "mount a writable volume" in str(error["message"])


def test_an_unwritable_outbox_is_refused(tmp_path: Path) -> None:
    (tmp_path / "taken").write_text("a file where the outbox's folder should be")
    url = f"sqlite+aiosqlite:///{tmp_path}/spectrum.db"
    log = tmp_path / "start.log"
    process = start(url, free_port(), log, OUTBOX_PATH=str(tmp_path / "taken" / "outbox"))
    assert process.wait(30) == 1
    (error,) = [r for r in records(log) if r["level"] == "error"]
    assert f"cannot create the folder {tmp_path}/taken for the outbox" in str(error["message"])
    assert "set OUTBOX_PATH" in str(error["message"])


def test_a_port_another_program_listens_on_is_named(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        log = tmp_path / "start.log"
        process = start(f"sqlite+aiosqlite:///{tmp_path}/spectrum.db", port, log)
        assert process.wait(30) == 1
    (error,) = [r for r in records(log) if r["level"] == "error"]
    assert f"PORT {port} on HOST 127.0.0.1 is taken by another program" in str(error["message"])


def test_sigterm_while_waiting_stops_at_once(tmp_path: Path) -> None:
    with postgres_database() as url:
        set_connections_allowed(url, False)
        log = tmp_path / "start.log"
        process = start(url, free_port(), log)
        try:
            until_logged(log, "waiting for the database", process)
            process.send_signal(signal.SIGTERM)
            assert process.wait(10) == 0
        finally:
            stop(process)
            set_connections_allowed(url, True)
        assert "stopped by SIGTERM before serving" in messages(log)


@pytest.mark.parametrize("json_lines", [True, False])
def test_refused_settings_are_one_line(json_lines: bool) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "app.scripts.start"],
        cwd=ROOT,
        env=server_env(PORT="70000", MAX_ROOMS="0", LOG_JSON=str(json_lines).lower()),
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert result.returncode == 2
    (line,) = result.stderr.splitlines()
    message = json.loads(line)["message"] if json_lines else line
    assert "cannot start; fix these settings: PORT:" in message
    assert "MAX_ROOMS:" in message


def _set_version(url: str, version: str) -> None:
    fetch_value(url, f"UPDATE alembic_version SET version_num = '{version}'")


def _version(url: str) -> str:
    return fetch_value(url, "SELECT version_num FROM alembic_version")


def test_the_lock_of_a_database_named_through_a_link_is_beside_the_file(tmp_path: Path) -> None:
    """However the database is named (a symbolic link here), its lock is one, beside the file
    SQLite opens; what the start says about it names that file."""
    (tmp_path / "real").mkdir()
    (tmp_path / "names").mkdir()
    sqlite3.connect(tmp_path / "real" / "spectrum.db").close()
    (tmp_path / "names" / "link.db").symlink_to(tmp_path / "real" / "spectrum.db")
    (tmp_path / "real" / "spectrum.db.lock").mkdir()  # cannot be the lock
    with pytest.raises(Unusable) as refused:
        claim_sqlite_file(f"sqlite+aiosqlite:///{tmp_path}/names/link.db")
    assert str(refused.value).startswith(
        f"cannot write the lock {tmp_path}/real/spectrum.db.lock for the SQLite database"
    )
