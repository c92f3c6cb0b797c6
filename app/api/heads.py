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
closes an idle connection first.
"""

from __future__ import annotations

import asyncio
from typing import Any

from uvicorn.config import Config
from uvicorn.protocols.http.httptools_impl import STATUS_LINE, HttpToolsProtocol
from uvicorn.server import ServerState

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
        self.head_timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)  # type: ignore[arg-type]
        self._time_head()

    def connection_lost(self, exc: Exception | None) -> None:
        self._untime_head()
        super().connection_lost(exc)

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
        self._untime_head()
        super().on_headers_complete()

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
        answering = self.pipeline or (self.cycle is not None and not self.cycle.response_complete)
        if self.head_room is not None and not answering and not self.transport.is_closing():
            seconds = f"{self.head_seconds:g}"
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
        self.head_room = MAX_HEAD_BYTES  # what comes next is another request's head

    def refuse(self, status: int, reason: str) -> None:
        """Answer ``status`` with ``reason`` and close the connection."""
        message = reason.encode()
        content = [STATUS_LINE[status]]
        for name, value in self.server_state.default_headers:
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
