"""CPU per message a client sends, one at a time: the server's read path, from the socket to
the application's receive (or, with ``--at-once``, to the reader the application set on the
protocol, as the game server does: ``FrameReadingProtocol.reader``).

    .venv/bin/python -m bench.inbound [--messages 5000] [--runs 3] [--at-once]

A uvicorn server (uvloop, the server's own HTTP and WebSocket protocols,
``app.api.heads.HeadLimitedProtocol`` and ``app.rooms.inbound.FrameReadingProtocol``) in a
child process pinned to core 0 answers each text message with a short one; a client pinned to
core 1 sends a message, waits for the answer and half a millisecond more, so that every message
finds the server idle, as the moves of a room's players do. The server reports its CPU time per
message over the measured messages.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import sys
import time

import uvicorn
from starlette.types import ASGIApp, Receive, Scope, Send
from websockets.asyncio.client import connect

from app.api.heads import HeadLimitedProtocol
from app.rooms.eager import direct_writer
from app.rooms.inbound import FrameReadingProtocol
from bench.load import CLIENT_CORE, SERVER_CORE, free_port, stop_process

WARMUP = 2000
PAUSE_SECONDS = 0.0005


class Answering:
    """Answers every message; "start" starts the count, "stop" answers with the CPU per
    message. The answer is written as the game server writes its frames (``direct_writer``)."""

    def __init__(self, send: Send) -> None:
        write = direct_writer(send)
        assert write is not None
        self.write = write
        self.started, self.count = time.process_time(), 0

    def take(self, text: str | None) -> None:
        if text == "start":
            self.started, self.count = time.process_time(), 0
            reply = "started"
        elif text == "stop":
            reply = f"{(time.process_time() - self.started) / max(1, self.count) * 1e6:.1f}"
        else:
            self.count += 1
            reply = "r"
        if not self.write(reply.encode(), False):  # the client answers each: never paused
            raise RuntimeError("the reply could not be written at once")


def application(at_once: bool) -> ASGIApp:
    """The answering application, taking messages from its receive or ``at_once``."""

    async def answering(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "websocket":
            return
        await receive()
        await send({"type": "websocket.accept"})
        answering = Answering(send)
        if at_once:
            reading = getattr(receive, "__self__", None)
            assert isinstance(reading, FrameReadingProtocol)
            reading.reader = answering.take
        while True:
            message = await receive()
            if message["type"] != "websocket.receive":
                return
            answering.take(message.get("text"))

    return answering


def serve(port: int, at_once: bool) -> None:
    os.sched_setaffinity(0, {SERVER_CORE})
    uvicorn.run(
        application(at_once),
        host="127.0.0.1",
        port=port,
        loop="uvloop",
        http=HeadLimitedProtocol,
        ws=FrameReadingProtocol,
        ws_per_message_deflate=False,
        ws_ping_interval=None,
        lifespan="off",
        log_level="warning",
    )


async def one_run(port: int, messages: int) -> float:
    for _ in range(200):
        try:
            ws = await connect(f"ws://127.0.0.1:{port}/", compression=None)
            break
        except OSError:
            await asyncio.sleep(0.05)
    else:
        raise RuntimeError("the server did not start")
    async with ws:
        for _ in range(WARMUP):
            await ws.send("m")
            await ws.recv()
        await ws.send("start")
        await ws.recv()
        for _ in range(messages):
            await ws.send("m")
            await ws.recv()
            await asyncio.sleep(PAUSE_SECONDS)
        await ws.send("stop")
        return float(await ws.recv())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--messages", type=int, default=5000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument(
        "--at-once", action="store_true", help="take messages at once, as the game server does"
    )
    parser.add_argument("--serve", type=int, help=argparse.SUPPRESS)
    arguments = parser.parse_args()
    if arguments.serve:
        serve(arguments.serve, arguments.at_once)
        return
    os.sched_setaffinity(0, {CLIENT_CORE})
    figures = []
    for _ in range(arguments.runs):
        port = free_port()
        at_once = ["--at-once"] if arguments.at_once else []
        server = subprocess.Popen(
            [sys.executable, "-m", "bench.inbound", "--serve", str(port), *at_once]
        )
        try:
            figures.append(asyncio.run(one_run(port, arguments.messages)))
        finally:
            stop_process(server)
    shown = ", ".join(f"{figure:.1f}" for figure in figures)
    median = sorted(figures)[len(figures) // 2]
    how = "taken at once" if arguments.at_once else "through the receive"
    print(f"server CPU per message, one at a time, {how}: {shown} µs (median {median:.1f})")


if __name__ == "__main__":
    main()
