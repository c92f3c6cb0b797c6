"""The server's HTTP protocol: uvicorn's httptools protocol, with each request's head (its
request line and headers, the WebSocket upgrade's included) limited in size and in time.

The body is limited by ``BodySizeLimit``; uvicorn limits no head with httptools, whose parser
gathers a header's value piece by piece, each piece copied onto what it has so far: one header
of tens of megabytes held the event loop, and so every room, for seconds. A head that has not
ended within ``MAX_HEAD_BYTES`` is answered 431 and its connection closed; nothing of it
reaches the application. The trailers after a chunked body, read as headers are, are held to
the same limit. (A head is counted from the first write that holds none of what came before
it: one pipelined behind another request, or trailers behind their body, in a single write may
take that write's rest besides. A 431 while an earlier pipelined request is still being
answered closes the connection before that answer, as uvicorn's own 400 does.)

uvicorn also waits without end for a head to come: a connection that sends nothing, or a head
a byte at a time, was held open for as long as its client liked (a socket and a file descriptor
each, until the process had none left). A head must end within ``head_seconds``
(``REQUEST_HEAD_SECONDS``) of the connection being made, or of the answer before it; else it is
answered 408 and the connection closed. Between requests uvicorn's keep-alive timeout (5 s)
closes an idle connection first. A body is held to the same time, counted from the end of its
head: uvicorn waits for a body without end too, and a body declared and never sent (or sent a
byte now and then) held its connection as a head did (a client that waits for ``100 Continue``
is given that time from when it is sent, as the application asks for the body). And a client
may leave the socket's buffer full, reading nothing of its answers, for no longer than that:
closing waits for what is buffered to be written, so such a connection is reset (it was held
without end, its answers with it). A client reading slowly (a phone downloading a large file)
is not.

None of these times runs once a request upgrades its connection to a WebSocket, whose protocol
reads it from then on with limits of its own. A proxy keeping its connections to the server
(nginx's upstream ``keepalive``) opens WebSockets on connections that have served requests
before; a time of theirs left running would answer 408 into the WebSocket later.
"""

from __future__ import annotations

import asyncio
from typing import Any

from uvicorn._types import ASGIReceiveEvent
from uvicorn.config import Config
from uvicorn.protocols.http.httptools_impl import STATUS_LINE, HttpToolsProtocol
from uvicorn.server import ServerState

from app.api.middleware import SAFETY_HEADERS
from app.rooms.inbound import reset

# Browsers send a few kilobytes; nginx's default allows 4 buffers of 8 KB for the headers.
MAX_HEAD_BYTES = 32 * 1024
TOO_LARGE = 431
TOO_SLOW = 408


class HeadLimitedProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol, refusing a request head over ``MAX_HEAD_BYTES`` or not
    ended within ``head_seconds``."""

    # Set from the settings as the server starts.
    head_seconds = 20.0

    def __init__(
        self,
        config: Config,
        server_state: ServerState,
        app_state: dict[str, Any],
        _loop: asyncio.AbstractEventLoop | None = None,
    ) -> None:
        super().__init__(config, server_state, app_state, _loop)
        # What the current request's head may still take, in bytes; None once it has ended
        # (its body, or a WebSocket, follows).
        self.head_room: int | None = MAX_HEAD_BYTES
        # Whether the current request's body is still to come (its head has ended, the
        # message has not).
        self.body_due = False
        # Whether the current request upgrades the connection to a WebSocket, whose protocol
        # then reads it with limits of its own: no time of this protocol's runs on it.
        self.upgrading = False
        self.head_timer: asyncio.TimerHandle | None = None
        # Rings while the client leaves an answer unread (the transport's buffer full), and
        # what the buffer held when it was set.
        self.write_timer: asyncio.TimerHandle | None = None
        self.unwritten = 0

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)  # type: ignore[arg-type]
        self._time_head()

    def connection_lost(self, exc: Exception | None) -> None:
        self._untime_head()
        if self.write_timer is not None:
            self.write_timer.cancel()
            self.write_timer = None
        super().connection_lost(exc)

    def pause_writing(self) -> None:
        super().pause_writing()
        if self.write_timer is None:
            self._time_writes()

    def _time_writes(self) -> None:
        self.unwritten = self.transport.get_write_buffer_size()
        self.write_timer = self.loop.call_later(self.head_seconds, self._unread)

    def resume_writing(self) -> None:
        if self.write_timer is not None:
            self.write_timer.cancel()
            self.write_timer = None
        super().resume_writing()

    def _unread(self) -> None:
        """Unless the client has read some of its answers in the last ``head_seconds`` (a slow
        link: a phone downloading a large file), reset the connection (closed, it would wait
        for them to be written)."""
        self.write_timer = None
        if self.transport.get_protocol() is not self:
            return  # a WebSocket's now, which keeps its own time
        if self.transport.get_write_buffer_size() < self.unwritten:
            self._time_writes()  # read from since (nothing is added while writing is paused)
            return
        reset(self.transport)

    def data_received(self, data: bytes) -> None:
        while data:
            room = self.head_room
            if room is None or len(data) <= room:
                if room is not None:
                    self.head_room = room - len(data)
                super().data_received(data)
                return
            # These bytes would take the head past its limit: it must end within them.
            piece, data = data[:room], data[room:]
            self.head_room = 0
            if piece:
                super().data_received(piece)
            if self.transport.get_protocol() is not self or self.transport.is_closing():
                return  # a WebSocket now (what follows the upgrade request is dropped), or closed
            if self.head_room == 0:
                self.refuse(TOO_LARGE, f"request line and headers over {MAX_HEAD_BYTES} bytes")
                return

    def on_headers_complete(self) -> None:
        self.head_room = None
        self.upgrading = self.parser.should_upgrade() and self._should_upgrade()
        if self.upgrading:
            self._untime_head()  # a WebSocket follows, with limits of its own
        else:
            self.body_due = True
            self._time_head()  # the body's time (a request without one is complete at once)
        super().on_headers_complete()
        cycle = self.cycle
        if self.body_due and cycle is not None and cycle.waiting_for_100_continue:
            # The client waits for "100 Continue" before it sends the body, and uvicorn sends
            # it once the application asks for the body: the body's time runs from then.
            self._untime_head()
            asked = cycle.receive

            async def receive() -> ASGIReceiveEvent:
                if cycle.waiting_for_100_continue and self.body_due:
                    self._time_head()
                return await asked()

            cycle.receive = receive  # type: ignore[method-assign]

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing():
            self._time_head()  # the next request's

    def _time_head(self) -> None:
        self._untime_head()
        self.head_timer = self.loop.call_later(self.head_seconds, self._head_too_slow)

    def _untime_head(self) -> None:
        if self.head_timer is not None:
            self.head_timer.cancel()
            self.head_timer = None

    def _head_too_slow(self) -> None:
        self.head_timer = None
        if self.transport.get_protocol() is not self:
            return  # a WebSocket's now
        if self.transport.is_closing() or self.pipeline:
            return  # the time starts again once the requests before are answered
        seconds = f"{self.head_seconds:g}"
        cycle = self.cycle
        if self.body_due:
            if cycle is not None and cycle.response_started:
                self.transport.close()  # answered without its body (429, say): no more to say
            else:
                self.refuse(TOO_SLOW, f"request body not sent within {seconds} s")
            return
        answering = cycle is not None and not cycle.response_complete
        if self.head_room is not None and not answering:
            self.refuse(TOO_SLOW, f"request line and headers not sent within {seconds} s")

    def on_chunk_header(self) -> None:
        # A chunked body's last chunk is followed by trailers, read as headers are: counted
        # from each chunk's size line until its data comes.
        self.head_room = MAX_HEAD_BYTES

    def on_body(self, body: bytes) -> None:
        self.head_room = None
        super().on_body(body)

    def on_message_complete(self) -> None:
        super().on_message_complete()
        self.body_due = False
        if self.upgrading:
            return  # the connection is a WebSocket's from here on (or, refused, closed)
        if self.cycle is not None and self.cycle.response_complete:
            self._time_head()  # answered before its body came: the next head's time runs now
        else:
            self._untime_head()  # the next head's time starts once this request is answered
        self.head_room = MAX_HEAD_BYTES  # what comes next is another request's head

    def send_400_response(self, msg: str) -> None:
        """A request the parser cannot read (uvicorn's own 400), with the safety headers."""
        self.refuse(400, msg)

    def refuse(self, status: int, reason: str) -> None:
        """Answer ``status`` with ``reason`` (and the safety headers every answer has) and close
        the connection."""
        message = reason.encode()
        content = [STATUS_LINE[status]]
        for name, value in (*self.server_state.default_headers, *SAFETY_HEADERS):
            content += [name, b": ", value, b"\r\n"]
        content += [
            b"content-type: text/plain; charset=utf-8\r\n",
            b"content-length: " + str(len(message)).encode() + b"\r\n",
            b"connection: close\r\n",
            b"\r\n",
            message,
        ]
        self.transport.write(b"".join(content))
        self.transport.close()
