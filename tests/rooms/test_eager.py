"""Sending at once on a real uvicorn WebSocket: frames written straight to its transport arrive
whole and in order with those of its own send; stepping its send by hand completes at once
while the socket takes data, and when the socket is backed up it hands its task a future to
wait on, then finishes."""

from __future__ import annotations

import asyncio
import socket
import sys
from collections.abc import Callable, Coroutine
from importlib.metadata import version
from typing import Any

import pytest
import uvloop
from starlette.types import Message, Receive, Scope, Send
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.client import ClientProtocol
from websockets.frames import Frame, Opcode
from websockets.uri import parse_uri

from app.api.middleware import RAW_SEND, KeepRawSend
from app.rooms.eager import (
    CHECKED_WITH,
    Waiting,
    direct_writer,
    frame_header,
    run_at_once,
    send_at_once,
)
from tests.rooms.inprocess import serving

FRAME_BYTES = 64 * 1024
MAX_FRAMES = 2_000  # more than any socket buffer holds: a send must have waited by then
GUARD_SECONDS = 60.0


def test_the_versions_it_was_checked_with_are_installed() -> None:
    installed = {
        "python": "{}.{}".format(*sys.version_info[:2]),
        "uvicorn": version("uvicorn"),
        "uvloop": version("uvloop"),
        "websockets": version("websockets"),
    }
    assert installed == CHECKED_WITH, (
        f"app/rooms/eager.py steps uvicorn's WebSocket send by hand and writes frames to its "
        f"transport, and app/rooms/inbound.py reads frames for it; they were checked with "
        f"{CHECKED_WITH} and {installed} is installed. Re-read asyncio's Future.__await__ and "
        "Task.__step (a yielded future with _asyncio_future_blocking set is waited on, None "
        "is a bare yield) and uvicorn's websockets_sansio_impl send() (it awaits only "
        "`writable`, set unless the transport is paused), data_received(), handle_pong() and "
        "send_receive_event_to_app(), then run this file and tests/rooms/test_inbound.py and, "
        "if they pass, update CHECKED_WITH."
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
        """The next ``count`` text frames (there must be no binary one among them)."""
        frames = await self.read_frames(count)
        assert all(kind is Opcode.TEXT for kind, _ in frames)
        return [data for _, data in frames]

    async def read_frames(self, count: int) -> list[tuple[Opcode, bytes]]:
        """The next ``count`` data frames, text or binary: their kinds and payloads."""
        frames: list[tuple[Opcode, bytes]] = []
        while len(frames) < count:
            data = await self.reader.read(1 << 20)
            assert data, "the server closed the connection"
            self.protocol.receive_data(data)
            for event in self.protocol.events_received():
                if isinstance(event, Frame) and event.opcode in (Opcode.TEXT, Opcode.BINARY):
                    frames.append((event.opcode, bytes(event.data)))
        return frames

    def close(self) -> None:
        self.writer.close()


Check = Callable[[Send, "Peer"], Coroutine[Any, Any, None]]


async def serve_one_socket(check: Check) -> None:
    """Start a real uvicorn server, connect one peer and run ``check`` on its raw send."""
    sends: asyncio.Queue[Send] = asyncio.Queue()

    async def application(scope: Scope, receive: Receive, send: Send) -> None:
        assert (await receive())["type"] == "websocket.connect"
        await send({"type": "websocket.accept"})
        sends.put_nowait(scope[RAW_SEND])
        while (await receive())["type"] != "websocket.disconnect":
            pass

    async with serving(KeepRawSend(application), "websockets-sansio") as port:
        peer = await Peer.connect(port)
        try:
            send = await sends.get()
            # The application's own send is the server's protocol's, with nothing in between.
            assert isinstance(getattr(send, "__self__", None), WebSocketsSansIOProtocol)
            await check(send, peer)
        finally:
            peer.close()


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
        runner.run(serve_one_socket(check_stepping))


# Each length's header form: 7 bits, then the 16-bit and the 64-bit extended lengths.
LENGTHS = [0, 1, 125, 126, 127, 65535, 65536, 70000]


async def check_direct_writes(send: Send, peer: Peer) -> None:
    direct = direct_writer(send)
    assert direct is not None
    # Exactly the lengths above in bytes, each telling its place; and one that is not ASCII.
    texts = [(f"{n:06d}" + "x" * length)[:length] for n, length in enumerate(LENGTHS)]
    texts.append("Zoë, Ли, 日本 🎉")
    for n, text in enumerate(texts):
        if n % 2:  # every other one through uvicorn's own send: the two interleave in order
            assert send_at_once(send, {"type": "websocket.send", "text": text}) is None
        else:
            assert direct(text.encode(), False)
    async with asyncio.timeout(GUARD_SECONDS):
        received = await peer.read_texts(len(texts))
    assert [text.decode() for text in received] == texts

    # Binary frames of the same lengths (bytes that are not UTF-8 among them), text between.
    payloads = [bytes((n, 0xFF)) * (length // 2) + bytes(length % 2) for n, length in
                enumerate(LENGTHS)]  # fmt: skip
    for n, payload in enumerate(payloads):
        if n % 2:
            assert send_at_once(send, {"type": "websocket.send", "bytes": payload}) is None
        else:
            assert direct(payload, True)
        assert direct(b"between", False)
    async with asyncio.timeout(GUARD_SECONDS):
        got = await peer.read_frames(2 * len(payloads))
    assert got[1::2] == [(Opcode.TEXT, b"between")] * len(payloads)
    assert got[::2] == [(Opcode.BINARY, payload) for payload in payloads]

    # Backed up: the direct write declines, and uvicorn's send is the one that waits.
    sent = 0
    waiting: Waiting | None = None
    while waiting is None:
        assert sent < MAX_FRAMES, "the socket never backed up"
        waiting = send_at_once(send, {"type": "websocket.send", "text": frame(sent)})
        sent += 1
    assert not direct(b"declined while backed up", False)
    assert not direct(b"binary or not", True)

    async def finish() -> None:
        await waiting

    writer = asyncio.get_running_loop().create_task(finish())
    async with asyncio.timeout(GUARD_SECONDS):
        assert len(await peer.read_texts(sent)) == sent
        await writer
    assert direct(b"after", False)
    async with asyncio.timeout(GUARD_SECONDS):
        assert await peer.read_texts(1) == [b"after"]

    # Once the close is sent nothing more is written, directly or not.
    assert send_at_once(send, {"type": "websocket.close", "code": 1000}) is None
    assert not direct(b"after the close", False)


@pytest.mark.parametrize("loop", LOOPS)
def test_frames_written_directly_arrive_whole_and_in_order_until_backed_up_or_closed(
    loop: str,
) -> None:
    with asyncio.Runner(loop_factory=LOOPS[loop]) as runner:
        runner.run(serve_one_socket(check_direct_writes))


def test_a_frame_header_carries_its_length_in_the_form_it_needs() -> None:
    assert frame_header(0) == b"\x81\x00"
    assert frame_header(125) == b"\x81\x7d"
    assert frame_header(126) == b"\x81\x7e\x00\x7e"
    assert frame_header(65535) == b"\x81\x7e\xff\xff"
    assert frame_header(65536) == b"\x81\x7f" + (65536).to_bytes(8, "big")
    assert frame_header(0, binary=True) == b"\x82\x00"
    assert frame_header(125, binary=True) == b"\x82\x7d"
    assert frame_header(126, binary=True) == b"\x82\x7e\x00\x7e"
    assert frame_header(65536, binary=True) == b"\x82\x7f" + (65536).to_bytes(8, "big")


async def test_a_send_that_is_not_uvicorns_is_not_written_to_directly() -> None:
    async def send(message: Message) -> None:
        pass

    assert direct_writer(send) is None


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


async def test_a_waiting_send_cancelled_is_cancelled_where_it_waits() -> None:
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


async def test_a_coroutine_cancelled_as_a_lock_is_handed_to_it_hands_the_lock_on() -> None:
    """The cancellation reaches the coroutine where it waits, as in a task of its own: the
    lock's ``acquire`` then gives the lock it was just handed to the next waiter."""
    loop = asyncio.get_running_loop()
    lock = asyncio.Lock()
    await lock.acquire()
    got: list[str] = []

    async def take(name: str) -> None:
        async with lock:
            got.append(name)

    waiting = run_at_once(take("first"))
    assert waiting is not None

    async def finish() -> None:
        await waiting

    first = loop.create_task(finish())
    await asyncio.sleep(0)  # its task waits on the lock
    second = loop.create_task(take("second"))
    await asyncio.sleep(0)
    lock.release()  # handed to the first waiter...
    first.cancel()  # ...whose task is cancelled before it runs again
    with pytest.raises(asyncio.CancelledError):
        await first
    await asyncio.wait_for(second, GUARD_SECONDS)
    assert got == ["second"]
    assert not lock.locked()


async def test_a_waiting_coroutine_nobody_will_await_is_cancelled_where_it_waits() -> None:
    lock = asyncio.Lock()
    await lock.acquire()
    ended: list[str] = []

    async def take(name: str) -> None:
        try:
            async with lock:
                ended.append(f"{name} took the lock")
        finally:
            ended.append(f"{name} ended")

    waiting = run_at_once(take("first"))
    assert waiting is not None
    second = asyncio.get_running_loop().create_task(take("second"))
    await asyncio.sleep(0)  # the second waits on the lock too
    lock.release()  # handed to the first waiter
    waiting.cancel()
    await asyncio.wait_for(second, GUARD_SECONDS)
    assert ended == ["first ended", "second took the lock", "second ended"]
