"""The server's WebSocket protocol reads what clients send exactly as uvicorn's own does.

Each case runs against a real uvicorn server twice, once with uvicorn's websockets-sansio
protocol and once with ``FrameReadingProtocol``, and the two must agree on what the
application received and what the client was sent back: messages whole and in order however
the bytes are cut, pongs taken as answers, pings answered, and bad frames closed with the same
codes.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import pytest
from starlette.types import Message, Receive, Scope, Send
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.client import ClientProtocol
from websockets.frames import Close, Frame, Opcode
from websockets.uri import parse_uri

from app.rooms import inbound
from app.rooms.inbound import KEEPALIVE, FrameReadingProtocol, Reading
from tests.rooms.inprocess import serving
from tests.sockets import raw_frame, reading_little, upgrade, wait_until_let_go

PROTOCOLS: dict[str, str | type[WebSocketsSansIOProtocol]] = {
    "uvicorn": "websockets-sansio",
    "frame-reading": FrameReadingProtocol,
}
MAX_SIZE = 1 << 17
GUARD_SECONDS = 30.0


class Seen:
    """What the application received, and the protocol object of its connection."""

    def __init__(self) -> None:
        self.messages: list[Message] = []
        self.protocol: WebSocketsSansIOProtocol | None = None
        self.changed = asyncio.Event()
        self.connecting = asyncio.Event()
        self.accept = asyncio.Event()
        self.accept.set()

    async def count(self, count: int) -> list[Message]:
        async with asyncio.timeout(GUARD_SECONDS):
            while len(self.messages) < count:
                self.changed.clear()
                await self.changed.wait()
        return self.messages


@asynccontextmanager
async def server(ws: str | type[WebSocketsSansIOProtocol]) -> AsyncIterator[tuple[int, Seen]]:
    seen = Seen()

    async def application(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "websocket":
            return
        assert (await receive())["type"] == "websocket.connect"
        seen.protocol = getattr(send, "__self__", None)
        seen.connecting.set()
        await seen.accept.wait()
        await send({"type": "websocket.accept"})
        while True:
            message = await receive()
            seen.messages.append(message)
            seen.changed.set()
            if message["type"] == "websocket.disconnect":
                return

    async with serving(application, ws, MAX_SIZE) as port:
        yield port, seen


class Client:
    """A raw client end: the handshake through the websockets library, then bytes as given."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer
        self.protocol = ClientProtocol(parse_uri("ws://127.0.0.1/"), max_size=None)

    @classmethod
    async def connect(cls, port: int) -> Client:
        client = await cls.request(port)
        await client.answered()
        return client

    @classmethod
    async def request(cls, port: int) -> Client:
        """Connect and send the upgrade request."""
        client = cls(*await asyncio.open_connection("127.0.0.1", port))
        client.protocol.send_request(client.protocol.connect())
        await client.send(b"".join(client.protocol.data_to_send()))
        return client

    async def answered(self) -> None:
        """Wait for the server's answer to the upgrade request: it must accept."""
        client = self
        async with asyncio.timeout(GUARD_SECONDS):
            while client.protocol.handshake_exc is None and not client.protocol.events_received():
                client.protocol.receive_data(await client.reader.read(65536))
        assert client.protocol.handshake_exc is None

    async def send(self, *chunks: bytes) -> None:
        for chunk in chunks:
            self.writer.write(chunk)
            await self.writer.drain()

    async def frames(self, until: Opcode, count: int = 1) -> list[Frame]:
        """Frames the server sends, up to the ``count``th of kind ``until`` (or the
        connection's end)."""
        frames: list[Frame] = []
        async with asyncio.timeout(GUARD_SECONDS):
            while True:
                data = await self.reader.read(65536)
                if not data:
                    self.protocol.receive_eof()
                else:
                    self.protocol.receive_data(data)
                for event in self.protocol.events_received():
                    assert isinstance(event, Frame)
                    frames.append(event)
                    if event.opcode is until:
                        count -= 1
                        if not count:
                            return frames
                if not data:
                    return frames

    def close(self) -> None:
        self.writer.close()


