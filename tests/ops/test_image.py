"""The real image, built from this checkout and run on a Docker engine, alone and in compose.

Needs the engine and stand-in base images of tests/ops/docker_engine.sh; skips without them
unless REQUIRE_DOCKER=1 (CI), when it fails.
"""

from __future__ import annotations

import asyncio
import copy
import json
import random
import secrets
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from app.storage.migrations import head_revision
from tests import fetch
from tests.databases import fetch_value, postgres_database
from tests.ops.docker import (
    STOP_SECONDS,
    Container,
    build_image,
    container,
    docker,
    need_docker,
    until,
)
from tests.play import play_until
from tests.rooms.client import Client, close_all, create_room, join_room
from tests.server import ROOT, free_port, server_env


@pytest.fixture(scope="module")
def image() -> str:
    """The project's image, built once for these tests."""
    need_docker()
    return build_image()


@pytest.fixture
def volume() -> Iterator[str]:
    """A new named volume, removed afterwards."""
    name = f"spectrum-test-{secrets.token_hex(4)}"
    docker("volume", "create", name)
    yield name
    docker("volume", "rm", "-f", name, check=False)


def stop(box: Container) -> int:
    """`docker stop` with a long grace; the container's exit code (137: it had to be killed)."""
    docker("stop", "-t", str(STOP_SECONDS), box.name, timeout=STOP_SECONDS + 30)
    return box.wait_exited()


async def seated_pair(box: Container, **settings: Any) -> tuple[str, list[str], list[Client]]:
    """A room with Ann (host) and Bob, both connected."""
    room = create_room(box.server, "Ann", **settings)
    bob = join_room(box.server, room["code"], "Bob")
    tokens = [room["token"], bob["token"]]
    clients = [Client(box.server, room["code"], token) for token in tokens]
    for client in clients:
        await client.connect()
    return room["code"], tokens, clients


def test_plays_survives_restart_and_stops_cleanly_on_postgres(image: str) -> None:
    with (
        postgres_database() as url,
        container(image, "spectrum-test-pg", free_port(), {"DATABASE_URL": url}) as box,
    ):
        box.wait_ready()
        assert fetch.get(f"{box.server.url}/healthz").json() == {"status": "ok"}
        assert fetch.get(f"{box.server.url}/readyz").json()["migrations"] == head_revision()

        async def before_restart() -> tuple[str, list[str], dict[str, Any], list[Any]]:
            code, tokens, clients = await seated_pair(box, rounds=2, turn_seconds=0)
            await clients[0].act("start")
            rng = random.Random(3)
            for _ in range(6):
                for client in clients:
                    await client.wait_for(lambda s: s["status"] == "playing")
                await clients[1].wait_for(lambda s, c=clients[0]: s["round"] == c.state["round"])
                mover = next(client for client in clients if client.my_turn())
                await mover.play(mover.random_move(rng, knock_chance=0))
            kept = clients[0].state
            assert kept is not None
            await clients[1].wait_for(lambda s: s["round"] == kept["round"])
            await asyncio.to_thread(docker, "restart", "-t", str(STOP_SECONDS), box.name)
            closes = [await client.wait_closed(60) for client in clients]
            return code, tokens, copy.deepcopy(kept["round"]), closes

        code, tokens, round_before, closes = asyncio.run(before_restart())
        assert [close[0] for close in closes] == [1012, 1012]
        box.wait_ready()

        async def after_restart() -> tuple[dict[str, Any], list[int], int]:
            clients = [Client(box.server, code, token) for token in tokens]
            for client in clients:
                await client.connect()
            state = clients[0].state
            assert state is not None
            round_after = copy.deepcopy(state["round"])
            await play_until(clients, random.Random(4), lambda s: s["status"] == "finished", 0.2)
            assert clients[0].state is not None
            totals = [player["total"] for player in clients[0].state["players"]]
            watcher = clients[0]
            stopping = asyncio.to_thread(stop, box)
            exit_code = await stopping
            assert (await watcher.wait_closed(30))[0] == 1012
            await close_all()
            return round_after, totals, exit_code

        box_round, totals, exit_code = asyncio.run(after_restart())
        assert box_round == round_before
        assert exit_code == 0, box.logs()[-2000:]
        assert any(
            record["message"] == "Application shutdown complete." for record in box.records()
        )

        docker("start", box.name)
        box.wait_ready()
        listing = fetch.get(f"{box.server.url}/api/matches", params={"player": "Ann"}).json()
        (match,) = listing["matches"]
        detail = fetch.get(f"{box.server.url}/api/matches/{match['id']}").json()
        assert len(detail["rounds"]) == 2
        assert [seat["total"] for seat in detail["players"]] == totals
        assert detail["status"] == "finished"


