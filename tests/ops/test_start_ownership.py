"""The start refuses an SQLite folder where what an earlier run left is not the server's to
write (say, root's after `chown` of the folder alone, the server running as another user): one
line says which path and what to do, and the start exits 1, instead of serving until the first
room cannot be saved. Done as that fix says, the server starts.

As root (permission bits stop no write of root's) the server runs as another user, with
setpriv, and the paths are left root's; otherwise the server's own user is denied them.
"""

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from app.storage.outbox import Outbox
from tests import fetch
from tests.ops.test_start import STARTED, _end_what_was_started  # noqa: F401 (autouse)
from tests.server import ROOT, free_port, migrate, server_env

ROOT_RUN = os.geteuid() == 0
# The user the server runs as: nobody, when the tests are root's.
USER = 65534 if ROOT_RUN else os.getuid()


@pytest.fixture
def data() -> Iterator[Path]:
    """A data folder of the server's user with a migrated database (in the system's temporary
    folder: pytest's own is closed to other users)."""
    folder = Path(tempfile.mkdtemp(prefix="spectrum-owned-"))
    try:
        migrate(f"sqlite+aiosqlite:///{folder}/spectrum.db")
        for path in (folder, *folder.iterdir()):
            give(path)
        yield folder
    finally:
        for path in folder.rglob("*"):
            path.chmod(0o755 if path.is_dir() else 0o644)
        shutil.rmtree(folder)


def give(path: Path) -> None:
    """Make ``path`` the server's, as `chown` does."""
    if ROOT_RUN:
        os.chown(path, USER, USER)
    else:
        path.chmod(0o755 if path.is_dir() else 0o644)


def take(path: Path) -> None:
    """Leave ``path`` where the server cannot write it: root's, or without write permission."""
    if ROOT_RUN:
        os.chown(path, 0, 0)
    else:
        path.chmod(0o555 if path.is_dir() else 0o444)


def start(data: Path, port: int, log: Path) -> subprocess.Popen[bytes]:
    settings = server_env(
        DATABASE_URL=f"sqlite+aiosqlite:///{data}/spectrum.db",
        HOST="127.0.0.1",
        PORT=str(port),
        LOG_JSON="true",
        OUTBOX_PATH="",
    )
    user = ["setpriv", f"--reuid={USER}", f"--regid={USER}", "--clear-groups"]
    with log.open("wb") as output:
        process = subprocess.Popen(
            [*(user if ROOT_RUN else []), sys.executable, "-m", "app.scripts.start"],
            cwd=ROOT,
            env=settings,
            stdout=output,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    STARTED.append(process)
    return process


def exit_or_ready(process: subprocess.Popen[bytes], port: int, log: Path) -> int | None:
    """The start's exit code, or None once the server says it is ready."""
    deadline = time.monotonic() + 60
    while process.poll() is None:
        try:
            if fetch.get(f"http://127.0.0.1:{port}/readyz", timeout=2).status_code == 200:
                return None
        except httpx.TransportError:
            pass
        assert time.monotonic() < deadline, log.read_text()
        time.sleep(0.1)
    return process.returncode


def errors(log: Path) -> list[str]:
    lines = (json.loads(line) for line in log.read_text().splitlines() if line.strip())
    return [str(line["message"]) for line in lines if line["level"] == "error"]


def left(data: Path, what: str) -> Path:
    """An earlier run's ``what`` beside the database (the parts of its path made as they are
    made by a run: the event log's folder when a segment is asked for)."""
    path = data / what
    path.parent.mkdir(exist_ok=True)
    give(path.parent)
    if what == "spectrum.db-live":
        path.mkdir()
    elif what == "spectrum.db-outbox":
        Outbox(path, "spectrum.db").keep([])
    else:
        path.touch()
    return path


@pytest.mark.parametrize(
    ("what", "fix"),
    [
        ("spectrum.db-live", "(chown -R)"),
        ("spectrum.db-live/00000001.jsonl", "(chown -R)"),
        ("spectrum.db-outbox", "(chown), and keep it"),
        ("spectrum.db-wal", "(chown), and keep them"),
        ("spectrum.db.lock", "(chown), and keep them"),
    ],
)
def test_what_an_earlier_run_left_must_be_the_servers(
    data: Path, tmp_path: Path, what: str, fix: str
) -> None:
    taken = left(data, what)
    take(taken)
    port, log = free_port(), tmp_path / "start.log"
    process = start(data, port, log)
    assert exit_or_ready(process, port, log) == 1, "not refused:\n" + log.read_text()
    (error,) = errors(log)
    assert error.startswith("cannot start: cannot write "), error
    assert f"for uid {USER} on {taken})" in error
    assert f"readable and writable by uid {USER} {fix}" in error

    give(taken)  # as the line says
    process = start(data, port, log)
    assert exit_or_ready(process, port, log) is None, log.read_text()
    process.send_signal(signal.SIGTERM)
    process.wait(30)
