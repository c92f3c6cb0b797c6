"""A node paused past its directory entry's life, whose id another process took meanwhile: woken,
it gives every room up and stops, rather than serving on under an id that is not its own (its
rooms' leases name the id, so it took the other process's rooms for its own)."""

from __future__ import annotations

import asyncio
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from app.cluster.nodes import Directory
from tests import fetch
from tests.cluster.harness import metrics_of, running_cluster
from tests.cluster.test_adopt_races import Node
from tests.databases import postgres_database
from tests.redis_server import redis_client
from tests.server import ROOT, free_port, migrate, start_server


async def test_a_node_whose_id_was_taken_while_it_was_paused_stops_when_it_wakes() -> None:
    with running_cluster(count=1) as cluster:
        [node] = cluster.ids
        old = cluster.nodes[node]
        assert old.process is not None
        old.process.send_signal(signal.SIGSTOP)
        try:
            # Its entry lapses; a second process of the same id then starts and serves.
            new = await asyncio.to_thread(start_server, cluster.envs[node])
        except BaseException:
            old.process.send_signal(signal.SIGCONT)
            raise
        try:
            room = fetch.post(
                f"{new.url}/api/rooms", json={"name": "Ann"}, headers={"X-Spectrum-Node": node}
            )
            assert room.status_code == 201, room.text
            code = room.json()["code"]
            old.process.send_signal(signal.SIGCONT)

            # The woken process stops by itself, having said why.
            try:
                exit_code = await asyncio.to_thread(old.process.wait, 120)
            except subprocess.TimeoutExpired:
                raise AssertionError("the old process served on: " + old.logs()[-3000:]) from None
            assert exit_code == -signal.SIGTERM  # as stopped by SIGTERM: drained, then ended
            assert f"node id {node} was taken by another process" in old.logs()
            # The room stays with the process that holds the id, which lost nothing.
            assert fetch.get(f"{new.url}/api/rooms/{code}").status_code == 200
            deadline = time.monotonic() + 30
            while fetch.get(f"{new.url}/readyz").status_code != 200:
                assert time.monotonic() < deadline
                await asyncio.sleep(0.2)
            assert metrics_of(new.url)[f'spectrum_rooms_lost_total{{node="{node}"}}'] == 0
        finally:
            new.stop()


def test_a_node_of_another_cluster_name_on_the_same_database_is_refused_at_start() -> None:
    """Its leases kept under another name in Redis, it saw every room of the running cluster
    as held by nobody, and claimed them from under their players."""
    with running_cluster(count=1) as cluster:
        [node] = cluster.ids
        env = {
            **cluster.envs[node],
            "NODE_ID": "stray",
            "CLUSTER_NAME": "other",
            "PORT": str(free_port()),
        }
        result = subprocess.run(
            [sys.executable, "-m", "app.scripts.start"],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert result.returncode == 1, result.stderr
        [line] = [line for line in result.stderr.splitlines() if "cannot start" in line]
        assert f"nodes of another cluster (CLUSTER_NAME {cluster.name}) use the database" in line
        assert "give this node the same CLUSTER_NAME as theirs" in line
        assert "Traceback" not in result.stderr
        # The running cluster's node serves on.
        assert fetch.get(f"{cluster.nodes[node].url}/readyz").status_code == 200


def test_of_two_processes_of_one_id_started_at_once_one_serves_and_the_other_says_why(
    tmp_path: Path,
) -> None:
    """Both passed the start's check before either joined the directory: the second to join
    ended in a traceback of sixty lines and exit code 3."""
    with running_cluster(count=1) as cluster:
        [node] = cluster.ids
        env = {**cluster.envs[node], "NODE_ID": "twin"}
        logs = [tmp_path / f"twin-{n}.log" for n in range(2)]
        twins = []
        for log in logs:
            with log.open("w") as out:
                twins.append(
                    subprocess.Popen(
                        [sys.executable, "-m", "app.scripts.start"],
                        cwd=ROOT,
                        env={**env, "PORT": str(free_port())},
                        stdout=subprocess.DEVNULL,
                        stderr=out,
                    )
                )
        try:
            deadline = time.monotonic() + 120
            while all(twin.poll() is None for twin in twins):
                assert time.monotonic() < deadline, "neither was refused"
                time.sleep(0.2)
            [refused] = [n for n, twin in enumerate(twins) if twin.poll() is not None]
            assert twins[refused].returncode == 1
            said = logs[refused].read_text()
            [line] = [line for line in said.splitlines() if "cannot start" in line]
            assert "node id 'twin' is in use by another running" in line
            assert "Traceback" not in said
            assert twins[1 - refused].poll() is None  # the other serves on
        finally:
            for twin in twins:
                if twin.poll() is None:
                    twin.send_signal(signal.SIGTERM)
                    twin.wait(60)


@pytest.mark.parametrize("draining", [False, True])
async def test_a_node_finding_its_id_taken_stops_once(tmp_path: Path, draining: bool) -> None:
    """Found by a beat, the node is stopped (as by SIGTERM); found by the beat of a drain that
    SIGTERM began, that stop goes on, and a second one would have cut it short."""
    with postgres_database() as url:
        await asyncio.to_thread(migrate, url)
        async with redis_client() as (client, prefix):
            node = Node(url, prefix, "node-a", tmp_path, 0.0)
            stops: list[str] = []
            node.cluster.on_evicted = lambda: stops.append("stop")
            try:
                await node.cluster.start()
                await client.delete(node.cluster.directory.key("node-a"))  # its entry lapsed
                other = Directory(client, "node-a", "another-process", 60_000, prefix)
                assert await other.beat("/n/node-a")  # and another process took the id
                if draining:
                    await node.cluster.drain()
                else:
                    await node.cluster._beat()
                assert node.cluster.evicted
                assert stops == ([] if draining else ["stop"])
            finally:
                await node.stop()
            assert await other.beat("/n/node-a")  # its entry left as the other process wrote it
