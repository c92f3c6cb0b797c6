"""A test client of the room protocol over a real WebSocket, applying patches as RFC 6902 says.

It keeps every frame it receives, checks that versions rise by one, and holds the state it
has patched together, so tests can compare it with a fresh state at any moment.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import random
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

import httpx
import msgpack
import orjson
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from tests import fetch
from tests.patching import apply_patch
from tests.rooms.decoding import Tables, decode_patch
from tests.server import Address, Server

State = dict[str, Any]
T = TypeVar("T")
# The ids ``act`` gives, for the whole process: above every id a test writes out (those are
# below 1,000,000), which the server would otherwise answer as the earlier action of the same
# number (an id is an idempotency key per seat for the match).
FIRST_ACT_ID = 1_000_000
_ids = itertools.count(FIRST_ACT_ID)


def clone(document: T) -> T:
    """A copy of a JSON document (parsed from a frame), made through orjson: what
    ``copy.deepcopy`` gives, several times sooner."""
    copied: T = orjson.loads(orjson.dumps(document))
    return copied


def api(server: Server, method: str, path: str, body: Any = None) -> httpx.Response:
    """One HTTP request to the server; ``body`` is sent as JSON unless None."""
    return fetch.request(method, f"{server.url}{path}", json=body)


class Refused(Exception):
    """The server refused an action."""

    def __init__(self, frame: dict[str, Any]) -> None:
        super().__init__(f"{frame['code']}: {frame['message']}")
        self.code: str = frame["code"]
        self.message: str = frame["message"]


def create_room(
    server: Server, name: str = "Ann", key: str | None = None, **settings: Any
) -> dict[str, Any]:
    """POST /api/rooms (with a player key, if given); returns the answer's body."""
    response = api(server, "POST", "/api/rooms", {"name": name, "settings": settings, "key": key})
    assert response.status_code == 201, response.text
    body: dict[str, Any] = response.json()
    return body


def join_room(server: Server, code: str, name: str, key: str | None = None) -> dict[str, Any]:
    """POST /api/rooms/{code}/join (with a player key, if given); returns the answer's body."""
    response = api(server, "POST", f"/api/rooms/{code}/join", {"name": name, "key": key})
    assert response.status_code == 201, response.text
    body: dict[str, Any] = response.json()
    return body


_opened: list[Client] = []


async def close_all() -> None:
    """Close every client made since the last call (for test teardown, even after a failure)."""
    loop = asyncio.get_running_loop()
    while _opened:
        client = _opened.pop()
        reader = client._reader
        if reader is not None and reader.get_loop() is not loop:
            continue  # made in an earlier test, whose event loop has ended, and its reader too
        if client.ws is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(client.close(), 30)


