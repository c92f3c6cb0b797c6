"""The application's ASGI middleware: the names the server answers to, the rate of API requests,
the body size limit, the API's answers tagged and gzipped, the raw WebSocket callables and the
count of requests and handshakes the garbage-collection policy follows."""

from __future__ import annotations

import math
import re
import time

import orjson
from fastapi import FastAPI, WebSocket
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.api.addresses import limited_as
from app.api.etags import EntityTags
from app.api.gzipped import GzipJson
from app.api.hosts import AllowedHosts, host_name
from app.collection import Connections
from app.config import Settings
from app.rooms.connection import TokenBucket

# Machines' paths, answered under any name: probes and scrapers often call a server by a name
# of their own network (a container's, a pod's), and these pages carry nothing of a player's.
ANY_NAME_PATHS = frozenset({"/healthz", "/readyz", "/metrics"})
# The most of a refused name said back.
SAID_NAME_CHARACTERS = 100

# No path of this server holds a control character; a route's pattern would otherwise take
# "/api/players/Ann%0A" for "/api/players/Ann" (its "$" matches before a final line break).
CONTROL_CHARACTER = re.compile(r"[\x00-\x1f\x7f]")
BAD_PATH = orjson.dumps(
    {"detail": "no path holds a control character such as a line break", "code": "bad_path"}
)

# A request may name its server once (RFC 9112, 3.2): a proxy in front that read the other
# name than this server reads would pass a name this server would refuse.
TWO_HOSTS = orjson.dumps(
    {"detail": "a request names its server in one Host header, not more", "code": "bad_request"}
)

RAW_SEND = "spectrum.raw_send"
RAW_RECEIVE = "spectrum.raw_receive"


def install_middleware(application: FastAPI, settings: Settings, sockets: Connections) -> None:
    """Wrap ``application`` in its middleware."""
    application.add_middleware(EntityTags)
    application.add_middleware(GzipJson)
    application.add_middleware(HeadAsGet)
    application.add_middleware(BodySizeLimit, max_bytes=settings.max_body_bytes)
    application.add_middleware(
        ApiRate, rate=settings.api_requests_per_second, burst=settings.api_request_burst
    )
    application.add_middleware(KeepRawSend)
    application.add_middleware(CountScopes, connections=sockets)
    application.add_middleware(HostGuard, settings=settings)


class HostGuard:
    """ASGI middleware refusing a request or WebSocket whose path holds a control character
    (404), that has more than one Host header (400), or whose Host the server may not answer
    to (403, with the name's explanation). A WebSocket is refused before its handshake is
    accepted, with HTTP 403 and the same body."""

    def __init__(self, app: ASGIApp, settings: Settings) -> None:
        self.app = app
        self.hosts = AllowedHosts(settings)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        if scope["type"] == "http":
            send = safe(send)
        if CONTROL_CHARACTER.search(scope["path"]):
            await refuse(scope, receive, send, 404, BAD_PATH)
            return
        if scope["path"] in ANY_NAME_PATHS:
            await self.app(scope, receive, send)
            return
        header = None
        for key, value in scope["headers"]:
            if key == b"host":
                if header is not None:
                    await refuse(scope, receive, send, 400, TWO_HOSTS)
                    return
                header = value.decode("latin-1")
        if self.hosts.allows(header):
            await self.app(scope, receive, send)
            return
        name = host_name(header or "")[:SAID_NAME_CHARACTERS]
        detail = (
            f"this server does not answer to the name {name!r}; its host can allow it "
            f"with ALLOWED_HOSTS={name} or PUBLIC_URL"
        )
        body = orjson.dumps({"detail": detail, "code": "unknown_host"})
        await refuse(scope, receive, send, 403, body)


# On every answer: no type sniffing, no framing by another site, no address sent elsewhere.
SAFETY_HEADERS = (
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"same-origin"),
)


def safe(send: Send) -> Send:
    """``send`` with the safety headers added to the answer's start."""

    async def sending(message: Message) -> None:
        if message["type"] == "http.response.start":
            message["headers"] = [*message.get("headers", ()), *SAFETY_HEADERS]
        await send(message)

    return sending


async def refuse(scope: Scope, receive: Receive, send: Send, status: int, body: bytes) -> None:
    """Answer ``status`` with a JSON ``body``; a WebSocket's handshake is refused with HTTP 403
    and the same body."""
    if scope["type"] == "websocket":
        await receive()  # the connection's request
        await deny_handshake(scope, send, body)
        return
    await send_json(send, status, body)


async def deny_handshake(scope: Scope, send: Send, body: bytes, status: int = 403) -> None:
    """Refuse a WebSocket's handshake, before it is accepted: HTTP ``status`` with a JSON
    ``body`` and the safety headers, where the server can answer a handshake so (uvicorn can);
    else a bare 403."""
    if "websocket.http.response" not in scope.get("extensions", {}):
        await send({"type": "websocket.close", "code": 1008, "reason": ""})
        return
    headers = [(b"content-type", b"application/json"), *SAFETY_HEADERS]
    await send({"type": "websocket.http.response.start", "status": status, "headers": headers})
    await send({"type": "websocket.http.response.body", "body": body})


