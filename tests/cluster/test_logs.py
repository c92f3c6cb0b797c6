"""Every line a node writes names the node, in JSON logs and in plain ones: its own cluster
lines, the rooms', the database's and uvicorn's; and the lobby info names the room's owner."""

from __future__ import annotations

import json
import random
import re
import signal

from tests.cluster.harness import ClusterClient, play_moves, running_cluster

# A plain line starts with its time; the lines after it (a traceback) belong to it.
PLAIN = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} [A-Z]+ ")


async def test_every_log_line_of_a_node_names_it() -> None:
    with running_cluster(2, lambda _: {0: {"LOG_JSON": "true"}, 1: {"LOG_JSON": "false"}}) as (
        cluster
    ):
        json_node, plain_node = cluster.ids
        owners: set[str] = set()
        for n in range(40):
            room = cluster.create_room(f"P{n}", turn_seconds=0)
            code = room["code"]
            info = cluster.api("GET", f"/api/rooms/{code}").json()
            assert room["socket"] == f"/n/{info['node']}/ws/rooms/{code}"
            if info["node"] in owners:
                continue
            owners.add(info["node"])
            joined = cluster.join_room(code, "Bo")
            clients = [ClusterClient(cluster, code, t) for t in (room["token"], joined["token"])]
            for client in clients:
                await client.connect()
            await clients[0].act("start")
            await clients[1].wait_for(lambda s: s["status"] == "playing")
            await play_moves(clients, random.Random(n), 2)
            for client in clients:
                await client.close()
            if owners == set(cluster.ids):
                break
        assert owners == set(cluster.ids)
        for server in cluster.nodes.values():
            assert server.stop(signal.SIGTERM, 60) in (0, -signal.SIGTERM)

        lines = [line for line in cluster.nodes[json_node].logs().splitlines() if line.strip()]
        entries = [json.loads(line) for line in lines]
        assert {entry["node"] for entry in entries} == {json_node}
        loggers = {entry["logger"] for entry in entries}
        assert {"app.cluster.node", "uvicorn.error"} <= loggers, loggers
        assert len(loggers) >= 3, loggers

        said = cluster.nodes[plain_node].logs().splitlines()
        plain = [line for line in said if PLAIN.match(line)]
        assert any("app.cluster.node" in line for line in plain), said[:20]
        assert any("uvicorn.error" in line for line in plain), said[:20]
        named = re.compile(PLAIN.pattern + re.escape(f"[{plain_node}] "))
        assert [line for line in plain if not named.match(line)] == []
