"""Test servers started by forking one process that has already imported what ``app`` needs.

``python -m app`` spends about a second of CPU importing FastAPI, SQLAlchemy, uvicorn and the
application before it listens; a test run starts a server a few hundred times. This module runs
as one process per test process (``python -m tests.zygote``): it imports the server's modules
once, then for each request forks a child that becomes ``python -m app`` exactly (its own
session, the requested environment, working directory and log file as stdout and stderr, or
stderr to a file of its own, then ``runpy`` runs the ``app`` package as ``__main__``;
``app.main`` itself, which builds the application from the settings, is imported fresh in the
child). The child's exit status is sent back to the test process, which holds a
:class:`Forked` handle that behaves like the ``subprocess.Popen`` it replaces (``pid``,
``poll``, ``wait``, ``send_signal``).

The zygote ends when the test process that started it closes its stdin (or dies), killing the
process groups of any child still running.
"""

from __future__ import annotations

import ast
import contextlib
import gc
import importlib
import json
import os
import pkgutil
import runpy
import selectors
import signal
import socket
import subprocess
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
# Imported by uvicorn only once it runs (with the options app/__main__.py passes), by the
# application as it starts or when its engines and cluster client connect, or by its first
# requests.
LATER = (
    "uvicorn.loops.uvloop",
    "uvicorn.protocols.http.httptools_impl",
    "uvicorn.protocols.websockets.websockets_sansio_impl",
    "uvicorn.lifespan.on",
    "uvicorn.middleware.proxy_headers",
    "sqlalchemy.dialects.sqlite.aiosqlite",
    "sqlalchemy.dialects.postgresql.asyncpg",
    "aiosqlite",
    "asyncpg",
    "redis.asyncio",
    "anyio._backends._asyncio",  # the first request run in a thread (the health check)
    "fastapi.telemetry._runtime",
    "encodings.idna",
)
# Built from the settings in the child, or run there as ``__main__``; and the scripts, which
# servers do not run (the start script turns the collector off as it is imported).
FRESH = ("app.main", "app.__main__", "app.scripts")