def frame(opcode: Opcode, data: bytes, fin: bool = True) -> bytes:
    """A client's masked frame."""
    return Frame(opcode, data, fin).serialize(mask=True, extensions=[])


def text(value: str) -> bytes:
    return frame(Opcode.TEXT, value.encode())


def texts_of(messages: list[Message]) -> list[Any]:
    return [m.get("text", m.get("bytes")) for m in messages if m["type"] == "websocket.receive"]


SIZES = [0, 1, 125, 126, 127, 4000, 65535, 65536, 70000]


def sized(n: int, length: int) -> str:
    return (f"{n:06d}" + "m" * length)[:length]


async def whole_and_in_order_however_cut(ws: str | type[WebSocketsSansIOProtocol]) -> None:
    async with server(ws) as (port, seen):
        client = await Client.connect(port)
        try:
            values = [sized(n, length) for n, length in enumerate(SIZES)] + ["Zoë 日本 🎉"]
            data = b"".join(text(value) for value in values)
            # All in one write, then byte by byte, then in uneven pieces.
            await client.send(data)
            await client.send(*(data[i : i + 1] for i in range(min(len(data), 3000))))
            await client.send(data[3000:])
            pieces = [data[i : i + 997] for i in range(0, len(data), 997)]
            await client.send(*pieces)
            messages = await seen.count(3 * len(values))
            assert texts_of(messages) == values * 3
        finally:
            client.close()


async def pongs_and_pings(ws: str | type[WebSocketsSansIOProtocol]) -> None:
    async with server(ws) as (port, seen):
        client = await Client.connect(port)
        try:
            await seen.count(0)
            async with asyncio.timeout(GUARD_SECONDS):
                await seen.connecting.wait()
            protocol = seen.protocol
            assert protocol is not None
            protocol.ping_interval = protocol.ping_timeout = 600.0
            protocol.send_keepalive_ping()
            (ping,) = await client.frames(until=Opcode.PING)
            assert protocol.pending_ping_payload == ping.data
            # A pong with the ping's payload answers it, in one piece with a message after it.
            await client.send(frame(Opcode.PONG, ping.data) + text("after the pong"))
            assert texts_of(await seen.count(1)) == ["after the pong"]
            assert protocol.pending_ping_payload is None
            assert protocol.pong_timer is None
            # The client's own ping is answered, and what follows it is still read.
            await client.send(frame(Opcode.PING, b"hi") + text("after the ping"))
            (pong,) = await client.frames(until=Opcode.PONG)
            assert pong.data == b"hi"
            assert texts_of(await seen.count(2)) == ["after the pong", "after the ping"]
            # A close frame ends it: the application hears the code, the client gets the echo.
            await client.send(frame(Opcode.CLOSE, Close(4000, "bye").serialize()))
            closing = await client.frames(until=Opcode.CLOSE)
            assert Close.parse(closing[-1].data).code == 4000
            messages = await seen.count(3)
            assert messages[-1] == {"type": "websocket.disconnect", "code": 4000, "reason": "bye"}
        finally:
            client.close()


BAD_FRAMES = {
    "unmasked": raw_frame(0x81, b"hello", masked=False),
    "reserved bit": raw_frame(0x81 | 0x40, b"hello"),
    "not UTF-8": frame(Opcode.TEXT, b"\xff\xfe"),
    "over the size limit": text("x" * (MAX_SIZE + 1)),
    "binary": frame(Opcode.BINARY, b"\x00\x01"),
    "fragmented": frame(Opcode.TEXT, b"frag", fin=False) + frame(Opcode.CONT, b"ment"),
    "continuation alone": frame(Opcode.CONT, b"x"),
    "long pong": raw_frame(0x8A, b"p" * 126),
    "unknown opcode": raw_frame(0x83, b"?"),
}


