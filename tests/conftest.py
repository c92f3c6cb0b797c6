from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.server import Server, running_server


@pytest.fixture(scope="session")
def server() -> Iterator[Server]:
    """One real uvicorn server for the whole run, with default settings."""
    with running_server() as started:
        yield started
