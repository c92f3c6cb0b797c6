"""The cost of connections that are open and quiet: the server's pings, and the browser's.

Run: .venv/bin/python -m bench.idle [--rooms 1000 --players 4 --seconds 20]

Opens R lobbies of P players (R x P sockets, each past its hello) on a server started for the
measurement (fresh SQLite file, pinned to core 0, the generator on core 1), then measures the
server's CPU over a quiet window twice: with the server's own WebSocket pings only (every
HEARTBEAT_SECONDS), and with every client also sending the browser's application heartbeat
(``{"type":"ping"}`` every 2 s, answered by a pong), spread evenly over the 2 s.
Each phase also gives the server's keepalive pings a second, from /metrics: a connection that
sends something is not pinged.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import tempfile
import time

import httpx
import orjson
from websockets.asyncio.client import ClientConnection, connect

from bench.load import Server, cpu_seconds, free_port, keepalive_pings

PING = orjson.dumps({"type": "ping"}).decode()
PING_EVERY = 2.0  # seconds, as frontend/js/room.js sends when it has heard nothing


async def open_lobbies(url: str, rooms: int, players: int) -> list[ClientConnection]:
    """Create the rooms, join every seat, and say hello on each socket."""
    sockets: list[ClientConnection] = []
    async with httpx.AsyncClient(base_url=url, timeout=60) as http:
        tokens: list[tuple[str, str]] = []
        for _ in range(rooms):
            created = (await http.post("/api/rooms", json={"name": "P0"})).json()
            tokens.append((created["code"], created["token"]))
            for seat in range(1, players):
                joined = await http.post(
                    f"/api/rooms/{created['code']}/join", json={"name": f"P{seat}"}
                )
                tokens.append((created["code"], joined.json()["token"]))
    ws_url = url.replace("http", "ws")

    async def one(code: str, token: str) -> ClientConnection:
        ws = await connect(f"{ws_url}/ws/rooms/{code}", compression=None, open_timeout=60)
        await ws.send(orjson.dumps({"type": "hello", "token": token}).decode())
        await ws.recv()  # the state
        return ws

    for start in range(0, len(tokens), 100):
        sockets += await asyncio.gather(*(one(*pair) for pair in tokens[start : start + 100]))
    return sockets


async def drain(ws: ClientConnection) -> None:
    """Read (and drop) what the server sends, so pongs and updates never back up."""
    try:
        async for _ in ws:
            pass
    except Exception:
        return


async def heartbeat(ws: ClientConnection, until: float) -> None:
    """Send the browser's ping every PING_EVERY seconds, starting at a random phase."""
    await asyncio.sleep(random.uniform(0, PING_EVERY))
    while time.perf_counter() < until:
        await ws.send(PING)
        await asyncio.sleep(PING_EVERY)


async def measure(rooms: int, players: int, seconds: float) -> None:
    with tempfile.TemporaryDirectory() as folder:
        server = Server(True, free_port(), folder)
        try:
            sockets = await open_lobbies(server.url, rooms, players)
            readers = [asyncio.create_task(drain(ws)) for ws in sockets]
            await asyncio.sleep(2)
            pid = server.process.pid
            figures, pings = {}, {}
            for label, pinging in (("server pings only", False), ("with client pings", True)):
                until = time.perf_counter() + seconds
                sent = await asyncio.to_thread(keepalive_pings, server.url)
                cpu, started = cpu_seconds(pid), time.perf_counter()
                if pinging:
                    await asyncio.gather(*(heartbeat(ws, until) for ws in sockets))
                else:
                    await asyncio.sleep(seconds)
                used = cpu_seconds(pid) - cpu
                elapsed = time.perf_counter() - started
                figures[label] = used / elapsed
                after = await asyncio.to_thread(keepalive_pings, server.url)
                pings[label] = (after - sent) / elapsed
            count = len(sockets)
            for label, share in figures.items():
                print(
                    f"{count} quiet sockets, {label}: server CPU {share * 100:.1f}% of a core, "
                    f"{share / count * 1e6:.1f} µs a second per socket, "
                    f"{pings[label]:.0f} server pings a second",
                    flush=True,
                )
            extra = figures["with client pings"] - figures["server pings only"]
            per_ping = extra / (count / PING_EVERY) * 1e6
            print(
                f"client heartbeat: {per_ping:.1f} µs of server CPU a ping, net of the server's "
                "own pings it spares",
                flush=True,
            )
            for ws in sockets:
                await ws.close()
            for reader in readers:
                reader.cancel()
        finally:
            server.stop()


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rooms", type=int, default=1000)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=20.0)
    arguments = parser.parse_args()
    if hasattr(os, "sched_setaffinity") and os.cpu_count() and (os.cpu_count() or 0) > 1:
        os.sched_setaffinity(0, {1})
    asyncio.run(measure(arguments.rooms, arguments.players, arguments.seconds))


if __name__ == "__main__":
    main()
