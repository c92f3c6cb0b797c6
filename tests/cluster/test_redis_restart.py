"""Redis restarted mid-match (it keeps nothing on disk here): the nodes register again, claim
their rooms again above the epochs they held, and play goes on with nothing lost. A room asked
of another node meanwhile stays with its own."""

from __future__ import annotations

import asyncio
import random
import time

import redis

from tests import fetch
from tests.cluster.harness import (
    STEADY_LEASE_MS,
    Cluster,
    back_at_table,
    play_moves,
    private_redis,
    running_cluster,
    table,
)
from tests.cluster.test_failover import rounds_in_history, seated
from tests.redis_server import TEST_REDIS_URL


def wait_until_ready(url: str) -> dict[str, object]:
    deadline = time.monotonic() + 60
    while True:
        answer = fetch.get(f"{url}/readyz", timeout=10)
        if answer.status_code == 200:
            body: dict[str, object] = answer.json()
            return body
        assert time.monotonic() < deadline, answer.text
        time.sleep(0.2)


async def test_play_goes_on_when_redis_restarts_mid_match() -> None:
    with private_redis() as redis_server, running_cluster(REDIS_URL=redis_server.url) as cluster:
        tables = [await seated(cluster, 2, rounds=2) for _ in range(3)]
        everyone = [client for clients in tables for client in clients]
        rng = random.Random(6379)
        for clients in tables:
            await play_moves(clients, rng, 3)
        acked = [table(client.view) for client in everyone]

        # Down until a renewal has failed, then started again with nothing kept.
        await asyncio.to_thread(redis_server.stop)
        await asyncio.to_thread(a_renewal_failed, cluster)
        await asyncio.to_thread(redis_server.start)
        for node in cluster.nodes.values():
            ready = await asyncio.to_thread(wait_until_ready, node.url)
            assert ready["redis"] == "ok"
        await back_at_table(everyone)
        assert [table(client.view) for client in everyone] == acked
        # A renewal Redis failed gave its connection back (a pipeline left open says so).
        assert "Unclosed" not in cluster.logs()

        for clients in tables:
            await play_moves(clients, rng, 200)
            assert clients[0].view["status"] == "finished"
            assert rounds_in_history(cluster, clients[0].view["match_id"]) == [1, 2]
        for node in cluster.ids:  # every node is in the directory again
            info = cluster.api("GET", f"/n/{node}/readyz").json()
            assert info["node"] == node


def a_renewal_failed(cluster: Cluster) -> None:
    deadline = time.monotonic() + 60
    while not any(
        cluster.metrics(node).get(f'spectrum_lease_renewals_failed_total{{node="{node}"}}', 0)
        for node in cluster.ids
    ):
        assert time.monotonic() < deadline, "no renewal failed"
        time.sleep(0.1)


def lost_rooms(cluster: Cluster) -> float:
    return sum(
        cluster.metrics(node)[f'spectrum_rooms_lost_total{{node="{node}"}}'] for node in cluster.ids
    )


async def test_a_room_asked_of_another_node_after_redis_restarts_stays_with_its_node() -> None:
    """Another node asked for a room Redis forgot does not claim it from under its live node
    (which would close every player's socket to move the room): it answers "moving" until the
    room's node has claimed it again. (Leases of 10 s: a lease lapsing while Redis restarts on
    a loaded machine would rightly free its room.)"""
    with (
        private_redis() as redis_server,
        running_cluster(REDIS_URL=redis_server.url, LEASE_MS=STEADY_LEASE_MS) as cluster,
    ):
        tables = [await seated(cluster, 2) for _ in range(4)]
        codes = [clients[0].code for clients in tables]
        owners = {code: cluster.owner(code) for code in codes}
        everyone = [client for clients in tables for client in clients]
        acked = [table(client.view) for client in everyone]

        await asyncio.to_thread(redis_server.restart)
        for code in codes:
            other = next(node for node in cluster.ids if node != owners[code])
            answer = await asyncio.to_thread(
                fetch.get, f"{cluster.nodes[other].url}/api/rooms/{code}", timeout=10
            )
            # "Moving", or sent to its node when that had claimed the room again already.
            assert answer.status_code in (503, 307), answer.text
            if answer.status_code == 307:
                assert answer.headers["location"].startswith(f"/n/{owners[code]}/"), answer

        assert {code: cluster.owner(code) for code in codes} == owners
        assert lost_rooms(cluster) == 0
        assert [table(client.view) for client in everyone] == acked
        rng = random.Random(5)
        for clients in tables:
            await play_moves(clients, rng, 5)
        assert lost_rooms(cluster) == 0


async def test_a_lease_redis_drops_when_full_moves_at_most_its_room_and_loses_nothing() -> None:
    """A Redis that drops keys when its memory is full (README: any maxmemory-policy but
    noeviction) may drop a room's lease while its node plays the room. Asked for the room
    then, another node takes it unless the room's node has claimed it again first; either way
    the players are back at the table with every acknowledged move, and the match ends with
    every round in the history. (Steady leases: the test reads the lease it drops.)"""
    with running_cluster(LEASE_MS=STEADY_LEASE_MS) as cluster:
        clients = await seated(cluster, 2, rounds=2)
        rng = random.Random(4096)
        await play_moves(clients, rng, 3)
        acked = [table(client.view) for client in clients]
        code = clients[0].code
        first = cluster.owner(code)

        store = redis.Redis.from_url(TEST_REDIS_URL, socket_timeout=10)
        try:
            assert store.delete(f"{cluster.name}:room:{code}:owner") == 1
        finally:
            store.close()
        other = next(node for node in cluster.ids if node != first)
        answer = await asyncio.to_thread(
            fetch.get, f"{cluster.nodes[other].url}/api/rooms/{code}", timeout=10
        )
        if answer.status_code == 200:  # taken by the node asked
            assert answer.json()["node"] == other
            for client in clients:  # once the room's node finds its lease gone
                assert (await client.wait_closed(60))[0] == 4012
        else:  # claimed again by its own node first
            assert answer.status_code == 307, answer.text
            assert answer.headers["location"].startswith(f"/n/{first}/"), answer

        await back_at_table(clients)
        assert [table(client.view) for client in clients] == acked
        await play_moves(clients, rng, 200)
        assert clients[0].view["status"] == "finished"
        assert rounds_in_history(cluster, clients[0].view["match_id"]) == [1, 2]
