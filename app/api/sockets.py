"""A room's WebSocket: who may connect, the hello, and every message read and answered."""

from __future__ import annotations

import asyncio
import contextlib
from collections import Counter
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

import orjson
from fastapi import APIRouter, WebSocket, WebSocketDisconnect
from starlette.types import Receive

from app.api.deps import (
    RESTORING_WORDS,
    AddressDep,
    Miss,
    RegistryDep,
    Services,
    ServicesDep,
    SettingsDep,
    find_room_anywhere,
)
from app.api.errors import DATABASE_WORDS
from app.api.middleware import deny_handshake, raw_receive, raw_send
from app.cluster.moved import CLOSE_MOVED, Elsewhere
from app.config import Settings
from app.rooms import protocol
from app.rooms.connection import Connection, TokenBucket, fit_close_reason
from app.rooms.eager import run_at_once
from app.rooms.frames import CONNECTIONS
from app.rooms.inbound import CLOCK_SLACK, FrameReadingProtocol
from app.rooms.live import LiveRoom
from app.rooms.registry import RoomRegistry, hash_token

router = APIRouter(tags=["rooms"])


CLOSE_BAD_HELLO = 4002
CLOSE_NO_ROOM = 4004
CLOSE_TOO_MANY = 4029
CLOSE_POLICY = 1008
CLOSE_BUSY = 1013
CLOSE_WAIT_SECONDS = 10.0
# A page's origin that may not connect: its handshake's answer (HTTP 403).
BAD_ORIGIN = orjson.dumps(
    {"detail": "a page at this origin may not connect here", "code": "bad_origin"}
)


DEFAULT_PORTS = {"http": 80, "https": 443}
# The page's scheme that a WebSocket scheme goes with.
PAGE_SCHEMES = {"ws": "http", "wss": "https", "http": "http", "https": "https"}


def web_origin(url: str) -> str | None:
    """``url``'s origin as ``scheme://host:port``, the port always written; None if it has none."""
    try:
        parts = urlsplit(url.strip().lower())
        port = parts.port
    except ValueError:
        return None
    scheme = PAGE_SCHEMES.get(parts.scheme)
    if scheme is None or not parts.hostname:
        return None
    host = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname
    return f"{scheme}://{host}:{port or DEFAULT_PORTS[scheme]}"


def origin_allowed(origin: str | None, scheme: str, host: str | None, settings: Settings) -> bool:
    """Whether a WebSocket from ``origin`` may connect (no Origin: not a browser, allowed).

    Allowed: the server's own origin (the scheme, host and port the socket came to; a page
    served over https is not this http server's own), PUBLIC_URL's, and ALLOWED_ORIGINS.
    """
    if origin is None:
        return True
    if "*" in settings.allowed_origins:
        return True
    asked = web_origin(origin)
    if asked is None:
        return False
    allowed = {web_origin(entry) for entry in settings.allowed_origins}
    if settings.public_url:
        allowed.add(web_origin(settings.public_url))
    if host:
        allowed.add(web_origin(f"{scheme}://{host}"))
    return asked in allowed


class Pending:
    """Connections that have not said hello yet, in all and per address."""

    def __init__(self) -> None:
        self.total = 0
        self.by_address: Counter[str] = Counter()

    def admit(self, address: str, settings: Settings) -> tuple[int, str] | None:
        """Count a new connection in; the close code and reason if it is one too many."""
        if self.total >= settings.pending_connections:
            return CLOSE_BUSY, "too many connections are opening; try again in a moment"
        if self.by_address[address] >= settings.pending_connections_per_address:
            return CLOSE_TOO_MANY, "too many connections from your address are opening"
        self.total += 1
        self.by_address[address] += 1
        return None

    def done(self, address: str) -> None:
        """A connection counted in has said hello, or ended."""
        self.total -= 1
        self.by_address[address] -= 1
        if self.by_address[address] <= 0:
            del self.by_address[address]


def pending_of(websocket: WebSocket) -> Pending:
    """The application's count of connections yet to say hello."""
    state = websocket.app.state
    pending: Pending | None = getattr(state, "pending_hellos", None)
    if pending is None:
        pending = state.pending_hellos = Pending()
    return pending


