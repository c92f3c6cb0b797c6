"""CPU per frame of a connection's send path: stepping sends at once, or a writer task each.

    .venv/bin/python -m bench.send [--frames 100000] [--connections 4 64]

A uvicorn server (uvloop, the server's HTTP protocol, uvicorn's websockets-sansio) in a child
process pushes updates to every connection of one client process that reads them all; the server
reports the CPU time it spent from the first update until every frame was written.
"""

from __future__ import annotations

import argparse
import asyncio
import subprocess
import sys
import time
from collections import deque
from typing import Any, Protocol

import uvicorn
import websockets
from starlette.types import Receive, Scope, Send

from app.api.heads import HeadLimitedProtocol
from app.api.middleware import RAW_SEND, KeepRawSend
from app.rooms.connection import Connection
from tests.server import free_port

FRAME = b'{"type":"patch","v":1,"ops":[{"op":"replace","path":"/turn/seat","value":1}]}' * 2
STRATEGIES = ("stepped", "writer")


class Pushes(Protocol):
    def push(self, frame: bytes) -> None: ...
    async def drained(self) -> None: ...


class Stepped:
    """The server's connection: sends stepped at once, a task only when one waits."""

    def __init__(self, send: Send) -> None:
        self.connection = Connection(send, 0, 1 << 30)

    def push(self, frame: bytes) -> None:
        self.connection.push(frame)

    async def drained(self) -> None:
        while self.connection.writer is not None:
            await asyncio.shield(self.connection.writer)


class Writer:
    """A writer task per connection over a bounded queue, woken by a future."""

    def __init__(self, send: Send) -> None:
        self.send = send
        self.queue: deque[dict[str, Any]] = deque()
        self.wakeup: asyncio.Future[None] | None = None
        self.empty = asyncio.Event()
        self.task = asyncio.get_running_loop().create_task(self._write())

    def push(self, frame: bytes) -> None:
        if len(self.queue) >= 1 << 30:
            raise OverflowError
        self.queue.append({"type": "websocket.send", "text": frame.decode()})
        self.empty.clear()
        if self.wakeup is not None and not self.wakeup.done():
            self.wakeup.set_result(None)

    async def drained(self) -> None:
        await self.empty.wait()

    async def _write(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            while self.queue:
                await self.send(self.queue.popleft())
            self.empty.set()
            self.wakeup = loop.create_future()
            await self.wakeup
            self.wakeup = None


def serving(strategy: str, connections: int, frames: int) -> Any:
    """An ASGI app that, once ``connections`` are in, pushes ``frames`` frames among them."""
    peers: list[Pushes] = []

    async def push_all() -> None:
        updates = frames // connections
        begin = time.process_time()
        for _ in range(updates):
            for peer in peers:
                peer.push(FRAME)
            await asyncio.sleep(0)  # each update is its own event, as a room's actions are
        await asyncio.gather(*(peer.drained() for peer in peers))
        spent = time.process_time() - begin
        for peer in peers:
            peer.push(f"done {spent / (updates * connections) * 1e6:.3f}".encode())

    async def application(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "websocket":
            return
        await receive()
        await send({"type": "websocket.accept"})
        peers.append((Stepped if strategy == "stepped" else Writer)(scope[RAW_SEND]))
        if len(peers) == connections:
            await push_all()
        while (await receive())["type"] != "websocket.disconnect":
            pass

    return KeepRawSend(application)


def serve(strategy: str, connections: int, frames: int, port: int) -> None:
    uvicorn.run(
        serving(strategy, connections, frames),
        host="127.0.0.1",
        port=port,
        loop="uvloop",
        http=HeadLimitedProtocol,
        ws="websockets-sansio",
        ws_per_message_deflate=False,
        lifespan="off",
        log_level="warning",
    )


async def read_all(port: int, connections: int) -> float:
    """Open the connections, read every frame, and return the server's CPU µs per frame."""
    sockets = []
    for _ in range(100):
        try:
            sockets.append(await websockets.connect(f"ws://127.0.0.1:{port}/", max_queue=None))
            break
        except OSError:
            await asyncio.sleep(0.1)
    for _ in range(connections - 1):
        sockets.append(await websockets.connect(f"ws://127.0.0.1:{port}/", max_queue=None))

    async def drain(socket: Any) -> float:
        while True:
            message = await socket.recv()
            if message.startswith("done "):
                return float(message.split()[1])

    results = await asyncio.gather(*(drain(socket) for socket in sockets))
    for socket in sockets:
        await socket.close()
    return results[0]


def measure(strategy: str, connections: int, frames: int) -> float:
    port = free_port()
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "bench.send",
            "--serve",
            strategy,
            str(connections),
            str(frames),
            "--port",
            str(port),
        ]
    )
    try:
        return asyncio.run(read_all(port, connections))
    finally:
        server.terminate()
        server.wait(10)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=100_000)
    parser.add_argument("--connections", type=int, nargs="+", default=[4, 64])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--serve", nargs=3, help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, help=argparse.SUPPRESS)
    arguments = parser.parse_args()
    if arguments.serve:
        strategy, connections, frames = arguments.serve
        serve(strategy, int(connections), int(frames), arguments.port)
        return
    print("connections  strategy  server CPU µs per frame (median of runs)")
    for connections in arguments.connections:
        for strategy in STRATEGIES:
            runs = sorted(
                measure(strategy, connections, arguments.frames) for _ in range(arguments.runs)
            )
            print(f"{connections:11d}  {strategy:8s}  {runs[len(runs) // 2]:.2f}  {runs}")


if __name__ == "__main__":
    main()
