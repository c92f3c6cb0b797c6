"""Stepping a real uvicorn WebSocket send by hand: it completes at once while the socket takes
data, and when the socket is backed up it hands its task a future to wait on, then finishes."""

from __future__ import annotations

import asyncio
import socket
import sys
from collections.abc import Callable
from importlib.metadata import version

import pytest
import uvicorn
import uvloop
from starlette.types import Message, Receive, Scope, Send
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.client import ClientProtocol
from websockets.frames import Frame, Opcode
from websockets.uri import parse_uri

from app.api.middleware import RAW_SEND, KeepRawSend
from app.rooms.eager import CHECKED_WITH, Waiting, send_at_once

FRAME_BYTES = 64 * 1024
MAX_FRAMES = 2_000  # more than any socket buffer holds: a send must have waited by then
GUARD_SECONDS = 60.0


def test_the_versions_it_was_checked_with_are_installed() -> None:
    installed = {
        "python": "{}.{}".format(*sys.version_info[:2]),
        "uvicorn": version("uvicorn"),
        "uvloop": version("uvloop"),
    }
    assert installed == CHECKED_WITH, (
        f"app/rooms/eager.py steps uvicorn's WebSocket send by hand; it was checked with "
        f"{CHECKED_WITH} and {installed} is installed. Re-read asyncio's Future.__await__ and "
        "Task.__step (a yielded future with _asyncio_future_blocking set is waited on, None "
        "is a bare yield) and uvicorn's websockets_sansio_impl send() (it awaits only "
        "`writable`, set unless the transport is paused), then run this file and, if it "
        "passes, update CHECKED_WITH."
    )


class Peer:
    """The client end of one WebSocket, read only when asked to."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer
        self.protocol = ClientProtocol(parse_uri("ws://127.0.0.1/"), max_size=None)

    @classmethod
    async def connect(cls, port: int) -> Peer:
        """Connect with a small receive buffer, so the server's sends back up soon."""
        raw = socket.socket()
        raw.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        raw.setblocking(False)
        await asyncio.get_running_loop().sock_connect(raw, ("127.0.0.1", port))
        peer = cls(*await asyncio.open_connection(sock=raw, limit=16 * 1024))
        peer.protocol.send_request(peer.protocol.connect())
        peer.writer.write(b"".join(peer.protocol.data_to_send()))
        while peer.protocol.handshake_exc is None and not peer.protocol.events_received():
            peer.protocol.receive_data(await peer.reader.read(65536))
        assert peer.protocol.handshake_exc is None
        return peer

    async def read_texts(self, count: int) -> list[bytes]:
        """The next ``count`` text frames."""
        texts: list[bytes] = []
        while len(texts) < count:
            data = await self.reader.read(1 << 20)
            assert data, "the server closed the connection"
            self.protocol.receive_data(data)
            for event in self.protocol.events_received():
                if isinstance(event, Frame) and event.opcode is Opcode.TEXT:
                    texts.append(bytes(event.data))
        return texts

    def close(self) -> None:
        self.writer.close()


async def serve_one_socket_and_step_its_sends() -> None:
    sends: asyncio.Queue[Send] = asyncio.Queue()

    async def application(scope: Scope, receive: Receive, send: Send) -> None:
        assert (await receive())["type"] == "websocket.connect"
        await send({"type": "websocket.accept"})
        sends.put_nowait(scope[RAW_SEND])
        while (await receive())["type"] != "websocket.disconnect":
            pass

    config = uvicorn.Config(
        KeepRawSend(application),
        host="127.0.0.1",
        port=0,
        http="httptools",
        ws="websockets-sansio",
        ws_per_message_deflate=False,
        lifespan="off",
        log_config=None,
    )
    config.load()
    server = uvicorn.Server(config)
    server.lifespan = config.lifespan_class(config)
    await server.startup()
    try:
        port = server.servers[0].sockets[0].getsockname()[1]
        peer = await Peer.connect(port)
        try:
            send = await sends.get()
            # The application's own send is the server's protocol's, with nothing in between.
            assert isinstance(getattr(send, "__self__", None), WebSocketsSansIOProtocol)
            await check_stepping(send, peer)
        finally:
            peer.close()
    finally:
        await server.shutdown()


def frame(number: int) -> str:
    return f"{number:06d}" + "x" * FRAME_BYTES


async def check_stepping(send: Send, peer: Peer) -> None:
    sent = 0
    waiting: Waiting | None = None
    while waiting is None:
        assert sent < MAX_FRAMES, "the socket never backed up"
        waiting = send_at_once(send, {"type": "websocket.send", "text": frame(sent)})
        sent += 1
    assert sent > 1, "a send to a socket with room completes at once"
    # What a send waits on is an asyncio future marked as awaited, which a task takes over.
    future = waiting.waiting_on
    assert isinstance(future, asyncio.Future)
    assert future.get_loop() is asyncio.get_running_loop()
    assert future._asyncio_future_blocking is True
    assert not future.done()

    async def finish() -> None:
        await waiting

    writer = asyncio.get_running_loop().create_task(finish())
    async with asyncio.timeout(GUARD_SECONDS):
        texts = await peer.read_texts(sent)
        await writer
    assert [int(text[:6]) for text in texts] == list(range(sent))
    assert all(len(text) == 6 + FRAME_BYTES for text in texts)
    # Drained, the socket takes a send at once again.
    assert send_at_once(send, {"type": "websocket.send", "text": "after"}) is None
    async with asyncio.timeout(GUARD_SECONDS):
        assert await peer.read_texts(1) == [b"after"]


LOOPS: dict[str, Callable[[], asyncio.AbstractEventLoop]] = {
    "uvloop": uvloop.new_event_loop,
    "asyncio": asyncio.new_event_loop,
}


@pytest.mark.parametrize("loop", LOOPS)
def test_a_send_steps_at_once_then_waits_on_a_future_and_finishes(loop: str) -> None:
    with asyncio.Runner(loop_factory=LOOPS[loop]) as runner:
        runner.run(serve_one_socket_and_step_its_sends())


async def test_what_a_waiting_send_waited_on_fails_with_reaches_the_send() -> None:
    awaited: asyncio.Future[None] = asyncio.get_running_loop().create_future()
    seen: list[BaseException] = []

    async def send(message: Message) -> None:
        try:
            await awaited
        except OSError as error:
            seen.append(error)
            raise

    waiting = send_at_once(send, {"type": "websocket.send", "text": "x"})
    assert waiting is not None

    async def finish() -> None:
        await waiting

    writer = asyncio.get_running_loop().create_task(finish())
    await asyncio.sleep(0)  # the writer takes over the future
    awaited.set_exception(OSError("connection reset"))
    with pytest.raises(OSError, match="connection reset"):
        await writer
    assert len(seen) == 1


async def test_a_waiting_send_cancelled_is_closed() -> None:
    gate = asyncio.Event()
    ended: list[str] = []

    async def send(message: Message) -> None:
        try:
            await gate.wait()
        finally:
            ended.append(message["type"])

    waiting = send_at_once(send, {"type": "websocket.send", "text": "x"})
    assert waiting is not None

    async def finish() -> None:
        await waiting

    writer = asyncio.get_running_loop().create_task(finish())
    await asyncio.sleep(0)
    writer.cancel()
    with pytest.raises(asyncio.CancelledError):
        await writer
    assert ended == ["websocket.send"]
