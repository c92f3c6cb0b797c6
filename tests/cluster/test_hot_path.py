"""An action touches neither Redis nor another node: with Redis paused (it answers nothing) and
every other node paused, the owner still acknowledges and delivers each move, while its lease
lasts. Whether it may act is answered from memory; the only wait is the journal's write."""

from __future__ import annotations

import asyncio
import random
import signal

from tests.cluster.harness import play_moves, private_redis, running_cluster
from tests.cluster.test_failover import seated


async def test_moves_need_neither_redis_nor_another_node() -> None:
    # A long lease, so that it outlasts the moves played while Redis answers nothing.
    with (
        private_redis() as redis_server,
        running_cluster(REDIS_URL=redis_server.url, LEASE_MS="60000") as cluster,
    ):
        clients = await seated(cluster, 2, rounds=2)
        code = clients[0].code
        rng = random.Random(21)
        await play_moves(clients, rng, 2)
        owner = await asyncio.to_thread(cluster.owner, code)
        others = [cluster.nodes[node].process for node in cluster.ids if node != owner]
        paused = [redis_server.process, *others]
        frames = [len(client.frames) for client in clients]
        for process in paused:
            assert process is not None
            process.send_signal(signal.SIGSTOP)
        try:
            await play_moves(clients, rng, 8)  # each acknowledged and seen by both players
        finally:
            for process in paused:
                assert process is not None
                process.send_signal(signal.SIGCONT)
        assert all(
            len(client.frames) >= seen + 8 for client, seen in zip(clients, frames, strict=True)
        )
        assert all(client.closed is None for client in clients)
