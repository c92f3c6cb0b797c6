from __future__ import annotations

import gc
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.databases import BACKENDS, fresh_database
from tests.server import FAST, ZYGOTE, Server, drop_templates, running_server


@pytest.fixture(scope="session")
def server() -> Iterator[Server]:
    """One real uvicorn server for the whole run (for each test process), shared by every test
    that needs no settings of its own: rate limits are out of the way of fast test clients."""
    with running_server(**FAST) as started:
        yield started


@pytest.fixture(params=BACKENDS)
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A new, empty database: SQLite, then the real PostgreSQL."""
    with fresh_database(request.param, tmp_path) as url:
        yield url


# Suites by how long they run, longest first (the longest single modules, then those that
# start a browser, Docker or servers for each test), the rest after: test processes side by
# side (make test) take the longest up at the start, instead of one process being left with a
# long module at the end while the others wait.
LONG_FIRST = (
    "tests/cluster/test_compose_up.py",
    "tests/ops/test_image.py",
    "tests/e2e/test_lang.py",
    "tests/e2e/test_connection.py",
    "tests/cluster/test_failover.py",
    "tests/e2e/test_access.py",
    "tests/cluster/test_drain.py",
    "tests/e2e/test_shell.py",
    "tests/e2e/test_screens.py",
    "tests/e2e/test_play.py",
    "tests/e2e/",
    "tests/faults/",
    "tests/ops/",
    "tests/cluster/",
    "tests/storage/",
    "tests/api/test_schema.py",
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    def rank(item: pytest.Item) -> int:
        path = item.nodeid
        return next((n for n, where in enumerate(LONG_FIRST) if path.startswith(where)), 99)

    items.sort(key=rank)


def pytest_collection_finish(session: pytest.Session) -> None:
    """What the imports and the collection made lives as long as the test process: the
    collector stops going through it each time it collects the oldest generation."""
    gc.collect()
    gc.freeze()


# Modules whose tests each start servers (or a cluster) of their own and share nothing: with
# test processes side by side each of their tests is a unit of work on its own, so that the
# longest modules are not played end to end by one process while the other has finished.
EACH_TEST_APART = (
    "tests/cluster/test_failover.py",
    "tests/cluster/test_drain.py",
    "tests/e2e/test_connection.py",
    "tests/e2e/test_access.py",
    "tests/rooms/test_restarted_standin.py",
    "tests/faults/",
    "tests/storage/test_restart.py",
)

# Modules that build the image and run containers of it: one after the other in one test
# process, so that the image is built once and the Docker engine runs one stack at a time.
DOCKER = ("tests/cluster/test_compose_up.py", "tests/ops/test_image.py")


def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """Whole modules to each test process (--dist loadscope), but the tests of the modules in
    EACH_TEST_APART one by one, and the DOCKER modules together."""
    if config.getvalue("dist") != "loadscope":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class Scheduling(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            if nodeid.startswith(DOCKER):
                return "docker"
            if nodeid.startswith(EACH_TEST_APART):
                return nodeid
            scope: str = super()._split_scope(nodeid)
            return scope

    return Scheduling(config, log)


def pytest_unconfigure(config: pytest.Config) -> None:
    """End the process test servers are forked from (and any server it left running), and drop
    the migrated PostgreSQL database test databases were copied from."""
    ZYGOTE.close()
    drop_templates()