# The body of the 404 an HTTP request for a path of no route is answered with (under /api/ or
# /ws/; elsewhere it is the client's page).
NOT_FOUND = orjson.dumps({"detail": "Not Found", "code": "not_found"})


def http_only(inner: ASGIApp) -> ASGIApp:
    """``inner`` for HTTP requests; a WebSocket's handshake, which it does not serve, refused
    with HTTP 404 and the body and headers of an HTTP request's 404 under /api/ (the framework
    would close such a socket before accepting it, which the server answers with a bare 403)."""

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "websocket":
            await inner(scope, receive, send)
            return
        await receive()  # the connection's request
        await deny_handshake(scope, send, NOT_FOUND, 404)

    return app


class CountScopes:
    """Counts every HTTP request and WebSocket handshake (``Connections.scope``)."""

    def __init__(self, app: ASGIApp, connections: Connections) -> None:
        self.app = app
        self.connections = connections

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "lifespan":
            self.connections.scope()
        await self.app(scope, receive, send)


class HeadAsGet:
    """ASGI middleware answering HEAD as GET without the body: the same status and headers
    (Content-Length and Content-Type among them), as HTTP asks of every resource that takes
    GET, so that ``curl -I`` or a link checker is not told 405."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "HEAD":
            await self.app(scope, receive, send)
            return

        async def headers_only(message: Message) -> None:
            if message["type"] == "http.response.body":
                if message.get("more_body", False):
                    return
                message = {"type": "http.response.body", "body": b""}
            await send(message)

        await self.app({**scope, "method": "GET"}, receive, headers_only)


class KeepRawSend:
    """Keeps the server's own send and receive callables in WebSocket scopes."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "websocket":
            scope[RAW_SEND] = send
            scope[RAW_RECEIVE] = receive
        await self.app(scope, receive, send)


def raw_send(websocket: WebSocket) -> Send:
    """The server's send, below the framework's wrappers (the hot path of every update)."""
    send: Send = websocket.scope.get(RAW_SEND, websocket.send)
    return send


def raw_receive(websocket: WebSocket) -> Receive:
    """The server's receive, below the framework's wrappers."""
    receive: Receive = websocket.scope.get(RAW_RECEIVE, websocket.receive)
    return receive


class BodySizeLimit:
    """ASGI middleware answering 413 to a body over ``max_bytes``, declared or streamed."""

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        for name, value in scope["headers"]:
            if name == b"content-length":
                if value.isdigit() and int(value) <= self.max_bytes:
                    # The server holds the client to its declared length.
                    await self.app(scope, receive, send)
                else:
                    await self._refuse(send)
                return
        # A streamed body of unknown length is read here, up to the limit, then replayed.
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":
                return
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.max_bytes:
                await self._refuse(send)
                return
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if replayed:
                return await receive()
            replayed = True
            return {"type": "http.request", "body": b"".join(chunks), "more_body": False}

        await self.app(scope, replay, send)

    async def _refuse(self, send: Send) -> None:
        detail = f"request body larger than {self.max_bytes} bytes"
        body = orjson.dumps({"detail": detail, "code": "too_large"})
        await send_json(send, 413, body, (b"connection", b"close"))


async def send_json(send: Send, status: int, body: bytes, *headers: tuple[bytes, bytes]) -> None:
    """Answer ``status`` with the JSON ``body`` (and ``headers``) below the framework."""
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                *headers,
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


class ApiRate:
    """ASGI middleware answering 429 (with Retry-After) to an address past its rate of requests
    under /api/: the REST API computes (scores, history, leaderboards) for anyone who asks.
    Pages and static files are not counted, nor WebSockets (they have limits of their own)."""

    # Past this many addresses kept, those idle long enough to have a full bucket again are
    # dropped, at most once in that time (a sweep walks them all).
    KEPT = 10_000

    def __init__(self, app: ASGIApp, rate: float, burst: int) -> None:
        self.app = app
        self.rate = rate
        self.burst = burst
        self.buckets: dict[str, TokenBucket] = {}
        self.full_after = burst / rate  # seconds an idle bucket takes to fill
        self.next_sweep = 0.0

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not scope["path"].startswith("/api/"):
            await self.app(scope, receive, send)
            return
        client = scope.get("client")
        address = limited_as(client[0]) if client else "unknown"
        bucket = self.buckets.get(address)
        if bucket is None:
            if len(self.buckets) >= self.KEPT and time.monotonic() >= self.next_sweep:
                self._forget_idle()
            bucket = self.buckets[address] = TokenBucket(self.rate, self.burst)
        if bucket.allow():
            await self.app(scope, receive, send)
            return
        wait = max(1, math.ceil((1 - bucket.tokens) / self.rate))
        body = orjson.dumps({"detail": "too many requests; slow down", "code": "too_many_requests"})
        await send_json(send, 429, body, (b"retry-after", str(wait).encode()))

    def _forget_idle(self) -> None:
        now = time.monotonic()
        self.next_sweep = now + self.full_after
        self.buckets = {
            address: bucket
            for address, bucket in self.buckets.items()
            if now - bucket.stamp < self.full_after
        }
