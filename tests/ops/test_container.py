"""The Dockerfile and docker-compose.yml, checked without a Docker engine."""

from __future__ import annotations

import re
import shutil
import subprocess
import tomllib
from typing import Any

import yaml

from app.config import Settings
from tests.server import ROOT

SETTINGS = {name.upper() for name in Settings.model_fields}


def compose() -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    return data


def dockerfile() -> list[str]:
    """Instructions, continuation lines joined."""
    text = (ROOT / "Dockerfile").read_text().replace("\\\n", " ")
    return [line.strip() for line in text.splitlines() if line.strip() and not line.startswith("#")]


def test_compose_has_postgres_and_the_app() -> None:
    services = compose()["services"]
    assert set(services) == {"db", "app"}
    db, app = services["db"], services["app"]
    assert db["image"] == "postgres:16"
    volume = db["volumes"][0].split(":")
    assert volume[1] == "/var/lib/postgresql/data"
    assert volume[0] in compose()["volumes"]
    assert "pg_isready" in " ".join(db["healthcheck"]["test"])
    assert app["build"] == "."
    assert app["depends_on"] == {"db": {"condition": "service_healthy"}}
    assert app["restart"] == db["restart"] == "unless-stopped"
    assert app["ports"] == ["${PORT:-8000}:8000"]
    assert set(app["environment"]) <= SETTINGS
    assert app["environment"]["PORT"] == "8000"
    url = app["environment"]["DATABASE_URL"]
    assert url.startswith("postgresql+asyncpg://spectrum:")
    assert url.endswith("@db:5432/spectrum")
    assert db["environment"]["POSTGRES_DB"] == "spectrum"
    assert db["environment"]["POSTGRES_USER"] == "spectrum"


def test_dockerfile_builds_a_small_non_root_image() -> None:
    lines = dockerfile()
    stages = [line for line in lines if line.startswith("FROM ")]
    assert len(stages) >= 2
    assert all("-slim" in stage for stage in stages)
    users = [line.split()[1] for line in lines if line.startswith("USER ")]
    assert users
    assert users[-1].split(":")[0] not in ("0", "root")
    assert any(line.startswith("RUN ") and "requirements.lock" in line for line in lines)
    (healthcheck,) = [line for line in lines if line.startswith("HEALTHCHECK ")]
    assert "/healthz" in healthcheck
    port = next(line.split()[1] for line in lines if line.startswith("EXPOSE "))
    env = " ".join(line[4:] for line in lines if line.startswith("ENV "))
    declared = dict(re.findall(r"(\w+)=(\S+)", env))
    assert declared["PORT"] == port == "8000"
    assert declared["HOST"] == "0.0.0.0"
    assert {name for name in declared if not name.startswith(("PYTHON", "PATH", "PIP"))} <= SETTINGS
    for line in lines:
        if line.startswith("COPY ") and "--from" not in line:
            for source in line.split()[1:-1]:
                assert (ROOT / source).exists(), source
    entry = next(line for line in lines if line.startswith("ENTRYPOINT"))
    assert "spectrum-start" in entry


def test_hadolint_finds_nothing() -> None:
    hadolint = shutil.which("hadolint") or str(ROOT / ".venv" / "bin" / "hadolint")
    result = subprocess.run(
        [hadolint, str(ROOT / "Dockerfile")], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stdout + result.stderr


def pins(path: str) -> dict[str, str]:
    found = {}
    for line in (ROOT / path).read_text().splitlines():
        if "==" in line:
            name, version = line.split("==")
            found[name.lower().replace("_", "-")] = version
    return found


def test_the_image_installs_pinned_dependencies() -> None:
    lock, constraints = pins("requirements.lock"), pins("constraints.txt")
    for name, version in lock.items():
        assert constraints.get(name) == version, name
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    for requirement in project["dependencies"]:
        name = re.split(r"[\[<>=]", requirement)[0].lower().replace("_", "-")
        assert name in lock, name


def test_start_script_waits_migrates_and_serves() -> None:
    script = (ROOT / "docker" / "start.sh").read_text().splitlines()
    commands = [line for line in script if line and not line.startswith(("#", "set "))]
    assert commands == [
        "python -m app.wait_for_database",
        "alembic upgrade head",
        "exec python -m app",
    ]
