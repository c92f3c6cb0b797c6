from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.rooms.local import Host
from tests.server import Server, running_server

FAST = {
    "MESSAGES_PER_SECOND": "10000",
    "MESSAGE_BURST": "10000",
    "CONNECTIONS_PER_ADDRESS": "1000",
    "PENDING_CONNECTIONS_PER_ADDRESS": "1000",
    "ROOMS_PER_ADDRESS_PER_MINUTE": "10000",
    "ROOM_MISSES_PER_MINUTE": "10000",
    "READY_SECONDS": "2",
}


@pytest.fixture(scope="session")
def rooms_server() -> Iterator[Server]:
    """A real server whose rate limits are out of the way of fast test clients."""
    with running_server(**FAST) as started:
        yield started


@pytest.fixture
def rooms() -> Host:
    """Rooms held in this process, with a clock moved by hand and a store in memory."""
    return Host()
