"""The server's WebSocket protocol: uvicorn's websockets-sansio, reading whole text, ping and
pong frames from the socket itself.

Nearly everything a client sends once its socket is open is a short text frame (a move, a
ping message), a pong or a ping, and each of those costs uvicorn's protocol a round of the
websockets library's generator-based parser and its frame objects. This protocol reads them
straight from the bytes it receives and hands them on (or answers a ping) exactly as uvicorn's
own handlers do. Any other frame (close, binary, fragmented, unmasked, with reserved bits, over
the size limit, or text that is not UTF-8) goes, with everything after it, to uvicorn's parser,
which then reads the rest of the connection: the parser only ever sees data that begins at a
frame's start, so it answers such frames (and refuses bad ones with their close codes) as it
always did. It leans on uvicorn's handlers as the versions in ``eager.CHECKED_WITH`` have them
(tests/rooms/test_eager.py and test_inbound.py check both).

An application may also take text messages at once: a function it sets as the protocol's
``reader`` is called with each whole text message, in the protocol's own step, instead of the
message being queued for its receive, and so without a wake-up of the task reading, the read
paused and resumed, and the task's stack of coroutines resumed and suspended again for each
message. Whenever a message waits in the queue (the application cleared its reader, or a
message came to uvicorn's parser), the next ones queue behind it: messages are taken in order.
A message the application's ``heartbeat`` takes (one that changes nothing, so that its answer
may come before those of messages still waiting) is answered at once all the same; the socket
is read on until ``QUEUED_WHILE_READING`` messages wait, so that such a message behind others is
still reached.

A client's control frames (pings and pongs) are limited: a burst of ``CONTROL_BURST``, then
``CONTROLS_PER_SECOND``; past that the connection is closed (1008). Each ping is answered with a
pong, and a client sending pings without reading would otherwise have the server hold the
pongs in memory without end; text messages are limited by the application, as they come. (Once
uvicorn's parser reads the connection, it answers every ping of one read before any is counted:
the read that passes the allowance is answered in full, then the connection closed.)

A connection the server is done with (the application ended it, its keepalive ping went
unanswered, the closing handshake is done) is not closed at once, as uvicorn closes it: a
transport being closed waits for what it has buffered to be written, which a client that reads
nothing never allows, and one with nothing of its own left lets its socket go to the system,
which keeps it, with what the client has not read, for as long as the client keeps its window
shut. Either way the socket was held for as long as the client liked, counted against no limit
once the application had let it go. Such a connection is let go instead (``let_go``): closed
once the client's system has taken everything written (``SIOCOUTQ``), reset if that has not
happened within uvicorn's close timeout (10 s).

Whatever the client sends shows the link alive as a pong does: a keepalive ping falls due only
once the connection has been quiet for most of a ping interval, so a player who plays is not
pinged between moves. A dead link is still seen within two intervals (and up to two ticks of
the rings, ``RING_TICK``) of the last thing heard.
"""

from __future__ import annotations

import asyncio
import contextlib
import enum
import fcntl
import logging
import math
import random
import socket
import struct
import termios
from collections.abc import Callable
from typing import Any

from uvicorn._types import ASGISendEvent
from uvicorn.config import Config
from uvicorn.protocols.utils import ClientDisconnected
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from uvicorn.server import ServerState
from websockets.frames import Frame, Opcode
from websockets.protocol import OPEN
from websockets.speedups import apply_mask

from app.rooms.connection import TokenBucket

TEXT = 0x1
PING = 0x9
PONG = 0xA
FIN = 0x80
RESERVED = 0x70
MASKED = 0x80
CONTROL_LIMIT = 125
CONTROLS = (PING, PONG)
QUIET_SHARE = 0.75  # of the ping interval: quiet this long, a connection is pinged
# A timer may ring a hair before its time as the loop's clock reads it (in milliseconds under
# uvloop, less the float's rounding): within this of it, it is on time.
CLOCK_SLACK = 0.002
# The reason of the close (1012) every open socket gets at a stop.
RESTARTING = "the server is restarting"
PING_HEADER = bytes((FIN | PING, 4))  # a ping frame from the server: unmasked, 4 bytes
# Keepalive rings fall due on ticks this far apart, so that one wake-up of the process rings
# every connection due in that tick (a ring up to this late is no matter at a ping interval of
# seconds); a timer of its own for each connection woke the process for each ping.
RING_TICK = 0.05
# How often a connection being let go looks again whether the client's system has taken all
# that was written, so that it can be closed (an acknowledgement takes a round trip).
TAKEN_LOOK_SECONDS = 0.05
# A browser only answers the server's pings (one an interval), and a client library pings every
# several seconds: far below this.
CONTROL_BURST = 16
CONTROLS_PER_SECOND = 2.0
# Messages queued (behind one whose handling waits) before the socket is no longer read: reading
# on meanwhile reaches the client's pings behind them, which are answered at once (``heartbeat``).
QUEUED_WHILE_READING = 16
log = logging.getLogger(__name__)