async def after_a_bad_frame(ws: str | type[WebSocketsSansIOProtocol], bad: bytes) -> object:
    """What the application and the client saw of a good message, ``bad`` and another
    message (then a close from the client, if the server has not closed)."""
    async with server(ws) as (port, seen):
        client = await Client.connect(port)
        try:
            await client.send(text("before"))
            await seen.count(1)
            await client.send(bad + text("behind"))
            async with asyncio.timeout(GUARD_SECONDS):
                while not any(m["type"] == "websocket.disconnect" for m in seen.messages):
                    if texts_of(seen.messages)[-1:] == ["behind"]:
                        await client.send(frame(Opcode.CLOSE, Close(4001, "bye").serialize()))
                    seen.changed.clear()
                    await seen.changed.wait()
            frames = await client.frames(until=Opcode.CLOSE)
            closes = [Close.parse(f.data).code for f in frames if f.opcode is Opcode.CLOSE]
            return closes, seen.messages
        finally:
            client.close()


async def early_frames(ws: str | type[WebSocketsSansIOProtocol]) -> None:
    async with server(ws) as (port, seen):
        seen.accept.clear()
        client = await Client.request(port)
        try:
            async with asyncio.timeout(GUARD_SECONDS):
                await seen.connecting.wait()
                # Frames the server has read before it accepts (it has not answered yet).
                await client.send(text("too early") + text("and again"))
                assert seen.protocol is not None
                while seen.protocol.queue.qsize() < 2:  # noqa: ASYNC110 (no event for a put)
                    await asyncio.sleep(0.01)
            seen.accept.set()
            await client.answered()
            await client.send(text("in time"))
            assert texts_of(await seen.count(3)) == ["too early", "and again", "in time"]
        finally:
            client.close()


@pytest.mark.parametrize("ws", PROTOCOLS)
async def test_messages_arrive_whole_and_in_order_however_the_bytes_are_cut(ws: str) -> None:
    await whole_and_in_order_however_cut(PROTOCOLS[ws])


@pytest.mark.parametrize("ws", PROTOCOLS)
async def test_pongs_answer_pings_pings_are_answered_and_a_close_ends_it(ws: str) -> None:
    await pongs_and_pings(PROTOCOLS[ws])


@asynccontextmanager
async def after_a_message(
    ws: str | type[WebSocketsSansIOProtocol], interval: float
) -> AsyncIterator[tuple[Client, Seen, WebSocketsSansIOProtocol]]:
    """A connection whose client has sent one message, its keepalive set to ``interval``."""
    async with server(ws) as (port, seen):
        client = await Client.connect(port)
        try:
            await client.send(text("a move"))
            await seen.count(1)
            protocol = seen.protocol
            assert protocol is not None
            protocol.ping_interval = protocol.ping_timeout = interval
            yield client, seen, protocol
        finally:
            client.close()


async def unanswered_pings(ws: str | type[WebSocketsSansIOProtocol]) -> tuple[list[Frame], Close]:
    """Keepalive on a short interval after a message, and a client that never answers: the
    frames it gets, and the close they end with."""
    async with after_a_message(ws, 0.05) as (client, seen, protocol):
        protocol.start_keepalive()
        frames = await client.frames(until=Opcode.CLOSE)
        assert frames[-1].opcode is Opcode.CLOSE
        assert (await seen.count(2))[-1]["type"] == "websocket.disconnect"
        return frames[:-1], Close.parse(frames[-1].data)


@pytest.mark.parametrize("ws", PROTOCOLS)
async def test_a_ping_left_unanswered_closes_the_connection_1011(ws: str) -> None:
    pings, close = await unanswered_pings(PROTOCOLS[ws])
    assert [sent.opcode for sent in pings] == [Opcode.PING]
    assert len(pings[0].data) == 4
    assert (close.code, close.reason) == (1011, "keepalive ping timeout")


