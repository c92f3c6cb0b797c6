"""docker-compose.cluster.yml started for real: PostgreSQL, Redis, three nodes of the image built
from this checkout and nginx; rooms played through nginx while the README's rolling upgrade
replaces every node, one after another; nothing acknowledged is lost.

The engine here has no bridge network and reaches no registry (tests/ops/docker_engine.sh starts
it and builds stand-ins for the base images, nginx's and Redis's too). So an override keeps the
stack off Docker's networks: the database gets a namespace holding only "lo", every other
service joins it, and each service name is 127.0.0.1 there; the nodes listen on ports of their
own, and nginx is given docker/nginx.conf with those ports. The test plays from inside that
namespace (nsenter). Without an engine the test skips, unless REQUIRE_DOCKER=1.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.ops.docker import build_image, docker, need_docker, until
from tests.server import ROOT, server_env

COMPOSE = ROOT / "docker-compose.cluster.yml"
NODES = ("node-1", "node-2", "node-3")
STAND_INS = ("redis:7", "nginx:1.27")

# The nodes' health is probed every 2 s rather than at the image's 15 s, so that the upgrade's
# waits are the nodes' own, not the probe's period; the database's and Redis's every 3 s, which
# only their start waits on (each probe starts processes in a container: more often would only
# busy the cores).
OVERRIDE = """services:
  db:
    network_mode: none
    healthcheck: {{interval: 3s}}
    extra_hosts: ["db:127.0.0.1", "redis:127.0.0.1", "node-1:127.0.0.1", "node-2:127.0.0.1",
                  "node-3:127.0.0.1"]
  redis:
    network_mode: "service:db"
    healthcheck: {{interval: 3s}}
  node-1:
    image: {image}
    network_mode: "service:db"
    healthcheck: {{interval: 2s}}
    environment: {{PORT: "8001", LEASE_MS: "3000", MESSAGES_PER_SECOND: "1000",
                   MESSAGE_BURST: "1000"}}
  node-2:
    image: {image}
    network_mode: "service:db"
    healthcheck: {{interval: 2s}}
    environment: {{PORT: "8002", LEASE_MS: "3000", MESSAGES_PER_SECOND: "1000",
                   MESSAGE_BURST: "1000"}}
  node-3:
    image: {image}
    network_mode: "service:db"
    healthcheck: {{interval: 2s}}
    environment: {{PORT: "8003", LEASE_MS: "3000", MESSAGES_PER_SECOND: "1000",
                   MESSAGE_BURST: "1000"}}
  nginx:
    network_mode: "service:db"
    ports: !reset []
    volumes: !override ["{nginx}:/etc/nginx/spectrum:ro"]
