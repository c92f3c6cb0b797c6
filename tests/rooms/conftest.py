from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import pytest

from tests.rooms.client import close_all
from tests.rooms.local import Host
from tests.server import FAST, Server, running_server


@pytest.fixture(scope="session")
def rooms_server(server: Server) -> Server:
    """The real server shared by the whole run, whose rate limits are out of fast clients' way."""
    return server


@pytest.fixture
def rooms() -> Host:
    """Rooms held in this process, with a clock moved by hand and a store in memory."""
    return Host()


@pytest.fixture
async def closing_clients() -> AsyncIterator[None]:
    """Every connection a test opened closed after it, even when it failed (a module asks for
    it with ``pytestmark = pytest.mark.usefixtures("closing_clients")``)."""
    yield
    await close_all()


@pytest.fixture
def own_server() -> Iterator[Server]:
    """A server of the test's own on an SQLite file, which it may kill and start again; no
    stand-in plays for a player who is away, and the host's role passes as soon as the room
    needs a host."""
    with running_server(**FAST, STANDIN_SECONDS="600", HOST_GRACE_SECONDS="0") as started:
        yield started
