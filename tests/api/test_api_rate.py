"""Requests under /api/ are limited per address: a burst, then a rate; past it they are
answered 429 with Retry-After and never reach the application. Pages, static files and health
checks are not counted, and each address has its own allowance."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from starlette.types import Message, Receive, Scope, Send

from app.api.addresses import limited_as
from app.api.middleware import ApiRate
from app.rooms.registry import WindowLimiter
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


def test_an_ipv6_network_of_64_bits_is_one_address(limited: Server) -> None:
    """A home or a server has a whole /64 to take addresses from: they count as one."""
    url = limited.url
    one_network = [f"2001:db8:5:7::{n:x}" for n in range(BURST + 1)]
    answers = [
        fetch.get(f"{url}/api/matches", headers=as_address(address)).status_code
        for address in one_network
    ]
    assert answers == [200] * BURST + [429]
    beside = fetch.get(f"{url}/api/matches", headers=as_address("2001:db8:5:8::1"))
    assert beside.status_code == 200


def test_what_the_limits_count_an_address_as() -> None:
    assert limited_as("203.0.113.9") == "203.0.113.9"
    assert limited_as("::ffff:203.0.113.9") == "203.0.113.9"
    network = "2001:db8:5:7::/64"
    assert limited_as("2001:db8:5:7:a:b:c:d") == limited_as("2001:db8:5:7::1") == network
    assert limited_as("2001:db8:5:8::1") == "2001:db8:5:8::/64"
    assert limited_as("testclient") == "testclient"


def test_each_address_has_its_own_allowance(limited: Server) -> None:
    url = limited.url
    for address in ("203.0.113.1", "203.0.113.2"):
        answers = [
            fetch.get(f"{url}/api/matches", headers=as_address(address)).status_code
            for _ in range(BURST + 1)
        ]
        assert answers == [200] * BURST + [429]


class Counted(ApiRate):
    """The middleware, its sweeps of idle addresses counted."""

    KEPT = 100
    sweeps = 0

    def _forget_idle(self) -> None:
        self.sweeps += 1
        super()._forget_idle()


async def test_many_addresses_at_once_cost_one_sweep_a_fill_time_not_one_each() -> None:
    """Past the addresses kept, a new one would walk them all for idle ones: while they are all
    busy nothing can go, and they are walked once until a bucket could have filled again."""
    answered: list[str] = []

    async def application(scope: Scope, receive: Receive, send: Send) -> None:
        answered.append(scope["client"][0])

    async def send(message: Message) -> None:
        raise AssertionError(f"refused: {message}")

    async def receive() -> Message:
        return {"type": "http.request", "body": b""}

    limiter = Counted(application, rate=0.001, burst=5)  # a bucket fills in 5,000 s
    addresses = [f"10.0.{n // 256}.{n % 256}" for n in range(3 * Counted.KEPT)]
    for address in addresses:
        scope = {"type": "http", "path": "/api/matches", "client": (address, 1)}
        await limiter(scope, receive, send)
    assert answered == addresses
    assert len(limiter.buckets) == len(addresses)
    assert limiter.sweeps == 1


class CountedWindow(WindowLimiter):
    """Room creations' and unknown codes' limiter, its sweeps of idle keys counted."""

    KEPT = 100
    sweeps = 0

    def _forget_idle(self, now: float) -> None:
        self.sweeps += 1
        super()._forget_idle(now)


def test_the_window_limiter_too_sweeps_once_a_window_while_every_key_is_busy() -> None:
    limiter = CountedWindow(limit=3, window=5_000)
    keys = [f"10.1.{n // 256}.{n % 256}" for n in range(3 * CountedWindow.KEPT)]
    assert all(limiter.hit(key) for key in keys)
    assert len(limiter.events) == len(keys)
    assert limiter.sweeps == 1


def test_an_event_given_back_is_the_one_counted_not_a_later_one() -> None:
    """A creation refused gives back its own count: the newest stamp taken instead (a creation
    made meanwhile) left the refused one's earlier stamp, which frees its place sooner."""
    limiter = WindowLimiter(limit=2, window=60)
    refused = limiter.counted("10.0.0.1")
    made = limiter.counted("10.0.0.1")
    assert refused is not None
    assert made is not None
    assert limiter.counted("10.0.0.1") is None  # full
    limiter.give_back("10.0.0.1", refused)
    assert list(limiter.events["10.0.0.1"]) == [made]
    assert limiter.hit("10.0.0.1")
    assert not limiter.hit("10.0.0.1")
