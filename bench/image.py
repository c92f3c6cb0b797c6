"""The container image: its size, and its start from `docker run` to /readyz answering 200.

Run: .venv/bin/python -m bench.image [--runs N] [--build]
Needs a Docker engine and the base images (bash tests/ops/docker_engine.sh) and the local
PostgreSQL (TEST_DATABASE_URL). Three cases, each a median of N runs: PostgreSQL already at the
newest migration (a restart), a new PostgreSQL database (migrations run), a new SQLite volume.
"""

from __future__ import annotations

import argparse
import json
import secrets
import statistics
import time

import httpx

from tests.databases import postgres_database
from tests.ops.docker import IMAGE, build_image, docker
from tests.server import free_port, migrate


def started_in(env: dict[str, str], *options: str) -> float:
    """Seconds from `docker run` to the first 200 from /readyz."""
    port = free_port()
    name = f"spectrum-bench-{secrets.token_hex(3)}"
    settings = [f"--env={key}={value}" for key, value in {**env, "PORT": str(port)}.items()]
    began = time.perf_counter()
    docker("run", "-d", "--name", name, "--network", "host", *settings, *options, IMAGE)
    try:
        while True:
            try:
                if httpx.get(f"http://127.0.0.1:{port}/readyz", timeout=1).status_code == 200:
                    return time.perf_counter() - began
            except httpx.TransportError:
                pass
            if time.perf_counter() - began > 120:
                raise RuntimeError(docker("logs", name, check=False).stderr[-2000:])
            time.sleep(0.01)
    finally:
        docker("rm", "-f", name, check=False)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--build", action="store_true", help="build the image from the checkout")
    arguments = parser.parse_args()
    if arguments.build:
        build_image()
    size = json.loads(docker("image", "inspect", IMAGE).stdout)[0]["Size"]
    base = json.loads(docker("image", "inspect", "python:3.11.11-slim-bookworm").stdout)[0]["Size"]
    print(f"image {size / 1e6:.0f} MB, of which the base image {base / 1e6:.0f} MB")
    cases: dict[str, list[float]] = {"postgres at head": [], "new postgres": [], "new sqlite": []}
    for _ in range(arguments.runs):
        with postgres_database() as url:
            migrate(url)
            cases["postgres at head"].append(started_in({"DATABASE_URL": url}))
        with postgres_database() as url:
            cases["new postgres"].append(started_in({"DATABASE_URL": url}))
        volume = f"spectrum-bench-{secrets.token_hex(3)}"
        try:
            cases["new sqlite"].append(started_in({}, f"-v{volume}:/srv/spectrum/data"))
        finally:
            docker("volume", "rm", "-f", volume, check=False)
    for case, seconds in cases.items():
        print(
            f"{case:18} median {statistics.median(seconds):.2f} s "
            f"(min {min(seconds):.2f}, max {max(seconds):.2f}, {len(seconds)} runs)"
        )


if __name__ == "__main__":
    main()
