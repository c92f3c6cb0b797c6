"""A room whose node died with nobody left in it is asked for by nobody: another node restores
it by itself, and it closes when idle as every room does, its journal deleted (and its
finished matches then name it). A room a live node holds is left to that node."""

from __future__ import annotations

import asyncio
import signal
import time

from tests.cluster.harness import Cluster, ClusterClient, running_cluster
from tests.databases import fetch_value


def rooms_stored(cluster: Cluster, code: str) -> int:
    statement = f"SELECT count(*) FROM live_rooms WHERE code = '{code}'"
    return int(fetch_value(cluster.database_url, statement) or 0)


def made_on(cluster: Cluster, node: str) -> str:
    """A room made until one lands on ``node``; its code."""
    for _ in range(40):
        code = str(cluster.create_room()["code"])
        if cluster.owner(code) == node:
            return code
    raise AssertionError(f"no room was placed on {node}")


async def test_a_room_left_by_a_dead_node_is_restored_elsewhere_and_closes_when_idle() -> None:
    # A room nobody entered closes 10 s after it was made: time enough to enter it.
    with running_cluster(2, ROOM_IDLE_SECONDS="10") as cluster:
        dying, living = cluster.ids
        code = await asyncio.to_thread(made_on, cluster, dying)
        # Someone watches until the node dies: the room is not idle there.
        spectator = ClusterClient(cluster, code)
        await spectator.reconnect()
        kept = await asyncio.to_thread(made_on, cluster, living)
        watcher = ClusterClient(cluster, kept)  # a spectator keeps the living node's room open
        await watcher.reconnect()
        await asyncio.to_thread(cluster.nodes[dying].stop, signal.SIGKILL)
        await spectator.wait_closed(60)

        # Seen held by no node at two looks (5 to 10 s apart), restored, then idle for 10 s.
        deadline = time.monotonic() + 120
        while await asyncio.to_thread(rooms_stored, cluster, code):
            assert time.monotonic() < deadline, "the room was never closed"
            await asyncio.sleep(0.2)
        logs = cluster.nodes[living].logs()
        assert f"room {code} was held by no node: restored here" in logs
        # The room held by the living node stays with it, open while watched.
        assert f"room {kept} was held by no node" not in logs
        assert await asyncio.to_thread(rooms_stored, cluster, kept) == 1
        assert await asyncio.to_thread(cluster.owner, kept) == living
        await watcher.close()
