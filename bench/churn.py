"""Connection churn: does the server's memory come back after floods of sockets that never say
hello?

Each round opens N sockets to a room (from 127.0.0.1; the caps on connections yet to say hello
are raised out of the way, as a flood from many addresses would get past them), sends nothing,
and waits until the server has closed them all (HELLO_SECONDS later); then, after a short pause,
the server's resident memory is read. Run: .venv/bin/python -m bench.churn [--sockets 3000]
[--rounds 4]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import time
from pathlib import Path

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from tests.rooms.client import create_room
from tests.server import Server, running_server

SETTLE_SECONDS = 14.0


def rss_mib(pid: int) -> float:
    """Resident memory of a process, in MiB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


async def one_round(server: Server, code: str, sockets: int) -> None:
    """Open ``sockets`` silent sockets, then wait for the server to close each."""
    url = f"{server.ws_url}/ws/rooms/{code}"
    opened: list[ClientConnection] = []
    for start in range(0, sockets, 200):
        batch = [
            connect(url, compression=None, open_timeout=60)
            for _ in range(start, min(sockets, start + 200))
        ]
        opened.extend(await asyncio.gather(*batch))

    async def closed(ws: ClientConnection) -> None:
        with contextlib.suppress(ConnectionClosed):
            await ws.recv()

    await asyncio.gather(*(closed(ws) for ws in opened))


async def main(sockets: int, rounds: int) -> None:
    settings = {
        "HELLO_SECONDS": "2",
        "CONNECTIONS_PER_ADDRESS": "100000",
        "PENDING_CONNECTIONS": "100000",
        "PENDING_CONNECTIONS_PER_ADDRESS": "100000",
        "LOG_LEVEL": "info",
    }
    with running_server(**settings) as server:
        assert server.process is not None
        pid = server.process.pid
        code = create_room(server)["code"]
        await asyncio.sleep(SETTLE_SECONDS)
        print(f"start: {rss_mib(pid):.0f} MiB")
        for number in range(1, rounds + 1):
            started = time.perf_counter()
            await one_round(server, code, sockets)
            await asyncio.sleep(SETTLE_SECONDS)
            print(
                f"after round {number} ({sockets} sockets, {time.perf_counter() - started:.1f} s): "
                f"{rss_mib(pid):.0f} MiB"
            )
        for line in server.logs().splitlines():
            if "full garbage collection" in line:
                print("server:", line.split(": ", 1)[1])


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sockets", type=int, default=3000)
    parser.add_argument("--rounds", type=int, default=4)
    arguments = parser.parse_args()
    asyncio.run(main(arguments.sockets, arguments.rounds))
