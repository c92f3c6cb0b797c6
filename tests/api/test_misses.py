"""Unknown room codes count against the address wherever a room is looked up: the API, the
room's page, its QR code and the WebSocket."""

from __future__ import annotations

from collections.abc import Iterator
from urllib.parse import quote

import pytest

from tests import fetch
from tests.api.test_pages import the_page
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
    # A room that exists is found as ever: only unknown codes are counted and refused.
    known = fetch.get(f"{url}/r/{room['code']}")
    assert known.status_code == 200
    assert known.text == the_page(url)
    assert fetch.get(f"{url}/api/rooms/{room['code']}/qr.svg").status_code == 200
    assert fetch.get(f"{url}/api/rooms/{room['code']}").status_code == 200


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
