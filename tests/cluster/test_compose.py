"""The cluster's compose file and nginx configuration agree, and nginx accepts the configuration."""

from __future__ import annotations

import re
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import yaml

from tests.cluster.harness import NGINX, need_nginx, nginx_config
from tests.ops.test_container import SETTINGS
from tests.server import ROOT


def compose() -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load((ROOT / "docker-compose.cluster.yml").read_text())
    return data


def test_every_node_has_its_own_id_and_its_upstream() -> None:
    services = compose()["services"]
    nodes = {name: spec for name, spec in services.items() if name.startswith("node-")}
    ids = [spec["environment"]["NODE_ID"] for spec in nodes.values()]
    assert len(ids) == 3
    assert len(set(ids)) == 3
    config = (ROOT / "docker" / "nginx.conf").read_text()
    upstreams = set(re.findall(r"upstream (node-\d+) \{", config))
    members = set(re.findall(r"server (node-\d+):8000 ", config))
    assert upstreams == members == set(ids)
    for spec in nodes.values():
        assert spec["environment"]["REDIS_URL"].startswith("redis://")
        assert spec["environment"]["DATABASE_URL"].startswith("postgresql+asyncpg://")
        assert "ports" not in spec  # reached through nginx only
    # The folder is mounted, so that a new nginx.conf (an editor's, git's) is what a reload reads.
    assert services["nginx"]["volumes"] == ["./docker:/etc/nginx/spectrum:ro"]
    assert services["nginx"]["command"][:3] == ["nginx", "-c", "/etc/nginx/spectrum/nginx.conf"]


def test_every_setting_passes_through_from_env_to_every_node() -> None:
    """As in docker-compose.yml, every setting in .env reaches the nodes (most were dropped
    without a word: the limits, the timings, CLUSTER_NAME), but for the address and port
    inside the container, the node's own id, and its path, which nginx.conf routes."""
    for name, spec in compose()["services"].items():
        if not name.startswith("node-"):
            continue
        environment = spec["environment"]
        assert set(environment) == SETTINGS - {"HOST", "PORT", "NODE_PATH"}, name
        fixed = {
            "DATABASE_URL": "postgresql+asyncpg://spectrum@db:5432/spectrum",
            "DATABASE_PASSWORD": "${POSTGRES_PASSWORD:-spectrum}",
            "REDIS_URL": "redis://redis:6379/0",
            "LOG_JSON": "${LOG_JSON:-true}",
            "FORWARDED_ALLOW_IPS": "*",  # nginx is the only way in
            "OUTBOX_PATH": "${OUTBOX_PATH:-/srv/spectrum/data/spectrum-outbox}",
            "NODE_ID": name,
        }
        for setting, value in environment.items():
            assert value == fixed.get(setting, f"${{{setting}:-}}"), (name, setting)


def test_the_single_node_compose_file_stays_the_default() -> None:
    single = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    assert "redis" not in single["services"]
    assert "REDIS_URL" not in single["services"]["app"]["environment"]


def test_nginx_accepts_the_configuration() -> None:
    need_nginx()
    with tempfile.TemporaryDirectory() as folder:
        place = Path(folder)
        config = place / "nginx.conf"
        config.write_text(nginx_config(8080, {"node-1": 9001, "node-2": 9002}, place))
        result = subprocess.run(
            [NGINX, "-t", "-p", folder, "-c", str(config)], capture_output=True, text=True
        )
        assert result.returncode == 0, result.stderr
