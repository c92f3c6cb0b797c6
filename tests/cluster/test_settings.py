"""Cluster mode is switched on by REDIS_URL, and refuses what would split or lose rooms."""

import asyncio
import contextlib
import secrets
import subprocess
import sys
import threading
from pathlib import Path

import pytest
import redis

from app.cluster.nodes import Directory
from app.config import Settings
from tests.cluster.harness import private_redis
from tests.databases import postgres_database
from tests.ops.test_start import (
    _end_what_was_started,  # noqa: F401
    until_logged,
    wait_until_ready,
)
from tests.ops.test_start import start as start_logged
from tests.redis_server import TEST_REDIS_URL, redis_client
from tests.server import ROOT, free_port, server_env

POSTGRES = "postgresql+asyncpg://spectrum@127.0.0.1/spectrum"


def start(module: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", module],
        cwd=ROOT,
        env=server_env(**env),
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.mark.parametrize(
    ("env", "message"),
    [
        (
            {"REDIS_URL": "redis://127.0.0.1:6379/0", "NODE_ID": "node-1"},
            "cluster mode (REDIS_URL set) needs PostgreSQL",
        ),
        (
            {"REDIS_URL": "redis://127.0.0.1:6379/0", "DATABASE_URL": POSTGRES},
            "cluster mode (REDIS_URL set) needs NODE_ID",
        ),
        (
            {"REDIS_URL": "redis://x", "DATABASE_URL": POSTGRES, "NODE_ID": "Node 1"},
            "NODE_ID 'Node 1' must be 1 to 32 lower-case letters",
        ),
        ({"NODE_ID": "node-1"}, "NODE_ID is for cluster mode: set REDIS_URL too"),
        (
            {"REDIS_URL": "http://x", "DATABASE_URL": POSTGRES, "NODE_ID": "n1"},
            "REDIS_URL must start with redis://",
        ),
    ],
)
def test_cluster_settings_are_refused_with_a_clear_message(
    env: dict[str, str], message: str
) -> None:
    result = start("app", **env)
    assert result.returncode == 2
    assert "cannot start" in result.stderr
    assert message in result.stderr


def test_without_redis_url_nothing_changes() -> None:
    settings = Settings()
    assert not settings.cluster
    assert settings.redis_url == ""


def test_the_node_path_defaults_to_the_node_id() -> None:
    settings = Settings(redis_url="redis://r", database_url=POSTGRES, node_id="node-2")
    assert settings.cluster
    assert settings.node_prefix == "/n/node-2"


def test_a_node_id_held_by_a_running_node_is_refused_at_start() -> None:
    async def hold_and_start() -> subprocess.CompletedProcess[str]:
        async with redis_client() as (client, prefix):
            other = Directory(client, "dup-node", "another-process", 60_000, prefix)
            assert await other.beat("/n/dup-node")
            try:
                with postgres_database() as url:
                    return await asyncio.to_thread(
                        start,
                        "app.scripts.start",
                        DATABASE_URL=url,
                        REDIS_URL=TEST_REDIS_URL,
                        NODE_ID="dup-node",
                        CLUSTER_NAME=prefix,
                        LEASE_MS="500",
                        PORT=str(free_port()),  # whatever else runs here on the default port
                    )
            finally:
                await other.leave()

    result = asyncio.run(hold_and_start())
    assert result.returncode == 1
    assert "node id 'dup-node' is in use by another running node" in result.stderr


def test_a_redis_that_refuses_or_does_not_answer_is_said_so_at_start_without_its_password() -> None:
    """A wrong password or a database number past the server's, and a Redis that is not
    there: each is refused in one line naming the URL with its password hidden (it was said
    back whole, and a refusal was called "did not answer")."""
    with private_redis(password="right-horse-battery") as server, postgres_database() as url:
        cases = {
            f"redis://:wrong-staple-42@127.0.0.1:{server.port}/0": (
                f"Redis at redis://:***@127.0.0.1:{server.port}/0 refused this server ("
            ),
            f"redis://:right-horse-battery@127.0.0.1:{server.port}/99": (
                f"Redis at redis://:***@127.0.0.1:{server.port}/99 refused this server "
                "(DB index is out of range); check REDIS_URL's database number"
            ),
            "redis://:wrong-staple-42@127.0.0.1:" + (port := str(free_port())) + "/0": (
                f"Redis at redis://:***@127.0.0.1:{port}/0 did not answer within 0 s ("
            ),
        }
        for redis_url, said in cases.items():
            result = start(
                "app.scripts.start",
                DATABASE_URL=url,
                REDIS_URL=redis_url,
                NODE_ID="node-1",
                PORT=str(free_port()),
                REDIS_WAIT_SECONDS="0",  # the refusals end the start at once all the same
            )
            assert result.returncode == 1, result.stderr
            (line,) = [line for line in result.stderr.splitlines() if "cannot start" in line]
            assert said in line
            assert "wrong-staple-42" not in result.stderr + result.stdout
            assert "right-horse-battery" not in result.stderr + result.stdout


def start_node(
    database_url: str, redis_url: str, folder: Path
) -> tuple[subprocess.Popen[bytes], int, Path]:
    """A cluster node's start on its own port and cluster name: its process, port and log."""
    port, log = free_port(), folder / "start.log"
    process = start_logged(
        database_url,
        port,
        log,
        REDIS_URL=redis_url,
        NODE_ID="node-1",
        CLUSTER_NAME=f"start{secrets.token_hex(4)}",
    )
    return process, port, log


def test_a_node_waits_for_redis_at_start_then_serves(tmp_path: Path) -> None:
    """A Redis not answering yet (started after the node, or restarting) is waited for, as the
    database is; the start ended at once, and a node started with its Redis stayed down."""
    with private_redis(started=False) as server, postgres_database() as url:
        process, port, log = start_node(url, server.url, tmp_path)
        until_logged(log, f"waiting for Redis at {server.url}", process)
        server.start()
        wait_until_ready(process, port, log)
        assert f"Redis ready: {server.url}" in log.read_text()
        assert "maxmemory-policy" not in log.read_text()


def test_a_node_waits_for_a_redis_busy_with_a_script_at_start_then_serves(tmp_path: Path) -> None:
    """A Redis that answers BUSY (another program's script still running) is there but not
    serving yet: it is waited for, as one not answering is; it was taken for a refusal, with a
    password hint, and the start ended."""
    options = ("--busy-reply-threshold", "50")
    with private_redis(options=options) as server, postgres_database() as url:

        def run_forever() -> None:
            with contextlib.suppress(redis.ResponseError):  # killed: "Script killed by user"
                redis.Redis.from_url(server.url).eval("while true do end", 0)

        running = threading.Thread(target=run_forever, daemon=True)
        running.start()
        process, port, log = start_node(url, server.url, tmp_path)
        try:
            until_logged(log, f"waiting for Redis at {server.url} (BUSY", process)
        finally:
            redis.Redis.from_url(server.url).script_kill()
            running.join(30)
        wait_until_ready(process, port, log)
        assert "cannot start" not in log.read_text()


@pytest.mark.parametrize(
    ("value", "said"),
    [
        ("a list", "another program uses this cluster's keys: set another CLUSTER_NAME"),
        ("not json", "node id 'node-1' is in use by another running node (at ?)"),
        ('{"address": 7}', "node id 'node-1' is in use by another running node (at ?)"),
    ],
)
def test_a_node_entry_another_program_wrote_is_said_so_in_one_line(value: str, said: str) -> None:
    """The key of this node's entry holding what no node wrote (a list, a string that is not
    an entry): the start ends in one line saying what is wrong; a traceback came out before."""
    cluster = f"start{secrets.token_hex(4)}"
    key = f"{cluster}:node:node-1"
    with private_redis() as server, postgres_database() as url:
        client = redis.Redis.from_url(server.url)
        if value == "a list":
            client.rpush(key, "x")
        else:
            client.set(key, value)
        result = start(
            "app.scripts.start",
            DATABASE_URL=url,
            REDIS_URL=server.url,
            NODE_ID="node-1",
            CLUSTER_NAME=cluster,
            LEASE_MS="500",
            PORT=str(free_port()),
        )
    assert result.returncode == 1, result.stderr
    assert "Traceback" not in result.stderr
    (line,) = [line for line in result.stderr.splitlines() if "cannot start" in line]
    assert said in line


def test_a_redis_user_without_the_rights_the_node_needs_is_told_which() -> None:
    """A user of Redis's access lists refused a command (NOPERM) was given the hint of a wrong
    password and database number."""
    with private_redis() as server, postgres_database() as url:
        admin = redis.Redis.from_url(server.url)
        admin.acl_setuser(
            "cards", enabled=True, passwords=["+cards-pw"], keys=["*"], commands=["+@all", "-get"]
        )
        result = start(
            "app.scripts.start",
            DATABASE_URL=url,
            REDIS_URL=f"redis://cards:cards-pw@127.0.0.1:{server.port}/0",
            NODE_ID="node-1",
            PORT=str(free_port()),
        )
    assert result.returncode == 1, result.stderr
    (line,) = [line for line in result.stderr.splitlines() if "cannot start" in line]
    assert "refused this server (" in line
    assert line.endswith("give REDIS_URL's user the rights to every command and key (+@all ~*)")
    assert "cards-pw" not in result.stderr


@pytest.mark.parametrize("policy", ["allkeys-lru", "volatile-ttl"])
def test_a_redis_that_may_drop_leases_when_full_is_warned_of_at_start(
    tmp_path: Path, policy: str
) -> None:
    """A Redis that drops keys when its memory is full (a cache shared with other programs)
    may drop a room's lease: the room then moves to another node. The start says so, and
    serves all the same."""
    options = ("--maxmemory", "64mb", "--maxmemory-policy", policy)
    with private_redis(options=options) as server, postgres_database() as url:
        process, port, log = start_node(url, server.url, tmp_path)
        wait_until_ready(process, port, log)
        (warning,) = [line for line in log.read_text().splitlines() if "maxmemory" in line]
        assert f"(maxmemory-policy {policy})" in warning
        assert '"level":"warning"' in warning
