"""Unknown room codes count against the address wherever a room is looked up: the API, the
room's page, its QR code and the WebSocket."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests import fetch
from tests.rooms.client import closed_with
from tests.server import Server, running_server

FRONTEND = Path(__file__).resolve().parents[2] / "frontend"


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
    # A room that exists is found as ever: only unknown codes are counted and refused.
    known = fetch.get(f"{url}/r/{room['code']}")
    assert known.status_code == 200
    assert known.text == (FRONTEND / "index.html").read_text()
    assert fetch.get(f"{url}/api/rooms/{room['code']}/qr.svg").status_code == 200
    assert fetch.get(f"{url}/api/rooms/{room['code']}").status_code == 200