async def quiet_and_pinged(client: Client, protocol: FrameReadingProtocol) -> Frame:
    """Quiet for most of the interval (600 s) as the ring sees it, rung by hand: the ping."""
    protocol.heard_at -= 460.0
    protocol.send_keepalive_ping()
    (ping,) = await client.frames(until=Opcode.PING)
    return ping


async def test_a_client_heard_from_within_the_interval_is_not_pinged_yet() -> None:
    # Rung by hand here: the timers it arms are far off.
    async with after_a_message(FrameReadingProtocol, 600.0) as (client, seen, protocol):
        assert isinstance(protocol, FrameReadingProtocol)
        pings, put_off = KEEPALIVE.pings, KEEPALIVE.deferred
        protocol.send_keepalive_ping()
        assert protocol.pending_ping_payload is None  # no ping: it was heard from just now
        assert (KEEPALIVE.pings, KEEPALIVE.deferred) == (pings, put_off + 1)
        deferred = protocol.ring_tick
        assert deferred is not None
        # Quiet for three quarters of the interval (450 s) and more: the ring pings.
        ping = await quiet_and_pinged(client, protocol)
        assert protocol.pending_ping_payload == ping.data
        assert (KEEPALIVE.pings, KEEPALIVE.deferred) == (pings + 1, put_off + 1)
        # One ring set: the next, which looks for an answer; no pong timer.
        ring = protocol.ring_tick
        assert ring is not None
        assert protocol.ping_timer is None
        assert protocol.pong_timer is None
        await client.send(frame(Opcode.PONG, ping.data) + text("after the pong"))
        await seen.count(2)
        assert protocol.pending_ping_payload is None
        assert protocol.pong_timer is None
        assert protocol.ring_tick == ring  # the pong set nothing: the ring is still due
        assert protocol.ping_timer is None


async def test_a_ring_after_the_timeout_with_nothing_heard_closes_1011() -> None:
    async with after_a_message(FrameReadingProtocol, 600.0) as (client, seen, protocol):
        assert isinstance(protocol, FrameReadingProtocol)
        ping = await quiet_and_pinged(client, protocol)
        # Rung again before the timeout: the ping still has time.
        protocol.send_keepalive_ping()
        assert protocol.pending_ping_payload == ping.data
        assert not protocol.close_sent
        # The timeout over, nothing heard since the ping: the link is dead.
        protocol.ping_sent_at -= 600.0
        protocol.heard_at -= 600.0
        protocol.send_keepalive_ping()
        frames = await client.frames(until=Opcode.CLOSE)
        close = Close.parse(frames[-1].data)
        assert (close.code, close.reason) == (1011, "keepalive ping timeout")
        assert (await seen.count(2))[-1]["type"] == "websocket.disconnect"


async def test_whatever_the_client_sends_after_a_ping_answers_it() -> None:
    async with after_a_message(FrameReadingProtocol, 600.0) as (client, seen, protocol):
        assert isinstance(protocol, FrameReadingProtocol)
        ping = await quiet_and_pinged(client, protocol)
        await client.send(text("a move, not a pong"))
        await seen.count(2)
        assert protocol.pending_ping_payload == ping.data  # only its pong clears the ping
        put_off = KEEPALIVE.deferred
        protocol.ping_sent_at -= 600.0  # the timeout is over, but the client was heard since
        protocol.send_keepalive_ping()
        assert not protocol.close_sent
        assert KEEPALIVE.deferred == put_off + 1  # heard from lately: the next ping waits
        assert protocol.ring_tick is not None
        # Quiet for most of an interval after that: pinged again, with a new payload.
        again = await quiet_and_pinged(client, protocol)
        assert protocol.pending_ping_payload == again.data
        assert len(again.data) == 4


