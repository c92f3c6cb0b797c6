"""Rooms in this process, driven as a client would drive them but without sockets or a server.

``Host`` holds live rooms with a clock moved by hand and a store in memory; ``LocalClient`` is a
real ``Connection`` whose send keeps every frame and applies patches, with the same methods as
the socket test client. Whatever waits (``wait_for``, ``wait_closed``) moves the clock on from
timer to timer until what it waits for happens, so timer tests are exact.
"""

from __future__ import annotations

import itertools
from typing import Any

import orjson

from app.rooms import protocol
from app.rooms.connection import Connection
from app.rooms.live import LiveRoom, RoomConfig
from app.rooms.registry import hash_token, new_code, new_token
from app.rooms.settings import RoomSettings
from app.rooms.state import RoomState
from app.rooms.timers import millis
from tests.rooms.client import FIRST_ACT_ID, Peer, State, Table, connect_table
from tests.rooms.fakes import FakeClock, MemoryStore

_ids = itertools.count(FIRST_ACT_ID)  # as the socket clients', above every written-out id
# Timers a wait may run through before it gives up: far more than any test needs.
MAX_RINGS = 500


class Host:
    """Live rooms by code, as the server holds them, with a fake clock and a memory store."""

    def __init__(self, config: RoomConfig | None = None) -> None:
        self.config = config or RoomConfig(ready_seconds=2)
        self.clock = FakeClock()
        self.store = MemoryStore()
        self.rooms: dict[str, LiveRoom] = {}

    def create(self, name: str = "Ann", **settings: Any) -> dict[str, Any]:
        """A new room with ``name`` seated as host; the answer the HTTP create gives."""
        code = new_code()
        state = RoomState(code, RoomSettings(**settings), millis(self.clock))
        token = new_token()
        state.join(name, hash_token(token), millis(self.clock))
        room = LiveRoom(state, self.config, self.drop, self.store, clock=self.clock)
        self.rooms[code] = room
        return {"code": code, "seat": 0, "token": token}

    async def join(self, code: str, name: str) -> dict[str, Any]:
        """Seat ``name`` in the room; the answer the HTTP join gives."""
        token = new_token()
        seat = await self.rooms[code].join(name, hash_token(token))
        return {"code": code, "seat": seat, "token": token}

    def info(self, code: str) -> dict[str, Any]:
        """What the HTTP room info says, from the same parts of the room."""
        room = self.rooms[code]
        online = room.presence()
        state = room.state
        return {
            "code": state.code,
            "status": state.status.value,
            "settings": state.settings.model_dump(),
            "players": [
                {
                    "seat": index,
                    "name": seat.name,
                    "connected": online[index],
                    "host": index == state.host,
                    "bot": seat.bot,
                }
                for index, seat in enumerate(state.seats)
            ],
            "spectators": room.spectators(),
            "socket": f"/ws/rooms/{code}",
            "node": None,
        }

    def drop(self, room: LiveRoom) -> None:
        """Forget a room nobody was connected to for the idle time."""
        if self.rooms.get(room.code) is room:
            del self.rooms[room.code]

    async def run_timers(self, done: Any) -> None:
        """Ring timers one by one until ``done()`` holds; fails if none is left to ring."""
        for _ in range(MAX_RINGS):
            if done():
                return
            if not await self.clock.ring_next():
                break
        assert done(), "no timer left to ring, and what was awaited did not happen"


class LocalClient(Peer):
    """A connection to a room in this process that keeps its frames and patched state."""

    def __init__(self, host: Host, code: str, token: str | None = None) -> None:
        super().__init__(code, token)
        self.host = host
        self.connection: Connection | None = None
        self.address = ""  # the client's address, as the socket layer gives it

    @property
    def room(self) -> LiveRoom:
        return self.host.rooms[self.code]

    async def connect(self) -> None:
        """Take the token's seat (or watch without one) and get the first state."""
        seat = None
        if self.token is not None:
            seat = self.room.state.seat_of(hash_token(self.token))
            assert seat is not None, "this token holds no seat in this room"
        self.connection = Connection(self._receive, seat, 256)
        self.connection.address = self.address
        await self.room.attach(self.connection)
        assert self.state is not None

    async def _receive(self, message: dict[str, Any]) -> None:
        if message["type"] == "websocket.close":
            self.closed = (message["code"], message["reason"])
        else:
            self.frames.append(message["text"])
            self._take(orjson.loads(message["text"]))

    async def send(self, message: dict[str, Any] | str) -> None:
        """Hand the room a raw message, as the socket reader would."""
        assert self.connection is not None
        raw = message if isinstance(message, str) else orjson.dumps(message).decode()
        try:
            parsed = protocol.parse_message(raw)
        except protocol.BadMessage as error:
            self.connection.push(protocol.error_frame(error.code, error.message, error.message_id))
            return
        await self.room.handle(self.connection, parsed)

    async def act(self, kind: str, **fields: Any) -> dict[str, Any]:
        """Send an action with an id; returns its acknowledgement, or raises Refused."""
        return await self.play({"type": kind, **fields})

    async def play(self, message: dict[str, Any]) -> dict[str, Any]:
        """Send a message with an id; returns its acknowledgement, or raises Refused."""
        message_id = next(_ids)
        await self.send({**message, "id": message_id})
        return self._answer(message_id, message["type"])

    async def wait_for(self, predicate: Any) -> State:
        """Run timers until the patched state satisfies ``predicate``."""
        await self.host.run_timers(
            lambda: self.closed is not None or (self.state is not None and predicate(self.state))
        )
        if self.state is None or not predicate(self.state):
            raise AssertionError(f"connection closed {self.closed} before the state was reached")
        return self.state

    async def wait_frames(self, count: int) -> None:
        """Run timers until ``count`` frames have come in all (or the connection closed)."""
        await self.host.run_timers(lambda: len(self.frames) >= count or self.closed is not None)
        assert len(self.frames) >= count, f"closed {self.closed} after {len(self.frames)} frames"

    async def wait_closed(self) -> tuple[int, str]:
        """Run timers until the room closes the connection; returns the code and reason."""
        await self.host.run_timers(lambda: self.closed is not None)
        assert self.closed is not None
        return self.closed

    async def resync(self) -> tuple[State, State]:
        """Ask for a fresh state; returns (patched state before it, fresh state)."""
        seen = len(self.resyncs)
        await self.send({"type": "resync"})
        return self.resyncs[seen]

    async def close(self) -> None:
        """Leave, as a closed socket does."""
        if self.connection is not None and self.closed is None:
            self.closed = (1000, "")
            await self.room.detach(self.connection)


async def open_table(
    host: Host, players: int = 2, spectators: int = 0, **settings: Any
) -> Table[LocalClient]:
    """Create a room, seat ``players`` (the first is the host), connect them all."""
    room = host.create("P0", **settings)
    tokens = [room["token"]]
    for seat in range(1, players):
        joined = await host.join(room["code"], f"P{seat}")
        assert joined["seat"] == seat
        tokens.append(joined["token"])
    return await connect_table(
        Table(host, room["code"], tokens, []),
        spectators,
        lambda token: LocalClient(host, room["code"], token),
    )
