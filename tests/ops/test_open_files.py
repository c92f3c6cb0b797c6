"""Each connection is a file descriptor: the server raises its soft limit of open files to the
hard one, so that a system's usual 1,024 does not cap it at a few hundred players, and says so
in its log when even the hard limit is low."""

from __future__ import annotations

import re
import resource
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx

from tests import fetch
from tests.server import FAST, ROOT, free_port, migrate, server_env


@contextmanager
def serving_with_limits(folder: Path, soft: int, hard: int) -> Iterator[tuple[int, Path]]:
    """``python -m app`` started with these limits of open files: its pid and its log, once it
    answers."""
    url = f"sqlite+aiosqlite:///{folder}/spectrum.db"
    migrate(url)
    port = free_port()
    env = server_env(HOST="127.0.0.1", PORT=str(port), DATABASE_URL=url, **FAST)
    log = folder / "log"

    def limited() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))

    with log.open("wb") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "app"],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            preexec_fn=limited,
        )
    try:
        deadline = time.monotonic() + 60
        while True:
            assert process.poll() is None, log.read_text()
            try:
                if fetch.get(f"http://127.0.0.1:{port}/healthz", timeout=5).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert time.monotonic() < deadline, log.read_text()
            time.sleep(0.05)
        yield process.pid, log
    finally:
        process.terminate()
        process.wait(30)


def open_files(pid: int) -> tuple[int, int]:
    """The soft and hard limits of open files of process ``pid``."""
    limits = Path(f"/proc/{pid}/limits").read_text()
    found = re.search(r"^Max open files\s+(\d+)\s+(\d+)", limits, re.M)
    assert found, limits
    return int(found.group(1)), int(found.group(2))


def test_the_soft_limit_is_raised_to_the_hard_one(tmp_path: Path) -> None:
    with serving_with_limits(tmp_path, soft=256, hard=8192) as (pid, log):
        assert open_files(pid) == (8192, 8192)
        assert "may open only" not in log.read_text()


def test_a_low_hard_limit_is_said_in_the_log(tmp_path: Path) -> None:
    with serving_with_limits(tmp_path, soft=512, hard=1024) as (pid, log):
        assert open_files(pid) == (1024, 1024)
        assert "may open only 1024 files" in log.read_text()
