"""Losing a node: kill -9 of a room's owner, a paused owner that wakes after the room moved,
and a rolling restart of every node. Players come back by themselves and no acknowledged move
is lost; the match ends with every round in the history once."""

from __future__ import annotations

import asyncio
import random
import signal
from typing import Any

import pytest

from tests.cluster.harness import (
    CLOSE_MOVED,
    Cluster,
    ClusterClient,
    back_at_table,
    play_moves,
    running_cluster,
    table,
)
from tests.play import play_until


async def seated(cluster: Cluster, players: int = 2, **settings: Any) -> list[ClusterClient]:
    """A new room with ``players`` connected through nginx, its match started."""
    room = cluster.create_room("P0", turn_seconds=0, **settings)
    tokens = [room["token"]]
    tokens += [cluster.join_room(room["code"], f"P{n}")["token"] for n in range(1, players)]
    clients = [ClusterClient(cluster, room["code"], token) for token in tokens]
    for client in clients:
        await client.connect()
    await clients[0].act("start")
    await clients[-1].wait_for(lambda s: s["status"] == "playing")
    return clients


def rounds_in_history(cluster: Cluster, match_id: str) -> list[int]:
    response = cluster.api("GET", f"/api/matches/{match_id}")
    assert response.status_code == 200, response.text
    return [item["number"] for item in response.json()["rounds"]]


async def test_kill_9_of_the_owner_mid_round() -> None:
    with running_cluster() as cluster:
        clients = await seated(cluster, 3, rounds=2)
        code = clients[0].code
        rng = random.Random(9)
        await play_moves(clients, rng, 5)
        acked = [table(client.view) for client in clients]
        owner = await asyncio.to_thread(cluster.owner, code)

        await asyncio.to_thread(cluster.nodes[owner].stop, signal.SIGKILL)
        for client in clients:
            await client.wait_closed(60)
        await back_at_table(clients)

        assert [table(client.view) for client in clients] == acked
        assert await asyncio.to_thread(cluster.owner, code) != owner
        await play_until(clients, rng, lambda s: s["status"] == "finished")
        assert rounds_in_history(cluster, clients[0].view["match_id"]) == [1, 2]


async def test_a_paused_owner_writes_nothing_and_closes_moved_when_it_wakes() -> None:
    with running_cluster() as cluster:
        old = await seated(cluster, 2, rounds=2)
        code = old[0].code
        rng = random.Random(4)
        await play_moves(old, rng, 3)
        owner = await asyncio.to_thread(cluster.owner, code)
        frames_before = [len(client.frames) for client in old]
        mover = next(client for client in old if client.my_turn())
        process = cluster.nodes[owner].process
        assert process is not None

        process.send_signal(signal.SIGSTOP)
        try:
            # Sent to the paused owner; it must never be applied anywhere.
            await mover.send({**mover.random_move(rng, knock_chance=0), "id": 999_999})
            new = [ClusterClient(cluster, code, client.token) for client in old]
            for client in new:
                await client.reconnect(60)  # the lease lapses; another node restores the room
            assert await asyncio.to_thread(cluster.owner, code) != owner
            await play_moves(new, rng, 4)
            acked = [table(client.view) for client in new]
        finally:
            process.send_signal(signal.SIGCONT)

        for client in old:
            code_seen, _ = await client.wait_closed(60)
            assert code_seen == CLOSE_MOVED
        # Nothing reached the old clients after the pause: no patch of a move not durable.
        assert [len(client.frames) for client in old] == frames_before
        assert all(999_999 not in client.answers for client in old)

        # What the journal holds is what the new owner acknowledged, and nothing of the old.
        now = await asyncio.to_thread(cluster.owner, code)
        await asyncio.to_thread(cluster.nodes[now].stop, signal.SIGKILL)
        for client in new:
            await client.wait_closed(60)
        await back_at_table(new)
        assert [table(client.view) for client in new] == acked
        await play_until(new, rng, lambda s: s["status"] == "finished")
        assert rounds_in_history(cluster, new[0].view["match_id"]) == [1, 2]
        woken = cluster.metrics(owner)
        assert (
            woken[f'spectrum_rooms_lost_total{{node="{owner}"}}']
            + woken[f'spectrum_fenced_writes_refused_total{{node="{owner}"}}']
            >= 1
        )


# Thirty tables through three drains: on a machine loaded many times over this outlasts the
# suite's guard against hung tests (300 s), which is not what it is here to catch.
@pytest.mark.timeout(900)
async def test_a_rolling_restart_loses_nothing() -> None:
    with running_cluster() as cluster:
        tables = [await seated(cluster, 2, rounds=3) for _ in range(30)]
        everyone = [client for clients in tables for client in clients]
        rng = random.Random(30)
        for node in cluster.ids:
            for clients in tables:
                await play_moves(clients, rng, 2)
            acked = [table(client.view) for client in everyone]
            server = cluster.nodes[node]
            stopped = await asyncio.to_thread(server.stop, signal.SIGTERM, 60)
            assert stopped in (0, -signal.SIGTERM)  # uvicorn re-raises the signal when done
            assert "its rooms are handed over" in server.logs()
            await asyncio.to_thread(server.start)
            closes = {client.closed[0] for client in everyone if client.closed is not None}
            assert 4012 in closes  # the drained node's players were told the room moved
            await back_at_table(everyone)
            assert [table(client.view) for client in everyone] == acked
        for clients in tables:
            await play_until(clients, rng, lambda s: s["status"] == "finished")
            assert rounds_in_history(cluster, clients[0].view["match_id"]) == [1, 2, 3]
