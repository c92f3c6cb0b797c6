"""What starting the server imports: Alembic only when a migration must run, Redis and the
cluster's modules only for a node of a cluster, all with garbage collection off."""

import ast
import functools
import subprocess
import sys

import pytest

from tests.server import ROOT


@functools.cache
def started(module: str) -> tuple[list[str], bool]:
    """What a new interpreter importing ``module`` in the project has loaded (every module's
    name), and whether garbage collection is on after it; once per module for the tests here."""
    code = f"import gc, sys, {module}; print((sorted(sys.modules), gc.isenabled()))"
    run = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    modules, collecting = ast.literal_eval(run.stdout)
    assert isinstance(modules, list)
    assert module in modules
    return modules, collecting


def imported(module: str, prefixes: tuple[str, ...]) -> list[str]:
    """The modules starting with one of ``prefixes`` that importing ``module`` loads."""
    return [name for name in started(module)[0] if name.startswith(prefixes)]


@pytest.mark.parametrize("module", ["app.main", "app.scripts.start"])
def test_starting_the_server_does_not_import_alembic(module: str) -> None:
    assert imported(module, ("alembic",)) == []


@pytest.mark.parametrize("module", ["app.main", "app.scripts.start"])
def test_a_server_of_one_node_loads_neither_redis_nor_the_cluster(module: str) -> None:
    # Only where a room held by another node would be said (the routes name it).
    assert set(imported(module, ("redis", "app.cluster."))) <= {"app.cluster.moved"}


def test_the_start_imports_with_collection_off() -> None:
    assert started("app.scripts.start")[1] is False
