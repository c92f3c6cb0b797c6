"""Unknown room codes count against the address wherever a room is looked up: the API, the
room's page, its QR code and the WebSocket."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from urllib.parse import quote

import pytest

from app.api.deps import Miss, find_room
from app.rooms import registry as registry_module
from app.rooms.live import RoomConfig
from app.rooms.registry import RoomRegistry, WindowLimiter
from app.rooms.settings import RoomSettings
from tests import fetch
from tests.rooms.client import closed_with
from tests.server import FAST, Server, running_server


@pytest.fixture(scope="module")
def guarded_server() -> Iterator[Server]:
    """A server allowing three unknown room codes per address and minute."""
    with running_server(ROOM_MISSES_PER_MINUTE="3") as started:
        yield started


async def test_every_lookup_counts_unknown_codes_and_refuses_past_the_limit(
    guarded_server: Server,
) -> None:
    url = guarded_server.url
    room = fetch.post(url + "/api/rooms", json={"name": "Ann"}).json()
    assert [fetch.get(f"{url}/r/2345-678{n}").status_code for n in (2, 3)] == [200, 200]
    closed, _ = await closed_with(guarded_server, "2345-6784", {"type": "hello", "spectate": True})
    assert closed == 4004
    page = fetch.get(f"{url}/r/2345-6785")
    answer = fetch.get(f"{url}/api/rooms/2345-6786")
    assert page.status_code == answer.status_code == 429
    assert page.headers["content-type"] == answer.headers["content-type"] == "application/json"
    assert page.json() == answer.json()
    assert page.json()["code"] == "too_many_misses"
    assert 1 <= int(page.headers["retry-after"]) <= 60
    assert fetch.get(f"{url}/api/rooms/2345-6787/qr.svg").status_code == 429
    assert fetch.post(f"{url}/api/rooms/2345-6788/join", json={"name": "Bo"}).status_code == 429
    closed, _ = await closed_with(guarded_server, "2345-6789", {"type": "hello", "spectate": True})
    assert closed == 4029
    # Past the limit a room that exists is refused as an unknown code is, with the same answer:
    # a refusal that came only for unknown codes would tell which codes are rooms. Its players
    # are refused too, their token unread (a socket is closed before its hello).
    known = fetch.get(f"{url}/r/{room['code']}")
    assert known.status_code == 429
    assert known.json() == page.json()
    assert fetch.get(f"{url}/api/rooms/{room['code']}/qr.svg").status_code == 429
    assert fetch.get(f"{url}/api/rooms/{room['code']}").json() == answer.json()
    joined = fetch.post(f"{url}/api/rooms/{room['code']}/join", json={"name": "Bo"})
    assert joined.status_code == 429
    closed, reason = await closed_with(
        guarded_server, room["code"], {"type": "hello", "token": room["token"]}
    )
    assert (closed, reason) == (4029, "too many unknown room codes; wait a minute")
    # Another address finds the room as ever.
    other = fetch.get(
        f"{url}/api/rooms/{room['code']}", headers={"X-Forwarded-For": "198.51.100.7"}
    )
    assert other.status_code == 200


def test_past_the_limit_a_room_is_found_again_once_the_minute_is_out(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    registry = RoomRegistry(RoomConfig(), 10)
    room, _ = asyncio.run(registry.create("Ann", RoomSettings()))
    clock = [1000.0]
    monkeypatch.setattr(registry_module.time, "monotonic", lambda: clock[0])
    misses = WindowLimiter(2, 60)
    address = "192.0.2.1"
    assert find_room(registry, misses, room.state.code, address) is room
    assert [find_room(registry, misses, f"ABCD-EFG{n}", address) for n in (2, 3, 4)] == [
        Miss.UNKNOWN,
        Miss.UNKNOWN,
        Miss.TOO_MANY,
    ]
    clock[0] += 59.9
    assert find_room(registry, misses, room.state.code, address) is Miss.TOO_MANY
    assert find_room(registry, misses, room.state.code, "192.0.2.2") is room
    clock[0] += 0.1
    assert find_room(registry, misses, room.state.code, address) is room
    assert find_room(registry, misses, "ABCD-EFG5", address) is Miss.UNKNOWN


@pytest.fixture(scope="module")
def server() -> Iterator[Server]:
    with running_server(**FAST) as started:
        yield started


def test_an_absent_room_is_named_as_its_code_is_written(server: Server) -> None:
    answer = fetch.get(f"{server.url}/api/rooms/k7qm 2xpd")
    assert answer.status_code == 404
    assert answer.json() == {"detail": "there is no room K7QM-2XPD", "code": "no_room"}


@pytest.mark.parametrize(
    "code", ["A" * 3000, "<img src=x onerror=alert(1)>", "2345-678", "abc\u00a0déf"]
)
def test_what_cannot_be_a_code_is_not_said_back(server: Server, code: str) -> None:
    for path in (f"/api/rooms/{quote(code, safe='')}", f"/api/rooms/{quote(code, safe='')}/qr.svg"):
        answer = fetch.get(server.url + path)
        assert answer.status_code == 404
        assert answer.json()["code"] == "no_room"
        assert "8 letters and digits" in answer.json()["detail"]
        assert code not in answer.text
    joined = fetch.post(f"{server.url}/api/rooms/{quote(code, safe='')}/join", json={"name": "Bo"})
    assert joined.status_code == 404
    assert code not in joined.text