class Peer:
    """A client of a room: the frames it got, the state they add up to, and its answers."""

    def __init__(self, code: str, token: str | None = None) -> None:
        self.code = code
        self.token = token
        self.frames: list[str] = []
        self.state: State | None = None
        self.version = 0
        self.errors: list[dict[str, Any]] = []
        self.answers: dict[object, dict[str, Any]] = {}
        self.resyncs: list[tuple[State, State]] = []
        self.closed: tuple[int, str] | None = None
        self.tables: Tables | None = None  # the compact encoding's, from the first state
        self.encoding = "standard"  # what the hello asked for
        self.packed: list[bytes] = []  # the binary encoding's frames
        self.received: list[str | bytes] = []  # every frame, text or binary, in order

    def _take(self, frame: dict[str, Any] | list[Any]) -> None:
        if isinstance(frame, list):
            assert self.tables is not None, "a compact patch before the tables"
            frame = decode_patch(frame, self.tables)
        elif frame.get("encoding") is not None:
            self.tables = frame["encoding"]
        kind = frame["type"]
        if kind in ("error", "hint", "pong"):
            # Answers to one message, outside the versioned stream of states and patches.
            if kind == "error":
                self.errors.append(frame)
            if frame.get("id") is not None:
                self.answers[frame["id"]] = frame
            return
        assert frame["version"] == self.version + 1, f"version gap: {self.version} then {frame}"
        self.version = frame["version"]
        if kind == "state":
            if self.state is not None:
                # The new state goes on being patched in place; the old one no longer is.
                self.resyncs.append((self.state, clone(frame["state"])))
            self.state = frame["state"]
        elif kind == "patch":
            assert self.state is not None
            self.state = apply_patch(self.state, frame["ops"])
            if frame.get("ack") is not None:
                self.answers[frame["ack"]] = frame
        else:
            raise AssertionError(f"unknown frame type {kind}")

    def _answer(self, message_id: object, kind: str) -> dict[str, Any]:
        """The answer to the message with ``message_id``; raises Refused for an error."""
        answer = self.answers.pop(message_id, None)
        if answer is None:
            raise AssertionError(f"closed {self.closed} before an answer to {kind}")
        if answer["type"] == "error":
            raise Refused(answer)
        return answer

    # What the client's own view allows.

    @property
    def view(self) -> State:
        """The patched state, which every connected client has."""
        assert self.state is not None, "not connected yet"
        return self.state

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
            and state["round"]["turn"] is not None
            and state["round"]["turn"]["seat"] == state["you"]["seat"]
        )

    def random_move(self, rng: random.Random, knock_chance: float = 0.03) -> dict[str, Any]:
        """A random legal move worked out from this client's own view alone."""
        assert self.state is not None
        current = self.state["round"]
        settings = self.state["settings"]
        if current["turn"]["pending"]:
            cards = rng.sample(self.state["you"]["hand"], current["turn"]["pending"])
            return {"type": "discard", "cards": cards}
        if current["knocker"] is None and rng.random() < knock_chance:
            return {"type": "knock"}
        piles = [index for index, pile in enumerate(current["piles"]) if pile["count"]]
        if current["discard"]["count"]:
            piles.append(4)
        most = 5 if settings["multi_pickup"] else 1
        return {"type": "take", "piles": rng.sample(piles, rng.randint(1, min(most, len(piles))))}


class Client(Peer):
    """One WebSocket connection to a room."""

    def __init__(self, server: Address, code: str, token: str | None = None) -> None:
        super().__init__(code, token)
        self.server = server
        self.ws: ClientConnection | None = None
        self._changed = asyncio.Condition()
        self._reader: asyncio.Task[None] | None = None
        _opened.append(self)

    async def connect(
        self,
        origin: str | None = None,
        hello: dict[str, Any] | None = None,
        encoding: str | None = None,
    ) -> None:
        """Open the socket, say hello (asking for ``encoding``, if given) and wait for the first
        state."""
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
            if encoding is not None:
                hello["encoding"] = encoding
        self.encoding = hello.get("encoding", "standard")
        await self.ws.send(json.dumps(hello))
        self._reader = asyncio.create_task(self._read())
        await self.wait_for(lambda state: True)

    async def _read(self) -> None:
        assert self.ws is not None
        try:
            async for text in self.ws:
                self.received.append(text)
                if isinstance(text, bytes):
                    assert self.encoding == "binary", "binary frames only for the binary encoding"
                    self.packed.append(text)
                    frame = msgpack.unpackb(text)
                    assert isinstance(frame, list), "a binary frame is a patch"
                else:
                    self.frames.append(text)
                    frame = orjson.loads(text)
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

    async def wait_for(self, predicate: Callable[[State], bool], timeout: float = 30) -> State:
        """Wait until the patched state satisfies ``predicate``."""

        def ready() -> bool:
            return self.closed is not None or (self.state is not None and predicate(self.state))

        async with self._changed:
            await asyncio.wait_for(self._changed.wait_for(ready), timeout)
        if self.state is None or not predicate(self.state):
            raise AssertionError(f"connection closed {self.closed} before the state was reached")
        return self.state

    async def wait_frames(self, count: int, timeout: float = 30) -> None:
        """Wait until ``count`` frames have been received in all (or the connection closed)."""
        async with self._changed:
            await asyncio.wait_for(
                self._changed.wait_for(
                    lambda: len(self.frames) >= count or self.closed is not None
                ),
                timeout,
            )
        assert len(self.frames) >= count, f"closed {self.closed} after {len(self.frames)} frames"

    async def wait_closed(self, timeout: float = 30) -> tuple[int, str]:
        """Wait until the server closes the connection; returns the close code and reason."""
        async with self._changed:
            await asyncio.wait_for(self._changed.wait_for(lambda: self.closed is not None), timeout)
        assert self.closed is not None
        return self.closed

    async def send(self, message: dict[str, Any] | str | bytes) -> None:
        """Send a raw message (bytes in a binary frame)."""
        assert self.ws is not None
        await self.ws.send(message if isinstance(message, str | bytes) else json.dumps(message))

    async def act(self, kind: str, timeout: float = 30, **fields: Any) -> dict[str, Any]:
        """Send an action with an id and wait for its acknowledgement; raises Refused."""
        return await self.play({"type": kind, **fields}, timeout)

    async def play(self, message: dict[str, Any], timeout: float = 30) -> dict[str, Any]:
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
        return self._answer(message_id, kind)

    async def resync(self) -> tuple[State, State]:
        """Ask for a fresh state; returns (patched state before it, fresh state)."""
        seen = len(self.resyncs)
        await self.send({"type": "resync"})
        async with self._changed:
            await asyncio.wait_for(self._changed.wait_for(lambda: len(self.resyncs) > seen), 30)
        return self.resyncs[seen]

    async def close(self) -> None:
        """Close from the client side."""
        if self.ws is not None:
            await self.ws.close()
        if self._reader is not None:
            await self._reader


