"""The Docker engine for the image tests: commands, the project's image, running containers.

The engine and the stand-in base images come from tests/ops/docker_engine.sh. Without them
the image tests skip, unless REQUIRE_DOCKER=1, when they fail.
"""

from __future__ import annotations

import json
import os
import subprocess
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import httpx
import pytest

from tests import fetch
from tests.server import ROOT, Server

IMAGE = "spectrum-online:test"
BASES = ("python:3.11.11-slim-bookworm", "postgres:16")
# Seconds docker waits after SIGTERM before it kills a container: far more than a stop takes,
# so a container still killed shows that SIGTERM went unanswered.
STOP_SECONDS = 30


def docker(
    *args: str, check: bool = True, timeout: float = 300
) -> subprocess.CompletedProcess[str]:
    """Run the docker CLI; raises with its output when ``check`` and it fails."""
    result = subprocess.run(
        ["docker", *args], capture_output=True, text=True, timeout=timeout, check=False
    )
    if check and result.returncode != 0:
        raise AssertionError(f"docker {' '.join(args)}: {result.stdout}{result.stderr}")
    return result


def engine_problem() -> str | None:
    """None when an engine and the base images are here, else why not."""
    try:
        if docker("info", check=False, timeout=30).returncode != 0:
            return "no Docker engine answers (start one: bash tests/ops/docker_engine.sh)"
    except (OSError, subprocess.TimeoutExpired) as error:
        return f"no Docker client or engine ({error}); see tests/ops/docker_engine.sh"
    for base in BASES:
        if docker("image", "inspect", base, check=False).returncode != 0:
            return f"base image {base} missing (bash tests/ops/docker_engine.sh builds it)"
    return None


def need_docker() -> None:
    """Skip (or fail, with REQUIRE_DOCKER=1) when the engine or base images are missing."""
    problem = engine_problem()
    if problem is None:
        return
    if os.environ.get("REQUIRE_DOCKER") == "1":
        pytest.fail(f"REQUIRE_DOCKER=1 but {problem}")
    pytest.skip(problem)


def build_image() -> str:
    """Build the checkout's Dockerfile (the classic builder: no frontend image to pull)."""
    env = {**os.environ, "DOCKER_BUILDKIT": "0"}
    result = subprocess.run(
        ["docker", "build", "--network", "host", "-t", IMAGE, str(ROOT)],
        capture_output=True,
        text=True,
        timeout=900,
        env=env,
        check=False,
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    return IMAGE


def until(what: str, check: Callable[[], bool], seconds: float = 90) -> None:
    """Wait until ``check`` holds; fail naming ``what`` after ``seconds`` (a guard, not a goal)."""
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.2)


@dataclass
class Container:
    """A container of the image on the host's network."""

    name: str
    port: int

    @property
    def server(self) -> Server:
        return Server({}, self.port)

    def inspect(self) -> dict[str, Any]:
        data: list[dict[str, Any]] = json.loads(docker("inspect", self.name).stdout)
        return data[0]

    def logs(self) -> str:
        result = docker("logs", self.name, check=False)
        return result.stdout + result.stderr

    def records(self) -> list[dict[str, Any]]:
        """The container's log, every line of which must be one JSON object."""
        return [json.loads(line) for line in self.logs().splitlines() if line.strip()]

    def errors(self) -> list[str]:
        return [str(record["message"]) for record in self.records() if record["level"] == "error"]

    def status(self) -> str:
        return str(self.inspect()["State"]["Status"])

    def ready(self) -> bool:
        try:
            return fetch.get(f"{self.server.url}/readyz", timeout=2).status_code == 200
        except httpx.TransportError:
            return False

    def wait_ready(self) -> None:
        until(f"{self.name} to be ready", lambda: self.status() == "running" and self.ready())

    def wait_exited(self, seconds: float = 90) -> int:
        until(f"{self.name} to exit", lambda: self.status() == "exited", seconds)
        code: int = self.inspect()["State"]["ExitCode"]
        return code


@contextmanager
def container(
    image: str, name: str, port: int, env: dict[str, str], *options: str
) -> Iterator[Container]:
    """Run the image with ``env`` (and PORT) on the host's network; removed afterwards."""
    docker("rm", "-f", name, check=False)
    settings = [f"--env={key}={value}" for key, value in {"PORT": str(port), **env}.items()]
    docker("run", "-d", "--name", name, "--network", "host", *settings, *options, image)
    try:
        yield Container(name, port)
    finally:
        docker("rm", "-f", name, check=False)
