"""Rooms nobody is connected to are dropped after ROOM_IDLE_SECONDS (here 0.5 s).

That the server then knows no such room is checked over sockets; which rooms are kept and
which dropped, in this process with a clock moved by hand."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest

from app.rooms.live import RoomConfig
from tests.rooms.client import api, closed_with, create_room, join_room
from tests.rooms.local import Host, LocalClient
from tests.server import FAST, Server, running_server

pytestmark = pytest.mark.usefixtures("closing_clients")


@pytest.fixture(scope="module")
def idle_server() -> Iterator[Server]:
    with running_server(**{**FAST, "ROOM_IDLE_SECONDS": "0.5"}) as server:
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