@pytest.mark.parametrize("ws", PROTOCOLS)
async def test_frames_sent_before_the_handshake_is_answered_are_read(ws: str) -> None:
    await early_frames(PROTOCOLS[ws])


async def test_text_ping_and_pong_frames_are_read_without_uvicorns_parser() -> None:
    async with server(FrameReadingProtocol) as (port, seen):
        client = await Client.connect(port)
        try:
            await client.send(text("one") + frame(Opcode.PING, b"p") + frame(Opcode.PONG, b""))
            (pong,) = await client.frames(until=Opcode.PONG)
            await client.send(text("two"))
            assert texts_of(await seen.count(2)) == ["one", "two"]
            assert pong.data == b"p"
            assert isinstance(seen.protocol, FrameReadingProtocol)
            assert seen.protocol.reading is Reading.FRAMES
        finally:
            client.close()


@pytest.mark.parametrize("path", ["read here", "after the hand-over"])
async def test_a_client_sending_pings_past_its_allowance_is_closed_1008(path: str) -> None:
    """A client that pings without reading is closed, not answered without end (the server
    would hold every pong it cannot write); within the allowance every ping is answered."""
    async with server(FrameReadingProtocol) as (port, seen):
        client = await Client.connect(port)
        try:
            first = frame(Opcode.BINARY, b"\x00") if path == "after the hand-over" else text("hi")
            await client.send(first)
            await seen.count(1)
            assert isinstance(seen.protocol, FrameReadingProtocol)
            expected = Reading.PARSER if path == "after the hand-over" else Reading.FRAMES
            assert seen.protocol.reading is expected
            # The whole burst, in one write: every ping answered, and the connection open.
            burst = [frame(Opcode.PING, b"%d" % n) for n in range(inbound.CONTROL_BURST - 1)]
            await client.send(b"".join(burst) + frame(Opcode.PONG, b"unasked"))
            await client.send(text("still open"))
            pongs = await client.frames(until=Opcode.PONG, count=len(burst))
            assert [pong.data for pong in pongs] == [b"%d" % n for n in range(len(burst))]
            assert texts_of(await seen.count(2))[-1] == "still open"
            # Far past the allowance (it grows by two a second), sent without reading.
            await client.send(*(frame(Opcode.PING, b"more") for _ in range(400)))
            frames = await client.frames(until=Opcode.CLOSE)
            assert frames[-1].opcode is Opcode.CLOSE
            assert Close.parse(frames[-1].data) == Close(1008, "too many pings")
            assert all(sent.opcode is Opcode.PONG for sent in frames[:-1])
            if path == "read here":  # counted frame by frame
                assert len(frames) - 1 < 200
            # (uvicorn's parser makes the pongs of all the pings read in one go before any is
            # counted: those of the read that passes the allowance go out before the close.)
            assert (await seen.count(3))[-1]["type"] == "websocket.disconnect"
        finally:
            client.close()