@router.websocket("/ws/rooms/{code}")
async def room_socket(
    websocket: WebSocket,
    code: str,
    settings: SettingsDep,
    registry: RegistryDep,
    services: ServicesDep,
    address: AddressDep,
) -> None:
    """A player's or a spectator's live connection to a room."""
    origin = websocket.headers.get("origin")
    if not origin_allowed(origin, websocket.url.scheme, websocket.headers.get("host"), settings):
        await deny_handshake(websocket.scope, websocket.send, BAD_ORIGIN)
        return
    await websocket.accept()
    registry.sockets.opened()
    try:
        await _admit(websocket, code, settings, registry, services, address)
    finally:
        registry.sockets.closed()


async def _admit(
    websocket: WebSocket,
    code: str,
    settings: Settings,
    registry: RoomRegistry,
    services: Services,
    address: str,
) -> None:
    """Admit an accepted connection within the limits, find its room and serve it."""
    if registry.connections_by_address[address] >= settings.connections_per_address:
        await websocket.close(CLOSE_TOO_MANY, "too many connections from your address")
        return
    pending = pending_of(websocket)
    refused = pending.admit(address, settings)
    if refused is not None:
        await websocket.close(*refused)
        return
    registry.connections_by_address[address] += 1
    waiting = True

    def said_hello() -> None:
        nonlocal waiting
        if waiting:
            waiting = False
            pending.done(address)

    try:
        found = await find_room_anywhere(services, code, address)
        if isinstance(found, Elsewhere):
            # The room is held by another node: its path, or none while it changes hands.
            moved = f"{found.path}/ws/rooms/{code}" if found.path else ""
            with contextlib.suppress(WebSocketDisconnect):  # gone while the room was sought
                await websocket.close(CLOSE_MOVED, fit_close_reason(moved))
        elif found is Miss.TOO_MANY:
            await websocket.close(CLOSE_TOO_MANY, "too many unknown room codes; wait a minute")
        elif found is Miss.UNKNOWN:
            await websocket.close(CLOSE_NO_ROOM, "there is no room with this code")
        elif found is Miss.RESTORING:  # the client tries again, as after a restart
            await websocket.close(CLOSE_BUSY, RESTORING_WORDS)
        elif found is Miss.UNAVAILABLE:
            await websocket.close(CLOSE_BUSY, DATABASE_WORDS)
        else:
            await _serve(websocket, found, settings, said_hello, address)
    finally:
        said_hello()
        registry.connections_by_address[address] -= 1
        if registry.connections_by_address[address] <= 0:
            del registry.connections_by_address[address]


async def _serve(
    websocket: WebSocket,
    room: LiveRoom,
    settings: Settings,
    said_hello: Callable[[], None],
    address: str,
) -> None:
    try:
        first = await asyncio.wait_for(websocket.receive(), settings.hello_seconds)
    except TimeoutError:
        await websocket.close(CLOSE_BAD_HELLO, "say hello first")
        return
    said_hello()
    if first["type"] == "websocket.disconnect":
        return
    text = first.get("text")
    if text is None:
        await websocket.close(CLOSE_BAD_HELLO, "the first message must be hello, a JSON text frame")
        return
    if _size(text) > settings.max_message_bytes:
        reason = f"the first message must be hello, at most {settings.max_message_bytes} bytes"
        await websocket.close(CLOSE_BAD_HELLO, reason)
        return
    try:
        hello = protocol.parse_message(text)
    except protocol.BadMessage as error:
        reason = fit_close_reason(f"the first message must be hello: {error.message}")
        await websocket.close(CLOSE_BAD_HELLO, reason)
        return
    if not isinstance(hello, protocol.Hello):
        await websocket.close(CLOSE_BAD_HELLO, "the first message must be hello")
        return
    if (hello.token is None) != hello.spectate:  # neither, or both
        await websocket.close(CLOSE_BAD_HELLO, "hello needs a token, or spectate: true, not both")
        return
    token_hash = hash_token(hello.token) if hello.token is not None else None
    kind = CONNECTIONS[hello.encoding]
    connection = kind(
        raw_send(websocket), None, settings.send_queue_frames, settings.send_queue_kb << 10
    )
    connection.address = address
    # The seat is looked up when the room takes the connection, not before: seats may be
    # renumbered meanwhile.
    refused = await room.attach(connection, token_hash)
    if refused is not None:
        await websocket.close(*refused)
        return
    try:
        await _read(websocket, connection, room, settings)
    finally:
        await room.detach(connection)
        await connection.settle(1.0)


