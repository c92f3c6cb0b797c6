"""The container's start script, run for real against PostgreSQL."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx

from app.storage.migrations import head_revision
from tests.databases import postgres_database, set_connections_allowed
from tests.server import ROOT, free_port, server_env


def start_script(url: str, port: int, log: Path, wait: int) -> subprocess.Popen[bytes]:
    env = server_env(
        DATABASE_URL=url,
        HOST="127.0.0.1",
        PORT=str(port),
        DATABASE_WAIT_SECONDS=str(wait),
        PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
    )
    with log.open("wb") as output:
        return subprocess.Popen(
            ["sh", str(ROOT / "docker" / "start.sh")],
            cwd=ROOT,
            env=env,
            stdout=output,
            stderr=subprocess.STDOUT,
        )


def test_waits_for_the_database_then_migrates_and_serves(tmp_path: Path) -> None:
    with postgres_database() as url:
        set_connections_allowed(url, False)
        port = free_port()
        log = tmp_path / "start.log"
        process = start_script(url, port, log, wait=60)
        try:
            time.sleep(2.5)
            assert process.poll() is None
            assert "waiting for the database" in log.read_text()
            assert "spectrum_test" in log.read_text()
            set_connections_allowed(url, True)
            deadline = time.monotonic() + 60
            while True:
                assert process.poll() is None, log.read_text()
                try:
                    ready = httpx.get(f"http://127.0.0.1:{port}/readyz", timeout=2)
                    if ready.status_code == 200:
                        break
                except httpx.TransportError:
                    pass
                assert time.monotonic() < deadline, log.read_text()
                time.sleep(0.3)
            assert ready.json()["migrations"] == head_revision()
        finally:
            process.send_signal(signal.SIGTERM)
            process.wait(30)
        assert "Application shutdown complete" in log.read_text()


def test_gives_up_when_the_database_never_comes(tmp_path: Path) -> None:
    with postgres_database() as url:
        set_connections_allowed(url, False)
        log = tmp_path / "start.log"
        process = start_script(url, free_port(), log, wait=2)
        assert process.wait(30) == 1
        text = log.read_text()
        assert "database not ready after 2 s" in text
        set_connections_allowed(url, True)
