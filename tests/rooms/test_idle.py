"""Rooms nobody is connected to are dropped after ROOM_IDLE_SECONDS (here 1 s, the least it may be).

That the server then knows no such room is checked over sockets; which rooms are kept and
which dropped, in this process with a clock moved by hand."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterator
from typing import Any

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from app.engine.errors import IllegalAction
from app.rooms import protocol
from app.rooms.connection import Connection
from app.rooms.live import LiveRoom, RoomConfig
from app.rooms.registry import hash_token, new_code, new_token
from app.rooms.settings import RoomSettings
from app.rooms.state import RoomState
from app.rooms.store import NullStore
from tests.rooms.client import api, closed_with, create_room, join_room
from tests.rooms.local import Host, LocalClient
from tests.server import FAST, Server, running_server

pytestmark = pytest.mark.usefixtures("closing_clients")


@pytest.fixture(scope="module")
def idle_server() -> Iterator[Server]:
    with running_server(**{**FAST, "ROOM_IDLE_SECONDS": "1"}) as server:
        yield server


def status(server: Server, code: str) -> int:
    return api(server, "GET", f"/api/rooms/{code}").status_code


async def until_gone(server: Server, code: str, timeout: float = 30) -> None:
    for _ in range(int(timeout / 0.1)):
        if status(server, code) == 404:
            return
        await asyncio.sleep(0.1)
    raise AssertionError(f"room {code} is still there after {timeout} s")


async def test_a_room_nobody_connects_to_is_dropped(idle_server: Server) -> None:
    room = create_room(idle_server)
    join_room(idle_server, room["code"], "Bob")
    await until_gone(idle_server, room["code"])
    join = api(idle_server, "POST", f"/api/rooms/{room['code']}/join", {"name": "Cid"})
    assert join.status_code == 404
    closed, _ = await closed_with(idle_server, room["code"], {"type": "hello", "spectate": True})
    assert closed == 4004


async def test_rooms_with_someone_connected_are_kept() -> None:
    """A room with a player, one with only a spectator, and one whose player came back."""
    host = Host(RoomConfig(ready_seconds=2, idle_seconds=0.5))
    with_player = host.create()
    with_watcher = host.create()
    came_back = host.create()
    bob = await host.join(came_back["code"], "Bob")
    player = LocalClient(host, with_player["code"], with_player["token"])
    watcher = LocalClient(host, with_watcher["code"])
    ann = LocalClient(host, came_back["code"], came_back["token"])
    for client in (player, watcher, ann):
        await client.connect()
    await ann.close()
    bob_client = LocalClient(host, came_back["code"], bob["token"])
    await bob_client.connect()
    clients = [player, watcher, bob_client]
    await host.clock.advance(1.5)  # three times the idle time
    for room in (with_player, with_watcher, came_back):
        assert room["code"] in host.rooms
    for client in clients:
        assert client.closed is None
        before, fresh = await client.resync()
        assert before == fresh
    await player.act("settings", settings={"rounds": 2})
    for client, room in zip(clients, (with_player, with_watcher, came_back), strict=True):
        await client.close()
        await host.run_timers(lambda code=room["code"]: code not in host.rooms)
        assert room["code"] in host.store.forgotten


async def test_a_socket_opened_before_the_room_was_dropped_is_closed_4011(
    idle_server: Server,
) -> None:
    """A socket finds its room, then says hello only after the room was dropped: it is told
    the room was closed, not given a state nobody will ever patch."""
    room = create_room(idle_server)
    async with connect(f"{idle_server.ws_url}/ws/rooms/{room['code']}", compression=None) as ws:
        await until_gone(idle_server, room["code"])
        await ws.send(json.dumps({"type": "hello", "token": room["token"]}))
        with pytest.raises(ConnectionClosed):  # no state first
            await asyncio.wait_for(ws.recv(), 30)
        assert ws.close_code == 4011
        assert ws.close_reason == "the room was closed"


async def test_a_closed_room_takes_no_change_and_writes_nothing() -> None:
    """Closed (dropped when idle, or moved to another node): what was waiting for its lock, a
    hello, a join, a message, a connection leaving, changes nothing and is written nowhere."""
    host = Host(RoomConfig(ready_seconds=2, idle_seconds=60))
    room = host.create(turn_seconds=0)
    code = room["code"]
    bob = await host.join(code, "Bob")
    ann = LocalClient(host, code, room["token"])
    await ann.connect()
    live = host.rooms[code]
    await host.store.saved()
    written = list(host.store.events[code])
    live.close(4012, "")  # as a node that lost the room closes it
    assert ann.connection is not None
    for message in ('{"type":"chat","text":"late"}', '{"type":"start"}', '{"type":"resync"}'):
        await live.handle(ann.connection, protocol.parse_message(message))
    with pytest.raises(IllegalAction) as refused:
        await live.join("Cid", "0" * 64)
    assert refused.value.code == "room_moved"
    late = Connection(lambda message: asyncio.sleep(0), None, 8)
    assert await live.attach(late, None) == (4012, "")
    await live.detach(ann.connection)  # the host leaving would pass the host's role
    assert live.state.take_unsaved()[1] == []
    assert host.store.events[code] == written
    assert [seat.name for seat in live.state.seats] == ["Ann", "Bob"]
    assert live.state.host == 0
    assert bob["seat"] == 1


async def test_a_join_gives_the_joiner_the_idle_time_to_connect() -> None:
    """Nobody connected: a join through the API starts the idle time again, so the room is not
    closed just after giving the joiner a token."""
    host = Host(RoomConfig(ready_seconds=2, idle_seconds=10))
    room = host.create()
    code = room["code"]
    await host.clock.advance(8)
    bob = await host.join(code, "Bob")
    await host.clock.advance(8)  # 16 s after the room was made, 8 after the join
    assert code in host.rooms
    bob_client = LocalClient(host, code, bob["token"])
    await bob_client.connect()
    assert bob_client.closed is None
    await bob_client.close()
    await host.clock.advance(9)
    assert code in host.rooms
    await host.run_timers(lambda: code not in host.rooms)
    assert code in host.store.forgotten


async def test_an_idle_ring_that_waited_for_a_join_closes_nothing() -> None:
    """The idle time runs out while a join through the API holds the room (its write waits):
    the join gives the idle time again, so the ring that waited for it closes nothing."""
    host = Host(RoomConfig(ready_seconds=2, idle_seconds=10))
    code = host.create()["code"]
    live = host.rooms[code]
    writing, go_on = asyncio.Event(), asyncio.Event()
    save = host.store.save

    async def held_save(*args: Any, **kwargs: Any) -> Any:
        writing.set()
        await go_on.wait()
        return await save(*args, **kwargs)

    host.store.save = held_save  # type: ignore[method-assign]
    await host.clock.advance(9)
    join = asyncio.ensure_future(host.join(code, "Bob"))
    await writing.wait()  # the join holds the room's lock
    ring = asyncio.ensure_future(host.clock.advance(1))  # the idle time runs out
    for _ in range(3):  # the ring runs up to the room's lock, and waits there
        await asyncio.sleep(0)
    assert live.lock._waiters
    go_on.set()
    bob = await join
    await ring
    assert code in host.rooms
    bob_client = LocalClient(host, code, bob["token"])
    await bob_client.connect()
    assert bob_client.closed is None


async def test_an_idle_ring_due_as_a_join_ends_closes_nothing_on_the_loops_clock() -> None:
    """On the event loop's own clock a ring runs a step after the timer is due: a join whose
    write ends in the same step of the loop goes first, and sets the idle time again; the ring
    that comes after it is the earlier setting's, and closes nothing."""
    loop = asyncio.get_running_loop()
    dropped: list[LiveRoom] = []
    now = int(time.time() * 1000)
    state = RoomState(new_code(), RoomSettings(), now)
    state.join("Ann", hash_token(new_token()), now)
    store = NullStore()
    written = asyncio.Event()
    save = store.save

    async def held_save(*args: Any, **kwargs: Any) -> Any:
        await written.wait()
        return await save(*args, **kwargs)

    room = LiveRoom(state, RoomConfig(idle_seconds=2), dropped.append, store)
    due = loop.time() + room.timers.idle.left()
    store.save = held_save  # type: ignore[method-assign]
    join = asyncio.ensure_future(room.join("Bob", hash_token(new_token())))
    await asyncio.sleep(0)  # the join holds the room's lock, waiting for its write
    # The loop is held up past both: the write ends, then the timer is due, in one step.
    loop.call_at(due - 0.05, lambda: time.sleep(0.1))
    loop.call_at(due - 0.001, written.set)
    assert await join == 1
    for _ in range(3):  # the ring's task runs to its end
        await asyncio.sleep(0)
    assert dropped == []
    assert room.closed_with is None
    assert room.timers.idle.key is not None  # set again by the join, for the whole idle time