PING = '{"type":"ping"}'
PING_HIDDEN = '{"type":"ping","hidden":true}'  # as the browser client writes it, out of sight
BINARY = "messages are JSON text frames; a binary frame is not read"
# A client that pings keeps sending (the browser client something at least every 5 s): long
# without a message from it (``client_silence_seconds``), its link is taken for dead, as a link
# whose pongs stop is (a browser's network stack may go on answering the server's pings while
# the page hears nothing).
CLOSE_SILENT = 1011
# How long a client whose last ping said its page is hidden may stay silent: a browser wakes
# the timers of a page out of sight for minutes only once a minute (Chrome's intensive
# throttling), so its pings come a minute apart; its link is watched by the server's own pings
# meanwhile, which the browser's network stack answers.
HIDDEN_SILENCE_SECONDS = 150.0
PONG = protocol.pong_frame(None)


def _size(text: str) -> int:
    """A text message's size in bytes, as UTF-8."""
    return len(text) if text.isascii() else len(text.encode())


# What the reader hands its loop through the protocol's queue: a message taken at once whose
# handling has to wait (the rest, to await), what that handling raised, or a change in how the
# loop must wait (the connection closing, or the client's heartbeat begun).
WAITING = "spectrum.waiting"
FAILED = "spectrum.failed"
RETHINK = "spectrum.rethink"


class Reader:
    """A connection's messages, taken one by one: the rate, the size, the client's heartbeat,
    the parse, then the room.

    Each message is taken at once when the server's protocol offers it (``at_once``, while
    nothing waits in the protocol's queue), or read by ``_read``'s loop. A message taken at once
    whose handling has to wait (the room's lock, a write to a distant database) hands the rest
    to the loop, which finishes it before it reads on: messages are handled in order, each to
    its end, as the loop alone would. Until its handling first waits, a message taken at once
    runs in the protocol's step, outside any task: what the room does before its first wait
    must not need one (``asyncio.current_task()`` is None there, and ``asyncio.timeout`` would
    refuse to run).
    """

    __slots__ = (
        "bucket",
        "connection",
        "grace",
        "heard",
        "limit",
        "loop",
        "protocol",
        "room",
        "silence",
        "silent_after",
    )

    def __init__(
        self,
        connection: Connection,
        room: LiveRoom,
        settings: Settings,
        reading: FrameReadingProtocol | None,
    ) -> None:
        self.connection = connection
        self.room = room
        self.bucket = TokenBucket(settings.messages_per_second, settings.message_burst)
        # Messages past the rate are refused; past the grace (one more forgiven a second) the
        # connection is closed, so a flood costs the flooder its connection.
        self.grace = TokenBucket(1.0, settings.rate_limit_grace)
        self.limit = settings.max_message_bytes
        self.silent_after = settings.client_silence_seconds
        self.protocol = reading
        if reading is not None:
            reading.heartbeat = self.heartbeat
        self.loop = asyncio.get_running_loop()
        self.silence: float | None = None  # once the client pings, how long it may stay silent
        self.heard = self.loop.time()  # when the last message came

    def take(self, data: str | None) -> protocol.ClientMessage | None:
        """One message, text or not (None), up to the room: answered here (None), or parsed
        for the room."""
        connection = self.connection
        self.heard = self.loop.time()
        # Every frame, oversized or binary or not, takes a token.
        if not self.bucket.allow():
            if self.grace.allow():
                connection.push(
                    protocol.error_frame(
                        "rate_limited",
                        "too many messages; slow down",
                        None if data is None else protocol.peek_id(data),
                    )
                )
            else:
                connection.close(CLOSE_POLICY, "too many messages for too long")
            return None
        if data is None:
            connection.push(protocol.error_frame("bad_message", BINARY))
            return None
        if _size(data) > self.limit:
            connection.push(
                protocol.error_frame(
                    "too_large",
                    f"a message has at most {self.limit} bytes",
                    protocol.peek_id(data),
                )
            )
            return None
        if data == PING:  # the client's heartbeat, the most common message
            connection.push(PONG)
            self.silence = self.silent_after
            return None
        try:
            parsed = protocol.parse_message(data)
        except protocol.BadMessage as error:
            connection.push(protocol.error_frame(error.code, error.message, error.message_id))
            return None
        if isinstance(parsed, protocol.Ping):  # the link is alive: nothing for the room to do
            connection.push(protocol.pong_frame(parsed.id))
            hidden = max(self.silent_after, HIDDEN_SILENCE_SECONDS)
            self.silence = hidden if parsed.hidden else self.silent_after
            return None
        return parsed

    def at_once(self, text: str) -> None:
        """Take a text message in the protocol's own step (its ``reader``): what has to wait,
        and a failure, go to the loop, and the protocol queues what comes meanwhile."""
        if self.connection.closing is not None:
            # Closed from elsewhere (a kick, a newer connection, too far behind): ignored, as
            # the loop ignores it, and the loop now waits a bounded time for the close.
            self._to_loop({"type": RETHINK})
            return
        silence = self.silence
        try:
            message = self.take(text)
            waiting = (
                None if message is None else run_at_once(self.room.handle(self.connection, message))
            )
        except (KeyboardInterrupt, SystemExit):
            raise
        except BaseException as error:  # as raised in the loop: the connection ends with it
            self._to_loop({"type": FAILED, "error": error})
            return
        if waiting is not None:
            self._to_loop({"type": WAITING, "rest": waiting})
        elif self.connection.closing is not None or self.silence != silence:
            # The loop waits a bounded time for the close, or times the client's silence.
            self._to_loop({"type": RETHINK})

    def heartbeat(self, text: str) -> bool:
        """The client's ping, come while a message waits its turn (one whose handling waits,
        such as a hint on a loaded machine): answered at once (True), since it changes nothing,
        so that the client does not take its link for dead meanwhile."""
        if (text != PING and text != PING_HIDDEN) or self.connection.closing is not None:
            return False
        self.take(text)
        return True

    def offer(self) -> None:
        """Have the protocol give text messages to ``at_once`` (while none is queued), or,
        once the connection is closing, queue every message for the loop."""
        if self.protocol is not None:
            self.protocol.reader = self.at_once if self.connection.closing is None else None

    def withdraw(self) -> None:
        """Have the protocol queue every message for the loop."""
        if self.protocol is not None:
            self.protocol.reader = None

    def _to_loop(self, message: dict[str, Any]) -> None:
        assert self.protocol is not None  # (only ``at_once`` passes messages on)
        self.protocol.pass_on(message)

    def abandon(self) -> None:
        """The loop has ended (the client gone, or the server stopping): a handling passed on
        and not finished is cancelled where it waits, as its task's would be."""
        if self.protocol is None:
            return
        self.protocol.heartbeat = None
        queue = self.protocol.queue
        while not queue.empty():
            message: Any = queue.get_nowait()
            if message["type"] == WAITING:
                message["rest"].cancel()


