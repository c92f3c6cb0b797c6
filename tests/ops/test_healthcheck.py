"""The container's health check (python -m app.scripts.healthcheck) run against a real server."""

import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.ops.test_start import _end_what_was_started, start  # noqa: F401
from tests.server import ROOT, free_port, running_server, server_env

PROXY_SETTINGS = ("http_proxy", "https_proxy", "all_proxy", "no_proxy")


def healthcheck(**env: str) -> subprocess.CompletedProcess[str]:
    # The test's own proxy settings are left out: only those given here are in force.
    base = {k: v for k, v in server_env().items() if k.lower() not in PROXY_SETTINGS}
    return subprocess.run(
        [sys.executable, "-m", "app.scripts.healthcheck"],
        cwd=ROOT,
        env=base | env,
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )


def test_a_running_server_is_healthy() -> None:
    with running_server() as server:
        result = healthcheck(HOST="0.0.0.0", PORT=str(server.port))
    assert result.returncode == 0, result.stderr


def test_the_proxy_settings_of_the_environment_are_not_used() -> None:
    """Docker's client `proxies` setting gives every container HTTP_PROXY and http_proxy; the
    check asks the server on its own address all the same, not through the proxy."""
    nobody = f"http://127.0.0.1:{free_port()}"  # a proxy that is not there
    proxies = {"http_proxy": nobody, "HTTP_PROXY": nobody, "ALL_PROXY": nobody}
    with running_server() as server:
        result = healthcheck(HOST="0.0.0.0", PORT=str(server.port), **proxies)
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""


def test_a_port_nobody_answers_on_is_unhealthy() -> None:
    port = free_port()
    result = healthcheck(HOST="127.0.0.1", PORT=str(port))
    assert result.returncode == 1
    assert result.stderr.startswith(f"unhealthy: http://127.0.0.1:{port}/healthz:")


@pytest.mark.parametrize(("host", "port"), [("::", "{port}"), ("0.0.0.0", "{port}.0")])
def test_the_check_asks_where_the_server_listens_as_the_server_reads_its_settings(
    tmp_path: Path, host: str, port: str
) -> None:
    """A server on every IPv6 interface ("::", IPv6 alone) is asked on ::1, not 127.0.0.1,
    where nothing answers; a PORT the server reads as a whole number ("8000.0") is read so
    too. Either way the check said a healthy server was not (the second with a traceback)."""
    number = free_port()
    env = {"HOST": host, "PORT": port.format(port=number)}
    log = tmp_path / "server.log"
    process = start(f"sqlite+aiosqlite:///{tmp_path}/spectrum.db", number, log, **env)
    deadline = time.monotonic() + 60
    while (result := healthcheck(**env)).returncode != 0:
        assert "Traceback" not in result.stderr, result.stderr
        assert process.poll() is None, log.read_text()
        assert time.monotonic() < deadline, (result.stderr, log.read_text())
        time.sleep(0.5)
    assert result.stderr == ""
    if host == "::":  # and on IPv4's loopback nothing answers: the check did not guess
        wrong = healthcheck(HOST="127.0.0.1", PORT=str(number))
        assert wrong.returncode == 1
