"""The server's HTTP protocol: uvicorn's httptools protocol, with each request's head (its
request line and headers, the WebSocket upgrade's included) limited in size.

The body is limited by ``BodySizeLimit``; uvicorn limits no head with httptools, whose parser
gathers a header's value piece by piece, each piece copied onto what it has so far: one header
of tens of megabytes held the event loop, and so every room, for seconds. A head that has not
ended within ``MAX_HEAD_BYTES`` is answered 431 and its connection closed; nothing of it
reaches the application. The trailers after a chunked body, read as headers are, are held to
the same limit. (A head is counted from the first write that holds none of what came before
it: one pipelined behind another request, or trailers behind their body, in a single write may
take that write's rest besides. A 431 while an earlier pipelined request is still being
answered closes the connection before that answer, as uvicorn's own 400 does.)
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


class HeadLimitedProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol, refusing a request head over ``MAX_HEAD_BYTES``."""

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
                self.refuse_head()
                return

    def on_headers_complete(self) -> None:
        self.head_room = None
        super().on_headers_complete()

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

    def refuse_head(self) -> None:
        """Answer 431 and close the connection."""
        message = f"request line and headers larger than {MAX_HEAD_BYTES} bytes".encode()
        content = [STATUS_LINE[TOO_LARGE]]
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