def test_stops_at_once_while_waiting_for_the_database(image: str) -> None:
    nowhere = f"postgresql+asyncpg://spectrum@127.0.0.1:{free_port()}/spectrum"
    with container(image, "spectrum-test-wait", free_port(), {"DATABASE_URL": nowhere}) as box:
        until("the wait", lambda: "waiting for the database" in box.logs())
        assert stop(box) == 0
        messages = [record["message"] for record in box.records()]
        assert "stopped by SIGTERM before serving" in messages


def test_sqlite_default_health_check_and_user(image: str, volume: str) -> None:
    port = free_port()
    health = ["--health-interval=1s", "--health-start-period=60s", "--health-retries=2"]
    with container(
        image, "spectrum-test-sqlite", port, {}, f"-v{volume}:/srv/spectrum/data", *health
    ) as box:
        box.wait_ready()
        until(
            "a healthy container", lambda: box.inspect()["State"]["Health"]["Status"] == "healthy"
        )
        assert box.inspect()["Config"]["User"] == "10001:10001"
        assert docker("exec", box.name, "id", "-u").stdout.strip() == "10001"
        elsewhere = docker(
            "exec",
            "-e",
            f"PORT={free_port()}",
            box.name,
            "python",
            "-m",
            "app.scripts.healthcheck",
            check=False,
        )
        assert elsewhere.returncode == 1, elsewhere.stdout + elsewhere.stderr

        room = create_room(box.server, "Ann", rounds=1)
        docker("restart", "-t", str(STOP_SECONDS), box.name, timeout=STOP_SECONDS + 60)
        box.wait_ready()
        answer = fetch.get(f"{box.server.url}/api/rooms/{room['code']}")
        assert answer.status_code == 200, answer.text
        assert [seat["name"] for seat in answer.json()["players"]] == ["Ann"]
    listing = docker(
        "run", "--rm", f"-v{volume}:/data", "--entrypoint", "ls", image, "/data"
    ).stdout.split()
    assert "spectrum.db" in listing


BAD_START = [
    ({"DATABASE_URL": "mysql://spectrum@db/spectrum"}, (), 2, "DATABASE_URL: must start with"),
    (
        {"DATABASE_URL": "postgresql+asyncpg://x@127.0.0.1:{port}/x", "DATABASE_WAIT_SECONDS": "2"},
        (),
        1,
        "did not answer within 2 s",
    ),
    ({}, ("-v{volume}:/srv/spectrum/data:ro",), 1, "read-only file system"),
]


@pytest.mark.parametrize(("env", "options", "exit_code", "said"), BAD_START)
def test_bad_starts_say_why_in_one_line(
    image: str,
    volume: str,
    env: dict[str, str],
    options: tuple[str, ...],
    exit_code: int,
    said: str,
) -> None:
    port = free_port()
    env = {key: value.format(port=free_port()) for key, value in env.items()}
    options = tuple(option.format(volume=volume) for option in options)
    with container(image, "spectrum-test-bad", port, env, *options) as box:
        assert box.wait_exited() == exit_code, box.logs()
        (error,) = box.errors()
        assert said in error