async def test_pings_past_the_allowance_after_the_server_closed_end_the_socket_at_once() -> None:
    """The application has closed (its close frame sent, the client's awaited): a client that
    pings on past its allowance meanwhile loses the socket then, not at the close's timeout."""

    async def application(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "websocket":
            return
        await receive()
        await send({"type": "websocket.accept"})
        protocol = getattr(send, "__self__", None)
        assert isinstance(protocol, FrameReadingProtocol)
        protocol.close_timeout = 600.0  # the client's close would be waited for this long
        await receive()
        await send({"type": "websocket.close", "code": 4000})
        while (await receive())["type"] != "websocket.disconnect":
            pass

    async with serving(application, FrameReadingProtocol, MAX_SIZE) as port:
        client = await Client.connect(port)
        try:
            await client.send(text("close, please"))
            (close,) = await client.frames(until=Opcode.CLOSE)
            assert Close.parse(close.data).code == 4000
            await client.send(*(frame(Opcode.PING, b"%d" % n) for n in range(40)))
            # Read to the end (or a reset): the socket is gone, long before 600 s.
            async with asyncio.timeout(GUARD_SECONDS):
                with contextlib.suppress(ConnectionResetError):
                    await client.reader.read()
        finally:
            client.close()


@pytest.mark.parametrize("bad", BAD_FRAMES)
async def test_a_bad_or_unusual_frame_is_answered_as_uvicorn_answers_it(bad: str) -> None:
    theirs = await after_a_bad_frame(PROTOCOLS["uvicorn"], BAD_FRAMES[bad])
    ours = await after_a_bad_frame(PROTOCOLS["frame-reading"], BAD_FRAMES[bad])
    assert ours == theirs


class Rung:
    """A connection's side of the ringer: counts its rings (the ringer is what is tested)."""

    def __init__(self, rings: list[str], name: str, fails: bool = False) -> None:
        self.rings, self.name, self.fails = rings, name, fails
        self.ring_tick: int | None = None
        self.disconnected = False
        self.ping_interval = 600.0
        self.rang = asyncio.Event()

    def send_keepalive_ping(self) -> None:
        self.rings.append(self.name)
        self.rang.set()
        if self.fails:
            raise RuntimeError("this ring fails")


async def test_rings_due_in_one_tick_share_one_timer_and_each_rings_once() -> None:
    loop = asyncio.get_running_loop()
    rings: list[str] = []
    ringer = inbound.ringer(loop)
    a, b, c, gone, moved = (Rung(rings, name) for name in ("a", "b", "c", "gone", "moved"))
    failing = Rung(rings, "failing", fails=True)
    soon = loop.time() + inbound.RING_TICK / 2
    for rung in (a, failing, b, c, gone, moved):
        ringer.ring_at(rung, soon)  # type: ignore[arg-type]
    assert len(ringer.due) == 1  # one tick, one timer
    gone.disconnected = True
    ringer.ring_at(moved, soon + 3 * inbound.RING_TICK)  # type: ignore[arg-type]
    assert len(ringer.due) == 2
    async with asyncio.timeout(GUARD_SECONDS):
        await moved.rang.wait()
    # Each once, the one that failed not stopping those after it; nothing for the gone one.
    assert rings == ["a", "failing", "b", "c", "moved"]
    assert (a.ring_tick, moved.ring_tick, gone.ring_tick) == (None, None, None)
    # The one that failed is rung again an interval on, not dropped from the keepalive.
    assert failing.ring_tick is not None
    assert [set(due) for due in ringer.due.values()] == [{failing}]
    ringer.forget(failing)  # type: ignore[arg-type]
    assert failing.ring_tick is None
    assert loop not in inbound.RINGERS  # nothing left due: the loop's ringer is let go


async def test_a_closed_connection_is_let_go_at_once_not_at_its_tick() -> None:
    async with after_a_message(FrameReadingProtocol, 600.0) as (client, seen, protocol):
        assert isinstance(protocol, FrameReadingProtocol)
        await quiet_and_pinged(client, protocol)
        loop = asyncio.get_running_loop()
        assert any(protocol in due for due in inbound.RINGERS[loop].due.values())
        client.close()
        assert (await seen.count(2))[-1]["type"] == "websocket.disconnect"
        assert protocol.ring_tick is None
        ringer = inbound.RINGERS.get(loop)
        assert ringer is None or not any(protocol in due for due in ringer.due.values())


async def test_without_a_ping_timeout_a_ping_is_never_waited_for() -> None:
    async with after_a_message(FrameReadingProtocol, 600.0) as (client, _, protocol):
        assert isinstance(protocol, FrameReadingProtocol)
        protocol.ping_timeout = None  # as uvicorn's ws_ping_timeout=None: ping, never close
        ping = await quiet_and_pinged(client, protocol)
        protocol.ping_sent_at -= 600.0
        protocol.heard_at -= 600.0  # nothing heard since the ping, an interval ago
        protocol.send_keepalive_ping()
        (again,) = await client.frames(until=Opcode.PING)
        assert not protocol.close_sent
        assert protocol.pending_ping_payload == again.data
        assert len(ping.data) == len(again.data) == 4


async def test_after_the_hand_over_a_ring_counts_only_the_pings_it_sends() -> None:
    async with after_a_message(FrameReadingProtocol, 600.0) as (client, seen, protocol):
        assert isinstance(protocol, FrameReadingProtocol)
        # A fragmented message: uvicorn's parser reads the connection from here on.
        await client.send(frame(Opcode.TEXT, b"in two ", fin=False) + frame(Opcode.CONT, b"parts"))
        assert texts_of(await seen.count(2))[-1] == "in two parts"
        assert protocol.reading is Reading.PARSER
        pings = KEEPALIVE.pings
        protocol.send_keepalive_ping()  # uvicorn's own ping, and its pong timer
        (ping,) = await client.frames(until=Opcode.PING)
        assert protocol.pending_ping_payload == ping.data
        assert protocol.pong_timer is not None
        assert KEEPALIVE.pings == pings + 1
        protocol.pong_timer.cancel()
        protocol.pong_timer = None
        protocol.close_sent = True  # as once the application has closed: uvicorn sends nothing
        protocol.send_keepalive_ping()
        assert protocol.pending_ping_payload == ping.data  # the unanswered ping, not a new one
        assert KEEPALIVE.pings == pings + 1


async def test_an_application_s_reader_takes_texts_at_once_and_queued_ones_first() -> None:
    """Text messages go to the reader the application set while none waits in the queue; a
    message it passes on is queued, and later ones queue behind it until the reader is set
    again: the application sees every message once, in the order sent."""
    taken: list[tuple[str, str]] = []
    changed = asyncio.Event()

    async def application(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "websocket":
            return
        assert (await receive())["type"] == "websocket.connect"
        await send({"type": "websocket.accept"})
        reading = getattr(receive, "__self__", None)
        assert isinstance(reading, FrameReadingProtocol)

        def reader(value: str) -> None:
            taken.append(("at once", value))
            changed.set()
            if value.startswith("wait"):  # its handling has to wait: on to the loop
                reading.pass_on({"type": "app.waited", "text": value})

        reading.reader = reader
        while True:
            message: Any = await receive()
            if message["type"] == "websocket.disconnect":
                return
            how = "passed on" if message["type"] == "app.waited" else "queued"
            taken.append((how, message["text"]))
            changed.set()
            if message["text"] == "go on":
                reading.reader = reader

    async def count(n: int) -> None:
        async with asyncio.timeout(GUARD_SECONDS):
            while len(taken) < n:
                changed.clear()
                await changed.wait()

    async with serving(application, FrameReadingProtocol, MAX_SIZE) as port:
        client = await Client.connect(port)
        try:
            await client.send(b"".join(text(v) for v in ("a", "b", "wait", "c", "go on")))
            await count(6)
            await client.send(text("d") + text("wait 2"), text("e"))
            await count(10)
            await client.send(text("go on"))
            await count(11)
            await client.send(text("f"))
            await count(12)
        finally:
            client.close()
    assert taken == [
        ("at once", "a"),
        ("at once", "b"),
        ("at once", "wait"),
        ("passed on", "wait"),
        ("queued", "c"),
        ("queued", "go on"),
        ("at once", "d"),
        ("at once", "wait 2"),
        ("passed on", "wait 2"),
        ("queued", "e"),
        ("queued", "go on"),
        ("at once", "f"),
    ]


class QuickToClose(FrameReadingProtocol):
    """The server's protocol, waiting one second for a closed connection to end."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.close_timeout = 1.0


async def closes_at_once(scope: Scope, receive: Receive, send: Send) -> None:
    if scope["type"] != "websocket":
        return
    await receive()
    await send({"type": "websocket.accept"})
    await send({"type": "websocket.close", "code": 1000})  # and the application is done


def read_to_the_end(port: int) -> bytes:
    """Open a WebSocket and read everything the server sends after the handshake's answer
    until it ends the connection, never answering its close (ConnectionResetError if the
    server resets it)."""
    with socket.create_connection(("127.0.0.1", port), timeout=GUARD_SECONDS) as client:
        upgrade(client, "/ws")
        received = b""
        while chunk := client.recv(65536):
            received += chunk
        return received


async def test_a_connection_with_nothing_left_to_write_is_closed_not_reset() -> None:
    """A client that read everything but never answered the close: once the close timeout is
    up, its connection ends as uvicorn ends it (a FIN after the close frame), not reset, which
    would throw away whatever the client's system has not yet taken."""
    async with serving(closes_at_once, QuickToClose) as port:
        for _ in range(3):
            received = await asyncio.to_thread(read_to_the_end, port)
            assert received.endswith(b"\x88\x02\x03\xe8")  # the close frame, 1000


class Roomy(FrameReadingProtocol):
    """The server's protocol with room in the system's buffer for all it sends: the transport
    writes everything, and the system holds what the client has not read."""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        sock = transport.get_extra_info("socket")
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 1 << 20)
        super().connection_made(transport)


class RoomyToClose(QuickToClose, Roomy):
    """``QuickToClose`` with room in the system's buffer for all it sends."""


async def accepts_and_sends_a_state(receive: Receive, send: Send) -> None:
    await receive()
    await send({"type": "websocket.accept"})
    await send({"type": "websocket.send", "text": "x" * 200_000})


async def sends_a_state_and_closes(scope: Scope, receive: Receive, send: Send) -> None:
    if scope["type"] == "websocket":
        await accepts_and_sends_a_state(receive, send)
        await send({"type": "websocket.close", "code": 1000})


def read_nothing(port: int) -> float:
    """Open a WebSocket and read nothing after the handshake's answer: the seconds until the
    server let the connection go (the system holds nothing of its end)."""
    with reading_little(port, GUARD_SECONDS) as client:
        upgrade(client, "/ws")
        return wait_until_let_go(client, GUARD_SECONDS)


async def test_a_closed_connection_whose_client_reads_nothing_is_let_go() -> None:
    """The server wrote a state and its close, all of it taken by its system, and the client
    reads none of it: once the close timeout is up the connection is reset, not left to the
    system, which would keep it, and what it holds, as long as the client's window stays shut."""
    async with serving(sends_a_state_and_closes, RoomyToClose) as port:
        await asyncio.to_thread(read_nothing, port)


async def sends_a_state_and_waits(scope: Scope, receive: Receive, send: Send) -> None:
    if scope["type"] == "websocket":
        await accepts_and_sends_a_state(receive, send)
        await receive()  # the client's close


def close_and_read_nothing(port: int) -> float:
    """As ``read_nothing``, saying goodbye first (a close frame) and reading nothing after;
    the close timeout is uvicorn's (10 s)."""
    with reading_little(port, GUARD_SECONDS) as client:
        upgrade(client, "/ws")
        time.sleep(0.5)  # the state sent meanwhile, into the system's buffers
        client.sendall(raw_frame(0x88, (1000).to_bytes(2, "big")))
        return wait_until_let_go(client, GUARD_SECONDS)


async def test_a_client_that_closes_and_reads_nothing_is_let_go() -> None:
    """The client says goodbye and reads nothing of the state sent before: uvicorn answers the
    close and closes the transport at once, which had written everything to the system, and the
    system kept the socket, with what the client had not read, as long as the client's window
    stayed shut. It is reset once the close timeout is up."""
    async with serving(sends_a_state_and_waits, Roomy) as port:
        await asyncio.to_thread(close_and_read_nothing, port)
