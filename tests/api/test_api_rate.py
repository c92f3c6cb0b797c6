"""Requests under /api/ are limited per address: a burst, then a rate; past it they are
answered 429 with Retry-After and never reach the application. Pages, static files and health
checks are not counted, and each address has its own allowance."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest

from tests import fetch
from tests.server import Server, running_server

TRIPO = ["1-circle-violet", "2-crescent-cyan", "3-triangle-yellow", "4-square-orange", "5-star-red"]
BURST = 5


@pytest.fixture(scope="module")
def limited() -> Iterator[Server]:
    """A server allowing five API requests an address, then one every 1,000 s."""
    with running_server(API_REQUESTS_PER_SECOND="0.001", API_REQUEST_BURST=str(BURST)) as server:
        yield server


def as_address(address: str) -> dict[str, str]:
    """Headers of a request the trusted proxy (127.0.0.1) forwards for ``address``."""
    return {"X-Forwarded-For": address}


def test_past_the_burst_api_requests_are_refused_429_and_reach_nothing(limited: Server) -> None:
    url = limited.url
    headers = as_address("198.51.100.7")
    for _ in range(BURST):
        answer = fetch.post(f"{url}/api/score", json={"cards": TRIPO}, headers=headers)
        assert answer.status_code == 200
    refused = fetch.post(f"{url}/api/rooms", json={"name": "Ann"}, headers=headers)
    assert refused.status_code == 429
    assert refused.json() == {"detail": "too many requests; slow down", "code": "too_many_requests"}
    assert int(refused.headers["retry-after"]) >= 1
    assert fetch.get(f"{url}/api/matches", headers=headers).status_code == 429
    # The refused room was never made: from another address, nothing was made at all.
    other = as_address("198.51.100.8")
    metrics = fetch.get(f"{url}/metrics", headers=other).text
    assert re.search(r"^spectrum_rooms 0\.0$", metrics, re.M)
    # Pages, static files and health checks are not counted.
    assert fetch.get(f"{url}/", headers=headers).status_code == 200
    assert fetch.get(f"{url}/static/js/room.js", headers=headers).status_code == 200
    assert fetch.get(f"{url}/healthz", headers=headers).status_code == 200


def test_each_address_has_its_own_allowance(limited: Server) -> None:
    url = limited.url
    for address in ("203.0.113.1", "203.0.113.2"):
        answers = [
            fetch.get(f"{url}/api/matches", headers=as_address(address)).status_code
            for _ in range(BURST + 1)
        ]
        assert answers == [200] * BURST + [429]