def test_a_database_from_a_newer_version_is_left_alone(image: str) -> None:
    with postgres_database() as url:
        subprocess.run(
            [sys.executable, "-m", "alembic", "upgrade", "head"],
            cwd=ROOT,
            check=True,
            env={"DATABASE_URL": url, "PATH": "/usr/bin:/bin"},
            capture_output=True,
        )
        fetch_value(url, "UPDATE alembic_version SET version_num = 'zz_newer'")
        with container(image, "spectrum-test-newer", free_port(), {"DATABASE_URL": url}) as box:
            assert box.wait_exited() == 1
            (error,) = box.errors()
            assert "is at migration zz_newer, which this version does not know" in error
        assert fetch_value(url, "SELECT version_num FROM alembic_version") == "zz_newer"


# The compose stack, kept off Docker's networks: the database gets a namespace holding only
# "lo" and the app joins it; the tests reach it from inside that namespace. The database's health
# is probed every second, so that the app, which waits for it, starts once it is up.
LOOPBACK = """services:
  db:
    network_mode: none
    healthcheck: {{interval: 1s}}
    extra_hosts: ["db:127.0.0.1"]
  app:
    image: {image}
    network_mode: "service:db"
    ports: !reset []
"""


class Stack:
    """The project's docker-compose.yml, up under its own project name."""

    def __init__(self, image: str, folder: Path) -> None:
        self.project = f"spectrumtest{secrets.token_hex(3)}"
        self.override = folder / "compose.loopback.yml"
        self.override.write_text(LOOPBACK.format(image=image))

    def compose(self, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
        files = ["-f", str(ROOT / "docker-compose.yml"), "-f", str(self.override)]
        result = subprocess.run(
            ["docker", "compose", "-p", self.project, *files, *args],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
            env={**_without_settings(), **env},
        )
        assert result.returncode == 0, result.stdout + result.stderr
        return result

    def app(self) -> Container:
        return Container(f"{self.project}-app-1", 8000)

    def healthy(self) -> bool:
        probe = ["exec", self.app().name, "python", "-m", "app.scripts.healthcheck"]
        return docker(*probe, check=False).returncode == 0

    def inside(self, *args: str) -> dict[str, Any]:
        """Run a step of tests.ops.compose_play in the stack's network namespace."""
        pid = docker("inspect", "-f", "{{.State.Pid}}", f"{self.project}-db-1").stdout.strip()
        result = subprocess.run(
            [
                "nsenter",
                f"--net=/proc/{pid}/ns/net",
                "--",
                sys.executable,
                "-m",
                "tests.ops.compose_play",
                *args,
            ],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        assert result.returncode == 0, result.stdout + result.stderr
        answer: dict[str, Any] = json.loads(result.stdout.splitlines()[-1])
        return answer


def _without_settings() -> dict[str, str]:
    env = server_env()
    env.pop("POSTGRES_PASSWORD", None)
    return env


def test_compose_stack_plays_a_match_across_a_restart(image: str, tmp_path: Path) -> None:
    stack = Stack(image, tmp_path)
    try:
        stack.compose("up", "-d")
        until("the stack to be healthy", stack.healthy, 120)
        first = stack.inside("first-round")
        stack.compose("restart", "app")
        until("the app to be healthy again", stack.healthy, 120)
        rest = stack.inside("rest-of-match", json.dumps(first))
        assert rest["rounds"] == 2

        # A password changed after the database was created: one line says what to do.
        stack.compose("up", "-d", "app", POSTGRES_PASSWORD="changed-later")
        app = stack.app()
        until("the refusal", lambda: "refused the password" in app.logs(), 120)
        assert any("Changing the database password" in error for error in app.errors())
        stack.compose("up", "-d", "app")
        until("the app to be healthy with the first password", stack.healthy, 120)
        assert stack.inside("history", rest["match"]) == {"rounds": 2}
    finally:
        subprocess.run(
            [
                "docker",
                "compose",
                "-p",
                stack.project,
                "-f",
                str(ROOT / "docker-compose.yml"),
                "-f",
                str(stack.override),
                "down",
                "-v",
            ],
            cwd=ROOT,
            capture_output=True,
            timeout=300,
            check=False,
        )
