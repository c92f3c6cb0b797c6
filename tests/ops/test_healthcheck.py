"""The container's health check (python -m app.scripts.healthcheck) run against a real server."""

import subprocess
import sys

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
