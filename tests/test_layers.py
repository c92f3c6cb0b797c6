"""The layers: the rules import no players, and neither imports rooms, storage or the web."""

import ast
from pathlib import Path

import pytest

APP = Path(__file__).resolve().parents[1] / "app"
SERVER = ("app.rooms", "app.storage", "app.api", "fastapi", "pydantic", "sqlalchemy", "asyncio")


def imports(package: str) -> set[str]:
    """Every module named in an import statement of ``app/<package>``."""
    found: set[str] = set()
    for path in (APP / package).glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module is not None:
                found.add(node.module)
            elif isinstance(node, ast.Import):
                found.update(alias.name for alias in node.names)
    return found


@pytest.mark.parametrize(
    ("package", "forbidden"), [("engine", ("app.bots", *SERVER)), ("bots", SERVER)]
)
def test_a_layer_imports_nothing_above_it(package: str, forbidden: tuple[str, ...]) -> None:
    found = imports(package)
    assert any(module.startswith("app.engine") for module in found)
    above = {
        module
        for module in found
        for layer in forbidden
        if module == layer or module.startswith(f"{layer}.")
    }
    assert above == set()