class Keepalive:
    """How many keepalive pings this process's connections rang: sent, and put off because the
    client had just been heard from (read by /metrics)."""

    __slots__ = ("deferred", "pings")

    def __init__(self) -> None:
        self.pings = 0
        self.deferred = 0


KEEPALIVE = Keepalive()


class Ringer:
    """The keepalive rings of one event loop's connections, by the tick they fall due in: one
    timer a tick that has any, not one a connection."""

    __slots__ = ("due", "loop")

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        # The connections due in each tick (a dict: in order, and each let go of at once).
        self.due: dict[int, dict[FrameReadingProtocol, None]] = {}

    def ring_at(self, protocol: FrameReadingProtocol, when: float) -> None:
        """Ring ``protocol`` in the first tick at or after ``when`` (the loop's time), instead of
        any ring it was due before."""
        self._unlist(protocol)
        tick = math.ceil(when / RING_TICK)
        protocol.ring_tick = tick
        due = self.due.get(tick)
        if due is None:
            self.due[tick] = {protocol: None}
            self.loop.call_at(tick * RING_TICK, self._ring, tick)
        else:
            due[protocol] = None

    def forget(self, protocol: FrameReadingProtocol) -> None:
        """No ring for ``protocol`` (a closed connection is not kept until its tick)."""
        self._unlist(protocol)
        self._let_go()

    def _unlist(self, protocol: FrameReadingProtocol) -> None:
        tick, protocol.ring_tick = protocol.ring_tick, None
        if tick is None:
            return
        due = self.due.get(tick)
        if due is not None:
            due.pop(protocol, None)
            if not due:
                del self.due[tick]  # its timer finds nothing

    def _ring(self, tick: int) -> None:
        for protocol in self.due.pop(tick, {}):
            protocol.ring_tick = None
            if protocol.disconnected:
                continue
            try:
                protocol.send_keepalive_ping()
            except Exception:  # one connection's failure must not silence the others' rings
                log.exception("a keepalive ping failed; rung again in an interval")
                if protocol.ring_tick is None and protocol.ping_interval:
                    self.ring_at(protocol, self.loop.time() + protocol.ping_interval)
        self._let_go()

    def _let_go(self) -> None:
        if not self.due and RINGERS.get(self.loop) is self:
            del RINGERS[self.loop]  # nothing due: nothing of a stopped loop is kept


RINGERS: dict[asyncio.AbstractEventLoop, Ringer] = {}  # only while rings are due


def ringer(loop: asyncio.AbstractEventLoop) -> Ringer:
    """The loop's keepalive rings."""
    found = RINGERS.get(loop)
    if found is None:
        found = RINGERS[loop] = Ringer(loop)
    return found


class Reading(enum.Enum):
    """Who reads what arrives next."""

    REQUEST = "the upgrade request, which uvicorn hands over alone, first"
    HANDSHAKE = "frames, here once the handshake is answered (uvicorn's parser if before)"
    FRAMES = "frames, here"
    PARSER = "everything, by uvicorn's parser"


def unsent(sock: Any) -> int:
    """How many bytes the system holds to send on ``sock``, not yet acknowledged by the other
    side (Linux's ``SIOCOUTQ``); -1 where the system does not tell."""
    try:
        held = fcntl.ioctl(sock.fileno(), termios.TIOCOUTQ, b"\0\0\0\0")
    except (OSError, AttributeError, ValueError):
        return -1
    count: int = struct.unpack("i", held)[0]
    return count


def reset(transport: asyncio.Transport) -> None:
    """Reset the connection (``SO_LINGER`` 0): the system keeps nothing of it, not even what
    the other side has not read. Closed first: an abort alone leaves uvloop's transport waiting
    for its buffer to be written when the protocol's ``connection_lost`` closes it (uvicorn's
    WebSocket protocol does), and its socket open."""
    sock = transport.get_extra_info("socket")
    if sock is not None:
        with contextlib.suppress(OSError):
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    transport.close()
    transport.abort()


