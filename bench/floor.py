"""The floor: a bare ASGI WebSocket app that relays messages to rooms and does no game work.

It speaks just enough of the room protocol for the load generator: the first message is a hello
naming a room; it answers with a state-sized message; every later message is an action, and
the floor sends every member of the room a message of the size the game server would send
(the action carries the size to send as ``"reply"``). Served by uvicorn with the same settings
as the game server (uvloop, httptools, no per-message compression), and the same garbage
collector policy (app/collection.py: start-up objects frozen, young collections every
``YOUNG_COLLECTION_THRESHOLD`` new objects, full collections when enough connections have ended
and on a schedule).
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

import orjson

from app.collection import Connections, start_collecting

Scope = dict[str, Any]

rooms: dict[str, list[Any]] = defaultdict(list)
sockets = Connections()


async def app(scope: Scope, receive: Any, send: Any) -> None:
    """Accept, join a room, relay each message to the room; leave on disconnect."""
    if scope["type"] == "lifespan":
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                collector = start_collecting(sockets)
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                collector.cancel()
                await send({"type": "lifespan.shutdown.complete"})
                return
    if scope["type"] == "http":
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"ok"})
        return
    if scope["type"] != "websocket":
        return
    await receive()  # websocket.connect
    await send({"type": "websocket.accept"})
    sockets.opened()
    try:
        await relay(receive, send)
    finally:
        sockets.closed()


async def relay(receive: Any, send: Any) -> None:
    """Join the room the hello names, then relay each message to the room."""
    hello = await receive()
    if hello["type"] != "websocket.receive":
        return
    data = orjson.loads(hello.get("text") or hello.get("bytes"))
    members = rooms[data["room"]]
    members.append(send)
    await send({"type": "websocket.send", "text": "s" * int(data.get("state", 2000))})
    try:
        while True:
            message = await receive()
            if message["type"] != "websocket.receive":
                return
            text = message.get("text") or message.get("bytes")
            size = int(orjson.loads(text)["reply"])
            payload = {"type": "websocket.send", "text": "p" * size}
            for member in list(members):
                await member(payload)
    finally:
        members.remove(send)
