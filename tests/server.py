"""A real uvicorn server in a child process, for tests that talk to it over sockets."""

from __future__ import annotations

import atexit
import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Protocol

import httpx
from sqlalchemy.engine import make_url

from app.config import Settings

ROOT = Path(__file__).resolve().parents[1]
# Settings that keep rate limits out of the way of fast test clients.
FAST = {
    "MESSAGES_PER_SECOND": "10000",
    "MESSAGE_BURST": "10000",
    "CONNECTIONS_PER_ADDRESS": "1000",
    "PENDING_CONNECTIONS_PER_ADDRESS": "1000",
    "ROOMS_PER_ADDRESS_PER_MINUTE": "10000",
    "ROOM_MISSES_PER_MINUTE": "10000",
    "READY_SECONDS": "2",
}


def free_port() -> int:
    """A TCP port nobody listens on right now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def end_group(process: subprocess.Popen[bytes]) -> None:
    """Kill ``process`` and what it started in its process group (bot workers, their tracker)."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)
    process.wait()


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
        self.process: subprocess.Popen[bytes] | None = None
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
        with self.log.open("wb" if self.process is None else "ab") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "app"],
                cwd=ROOT,
                env=self.env,
                stdout=log,
                stderr=subprocess.STDOUT,
                # Its own process group, so that what it starts (bot workers) can be ended too.
                start_new_session=True,
            )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                said = self.logs()
                if "address already in use" in said:
                    raise PortTaken(f"port {self.port} was taken:\n{said}")
                raise RuntimeError(f"server exited early:\n{said}")
            try:
                if httpx.get(self.url + "/healthz", timeout=1).status_code == 200:
                    return
            except httpx.TransportError:
                time.sleep(0.05)
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


def _alembic_upgrade(database_url: str) -> None:
    subprocess.run(
        [sys.executable, "-m", "alembic", "upgrade", "head"],
        cwd=ROOT,
        env=server_env(DATABASE_URL=database_url),
        check=True,
        capture_output=True,
    )


def migrate(database_url: str) -> None:
    """Bring a database to the newest migration.

    A SQLite file that does not exist yet becomes a copy of one database migrated by alembic
    once in this process: what migrating it would give, without starting alembic again each time.
    """
    url = make_url(database_url)
    path = Path(url.database or "")
    if url.get_backend_name() != "sqlite" or not url.database or path.exists():
        _alembic_upgrade(database_url)
        return
    template = _migrated_template()
    for part in template.parent.glob(template.name + "*"):  # with any -wal or -shm beside it
        shutil.copyfile(part, path.with_name(path.name + part.name[len(template.name) :]))


@contextmanager
def running_server(database_url: str | None = None, **overrides: str) -> Iterator[Server]:
    """A server with settings ``overrides`` on a migrated database (by default a new SQLite)."""
    with tempfile.TemporaryDirectory() as folder:
        url = database_url or f"sqlite+aiosqlite:///{folder}/spectrum.db"
        migrate(url)
        for attempt in range(3):
            port = free_port()
            env = server_env(HOST="127.0.0.1", PORT=str(port), DATABASE_URL=url, **overrides)
            server = Server(env, port)
            try:
                server.start()
            except PortTaken:
                if attempt == 2:
                    raise
                continue
            break
        try:
            yield server
        finally:
            server.stop()