# Helpers shared by the room tests.

CARD_ID = re.compile(
    r"[1-5]-(?:circle|crescent|triangle|square|star)-(?:violet|cyan|yellow|orange|red)"
)


def card_ids_in(text: str) -> set[str]:
    """Every card id written anywhere in ``text``."""
    return set(CARD_ID.findall(text))


def public(state: State) -> State:
    """The part of a view every connection shares (all but ``you``)."""
    return {key: value for key, value in state.items() if key != "you"}


async def converge(peers: Sequence[Peer], timeout: float = 30) -> State:
    """Wait until every peer shows one public view; returns a copy of it.

    No peer's view is taken as the target while another may be ahead of it: the wait ends when
    they all agree, which, after an acknowledged action, includes that action.
    """
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        views = [None if peer.state is None else public(peer.state) for peer in peers]
        first = views[0]
        if first is not None and all(view == first for view in views):
            return clone(first)
        if loop.time() > deadline:
            raise AssertionError(
                f"no common view in {timeout} s: versions {[peer.version for peer in peers]}, "
                f"closed {[peer.closed for peer in peers]}"
            )
        await asyncio.sleep(0.002)


P = TypeVar("P", bound=Peer)


@dataclass
class Table(Generic[P]):
    """A room with seated, connected players and optional spectators."""

    server: Any  # where the room is: a Server, or a Host in this process
    code: str
    tokens: list[str]
    players: list[P]
    spectators: list[P] = field(default_factory=list)

    @property
    def everyone(self) -> list[P]:
        return [*self.players, *self.spectators]

    @property
    def host(self) -> P:
        return self.players[0]

    def mover(self) -> P:
        """The player whose turn it is (by the first player's view)."""
        return next(client for client in self.players if client.my_turn())

    async def settle(self, reference: P | None = None, timeout: float = 30) -> None:
        """Wait until every connection, and ``reference`` if given, shows one public view."""
        await converge([*self.everyone, *([reference] if reference is not None else [])], timeout)

    async def close(self) -> None:
        for client in self.everyone:
            await client.close()


async def open_table(
    server: Server, players: int = 2, spectators: int = 0, **settings: Any
) -> Table[Client]:
    """Create a room, seat ``players`` (the first is the host), connect them all."""
    room = create_room(server, "P0", **settings)
    tokens = [room["token"]]
    for seat in range(1, players):
        joined = join_room(server, room["code"], f"P{seat}")
        assert joined["seat"] == seat
        tokens.append(joined["token"])
    return await connect_table(
        Table(server, room["code"], tokens, []),
        spectators,
        lambda token: Client(server, room["code"], token),
    )


async def connect_table(
    table: Table[P], spectators: int, make: Callable[[str | None], P]
) -> Table[P]:
    """Connect a client for each of the table's tokens and ``spectators`` watchers."""
    table.players = [make(token) for token in table.tokens]
    table.spectators = [make(None) for _ in range(spectators)]
    for client in table.everyone:
        await client.connect()
    await table.settle(table.everyone[-1])
    return table


