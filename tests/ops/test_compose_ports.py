"""The cluster's compose file publishes nginx's port as the single-server file publishes the
server's: on every address, IPv4 and IPv6, unless BIND_ADDRESS names one (0.0.0.0 alone left
IPv6 clients out). Read by `docker compose config`, as Compose reads it."""

from __future__ import annotations

import json
import os
import subprocess
from typing import Any

import pytest

from tests.server import ROOT


def configured(file: str, bind: str | None) -> dict[str, Any]:
    """``file`` as `docker compose config` gives it, with BIND_ADDRESS ``bind`` (or unset)."""
    env = {key: value for key, value in os.environ.items() if key not in ("BIND_ADDRESS", "PORT")}
    if bind:
        env["BIND_ADDRESS"] = bind
    command = ["docker", "compose", "-f", str(ROOT / file), "config", "--format", "json"]
    try:
        done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=60)
        problem = None if done.returncode == 0 else f"docker compose config: {done.stderr}"
    except OSError as error:
        problem = f"no docker CLI ({error})"
    if problem is not None:
        if os.environ.get("REQUIRE_DOCKER") == "1":
            pytest.fail(f"REQUIRE_DOCKER=1 but {problem}")
        pytest.skip(problem)
    data: dict[str, Any] = json.loads(done.stdout)
    return data


@pytest.mark.parametrize(
    ("bind", "host_ip"), [(None, None), ("127.0.0.1", "127.0.0.1"), ("::1", "::1")]
)
def test_the_cluster_publishes_nginx_on_every_address_unless_one_is_named(
    bind: str | None, host_ip: str | None
) -> None:
    [port] = configured("docker-compose.cluster.yml", bind)["services"]["nginx"]["ports"]
    assert (port["published"], port["target"]) == ("8000", 80)
    assert port.get("host_ip") == host_ip
