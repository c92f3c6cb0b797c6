from __future__ import annotations

import pytest

from tests.rooms.local import Host
from tests.server import Server


@pytest.fixture(scope="session")
def rooms_server(server: Server) -> Server:
    """The real server shared by the whole run, whose rate limits are out of fast clients' way."""
    return server


@pytest.fixture
def rooms() -> Host:
    """Rooms held in this process, with a clock moved by hand and a store in memory."""
    return Host()
