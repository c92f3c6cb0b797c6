"""Answers gzipped for a client that takes it: the API's JSON here, the client's files in
``ClientFiles`` (``app/api/pages.py``).

A history page of a hundred matches, a match of many rounds or the OpenAPI description is tens
of kilobytes of JSON, a fifth of that or less gzipped: much of what a phone waits for on the
history pages, and of what a script downloads. Only answers to ``GET`` (and so ``HEAD``) are
compressed, and only under ``/api/`` and the OpenAPI description: none of them carries a secret
(a seat's token is only ever in the answer to a ``POST``), so what an attacker could add to one
cannot be used to guess another's secret from its compressed size.
"""

from __future__ import annotations

import gzip
from collections.abc import Iterable

import anyio
from starlette.types import ASGIApp, Message, Receive, Scope, Send

# Below this, gzip's own header and the work cost more than the bytes saved.
SMALLEST = 1024
# A body larger than this is compressed in a worker thread, not in the event loop's turn (at
# level 6 this machine compresses JSON at about 100 MB/s: 16 KB takes some 0.15 ms).
IN_A_THREAD = 16 * 1024
LEVEL = 6


def takes_gzip(accept_encoding: str) -> bool:
    """Whether an ``Accept-Encoding`` header takes gzip: ``gzip`` (or ``x-gzip``) named, or else
    ``*``, with a quality above 0."""
    qualities = {}
    for part in accept_encoding.lower().split(","):
        name, *params = (item.strip() for item in part.split(";"))
        quality = next((param[2:] for param in params if param.startswith("q=")), "1")
        try:
            qualities[name] = float(quality)
        except ValueError:
            qualities[name] = 0.0
    named = qualities.get("gzip", qualities.get("x-gzip"))
    return (named if named is not None else qualities.get("*", 0.0)) > 0


def request_header(scope: Scope, name: bytes) -> str:
    """Every line of a request header, joined as one list."""
    return ",".join(
        bytes(value).decode("latin-1") for key, value in scope["headers"] if key == name
    )


def compressed_here(scope: Scope) -> bool:
    """Whether this middleware decides the encoding of the answer to ``scope``."""
    if scope["type"] != "http" or scope["method"] != "GET":
        return False
    path: str = scope["path"]
    return path.startswith("/api/") or path == "/openapi.json"


class GzipJson:
    """ASGI middleware sending the API's answers of ``SMALLEST`` bytes or more gzipped to a
    client that takes it, with ``Vary: Accept-Encoding`` on every answer it decides (so that
    a cache keeps the two apart). An answer already encoded, or in parts, goes as it is."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if not compressed_here(scope):
            await self.app(scope, receive, send)
            return
        gzipped = takes_gzip(request_header(scope, b"accept-encoding"))
        if not gzipped:

            async def varying(message: Message) -> None:
                if message["type"] == "http.response.start":
                    message["headers"] = varied(message.get("headers", ()), gzipped=False)
                await send(message)

            await self.app(scope, receive, varying)
            return

        start: Message | None = None

        async def gzipping(message: Message) -> None:
            nonlocal start
            if start is None or message["type"] != "http.response.body":
                if message["type"] == "http.response.start":
                    start = message
                    return
                await send(message)
                return
            begun, start = start, None
            body: bytes = message.get("body", b"")
            headers = list(begun.get("headers", ()))
            names = {bytes(name).lower() for name, _ in headers}
            if message.get("more_body", False) or b"content-encoding" in names:
                await send({**begun, "headers": varied(headers, gzipped=True)})
                await send(message)
                return
            if len(body) >= SMALLEST:
                if len(body) > IN_A_THREAD:
                    body = await anyio.to_thread.run_sync(_gzip, body)
                else:
                    body = _gzip(body)
                headers = [pair for pair in headers if bytes(pair[0]).lower() != b"content-length"]
                headers += [
                    (b"content-encoding", b"gzip"),
                    (b"content-length", str(len(body)).encode()),
                ]
            await send({**begun, "headers": varied(headers, gzipped=True)})
            await send({"type": "http.response.body", "body": body})

        await self.app(scope, receive, gzipping)


Headers = Iterable[tuple[bytes, bytes]]


def varied(headers: Headers, gzipped: bool) -> list[tuple[bytes, bytes]]:
    """``headers`` with ``Accept-Encoding`` among what the answer varies by (added to a ``Vary``
    the answer has, or as one), and for a client that takes gzip its ``ETag`` weak: whether or
    not this answer was compressed, a larger one of the same resource is."""
    out: list[tuple[bytes, bytes]] = []
    named = False
    for name, value in headers:
        lower = bytes(name).lower()
        if lower == b"vary":
            named = True
            listed = {item.strip() for item in bytes(value).lower().split(b",")}
            if not listed & {b"accept-encoding", b"*"}:
                value = bytes(value) + b", Accept-Encoding"
        elif lower == b"etag" and gzipped:
            value = weak(bytes(value))
        out.append((name, value))
    if not named:
        out.append((b"vary", b"Accept-Encoding"))
    return out


def weak(tag: bytes) -> bytes:
    """An entity tag made weak: the gzipped body is not the same bytes as the tag's."""
    return tag if tag.startswith(b"W/") else b"W/" + tag


def weak_text(tag: str) -> str:
    """``weak`` for a header value held as text."""
    return weak(tag.encode("latin-1")).decode("latin-1")


def _gzip(body: bytes) -> bytes:
    return gzip.compress(body, LEVEL, mtime=0)
