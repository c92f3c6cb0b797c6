"""A test client of the room protocol over a real WebSocket, applying patches with jsonpatch.

It keeps every frame it receives, checks that versions rise by one, and holds the state it
has patched together, so tests can compare it with a fresh state at any moment.
"""

from __future__ import annotations

import asyncio
import copy
import itertools
import json
import random
from collections.abc import Callable
from typing import Any

import httpx
import jsonpatch
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from tests.server import Server

State = dict[str, Any]
_ids = itertools.count(1)


class Refused(Exception):
    """The server refused an action."""

    def __init__(self, frame: dict[str, Any]) -> None:
        super().__init__(f"{frame['code']}: {frame['message']}")
        self.code: str = frame["code"]
        self.message: str = frame["message"]


def create_room(server: Server, name: str = "Ann", **settings: Any) -> dict[str, Any]:
    """POST /api/rooms; returns the answer's body."""
    response = httpx.post(f"{server.url}/api/rooms", json={"name": name, "settings": settings})
    assert response.status_code == 201, response.text
    body: dict[str, Any] = response.json()
    return body


def join_room(server: Server, code: str, name: str) -> dict[str, Any]:
    """POST /api/rooms/{code}/join; returns the answer's body."""
    response = httpx.post(f"{server.url}/api/rooms/{code}/join", json={"name": name})
    assert response.status_code == 201, response.text
    body: dict[str, Any] = response.json()
    return body


class Client:
    """One WebSocket connection to a room."""

    def __init__(self, server: Server, code: str, token: str | None = None) -> None:
        self.server = server
        self.code = code
        self.token = token
        self.ws: ClientConnection | None = None
        self.frames: list[str] = []
        self.state: State | None = None
        self.version = 0
        self.errors: list[dict[str, Any]] = []
        self.answers: dict[object, dict[str, Any]] = {}
        self.resyncs: list[tuple[State, State]] = []
        self.closed: tuple[int, str] | None = None
        self._changed = asyncio.Condition()
        self._reader: asyncio.Task[None] | None = None

    async def connect(self, origin: str | None = None, hello: dict[str, Any] | None = None) -> None:
        """Open the socket, say hello and wait for the first state."""
        headers = {"Origin": origin} if origin else None
        self.ws = await connect(
            f"{self.server.ws_url}/ws/rooms/{self.code}",
            compression=None,
            additional_headers=headers,
            max_size=2**22,
        )
        if hello is None:
            hello = (
                {"type": "hello", "token": self.token}
                if self.token
                else {"type": "hello", "spectate": True}
            )
        await self.ws.send(json.dumps(hello))
        self._reader = asyncio.create_task(self._read())
        await self.wait_for(lambda state: True)

    async def _read(self) -> None:
        assert self.ws is not None
        try:
            async for text in self.ws:
                assert isinstance(text, str), "frames are text"
                self.frames.append(text)
                frame = json.loads(text)
                async with self._changed:
                    self._take(frame)
                    self._changed.notify_all()
        except ConnectionClosed:
            pass
        finally:
            rcvd = self.ws.protocol.close_rcvd
            self.closed = (rcvd.code, rcvd.reason) if rcvd else (1006, "")
            async with self._changed:
                self._changed.notify_all()

    def _take(self, frame: dict[str, Any]) -> None:
        kind = frame["type"]
        if kind == "error":
            self.errors.append(frame)
            if frame.get("id") is not None:
                self.answers[frame["id"]] = frame
            return
        assert frame["version"] == self.version + 1, f"version gap: {self.version} then {frame}"
        self.version = frame["version"]
        if kind == "state":
            if self.state is not None:
                self.resyncs.append((copy.deepcopy(self.state), frame["state"]))
            self.state = frame["state"]
        elif kind == "patch":
            assert self.state is not None
            jsonpatch.apply_patch(self.state, frame["ops"], in_place=True)
            if frame.get("ack") is not None:
                self.answers[frame["ack"]] = frame
        else:
            raise AssertionError(f"unknown frame type {kind}")

    async def wait_for(self, predicate: Callable[[State], bool], timeout: float = 10) -> State:
        """Wait until the patched state satisfies ``predicate``."""

        def ready() -> bool:
            return self.closed is not None or (self.state is not None and predicate(self.state))

        async with self._changed:
            await asyncio.wait_for(self._changed.wait_for(ready), timeout)
        if self.state is None or not predicate(self.state):
            raise AssertionError(f"connection closed {self.closed} before the state was reached")
        return self.state

    async def wait_closed(self, timeout: float = 10) -> tuple[int, str]:
        """Wait until the server closes the connection; returns the close code and reason."""
        async with self._changed:
            await asyncio.wait_for(self._changed.wait_for(lambda: self.closed is not None), timeout)
        assert self.closed is not None
        return self.closed

    async def send(self, message: dict[str, Any] | str) -> None:
        """Send a raw message."""
        assert self.ws is not None
        await self.ws.send(message if isinstance(message, str) else json.dumps(message))

    async def act(self, kind: str, timeout: float = 10, **fields: Any) -> dict[str, Any]:
        """Send an action with an id and wait for its acknowledgement; raises Refused."""
        return await self.play({"type": kind, **fields}, timeout)

    async def play(self, message: dict[str, Any], timeout: float = 10) -> dict[str, Any]:
        """Send a message with an id and wait for its acknowledgement; raises Refused."""
        message_id = next(_ids)
        kind = message["type"]
        await self.send({**message, "id": message_id})
        async with self._changed:
            await asyncio.wait_for(
                self._changed.wait_for(
                    lambda: message_id in self.answers or self.closed is not None
                ),
                timeout,
            )
        answer = self.answers.pop(message_id, None)
        if answer is None:
            raise AssertionError(f"closed {self.closed} before an answer to {kind}")
        if answer["type"] == "error":
            raise Refused(answer)
        return answer

    async def resync(self) -> tuple[State, State]:
        """Ask for a fresh state; returns (patched state before it, fresh state)."""
        seen = len(self.resyncs)
        await self.send({"type": "resync"})
        async with self._changed:
            await asyncio.wait_for(self._changed.wait_for(lambda: len(self.resyncs) > seen), 10)
        return self.resyncs[seen]

    async def close(self) -> None:
        """Close from the client side."""
        if self.ws is not None:
            await self.ws.close()
        if self._reader is not None:
            await self._reader

    # What the client's own view allows.

    @property
    def seat(self) -> int | None:
        assert self.state is not None
        seat: int | None = self.state["you"]["seat"]
        return seat

    def my_turn(self) -> bool:
        state = self.state
        return bool(
            state
            and state["status"] == "playing"
            and state["round"]
            and state["round"]["turn"] == state["you"]["seat"]
        )

    def random_move(self, rng: random.Random, knock_chance: float = 0.03) -> dict[str, Any]:
        """A random legal move worked out from this client's own view alone."""
        assert self.state is not None
        current = self.state["round"]
        settings = self.state["settings"]
        if current["step"] == "discard":
            cards = rng.sample(self.state["you"]["hand"], current["pending"])
            return {"type": "discard", "cards": cards}
        if current["knocker"] is None and rng.random() < knock_chance:
            return {"type": "knock"}
        piles = [index for index, pile in enumerate(current["piles"]) if pile["count"]]
        if current["discard"]["count"]:
            piles.append(4)
        most = 5 if settings["multi_pickup"] else 1
        return {"type": "take", "piles": rng.sample(piles, rng.randint(1, min(most, len(piles))))}
