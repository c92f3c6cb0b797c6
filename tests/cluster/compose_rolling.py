"""Play rooms of the cluster compose stack through its nginx while a rolling upgrade runs (run
under nsenter, in the stack's network namespace, where nginx listens on 127.0.0.1:80).

    python -m tests.cluster.compose_rolling ROLLING_SCRIPT   -> JSON on the last line

Rooms are made and played a few moves; the rolling upgrade (a bash script: the README's loop)
runs while every client comes back by itself whenever its node drains; then every client's
table is compared with what was acknowledged before, and every match is played to its end.
"""

from __future__ import annotations

import asyncio
import json
import random
import sys
import time
from typing import Any

import httpx

from tests import fetch
from tests.cluster.harness import ClusterClient, Front, back_at_table, play_moves, table
from tests.play import play_until

FRONT = Front(80)
ROOMS = 6


def wait_for_nginx() -> None:
    deadline = time.monotonic() + 120
    while True:
        try:
            if fetch.get(f"{FRONT.url}/readyz", timeout=5).status_code == 200:
                return
        except httpx.TransportError:
            pass
        assert time.monotonic() < deadline, "nginx never answered /readyz"
        time.sleep(0.5)


async def seated() -> list[ClusterClient]:
    room = FRONT.api(
        "POST", "/api/rooms", {"name": "P0", "settings": {"rounds": 2, "turn_seconds": 0}}
    )
    assert room.status_code == 201, room.text
    code, token = room.json()["code"], room.json()["token"]
    joined = FRONT.api("POST", f"/api/rooms/{code}/join", {"name": "P1"})
    assert joined.status_code == 201, joined.text
    clients = [ClusterClient(FRONT, code, t) for t in (token, joined.json()["token"])]
    for client in clients:
        await client.connect()
    await clients[0].act("start")
    await clients[1].wait_for(lambda s: s["status"] == "playing")
    return clients


def owner(code: str) -> str:
    deadline = time.monotonic() + 60
    while True:
        response = FRONT.api("GET", f"/api/rooms/{code}")
        if response.status_code == 200:
            return str(response.json()["node"])
        assert time.monotonic() < deadline, response.text
        time.sleep(0.3)


async def keep_at_table(
    clients: list[ClusterClient], stop: asyncio.Event, closes: list[int]
) -> None:
    """Reconnect each client whose socket was closed, as the browser does by itself."""
    while not stop.is_set():
        closes.extend(client.closed[0] for client in clients if client.closed is not None)
        await back_at_table(clients, 120)
        await asyncio.sleep(0.2)


async def main(script: str) -> dict[str, Any]:
    wait_for_nginx()
    tables = [await seated() for _ in range(ROOMS)]
    everyone = [client for clients in tables for client in clients]
    rng = random.Random(15)
    for clients in tables:
        await play_moves(clients, rng, 3)
    acked = [table(client.view) for client in everyone]
    before = {clients[0].code: owner(clients[0].code) for clients in tables}

    stop = asyncio.Event()
    closes: list[int] = []
    keeper = asyncio.create_task(keep_at_table(everyone, stop, closes))
    rolling = await asyncio.create_subprocess_exec(
        "bash", "-euo", "pipefail", script, stdout=sys.stderr, stderr=sys.stderr
    )
    status = await asyncio.wait_for(rolling.wait(), 900)
    assert status == 0, f"the rolling upgrade exited {status}"
    stop.set()
    await keeper
    closes.extend(client.closed[0] for client in everyone if client.closed is not None)
    await back_at_table(everyone, 120)
    reconnects = sum(len(client.node_paths) - 1 for client in everyone)
    lost = [n for n, client in enumerate(everyone) if table(client.view) != acked[n]]
    after = {clients[0].code: owner(clients[0].code) for clients in tables}

    rounds = []
    for clients in tables:
        await play_until(clients, rng, lambda s: s["status"] == "finished")
        detail = FRONT.api("GET", f"/api/matches/{clients[0].view['match_id']}").json()
        rounds.append([item["number"] for item in detail["rounds"]])
    for client in everyone:
        await client.close()
    return {
        "before": before,
        "after": after,
        "closes": sorted(set(closes)),
        "reconnects": reconnects,
        "lost": lost,
        "rounds": rounds,
    }


if __name__ == "__main__":
    print(json.dumps(asyncio.run(main(sys.argv[1]))))
