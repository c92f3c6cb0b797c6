"""Schemathesis explores the OpenAPI schema of a real server.

It must find no server error and no answer that breaks the schema.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from schemathesis import checks

from tests.databases import BACKENDS, fresh_database
from tests.server import FAST, Server, running_server


@pytest.fixture(scope="module", params=BACKENDS)
def api_server(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Server]:
    """A server on SQLite, then on PostgreSQL."""
    folder: Path = tmp_path_factory.mktemp("schema")
    with fresh_database(request.param, folder) as url, running_server(url, **FAST) as server:
        yield server


def test_the_api_keeps_to_its_schema(api_server: Server) -> None:
    schema = schemathesis.openapi.from_url(f"{api_server.url}/openapi.json")
    operations = [result.ok() for result in schema.get_all_operations()]
    assert {operation.label for operation in operations} >= {
        "POST /api/score",
        "POST /api/rooms",
        "GET /api/matches/{match_id}",
        "GET /api/matches/{match_id}/rounds/{number}/moves",
        "GET /api/players/{name}",
        "GET /api/leaderboard",
    }
    for operation in operations:

        @given(case=operation.as_strategy())
        @settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
        def explore(case: Any) -> None:
            # Schema-valid but refused requests are fine (a 10-card room for 6 players is
            # well-formed JSON and still not allowed); errors and off-schema answers are not.
            case.call_and_validate(
                base_url=api_server.url, excluded_checks=[checks.positive_data_acceptance]
            )

        explore()
