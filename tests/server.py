"""A real uvicorn server in a child process, for tests that talk to it over sockets."""

from __future__ import annotations

import atexit
import contextlib
import functools
import os
import random
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Protocol

import asyncpg
import httpx
from alembic import command
from alembic.config import Config as AlembicConfig
from alembic.script import ScriptDirectory
from sqlalchemy.engine import make_url

from app.config import Settings
from tests import fetch
from tests.databases import TEST_DATABASE_URL, admin, fetch_value
from tests.zygote import Forked, Zygote

ROOT = Path(__file__).resolve().parents[1]
# Settings that keep rate limits out of the way of fast test clients.
FAST = {
    "MESSAGES_PER_SECOND": "10000",
    "MESSAGE_BURST": "10000",
    "CONNECTIONS_PER_ADDRESS": "1000",
    "PENDING_CONNECTIONS_PER_ADDRESS": "1000",
    "ROOMS_PER_ADDRESS_PER_MINUTE": "10000",
    "ROOM_MISSES_PER_MINUTE": "10000",
    "API_REQUESTS_PER_SECOND": "100000",
    "API_REQUEST_BURST": "100000",
    "READY_SECONDS": "2",
}


def free_port() -> int:
    """A TCP port nobody uses right now, below the range the system takes the local ports of
    outgoing connections from: a port the system hands out (``bind`` to port 0) may be taken by
    any connection another test opens before the server binds it, and then the server cannot."""
    low = _outgoing_ports_from()
    while True:
        port = PORTS.randrange(10_000, low) if low > 10_001 else 0
        with socket.socket() as probe:
            try:
                probe.bind(("", port))
            except OSError:
                continue
            chosen: int = probe.getsockname()[1]
            return chosen


# Drawn from the system's entropy: test processes side by side draw apart, whatever a test seeds.
PORTS = random.SystemRandom()


@functools.cache
def _outgoing_ports_from() -> int:
    try:
        return int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return 0


# Servers are forked from a process that has imported the server's modules already (it is
# ``python -m app`` all the same, a second sooner); SERVER_EXEC=1 starts each as a new program.
ZYGOTE = Zygote()
atexit.register(ZYGOTE.close)
Process = subprocess.Popen[bytes] | Forked


