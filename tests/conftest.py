from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.databases import BACKENDS, fresh_database
from tests.server import Server, running_server


@pytest.fixture(scope="session")
def server() -> Iterator[Server]:
    """One real uvicorn server for the whole run, with default settings."""
    with running_server() as started:
        yield started


@pytest.fixture(params=BACKENDS)
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A new, empty database: SQLite, then the real PostgreSQL."""
    with fresh_database(request.param, tmp_path) as url:
        yield url
