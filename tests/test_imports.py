"""What starting the server imports: Alembic only when a migration must run."""

import subprocess
import sys

import pytest

from tests.server import ROOT


@pytest.mark.parametrize("module", ["app.main", "app.scripts.start"])
def test_starting_the_server_does_not_import_alembic(module: str) -> None:
    code = f"import sys, {module}; print(sorted(m for m in sys.modules if m.startswith('alembic')))"
    run = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert run.stdout.strip() == "[]"