def spawn_server(env: dict[str, str], log: Path, append: bool) -> Process:
    """``python -m app`` in ``ROOT`` with exactly ``env``, its output in ``log``, in a process
    group of its own (so that what it starts, bot workers, can be ended with it)."""
    if os.environ.get("SERVER_EXEC") == "1":
        with log.open("ab" if append else "wb") as out:
            return subprocess.Popen(
                [sys.executable, "-m", "app"],
                cwd=ROOT,
                env=env,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
    return ZYGOTE.spawn(env, log, append)


def end_group(process: Process) -> None:
    """Kill ``process`` and what it started in its process group (bot workers, their tracker)."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)
    process.wait()


def listens(pid: int, port: int) -> bool | None:
    """Whether process ``pid`` holds the socket listening on TCP ``port`` (IPv4); None where
    /proc cannot tell."""
    try:
        rows = Path("/proc/net/tcp").read_text().splitlines()[1:]
    except OSError:
        return None
    try:
        descriptors = os.listdir(f"/proc/{pid}/fd")
    except OSError:
        return False  # gone
    listening = {
        fields[9]
        for fields in (row.split() for row in rows)
        if fields[3] == "0A" and int(fields[1].rsplit(":", 1)[1], 16) == port
    }
    for descriptor in descriptors:
        with contextlib.suppress(OSError):
            target = os.readlink(f"/proc/{pid}/fd/{descriptor}")
            if target.startswith("socket:[") and target[8:-1] in listening:
                return True
    return False


class PortTaken(RuntimeError):
    """The server could not listen: another process took its port between the probe and it."""


class Address(Protocol):
    """Where a server is reached: one test server, or a load balancer in front of several."""

    port: int
    url: str
    ws_url: str


class Server:
    """A running server process and where to reach it."""

    def __init__(self, env: dict[str, str], port: int) -> None:
        self.env = env
        self.port = port
        self.url = f"http://127.0.0.1:{port}"
        self.ws_url = f"ws://127.0.0.1:{port}"
        self.process: Process | None = None
        self.log = ROOT / ".pytest_cache" / f"server-{port}.log"

    def start(self, timeout: float = 60.0) -> None:
        """Start the process and wait until /healthz answers; a process that does not is ended."""
        try:
            self._start(timeout)
        except BaseException:
            if self.process is not None:
                end_group(self.process)
            raise

    def _start(self, timeout: float) -> None:
        self.log.parent.mkdir(exist_ok=True)
        # A new server's log starts empty; a restarted one's goes on after what it said before.
        self.process = spawn_server(self.env, self.log, append=self.process is not None)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                said = self.logs()
                if "address already in use" in said:
                    raise PortTaken(f"port {self.port} was taken:\n{said}")
                raise RuntimeError(f"server exited early:\n{said}")
            try:
                answered = fetch.get(self.url + "/healthz", timeout=1).status_code == 200
            except httpx.TransportError:
                time.sleep(0.05)
                continue
            if answered:
                # Another server may have taken the port between the probe and this one: the
                # answer is then that server's, while this one is on its way out.
                if listens(self.process.pid, self.port) is False:
                    raise PortTaken(f"port {self.port} is another process's")
                return
        raise RuntimeError(f"server did not start:\n{self.log.read_text()}")

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 60.0) -> int:
        """Send ``sig`` and wait for the process to end; returns its exit code.

        Whatever happens, nothing of the server's process group is left running afterwards.
        """
        assert self.process is not None
        try:
            if self.process.poll() is None:
                self.process.send_signal(sig)
            return self.process.wait(timeout)
        finally:
            end_group(self.process)

    def logs(self) -> str:
        """Everything the server has written so far."""
        return self.log.read_text(errors="replace")


def server_env(**overrides: str) -> dict[str, str]:
    """This environment without the server's own settings, plus ``overrides``."""
    settings = {name.upper() for name in Settings.model_fields}
    env = {key: value for key, value in os.environ.items() if key.upper() not in settings}
    env.update(overrides)
    return env


_template_lock = threading.Lock()
_template: Path | None = None


def _migrated_template() -> Path:
    """A SQLite database migrated to the newest revision once in this process, to copy from."""
    global _template
    with _template_lock:
        if _template is None:
            folder = Path(tempfile.mkdtemp(prefix="spectrum-template-"))
            atexit.register(shutil.rmtree, folder, ignore_errors=True)
            _alembic_upgrade(f"sqlite+aiosqlite:///{folder}/spectrum.db")
            _template = folder / "spectrum.db"
        return _template


def alembic_config(database_url: str) -> AlembicConfig:
    """Alembic's configuration for the migrations of ``database_url``, run in this process:
    the test process's logging is left as it is."""
    config = AlembicConfig(str(ROOT / "alembic.ini"))
    config.attributes["database_url"] = database_url
    config.attributes["configure_logger"] = False
    return config


_alembic_lock = threading.Lock()


def _alembic_upgrade(database_url: str) -> None:
    """Run alembic's ``upgrade head`` on ``database_url`` in this process, whose imports it
    shares (as a program of its own it spent a second and a half of CPU importing). It runs in
    a thread of its own, as the migrations run their own event loop, and one at a time, as
    alembic's context is one per process."""
    config = alembic_config(database_url)
    with _alembic_lock, ThreadPoolExecutor(1) as pool:
        pool.submit(command.upgrade, config, "head").result()


_postgres_template: str | None = None


def _migrated_postgres_template() -> str:
    """The name of a PostgreSQL database migrated by alembic once in this process, to copy."""
    global _postgres_template
    with _template_lock:
        if _postgres_template is None:
            name = f"spectrum_test_template_{os.getpid()}_{os.urandom(3).hex()}"
            admin(f'CREATE DATABASE "{name}"')
            atexit.register(drop_templates)
            url = make_url(TEST_DATABASE_URL).set(database=name)
            _alembic_upgrade(url.render_as_string(hide_password=False))
            _postgres_template = name
        return _postgres_template


def drop_templates() -> None:
    """Drop this process's PostgreSQL template (at the end of the run)."""
    global _postgres_template
    with _template_lock:
        if _postgres_template is not None:
            admin(f'DROP DATABASE IF EXISTS "{_postgres_template}" WITH (FORCE)', now=True)
            _postgres_template = None


def _copy_of_postgres_template(database_url: str) -> bool:
    """Make the empty test database at ``database_url`` a copy of the migrated template; False
    (nothing done) unless it is an empty database on the test server."""
    url, server = make_url(database_url), make_url(TEST_DATABASE_URL)
    if (url.host, url.port) != (server.host, server.port) or not url.database:
        return False
    tables = "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'"
    if fetch_value(database_url, tables) not in ("", "0"):  # 0 reads as ""
        return False
    template = _migrated_postgres_template()
    for attempt in range(50):
        try:
            admin(
                f'DROP DATABASE IF EXISTS "{url.database}" WITH (FORCE)',
                f'CREATE DATABASE "{url.database}" TEMPLATE "{template}"',
            )
            return True
        except asyncpg.ObjectInUseError:  # alembic's connection to the template is still closing
            if attempt == 49:
                raise
            time.sleep(0.1)
    return False


@functools.cache
def _head() -> str:
    """The newest revision of the migrations."""
    config = AlembicConfig(str(ROOT / "alembic.ini"))
    (head,) = ScriptDirectory.from_config(config).get_heads()
    return str(head)


def _at_head(database_url: str) -> bool:
    """Whether the database says it is at the newest revision already."""
    url = make_url(database_url)
    question = "SELECT version_num FROM alembic_version"
    if url.get_backend_name() == "sqlite":
        try:
            with contextlib.closing(
                sqlite3.connect(f"file:{url.database}?mode=ro", uri=True)
            ) as db:
                return [row[0] for row in db.execute(question)] == [_head()]
        except sqlite3.Error:
            return False
    try:
        return fetch_value(database_url, question) == _head()
    except asyncpg.UndefinedTableError:
        return False


def migrate(database_url: str) -> None:
    """Bring a database to the newest migration.

    A SQLite file that does not exist yet, or an empty PostgreSQL database on the test server,
    becomes a copy of one database migrated by alembic once in this process: what migrating it
    would give, without starting alembic again each time. A database at the newest revision is
    left as it is, as alembic would leave it.
    """
    url = make_url(database_url)
    if url.get_backend_name() == "postgresql":
        if not _copy_of_postgres_template(database_url) and not _at_head(database_url):
            _alembic_upgrade(database_url)
        return
    path = Path(url.database or "")
    if url.get_backend_name() != "sqlite" or not url.database:
        _alembic_upgrade(database_url)
    elif path.exists():
        if not _at_head(database_url):
            _alembic_upgrade(database_url)
    else:
        template = _migrated_template()
        for part in template.parent.glob(template.name + "*"):  # with any -wal or -shm beside it
            shutil.copyfile(part, path.with_name(path.name + part.name[len(template.name) :]))


def start_server(env: dict[str, str], tries: int = 3) -> Server:
    """A started server with ``env`` on a free port (PORT is set here); on another one when the
    port was taken between the probe and the server, up to ``tries`` ports in all."""
    port = free_port()
    server = Server({**env, "PORT": str(port)}, port)
    try:
        server.start()
    except PortTaken:
        if tries == 1:
            raise
        return start_server(env, tries - 1)
    return server


@contextmanager
def running_server(database_url: str | None = None, **overrides: str) -> Iterator[Server]:
    """A server with settings ``overrides`` on a migrated database (by default a new SQLite)."""
    with tempfile.TemporaryDirectory() as folder:
        url = database_url or f"sqlite+aiosqlite:///{folder}/spectrum.db"
        migrate(url)
        server = start_server(server_env(HOST="127.0.0.1", DATABASE_URL=url, **overrides))
        try:
            yield server
        finally:
            server.stop()
