"""Entity tags on the API's answers, so that a client asking again for what it has gets a
``304 Not Modified`` with no body.

A script that polls the history (a player's page, the latest matches, the leaderboard) or a
browser opening a match it has seen downloads the same kilobytes again and again. Each ``200``
answer to a ``GET`` under ``/api/`` (and the OpenAPI description) gets an ``ETag`` made from its
body, and a request whose ``If-None-Match`` names it is answered ``304`` with the headers a
cache needs and nothing else. The tag follows the bytes, so it changes with anything the answer
says, a room's seats as much as a new match, and needs no bookkeeping of what changed.
``GzipJson``, outside this middleware, makes the tag weak for a client that takes gzip.
"""

from __future__ import annotations

import base64
import hashlib

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.api.gzipped import compressed_here, request_header

# The headers a 304 keeps of the 200 it stands for (RFC 9110, section 15.4.5).
KEPT_BY_NOT_MODIFIED = frozenset(
    {b"cache-control", b"content-location", b"date", b"etag", b"expires", b"vary"}
)


def entity_tag(body: bytes) -> bytes:
    """The strong tag of an answer's body: 128 bits of its BLAKE2b digest, in base64url."""
    digest = hashlib.blake2b(body, digest_size=16).digest()
    return b'"' + base64.urlsafe_b64encode(digest).rstrip(b"=") + b'"'


def names_tag(if_none_match: str, tag: str) -> bool:
    """Whether an ``If-None-Match`` header holds ``tag`` (the weak comparison, which a ``GET``
    uses: ``W/`` ignored on either side), or is ``*``."""
    if if_none_match.strip() == "*":
        return True
    bare = tag.removeprefix("W/")
    return any(part.strip().removeprefix("W/") == bare for part in if_none_match.split(","))


class EntityTags:
    """ASGI middleware adding an ``ETag`` to the API's ``200`` answers to ``GET`` and answering
    ``304`` to a request that already holds the answer. An answer in several parts, or one that
    has a tag of its own, goes as it is."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if not compressed_here(scope):
            await self.app(scope, receive, send)
            return
        asked = request_header(scope, b"if-none-match")
        start: Message | None = None

        async def tagging(message: Message) -> None:
            nonlocal start
            if message["type"] == "http.response.start":
                headers = message.get("headers", ())
                if message["status"] == 200 and not any(
                    bytes(name).lower() == b"etag" for name, _ in headers
                ):
                    start = message  # held until its body is known
                    return
                await send(message)
                return
            if start is None or message["type"] != "http.response.body":
                await send(message)
                return
            begun, start = start, None
            if message.get("more_body", False):
                await send(begun)
                await send(message)
                return
            tag = entity_tag(message.get("body", b""))
            headers = [*begun.get("headers", ()), (b"etag", tag)]
            if asked and names_tag(asked, tag.decode("ascii")):
                kept = [pair for pair in headers if bytes(pair[0]).lower() in KEPT_BY_NOT_MODIFIED]
                await send({"type": "http.response.start", "status": 304, "headers": kept})
                await send({"type": "http.response.body", "body": b""})
                return
            await send({**begun, "headers": headers})
            await send(message)

        await self.app(scope, receive, tagging)