class FrameReadingProtocol(WebSocketsSansIOProtocol):
    """uvicorn's websockets-sansio protocol, with text, ping and pong frames read here."""

    def __init__(
        self,
        config: Config,
        server_state: ServerState,
        app_state: dict[str, Any],
        _loop: asyncio.AbstractEventLoop | None = None,
    ) -> None:
        super().__init__(config, server_state, app_state, _loop)
        self.reading = Reading.REQUEST
        self.leftover = b""
        self.heard_at = 0.0  # the loop's time when data last came from the client
        self.ring_tick: int | None = None  # the tick of the keepalive's next ring, if one is due
        # The application's function taking a whole text message at once, in place of the
        # queue its receive reads, while that queue is empty (``app.api.sockets.Reader``); the
        # application sets and clears it.
        self.reader: Callable[[str], None] | None = None
        # The application's function answering a text message that changes nothing (the
        # client's heartbeat) at once, even while messages wait in the queue: True if it did.
        self.heartbeat: Callable[[str], bool] | None = None
        self.controls = TokenBucket(CONTROLS_PER_SECOND, CONTROL_BURST)
        # While the connection is let go (``let_go``): the loop's time by which it must have
        # ended, and the timer of the next look at whether it can be closed.
        self.let_go_by: float | None = None
        self.taken_timer: asyncio.TimerHandle | None = None

    async def run_asgi(self) -> None:
        """As uvicorn's, but the connection is let go rather than closed at once."""
        try:
            result = await self.app(self.scope, self.receive, self.send)
        except ClientDisconnected:
            pass
        except BaseException:
            self.logger.exception("Exception in ASGI application\n")
            self.send_500_response()
        else:
            if not self.handshake_complete:
                self.logger.error("ASGI callable returned without completing handshake.")
                self.send_500_response()
            elif result is not None:
                self.logger.error("ASGI callable should return None, but returned '%s'.", result)
        if self.close_timer is None:
            self.let_go()

    async def send(self, message: ASGISendEvent) -> None:
        await super().send(message)
        timer = self.close_timer
        if message["type"] == "websocket.close" and timer is not None:
            # uvicorn closes the transport once the client has not answered the close in
            # time; it ends here instead, when uvicorn would: closed if the client's system
            # has taken everything, else reset.
            timer.cancel()
            self.close_timer = self.loop.call_at(timer.when(), self._end)

    def connection_lost(self, exc: Exception | None) -> None:
        if self.taken_timer is not None:
            self.taken_timer.cancel()
            self.taken_timer = None
        super().connection_lost(exc)

    def let_go(self) -> None:
        """Close the connection once the client's system has taken everything written to it;
        reset it if that has not happened within the close timeout. (A transport closed with
        nothing of its own left to write lets its socket go to the system at once, which keeps
        it, and what the client has not read, as long as the client keeps its window shut; one
        closed with frames still to write waits for them as long.)"""
        if self.let_go_by is None and not self.disconnected:
            self.let_go_by = self.loop.time() + self.close_timeout
            self._close_if_taken()

    def _close_if_taken(self) -> None:
        self.taken_timer = None
        if self.disconnected or self.let_go_by is None:
            return
        if self._all_taken():
            self.transport.close()
        elif self.loop.time() >= self.let_go_by:
            reset(self.transport)
        else:
            self.taken_timer = self.loop.call_later(TAKEN_LOOK_SECONDS, self._close_if_taken)

    def _all_taken(self) -> bool:
        """Whether nothing is left to write here, and the client's system has acknowledged
        everything written (where the system does not tell, nothing left here is enough)."""
        if self.transport.get_write_buffer_size():
            return False
        sock = self.transport.get_extra_info("socket")
        return sock is None or unsent(sock) <= 0

    def _end(self) -> None:
        """End the connection now: closed if the client's system has taken everything, else
        reset."""
        if self.disconnected:
            return
        if self._all_taken():
            self.transport.close()
            return
        # Reset, not closed: a closed socket would still be kept by the system, with all the
        # client has not read, for as long as the client keeps its window shut.
        reset(self.transport)

    def keepalive_timeout(self) -> None:
        """As uvicorn's (close 1011), the connection let go rather than closed at once."""
        self.pong_timer = None
        self.pending_ping_payload = None
        if self.close_sent or self.transport.is_closing():
            return
        self.conn.fail(1011, "keepalive ping timeout")
        self.transport.write(b"".join(self.conn.data_to_send()))
        self.close_sent = True
        self.let_go()

    def handle_close(self, event: Frame) -> None:
        """As uvicorn's, the connection let go rather than closed at once once the closing
        handshake is done (the client may have sent its close without reading anything)."""
        if self.close_sent:
            if self.close_timer is not None:  # our close, answered
                self.close_timer.cancel()
                self.close_timer = None
                self.let_go()
            return
        if not self.transport.is_closing() and self.let_go_by is None:
            assert self.conn.close_rcvd is not None
            code = self.conn.close_rcvd.code
            reason = self.conn.close_rcvd.reason
            self.queue.put_nowait({"type": "websocket.disconnect", "code": code, "reason": reason})
            self.transport.write(b"".join(self.conn.data_to_send()))
            self.let_go()

    def shutdown(self) -> None:
        """As uvicorn's at a stop (close 1012 to an open socket), with the close's reason
        said: uvicorn sends it before the application's own shutdown could."""
        if self.let_go_by is not None:  # closing already: it ends now
            self.stop_keepalive()
            self.transport.close()
            return
        if self.close_sent or not self.handshake_complete:
            super().shutdown()
            return
        self.stop_keepalive()
        self.queue.put_nowait({"type": "websocket.disconnect", "code": 1012})
        self.conn.send_close(1012, RESTARTING)
        self.transport.write(b"".join(self.conn.data_to_send()))
        self.transport.close()

    def data_received(self, data: bytes) -> None:
        if self.reading is Reading.FRAMES:
            self._read_frames(data)
        elif self.reading is Reading.HANDSHAKE and self.handshake_complete and not self.conn.debug:
            # (At debug level the websockets library traces every frame: its parser reads.)
            self.reading = Reading.FRAMES
            self._read_frames(data)
        else:
            self.reading = Reading.HANDSHAKE if self.reading is Reading.REQUEST else Reading.PARSER
            super().data_received(data)

    def send_keepalive_ping(self) -> None:
        """The keepalive's ring: ping a connection quiet for most of an interval, and close one
        that has not answered the last ping, nor sent anything else, within the timeout.

        While frames are read here, a ring sets the next one (with the connections due in the
        same tick, ``Ringer``) and the ping is written as one frame to the socket: the pong only
        clears the ping, so no pong timer is armed and cancelled for every ping, nor a frame made
        by the websockets library (on a server whose players are all connected, pings are most
        of what an idle connection costs).
        """
        self.ping_timer = None
        interval = self.ping_interval
        if not interval or self.reading is not Reading.FRAMES or self.pong_timer is not None:
            self._ring_as_uvicorn()
            return
        now = self.loop.time()
        timeout = self.ping_timeout  # None: a ping is never waited for, as in uvicorn
        if (
            timeout is not None
            and self.pending_ping_payload is not None
            and self.heard_at < self.ping_sent_at
        ):
            waited = now - self.ping_sent_at
            if waited >= timeout - CLOCK_SLACK:
                self.keepalive_timeout()  # nothing at all heard since the ping
            else:  # a timeout longer than the interval, or rung early by hand: it has time
                ringer(self.loop).ring_at(self, self.ping_sent_at + timeout)
            return
        quiet = now - self.heard_at
        # Heard from lately: the link was alive then. (Not to the last millisecond: a ring
        # due a moment from now, on a loop whose clock moves in milliseconds, would
        # come round again and again until the clock moved.)
        if quiet < interval * QUIET_SHARE:
            ringer(self.loop).ring_at(self, self.heard_at + interval)
            KEEPALIVE.deferred += 1
            return
        if self.close_sent or self.conn.state is not OPEN or self.transport.is_closing():
            return
        payload = random.getrandbits(32).to_bytes(4, "big")
        self.pending_ping_payload = payload
        self.ping_sent_at = now
        self.transport.write(PING_HEADER + payload)
        ringer(self.loop).ring_at(
            self, now + (interval if timeout is None else min(timeout, interval))
        )
        KEEPALIVE.pings += 1

    def stop_keepalive(self) -> None:
        if self.ring_tick is not None:
            ringer(self.loop).forget(self)
        super().stop_keepalive()

    def _ring_as_uvicorn(self) -> None:
        """The ring before frames are read here (or after they are handed to uvicorn's parser),
        or while a ping of uvicorn's own awaits its pong: uvicorn's own."""
        earlier = self.pending_ping_payload
        super().send_keepalive_ping()
        if self.pending_ping_payload is not earlier:  # sent (not on a connection closing)
            KEEPALIVE.pings += 1

    def _read_frames(self, data: bytes) -> None:
        self.heard_at = self.loop.time()
        buffer = self.leftover + data if self.leftover else data
        end = len(buffer)
        offset = 0
        limit = self.config.ws_max_size
        while end - offset >= 2:
            first, second = buffer[offset], buffer[offset + 1]
            length = second & 0x7F
            start = offset + 2
            if length == 126:
                if end - start < 2:
                    break
                length = int.from_bytes(buffer[start : start + 2], "big")
                start += 2
            elif length == 127:
                if end - start < 8:
                    break
                length = int.from_bytes(buffer[start : start + 8], "big")
                start += 8
            opcode = first & 0x0F
            if (
                first & RESERVED
                or not first & FIN
                or not second & MASKED
                or length > limit
                or (opcode != TEXT and (opcode not in CONTROLS or length > CONTROL_LIMIT))
                or self.conn.state is not OPEN
            ):
                self._hand_over(buffer[offset:])
                return
            payload_start = start + 4
            if end - payload_start < length:
                break
            payload = apply_mask(
                buffer[payload_start : payload_start + length], buffer[start:payload_start]
            )
            if opcode == TEXT:
                try:
                    text = payload.decode()
                except UnicodeDecodeError:
                    text = None
                if text is None:
                    self._hand_over(buffer[offset:])  # uvicorn's parser closes it with 1007
                    return
                self._received(text)
            elif not self.controls.allow():
                self.refuse_controls()
                return
            elif opcode == PONG:
                super().handle_pong(Frame(Opcode.PONG, payload))
            else:  # a ping is answered with its payload, as the websockets library answers it
                self.transport.write(bytes((FIN | PONG, length)) + payload)
            offset = payload_start + length
        self.leftover = buffer[offset:] if offset < end else b""

    def handle_ping(self) -> None:
        """A ping read by uvicorn's parser, answered (its pong is already made) within the
        allowance."""
        if self.controls.allow():
            super().handle_ping()
        else:
            self.refuse_controls()

    def handle_pong(self, event: Frame) -> None:
        """A pong read by uvicorn's parser, taken within the allowance."""
        if self.controls.allow():
            super().handle_pong(event)
        else:
            self.refuse_controls()

    def refuse_controls(self) -> None:
        """Close a connection whose client sent control frames past the allowance (1008), as
        uvicorn closes one whose ping went unanswered."""
        self.leftover = b""
        if self.transport.is_closing():
            return
        if not self.close_sent:  # (else its close is on the way: the socket goes now)
            self.conn.fail(1008, "too many pings")
            self.transport.write(b"".join(self.conn.data_to_send()))
            self.close_sent = True
        self.transport.pause_reading()  # nothing more of it is read
        self.let_go()

    def _received(self, text: str) -> None:
        """A whole text message, given to the application's reader at once if it set one and
        nothing waits before the message in the queue, else queued as uvicorn's own handler
        queues it."""
        if self.close_sent:
            return  # past `websocket.close`: discarded, as uvicorn discards it
        if self.reader is not None and self.queue.empty():
            self.reader(text)
            return
        if self.heartbeat is not None and self.heartbeat(text):
            return
        queue: asyncio.Queue[Any] = self.queue
        queue.put_nowait({"type": "websocket.receive", "text": text})
        if not self.read_paused and queue.qsize() >= QUEUED_WHILE_READING:
            self.read_paused = True
            self.transport.pause_reading()

    def pass_on(self, message: dict[str, Any]) -> None:
        """Stop taking messages at once and queue ``message``, the application's own, for its
        receive: what its reader could not finish, to be finished before later messages."""
        self.reader = None
        queue: asyncio.Queue[Any] = self.queue
        queue.put_nowait(message)

    def _hand_over(self, rest: bytes) -> None:
        """From this frame on, uvicorn's parser reads the connection."""
        self.reading = Reading.PARSER
        self.leftover = b""
        super().data_received(rest)