"""


def loopback_nginx_conf() -> str:
    """docker/nginx.conf with each node at the port it has in the shared namespace."""
    text = (ROOT / "docker" / "nginx.conf").read_text()
    for n, node in enumerate(NODES, start=1):
        text, count = re.subn(rf"\b{node}:8000\b", f"{node}:800{n}", text)
        assert count == 2, f"{node} is not in docker/nginx.conf twice"
    return text


class ClusterStack:
    """The cluster compose file and the override, up under a project name of their own."""

    def __init__(self, folder: Path, image: str) -> None:
        self.project = f"spectrumcluster{secrets.token_hex(3)}"
        self.image = image
        nginx = folder / "nginx"
        nginx.mkdir()
        nginx.chmod(0o755)
        (nginx / "nginx.conf").write_text(loopback_nginx_conf())
        (nginx / "nginx.conf").chmod(0o644)
        self.override = folder / "compose.cluster-loopback.yml"
        self.override.write_text(OVERRIDE.format(image=image, nginx=nginx))
        self.command = f"docker compose -p {self.project} -f {COMPOSE} -f {self.override}"

    def compose(self, *args: str, timeout: float = 600) -> subprocess.CompletedProcess[str]:
        result = subprocess.run(
            [*self.command.split(), *args],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
            env=_without_settings(),
        )
        assert result.returncode == 0, result.stdout + result.stderr
        return result

    def container(self, service: str) -> str:
        return self.compose("ps", "-q", service).stdout.strip()

    def healthy(self, service: str) -> bool:
        name = self.container(service)
        if not name:
            return False
        status = docker("inspect", "-f", "{{.State.Health.Status}}", name, check=False)
        return status.stdout.strip() == "healthy"

    def rolling_script(self, folder: Path) -> Path:
        """The README's rolling upgrade, as it is written there, for this stack's files."""
        readme = (ROOT / "README.md").read_text()
        block = readme.split("**Rolling upgrade**", 1)[1].split("\n\n", 2)[1]
        lines = [line[4:] for line in block.splitlines()]
        assert lines[0].startswith("git pull && "), lines[0]
        # Each `docker compose` of the README, for this project and the override.
        script = "\n".join(lines[1:]).replace(
            "docker compose -f docker-compose.cluster.yml", self.command
        )
        path = folder / "rolling.sh"
        assert script.count(self.command) == script.count("docker compose") == 3, script
        path.write_text(f"cd {ROOT}\n{script}\n")
        return path

    def logs(self) -> str:
        result = subprocess.run(
            [*self.command.split(), "logs", "--no-color", "--tail", "200"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        return result.stdout[-30000:] + result.stderr[-3000:]

    def inside(self, *args: str) -> dict[str, Any]:
        """Run ``tests.cluster.compose_rolling`` in the stack's network namespace."""
        pid = docker("inspect", "-f", "{{.State.Pid}}", self.container("db")).stdout.strip()
        result = subprocess.run(
            [
                "nsenter",
                f"--net=/proc/{pid}/ns/net",
                "--",
                sys.executable,
                "-m",
                "tests.cluster.compose_rolling",
                *args,
            ],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=1500,
            check=False,
        )
        assert result.returncode == 0, result.stdout[-5000:] + result.stderr[-20000:]
        answer: dict[str, Any] = json.loads(result.stdout.splitlines()[-1])
        return answer

    def down(self) -> None:
        subprocess.run(
            [*self.command.split(), "down", "-v", "--timeout", "30"],
            cwd=ROOT,
            capture_output=True,
            timeout=300,
            check=False,
        )


def _without_settings() -> dict[str, str]:
    env = server_env()
    env.pop("POSTGRES_PASSWORD", None)
    return env


def need_stand_ins() -> None:
    need_docker()
    for image in STAND_INS:
        if docker("image", "inspect", image, check=False).returncode != 0:
            problem = f"image {image} missing (bash tests/ops/docker_engine.sh builds a stand-in)"
            if os.environ.get("REQUIRE_DOCKER") == "1":
                pytest.fail(f"REQUIRE_DOCKER=1 but {problem}")
            pytest.skip(problem)


def new_revision(base: str, tag: str, revision: int, folder: Path) -> None:
    """``tag``: the image ``base`` with one label more, as a new release would be a new image."""
    place = folder / f"revision-{revision}"
    place.mkdir()
    (place / "Dockerfile").write_text(
        f"FROM {base}\nLABEL org.spectrum-online.test-revision={revision}\n"
    )
    docker("build", "-q", "-t", tag, str(place), timeout=300)


@pytest.fixture
def stack(tmp_path: Path) -> Iterator[ClusterStack]:
    need_stand_ins()
    base = build_image()
    tag = f"spectrum-online:cluster-{secrets.token_hex(3)}"
    new_revision(base, tag, 1, tmp_path)
    stack = ClusterStack(tmp_path, tag)
    try:
        yield stack
    except BaseException:
        print(stack.logs())
        raise
    finally:
        stack.down()
        docker("image", "rm", "-f", tag, check=False)


def test_the_cluster_stack_plays_through_nginx_across_a_rolling_upgrade(
    stack: ClusterStack, tmp_path: Path
) -> None:
    stack.compose("up", "-d", timeout=900)
    for service in NODES:
        until(f"{service} to be healthy", lambda s=service: stack.healthy(s), 300)
    containers = {node: stack.container(node) for node in NODES}

    # A new release: the same code as a new image, so that `up -d` replaces each node.
    new_revision(stack.image, stack.image, 2, tmp_path)
    result = stack.inside(str(stack.rolling_script(tmp_path)))
    print(f"compose rolling upgrade: {result}")

    for node in NODES:
        assert stack.container(node) != containers[node], f"{node} was not replaced"
    assert result["lost"] == [], result
    assert 4012 in result["closes"], result  # the drained nodes' players were told "moved"
    assert len(set(result["before"].values())) > 1, result  # rooms on more than one node
    assert result["rounds"] == [[1, 2]] * 6, result
