"""The Dockerfile and docker-compose.yml, checked without a Docker engine."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import tomllib
from typing import Any

import pytest
import yaml

from app.config import Settings
from app.scripts.healthcheck import health_url
from app.settings_checks import CLUSTER_SETTINGS
from tests.server import ROOT

SETTINGS = {name.upper() for name in Settings.model_fields}


def compose() -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    return data


def test_no_frontend_image_is_needed_to_build() -> None:
    """A `# syntax=` line makes BuildKit pull a frontend image: offline builds would fail."""
    assert "syntax=" not in (ROOT / "Dockerfile").read_text().splitlines()[0]


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
    assert app["ports"] == ["${BIND_ADDRESS:-}${BIND_ADDRESS:+:}${PORT:-8000}:8000"]
    assert "env_file" not in app  # its optional form needs Compose 2.24
    environment = app["environment"]
    # Every setting but the address and port inside the container passes through from .env;
    # the cluster's are docker-compose.cluster.yml's: one node here, with no Redis.
    cluster = {"REDIS_URL", *(name.upper() for name in CLUSTER_SETTINGS)}
    assert set(environment) == SETTINGS - {"HOST", "PORT"} - cluster
    for name, value in environment.items():
        if name not in ("DATABASE_URL", "DATABASE_PASSWORD", "LOG_JSON", "OUTBOX_PATH"):
            assert value == f"${{{name}:-}}", name
    assert environment["DATABASE_URL"] == "postgresql+asyncpg://spectrum@db:5432/spectrum"
    assert environment["DATABASE_PASSWORD"] == db["environment"]["POSTGRES_PASSWORD"]
    assert environment["LOG_JSON"] == "${LOG_JSON:-true}"
    # In the app's volume, where the server may write, and kept when the container is replaced.
    assert environment["OUTBOX_PATH"] == "${OUTBOX_PATH:-/srv/spectrum/data/spectrum-outbox}"
    assert app["volumes"] == ["app-data:/srv/spectrum/data"]
    assert "app-data" in compose()["volumes"]
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
    assert healthcheck.endswith('CMD ["python", "-m", "app.scripts.healthcheck"]')
    port = next(line.split()[1] for line in lines if line.startswith("EXPOSE "))
    env = " ".join(line[4:] for line in lines if line.startswith("ENV "))
    declared = dict(re.findall(r"(\w+)=(\S+)", env))
    assert declared["PORT"] == port == "8000"
    assert declared["HOST"] == "0.0.0.0"
    assert "FORWARDED_ALLOW_IPS" not in declared  # trusting anyone's X-Forwarded-For
    data = declared["DATABASE_URL"].removeprefix("sqlite+aiosqlite:///").rsplit("/", 1)[0]
    (volume,) = [line for line in lines if line.startswith("VOLUME ")]
    assert data in volume
    assert any(f"chown 10001:10001 {data}" in line for line in lines if line.startswith("RUN "))
    assert {name for name in declared if not name.startswith(("PYTHON", "PATH", "PIP"))} <= SETTINGS
    for line in lines:
        if line.startswith("COPY ") and "--from" not in line:
            for source in line.split()[1:-1]:
                assert (ROOT / source).exists(), source
    entry = next(line for line in lines if line.startswith("ENTRYPOINT"))
    assert entry == 'ENTRYPOINT ["python", "-m", "app.scripts.start"]'


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


@pytest.mark.parametrize(
    ("host", "port", "url"),
    [
        ("0.0.0.0", "8000", "http://127.0.0.1:8000/healthz"),
        ("", "8015", "http://127.0.0.1:8015/healthz"),
        ("::", "9000", "http://[::1]:9000/healthz"),  # IPv6 alone: nothing on 127.0.0.1
        ("[::]", "9000", "http://[::1]:9000/healthz"),
        ("0.0.0.0", "8000.0", "http://127.0.0.1:8000/healthz"),  # the server reads 8000
        ("10.1.2.3", "8015", "http://10.1.2.3:8015/healthz"),
        ("fd00::5", "8015", "http://[fd00::5]:8015/healthz"),
    ],
)
def test_the_health_check_asks_the_servers_own_port(host: str, port: str, url: str) -> None:
    assert health_url({"HOST": host, "PORT": port}) == url


def configured(file: str, bind: str | None) -> dict[str, Any]:
    """``file`` as `docker compose config` gives it, with BIND_ADDRESS ``bind`` (or unset)."""
    env = {key: value for key, value in os.environ.items() if key not in ("BIND_ADDRESS", "PORT")}
    if bind:
        env["BIND_ADDRESS"] = bind
    command = ["docker", "compose", "-f", str(ROOT / file), "config", "--format", "json"]
    try:
        done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=60)
        problem = None if done.returncode == 0 else f"docker compose config: {done.stderr}"
    except OSError as error:
        problem = f"no docker CLI ({error})"
    if problem is not None:
        if os.environ.get("REQUIRE_DOCKER") == "1":
            pytest.fail(f"REQUIRE_DOCKER=1 but {problem}")
        pytest.skip(problem)
    data: dict[str, Any] = json.loads(done.stdout)
    return data


@pytest.mark.parametrize(("bind", "host_ip"), [(None, None), ("127.0.0.1", "127.0.0.1")])
def test_the_port_is_published_on_every_address_unless_one_is_named(
    bind: str | None, host_ip: str | None
) -> None:
    """Without BIND_ADDRESS the port is published as Docker publishes it by default, on IPv4
    and IPv6 alike (0.0.0.0 alone left IPv6 clients out); with it, on that address only."""
    [port] = configured("docker-compose.yml", bind)["services"]["app"]["ports"]
    assert (port["published"], port["target"]) == ("8000", 8000)
    assert port.get("host_ip") == host_ip