def _reading_protocol(receive: Receive) -> FrameReadingProtocol | None:
    """The server's protocol behind ``receive``, if it is the one that offers messages at once."""
    reading = getattr(receive, "__self__", None)
    return reading if isinstance(reading, FrameReadingProtocol) else None


async def _read(
    websocket: WebSocket, connection: Connection, room: LiveRoom, settings: Settings
) -> None:
    receive = raw_receive(websocket)
    reader = Reader(connection, room, settings, _reading_protocol(receive))
    loop = reader.loop
    try:
        while True:
            reader.offer()
            silence = reader.silence
            if connection.closing is not None:
                # Closing: what the client still sends is ignored while its close frame (queued
                # behind anything it has not read yet) makes its way, for a bounded time.
                try:
                    message = await asyncio.wait_for(receive(), CLOSE_WAIT_SECONDS)
                except TimeoutError:
                    return
            elif silence is None:
                message = await receive()
            else:
                try:
                    # A timeout scope, not wait_for: no task made for every message read.
                    async with asyncio.timeout_at(reader.heard + silence):
                        message = await receive()
                except TimeoutError:
                    if reader.heard + silence - loop.time() > CLOCK_SLACK:
                        continue  # heard from meanwhile, at once: wait from then
                    # Its pings stopped: the link is dead even if the socket looks open.
                    connection.close(
                        CLOSE_SILENT, "nothing from you, not even a ping: the link is dead"
                    )
                    return
            reader.withdraw()
            kind = message["type"]
            if kind == WAITING:
                await message["rest"]
                continue
            if kind == FAILED:
                raise message["error"]
            if kind == RETHINK:
                continue
            if kind == "websocket.disconnect":
                return
            if connection.closing is not None:
                continue
            parsed = reader.take(message.get("text"))
            if parsed is not None:
                await room.handle(connection, parsed)
    finally:
        reader.withdraw()
        reader.abandon()
