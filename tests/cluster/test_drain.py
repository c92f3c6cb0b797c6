"""Draining a node whose journal the database cannot take: PostgreSQL blackholed for that node
(a proxy the test controls between it and the database) when it is sent SIGTERM.

The room's lease is not handed over while a write of it may still reach the database: no other
node restores the room from a journal the draining node has not finished. If the database comes
back within the drain, the hand-over completes with the held move in the journal; if not, the
outbox keeps it, the lease lapses after the node stopped, and another node restores what the
database holds: every acknowledged move, and nothing of the held one (its late write is refused
by the epoch when the node starts again).
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import signal
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import redis

from tests import fetch
from tests.cluster.harness import (
    STEADY_LEASE_MS,
    Cluster,
    ClusterClient,
    back_at_table,
    play_moves,
    running_cluster,
    table,
)
from tests.cluster.test_failover import rounds_in_history, seated
from tests.faults.proxy import Proxy, proxy_to
from tests.faults.table import HELD, told_held, until
from tests.play import play_until
from tests.redis_server import TEST_REDIS_URL


@contextmanager
def cluster_with_a_node_behind_a_proxy(grace: int = 60) -> Iterator[tuple[Cluster, Proxy]]:
    """Two nodes; the first reaches PostgreSQL through a proxy, with an outbox of its own. A
    drain waits half of ``grace`` seconds for the database.

    Steady leases: these tests watch a lease stay held through a drain (nothing here waits
    for a lease to lapse but the second test, after its node stopped).
    """
    proxies: list[Proxy] = []
    with contextlib.ExitStack() as stack:
        folder = stack.enter_context(tempfile.TemporaryDirectory())

        def behind_proxy(url: str) -> dict[int, dict[str, str]]:
            proxy = stack.enter_context(proxy_to(url))
            proxies.append(proxy)
            return {0: {"DATABASE_URL": proxy.url_for(url), "OUTBOX_PATH": f"{folder}/outbox"}}

        cluster = stack.enter_context(
            running_cluster(
                2, behind_proxy, SHUTDOWN_GRACE_SECONDS=str(grace), LEASE_MS=STEADY_LEASE_MS
            )
        )
        yield cluster, proxies[0]


async def seated_on(cluster: Cluster, node: str) -> list[ClusterClient]:
    """A started room of two owned by ``node`` (rooms are created until one lands there)."""
    for _ in range(40):
        clients = await seated(cluster, 2, rounds=2)
        if await asyncio.to_thread(cluster.owner, clients[0].code) == node:
            return clients
        for client in clients:
            await client.close()
    raise AssertionError(f"no room was placed on {node}")


def holder(cluster: Cluster, code: str) -> str | None:
    """The lease of the room in Redis: "node:epoch", or None."""
    client = redis.Redis.from_url(TEST_REDIS_URL, socket_timeout=5)
    try:
        value = client.get(f"{cluster.name}:room:{code}:owner")
    finally:
        client.close()
    return None if value is None else bytes(value).decode()


async def hold_a_move(clients: list[ClusterClient], rng: random.Random) -> ClusterClient:
    """A move the database cannot take: every player is told it is held."""
    mover = next(client for client in clients if client.my_turn())
    await mover.send({**mover.random_move(rng, knock_chance=0), "id": "held"})
    for client in clients:
        await until(lambda c=client: told_held(c), 60, "every player told the move is held")
    assert mover.answers["held"]["code"] == HELD
    return mover


async def drain_begun(clients: list[ClusterClient], node: str, cluster: Cluster) -> str:
    """SIGTERM sent to ``node``; once its players are told the room moved, the lease held."""
    process = cluster.nodes[node].process
    assert process is not None
    process.send_signal(signal.SIGTERM)
    for client in clients:
        await client.wait_closed(60)
    lease = holder(cluster, clients[0].code)
    assert lease is not None
    assert lease.startswith(f"{node}:"), lease
    return lease


async def test_the_lease_is_kept_until_the_database_takes_the_held_move() -> None:
    with cluster_with_a_node_behind_a_proxy() as (cluster, proxy):
        draining, other = cluster.ids
        clients = await seated_on(cluster, draining)
        code = clients[0].code
        rng = random.Random(15)
        await play_moves(clients, rng, 3)
        acked = [table(client.view) for client in clients]

        proxy.blackhole()
        await hold_a_move(clients, rng)
        lease = await drain_begun(clients, draining, cluster)
        process = cluster.nodes[draining].process
        assert process is not None
        # While the node waits for the database, nobody else may take the room: a node that
        # restored it now would read a journal without the held move.
        for _ in range(20):
            assert holder(cluster, code) == lease
            assert process.poll() is None
            await asyncio.sleep(0.1)
        # A new room asked of the draining node, even by its own path, goes to the other node.
        answer = await asyncio.to_thread(
            fetch.post,
            f"{cluster.nodes[draining].url}/api/rooms",
            json={"name": "Zed"},
            headers={"X-Spectrum-Node": draining},
            timeout=30,
        )
        assert answer.status_code == 307, answer.text
        assert answer.headers["location"] == f"/n/{other}/api/rooms"

        proxy.heal()
        server = cluster.nodes[draining]
        assert await asyncio.to_thread(process.wait, 90) in (0, -signal.SIGTERM)
        assert "its rooms are handed over" in server.logs(), server.logs()[-3000:]
        await back_at_table(clients)
        assert await asyncio.to_thread(cluster.owner, code) == other
        # The held move was written before the hand-over: the room is one move on.
        moved = [table(client.view) for client in clients]
        assert moved != acked
        assert moved[0]["round"]["turn"] != acked[0]["round"]["turn"]
        await play_until(clients, rng, lambda s: s["status"] == "finished")
        assert rounds_in_history(cluster, clients[0].view["match_id"]) == [1, 2]


async def test_a_journal_the_database_never_took_is_not_handed_over() -> None:
    # The database never comes back within the drain: waiting longer would only wait longer.
    with cluster_with_a_node_behind_a_proxy(grace=16) as (cluster, proxy):
        draining, other = cluster.ids
        clients = await seated_on(cluster, draining)
        code = clients[0].code
        rng = random.Random(16)
        await play_moves(clients, rng, 3)
        acked = [table(client.view) for client in clients]

        proxy.blackhole()
        await hold_a_move(clients, rng)
        lease = await drain_begun(clients, draining, cluster)
        server = cluster.nodes[draining]
        process = server.process
        assert process is not None
        # Until the node has written its outbox, the lease stays its own.
        while process.poll() is None and "kept in" not in server.logs():
            seen = holder(cluster, code)
            assert seen == lease or "kept in" in server.logs(), seen
            await asyncio.sleep(0.1)
        await asyncio.to_thread(process.wait, 60)
        said = server.logs()
        assert "journal is not complete are not handed over (1;" in said, said[-3000:]
        assert f"lapse once this node has stopped: {code}" in said, said[-3000:]
        assert "kept in" in said, said[-3000:]

        # The lease lapses; the other node restores what the database holds.
        await back_at_table(clients)
        assert await asyncio.to_thread(cluster.owner, code) == other
        assert [table(client.view) for client in clients] == acked
        await play_moves(clients, rng, 2)
        now = [table(client.view) for client in clients]

        # The stopped node starts again with the database back: its outbox is refused by the
        # epoch, and the room is as its new owner acknowledged it.
        proxy.heal()
        await asyncio.to_thread(server.start)  # answers once the outbox is dealt with
        assert not await asyncio.to_thread(Path(server.env["OUTBOX_PATH"]).exists)
        assert "refused" in server.logs().rpartition("kept in")[2], server.logs()[-3000:]
        resync = [await client.resync() for client in clients]
        assert [table(fresh) for _, fresh in resync] == now
        await play_until(clients, rng, lambda s: s["status"] == "finished")
        assert rounds_in_history(cluster, clients[0].view["match_id"]) == [1, 2]
