"""A real uvicorn server in a child process, for tests that talk to it over sockets."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx

from app.config import Settings

ROOT = Path(__file__).resolve().parents[1]


def free_port() -> int:
    """A TCP port nobody listens on right now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


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
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()
            raise

    def _start(self, timeout: float) -> None:
        self.log.parent.mkdir(exist_ok=True)
        with self.log.open("ab") as log:
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
                raise RuntimeError(f"server exited early:\n{self.log.read_text()}")
            try:
                if httpx.get(self.url + "/healthz", timeout=1).status_code == 200:
                    return
            except httpx.TransportError:
                time.sleep(0.05)
        raise RuntimeError(f"server did not start:\n{self.log.read_text()}")

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 20.0) -> int:
        """Send ``sig`` and wait for the process to end; returns its exit code."""
        assert self.process is not None
        if self.process.poll() is None:
            self.process.send_signal(sig)
        code = self.process.wait(timeout)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)  # workers a killed server left behind
        return code

    def logs(self) -> str:
        """Everything the server has written so far."""
        return self.log.read_text(errors="replace")


def server_env(**overrides: str) -> dict[str, str]:
    """This environment without the server's own settings, plus ``overrides``."""
    settings = {name.upper() for name in Settings.model_fields}
    env = {key: value for key, value in os.environ.items() if key.upper() not in settings}
    env.update(overrides)
    return env


def migrate(database_url: str) -> None:
    """Bring a database to the newest migration."""
    subprocess.run(
        [sys.executable, "-m", "alembic", "upgrade", "head"],
        cwd=ROOT,
        env=server_env(DATABASE_URL=database_url),
        check=True,
        capture_output=True,
    )


@contextmanager
def running_server(database_url: str | None = None, **overrides: str) -> Iterator[Server]:
    """A server with settings ``overrides`` on a migrated database (by default a new SQLite)."""
    with tempfile.TemporaryDirectory() as folder:
        url = database_url or f"sqlite+aiosqlite:///{folder}/spectrum.db"
        migrate(url)
        port = free_port()
        env = server_env(HOST="127.0.0.1", PORT=str(port), DATABASE_URL=url, **overrides)
        server = Server(env, port)
        server.start()
        try:
            yield server
        finally:
            server.stop()
