"""A room nobody holds, asked of a node that cannot reach the database: it cannot be restored
there for now, and says so (503 `database_unavailable`, or a socket closed 1013 for the client
to come back), naming the database in the log, not Redis; once the database answers again the
room is restored with every acknowledged move."""

from __future__ import annotations

import asyncio
import random
import signal
import time

from tests import fetch
from tests.cluster.harness import back_at_table, play_moves, table
from tests.cluster.test_drain import cluster_with_a_node_behind_a_proxy, holder, seated_on
from tests.rooms.client import closed_with


async def test_a_room_nobody_holds_waits_for_the_database_of_the_node_asked() -> None:
    with cluster_with_a_node_behind_a_proxy() as (cluster, proxy):
        cut_off, other = cluster.ids
        clients = await seated_on(cluster, other)
        code = clients[0].code
        await play_moves(clients, random.Random(3), 3)
        acked = [table(client.view) for client in clients]
        await asyncio.to_thread(cluster.nodes[other].stop, signal.SIGKILL)
        deadline = time.monotonic() + 60
        while holder(cluster, code) is not None:  # the dead node's lease lapses
            assert time.monotonic() < deadline, "the lease never lapsed"
            await asyncio.sleep(0.1)

        proxy.down()
        proxy.reset()
        node = cluster.nodes[cut_off]
        answer = await asyncio.to_thread(fetch.get, f"{node.url}/api/rooms/{code}", timeout=30)
        assert answer.status_code == 503, answer.text
        assert answer.json()["code"] == "database_unavailable"
        assert int(answer.headers["retry-after"]) >= 1
        hello = {"type": "hello", "token": clients[0].token}
        closed = await closed_with(node, code, hello)
        assert closed == (1013, "the database is unavailable; try again later")
        # A new room's code cannot be checked against the rooms the database has held.
        made = await asyncio.to_thread(
            fetch.post,
            f"{node.url}/api/rooms",
            json={"name": "Cy"},
            headers={"X-Spectrum-Node": cut_off},
            timeout=30,
        )
        assert made.status_code == 503, made.text
        assert made.json()["code"] == "database_unavailable"
        assert int(made.headers["retry-after"]) >= 1
        logs = node.logs()
        assert f"room {code} cannot be restored while the database is unreachable" in logs
        assert f"room {code} cannot be sought while Redis is unreachable" not in logs

        proxy.heal()
        await back_at_table(clients)
        assert await asyncio.to_thread(cluster.owner, code) == cut_off
        assert [table(client.view) for client in clients] == acked