def preload() -> None:
    """Import what a server imports as it starts and serves: every module of the ``app``
    package but those in FRESH, what ``app/__main__.py`` and ``app/main.py`` import, and LATER."""
    names: list[str] = []
    for module in ("__main__.py", "main.py"):
        tree = ast.parse((ROOT / "app" / module).read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names.append(node.module)
            elif isinstance(node, ast.Import):
                names += [alias.name for alias in node.names]
    package = importlib.import_module("app")
    names += [found.name for found in pkgutil.walk_packages(package.__path__, "app.")]
    for name in [*names, *LATER]:
        if not any(name == fresh or name.startswith(f"{fresh}.") for fresh in FRESH):
            importlib.import_module(name)


def become(request: dict[str, Any]) -> None:
    """In the forked child: turn into a fresh ``python -m app`` as the request describes."""
    signal.set_wakeup_fd(-1)
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    os.setsid()
    flags = os.O_WRONLY | os.O_CREAT | (os.O_APPEND if request["append"] else os.O_TRUNC)
    log = os.open(request["log"], flags, 0o644)
    errors = os.open(request["errors"], flags, 0o644) if request.get("errors") else log
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.dup2(log, 1)
    os.dup2(errors, 2)
    for descriptor in {log, errors, null}:
        os.close(descriptor)
    os.chdir(request["cwd"])
    os.environ.clear()
    os.environ.update(request["env"])
    sys.argv = ["-m"]


def serve(folder: str) -> dict[str, Any]:
    """Fork a child for each request until stdin closes; returns the request only in a child,
    and an empty one in the zygote when it is time to end."""
    assert threading.active_count() == 1, "a process with threads cannot fork safely"
    path = os.path.join(folder, "zygote.sock")
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(64)
    wake_read, wake_write = os.pipe()
    os.set_blocking(wake_write, False)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    signal.set_wakeup_fd(wake_write)
    selector = selectors.DefaultSelector()
    selector.register(listener, selectors.EVENT_READ, "listener")
    selector.register(wake_read, selectors.EVENT_READ, "child")
    selector.register(sys.stdin.fileno(), selectors.EVENT_READ, "stdin")
    children: dict[int, socket.socket] = {}
    sys.stdout.write(path + "\n")
    sys.stdout.flush()
    gc.freeze()  # what is imported stays shared with every child instead of being copied
    while True:
        for key, _ in selector.select():
            if key.data == "stdin":
                if not os.read(sys.stdin.fileno(), 4096):
                    for pid in children:
                        with contextlib.suppress(ProcessLookupError, PermissionError):
                            os.killpg(pid, signal.SIGKILL)
                    return {}
            elif key.data == "child":
                with contextlib.suppress(BlockingIOError):
                    os.read(wake_read, 4096)
                reap(children)
            else:
                connection, _ = listener.accept()
                request = json.loads(read_line(connection))
                pid = os.fork()
                if pid == 0:
                    for other in [listener, *children.values(), connection]:
                        other.close()
                    selector.close()
                    os.close(wake_read)
                    os.close(wake_write)
                    become(request)
                    return dict(request)
                connection.sendall(f"{pid}\n".encode())
                children[pid] = connection
                reap(children)


def reap(children: dict[int, socket.socket]) -> None:
    """Tell the test process how each ended child ended."""
    while children:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        connection = children.pop(pid, None)
        if connection is None:
            continue
        with contextlib.suppress(OSError):
            connection.sendall(f"{os.waitstatus_to_exitcode(status)}\n".encode())
        connection.close()


def read_line(connection: socket.socket) -> str:
    data = b""
    while not data.endswith(b"\n"):
        chunk = connection.recv(65536)
        if not chunk:
            raise ConnectionError("the zygote closed the connection")
        data += chunk
    return data.decode()


class Forked:
    """A server forked by the zygote, handled as a ``subprocess.Popen``."""

    def __init__(self, connection: socket.socket) -> None:
        self.connection = connection
        # A child that ends at once (a setting refused) may have its status read with its pid.
        pid, _, status = read_line(connection).partition("\n")
        self.pid = int(pid)
        self.status = status.encode()
        self.returncode: int | None = None
        self.args = ["-m", "app"]

    def poll(self) -> int | None:
        if self.returncode is None and self.status:
            self._ended(self.status)
        if self.returncode is None:
            self.connection.setblocking(False)
            try:
                data = self.connection.recv(64)
            except BlockingIOError:
                self.connection.setblocking(True)
                return None
            self._ended(data)
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        if self.returncode is None and self.status:
            self._ended(self.status)
        if self.returncode is None:
            self.connection.settimeout(timeout)
            try:
                data = self.connection.recv(64)
            except TimeoutError:
                self.connection.settimeout(None)
                raise subprocess.TimeoutExpired(self.args, timeout or 0) from None
            self._ended(data)
        assert self.returncode is not None
        return self.returncode

    def _ended(self, data: bytes) -> None:
        # The status is one short line, sent at once when the child ends; nothing means the
        # zygote itself is gone (it killed its children as it went).
        self.returncode = int(data) if data.strip() else -signal.SIGKILL
        self.connection.close()

    def send_signal(self, sig: int) -> None:
        if self.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, sig)

    def terminate(self) -> None:
        self.send_signal(signal.SIGTERM)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)


class Zygote:
    """The forking process of this test process, started on first use."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.process: subprocess.Popen[bytes] | None = None
        self.path = ""
        self.folder: tempfile.TemporaryDirectory[str] | None = None

    def spawn(
        self, env: dict[str, str], log: Path, append: bool, errors: Path | None = None
    ) -> Forked:
        """A new ``python -m app`` in ``ROOT`` with exactly ``env``, writing to ``log`` (its
        standard error too, unless to ``errors``)."""
        with self.lock:
            if self.process is None or self.process.poll() is not None:
                self._start()
            path = self.path
        request = {
            "env": env,
            "cwd": str(ROOT),
            "log": str(log),
            "errors": str(errors) if errors else None,
            "append": append,
        }
        connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        connection.connect(path)
        connection.sendall((json.dumps(request) + "\n").encode())
        return Forked(connection)

    def _start(self) -> None:
        self.folder = tempfile.TemporaryDirectory(prefix="spectrum-zygote-")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "tests.zygote", self.folder.name],
            cwd=ROOT,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            start_new_session=True,
        )
        assert self.process.stdout is not None
        self.path = self.process.stdout.readline().decode().strip()
        if not self.path:
            self.process.wait()
            raise RuntimeError("the test servers' zygote did not start")

    def close(self) -> None:
        """End the zygote (and any server it forked that is still running)."""
        with self.lock:
            if self.process is not None:
                assert self.process.stdin is not None
                self.process.stdin.close()
                try:
                    self.process.wait(30)
                except subprocess.TimeoutExpired:
                    self.process.kill()
                    self.process.wait()
                assert self.process.stdout is not None
                self.process.stdout.close()
                self.process = None
            if self.folder is not None:
                self.folder.cleanup()
                self.folder = None


def main() -> None:
    preload()
    if not serve(sys.argv[1]):
        return
    runpy.run_module("app", run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main()