async def closed_with(
    server: Server,
    code: str,
    first: dict[str, Any] | str | None,
    origin: str | None = None,
    timeout: float = 30,
) -> tuple[int, str]:
    """Open a raw socket, send ``first`` (if any) and return how the server closed it.

    Any state frame received before the close fails the call.
    """
    headers = {"Origin": origin} if origin else None
    async with connect(
        f"{server.ws_url}/ws/rooms/{code}", compression=None, additional_headers=headers
    ) as ws:
        if first is not None:
            with contextlib.suppress(ConnectionClosed):
                await ws.send(first if isinstance(first, str) else json.dumps(first))
        try:
            frame = await asyncio.wait_for(ws.recv(), timeout)
        except ConnectionClosed:
            pass
        else:
            raise AssertionError(f"got a frame instead of a close: {frame!r:.200}")
        rcvd = ws.protocol.close_rcvd
        assert rcvd is not None, "the connection ended without a close frame"
        return rcvd.code, rcvd.reason


async def try_connect(client: Client) -> tuple[int, str] | None:
    """Connect ``client``; returns the close (code, reason) if the server refused it."""
    try:
        await client.connect()
    except AssertionError:
        assert client.closed is not None
        return client.closed
    except ConnectionClosed as closed:
        rcvd = closed.rcvd
        return (rcvd.code, rcvd.reason) if rcvd else (1006, "")
    return None


UNSET: Any = object()
ANY_ID: Any = object()


async def expect_refusal(
    sender: Any,
    others: list[Any],
    message: dict[str, Any] | str | bytes,
    code: str,
    echo: Any = UNSET,
) -> dict[str, Any]:
    """Send ``message`` and check it is refused with ``code`` and that nothing changed.

    The error must come to the sender alone and echo the message's id (``echo`` when the
    message is not a dict; ``ANY_ID`` skips this check). It must be the only frame the sender
    gets before a resync, the sender's patched state must equal a fresh one and be unchanged,
    and no other connection may get any frame for it.
    """
    if echo is UNSET:
        echo = message.get("id") if isinstance(message, dict) else None
    assert sender.state is not None
    kept = clone(sender.state)
    seen = {id(client): len(client.frames) for client in [sender, *others]}
    await sender.send(message)
    await sender.wait_frames(seen[id(sender)] + 1)
    error = json.loads(sender.frames[seen[id(sender)]])
    assert error["type"] == "error", error
    assert error["code"] == code, error
    assert "id" in error
    if echo is not ANY_ID:
        assert error["id"] == echo, error
    assert isinstance(error["message"], str)
    assert error["message"]
    before, fresh = await sender.resync()
    assert before == fresh
    assert fresh == kept
    assert len(sender.frames) == seen[id(sender)] + 2
    for other in others:
        mark = seen[id(other)]
        before, fresh = await other.resync()
        assert before == fresh
        stray = [frame for frame in other.frames[mark:] if '"type":"state"' not in frame]
        assert stray == [], f"another connection was sent {stray}"
        assert len(other.frames) == mark + 1
    return error


def others(table: Table[Any], sender: Any) -> list[Any]:
    return [client for client in table.everyone if client is not sender]


async def refused(table: Table[Any], sender: Any, message: Any, code: str, **kw: Any) -> None:
    """Check that ``message`` from ``sender`` is refused with ``code`` (see expect_refusal)."""
    await table.settle()
    await expect_refusal(sender, others(table, sender), message, code, **kw)


async def plays_on(table: Table[Any]) -> None:
    """A legal action is still accepted and reaches everyone."""
    state = table.host.state
    assert state is not None
    if state["status"] == "lobby":
        rounds = state["settings"]["rounds"]
        await table.host.act("settings", settings={"rounds": rounds % 50 + 1})
        await table.settle()
        assert table.host.state is not None
        assert table.host.state["settings"]["rounds"] == rounds % 50 + 1
    else:
        mover = table.mover()
        turn = mover.seat
        await mover.play(mover.random_move(random.Random(0), knock_chance=0))
        await table.settle(mover)
        assert mover.state is not None
        assert mover.state["round"]["turn"]["seat"] == turn
        assert mover.state["round"]["turn"]["pending"] > 0
    for client in table.everyone:
        before, fresh = await client.resync()
        assert before == fresh
