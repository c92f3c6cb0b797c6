"""A flooder against a victim room: the victim's action latency with and without the flood.

One server with the default rates; a victim room of two players plays a move every 50 ms or
so, each timed from sending it to its acknowledgement. First alone for S seconds, then while a
seated player of another room floods as fast as it can: when the server closes it (1008), it
reconnects and floods again, for S seconds. Reports the victim's p50 and p99 in both phases.

Run (when the machine is otherwise idle): .venv/bin/python -m bench.flood [--seconds 20]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import random
import statistics
import time

from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from tests.rooms.client import Client, close_all, open_table
from tests.server import Server, running_server

# Between two moves of the victim room, so that its players stay within their own rate.
PAUSE_SECONDS = 0.05


async def victim_plays(clients: list[Client], seconds: float, rng: random.Random) -> list[float]:
    """Moves, one at a time, for ``seconds``; each one's latency in ms."""
    latencies: list[float] = []
    stop = time.monotonic() + seconds
    while time.monotonic() < stop:
        state = clients[0].view
        if state["status"] != "playing":
            for client in clients:
                with contextlib.suppress(Exception):
                    await client.act("ready")
            await clients[0].wait_for(lambda s: s["status"] == "playing", timeout=60)
            continue
        for client in clients:
            await client.wait_for(lambda s, v=state: s["round"] == v["round"])
        mover = next(client for client in clients if client.my_turn())
        started = time.perf_counter()
        await mover.play(mover.random_move(rng, knock_chance=0.02))
        latencies.append((time.perf_counter() - started) * 1000)
        await asyncio.sleep(PAUSE_SECONDS)
    return latencies


async def flood(server: Server, code: str, token: str, until: float) -> tuple[int, int]:
    """Flood from one seat until ``until``, reconnecting after each close; (sent, closes)."""
    sent = closes = 0
    url = f"{server.ws_url}/ws/rooms/{code}"
    while time.monotonic() < until:
        async with connect(url, compression=None, max_size=2**22) as ws:
            await ws.send(json.dumps({"type": "hello", "token": token}))
            with contextlib.suppress(ConnectionClosed):
                while time.monotonic() < until:
                    await ws.send('{"type":"resync"}')
                    sent += 1
                    if sent % 256 == 0:
                        await asyncio.sleep(0)
            if ws.protocol.close_rcvd is not None and ws.protocol.close_rcvd.code == 1008:
                closes += 1
    return sent, closes


def summary(name: str, latencies: list[float]) -> str:
    cuts = statistics.quantiles(latencies, n=100)
    return f"{name}: {len(latencies)} moves, p50 {cuts[49]:.1f} ms, p99 {cuts[98]:.1f} ms"


async def main(seconds: float) -> None:
    with running_server(CONNECTIONS_PER_ADDRESS="1000", LOG_LEVEL="warning") as server:
        victims = await open_table(server, 2, turn_seconds=0, rounds=50)
        flooded = await open_table(server, 2, turn_seconds=0)
        await victims.host.act("start")
        await victims.settle()
        rng = random.Random(1)
        alone = await victim_plays(victims.players, seconds, rng)
        print(summary("victim alone", alone))
        until = time.monotonic() + seconds
        flooding = asyncio.create_task(flood(server, flooded.code, flooded.tokens[1], until))
        during = await victim_plays(victims.players, seconds, rng)
        sent, closes = await flooding
        print(summary("victim while flooded", during))
        print(f"flooder: {sent} messages sent, closed with 1008 {closes} times")
        await close_all()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=20.0)
    asyncio.run(main(parser.parse_args().seconds))
