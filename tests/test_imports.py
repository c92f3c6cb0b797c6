"""What starting the server imports: Alembic only when a migration must run, Redis and the
cluster's modules only for a node of a cluster, all with garbage collection off."""

import ast
import subprocess
import sys

import pytest

from tests.server import ROOT


def printed(code: str) -> object:
    """What a new interpreter running ``code`` in the project prints (a Python literal)."""
    run = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    return ast.literal_eval(run.stdout)


def imported(module: str, prefixes: tuple[str, ...]) -> list[str]:
    """The modules starting with one of ``prefixes`` that importing ``module`` loads."""
    listed = printed(
        f"import sys, {module}; print(sorted(m for m in sys.modules if m.startswith({prefixes!r})))"
    )
    assert isinstance(listed, list)
    return listed


@pytest.mark.parametrize("module", ["app.main", "app.scripts.start"])
def test_starting_the_server_does_not_import_alembic(module: str) -> None:
    assert imported(module, ("alembic",)) == []


@pytest.mark.parametrize("module", ["app.main", "app.scripts.start"])
def test_a_server_of_one_node_loads_neither_redis_nor_the_cluster(module: str) -> None:
    # Only where a room held by another node would be said (the routes name it).
    assert set(imported(module, ("redis", "app.cluster."))) <= {"app.cluster.moved"}


def test_the_start_imports_with_collection_off() -> None:
    assert printed("import gc, app.scripts.start; print(gc.isenabled())") is False
