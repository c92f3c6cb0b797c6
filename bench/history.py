"""The history's reads against a large history: how long each answer takes.

Fills a new SQLite database (in a temporary folder) with ``--matches`` finished 3-round matches
of 4 people drawn from ``--people``, written by the server's own store, then starts the server
on it the way `make run` does and times each request ``--repeats`` times: the leaderboard (its
first reading, then as kept between requests), a page of matches (of 20, and of 100), a page of
one player's matches, a player's page and a match, each as it is (``Accept-Encoding:
identity``) and gzipped, with the bytes of its body as sent.

Run: .venv/bin/python -m bench.history [--matches 10000] [--people 3000] [--repeats 5]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

from app.engine.match import Match
from app.rooms.settings import RoomSettings
from app.rooms.store import FinishedRound
from app.storage.db import make_engine
from app.storage.store import DatabaseStore
from tests.server import ROOT, free_port, migrate

BATCH = 300


async def fill(url: str, matches: int, people: int) -> None:
    """``matches`` finished matches, each of 3 rounds and 4 people."""
    store = DatabaseStore(make_engine(url), flush_seconds=0)
    store.start()
    rng = random.Random(1)
    settings = RoomSettings.model_validate({"rounds": 3})
    batch: list[FinishedRound] = []
    try:
        for index in range(matches):
            names = tuple(f"Player {n}" for n in rng.sample(range(people), 4))
            match = Match(4, settings.rules, f"seed-{index}")
            while len(match.results) < 3:
                current = match.start_round()
                while not current.ended:
                    match.apply(current.random_action(rng, knock_chance=0.2))
            started = 1_790_000_000_000 + index * 60_000
            for result in match.results:
                batch.append(
                    FinishedRound(
                        f"{index:032x}",
                        "ABCD-EFGH",
                        settings.model_dump(),
                        started,
                        names,
                        result,
                        started + result.number * 10_000,
                        result.number == 3,
                        tuple(match.places()),
                        (None,) * 4,
                        ("",) * 4,
                    )
                )
            if len(batch) >= BATCH:
                assert await store.save(None, batch)
                batch = []
        if batch:
            assert await store.save(None, batch)
    finally:
        await store.stop()
        await store.engine.dispose()


def timed(http: httpx.Client, path: str, encoding: str = "gzip") -> tuple[float, int]:
    """Milliseconds for one answer to ``path``, which must be 200, asked for with this
    ``Accept-Encoding``; and the bytes of its body as sent."""
    start = time.perf_counter()
    answer = http.get(path, headers={"Accept-Encoding": encoding})
    took = (time.perf_counter() - start) * 1000
    assert answer.status_code == 200, answer.text
    return took, answer.num_bytes_downloaded


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--matches", type=int, default=10_000)
    parser.add_argument("--people", type=int, default=3000)
    parser.add_argument("--repeats", type=int, default=5)
    arguments = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="spectrum-history-"))
    url = f"sqlite+aiosqlite:///{folder}/spectrum.db"
    migrate(url)
    start = time.perf_counter()
    asyncio.run(fill(url, arguments.matches, arguments.people))
    print(f"{arguments.matches} matches of {arguments.people} people written in "
          f"{time.perf_counter() - start:.1f} s")  # fmt: skip
    port = free_port()
    env = {
        **os.environ,
        "PORT": str(port),
        "DATABASE_URL": url,
        "API_REQUESTS_PER_SECOND": "100000",
        "API_REQUEST_BURST": "100000",
    }
    server = subprocess.Popen(
        [sys.executable, "-m", "app.scripts.start"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=60) as http:
            while True:
                try:
                    if http.get("/healthz").status_code == 200:
                        break
                except httpx.TransportError:
                    time.sleep(0.05)
            first, _ = timed(http, "/api/leaderboard?limit=10")
            print(f"leaderboard, first reading: {first:.1f} ms")
            paths = {
                "leaderboard, kept": "/api/leaderboard?limit=10",
                "a page of matches": "/api/matches?limit=20",
                "a page of 100 matches": "/api/matches?limit=100",
                "one player's matches": "/api/matches?player=Player%201&limit=20",
                "a player's page": "/api/players/Player%201",
                "a match": f"/api/matches/{0:032x}",
            }
            for label, path in paths.items():
                said = []
                for encoding in ("identity", "gzip"):  # as it is, then gzipped
                    runs = [timed(http, path, encoding) for _ in range(arguments.repeats)]
                    times = [took for took, _ in runs]
                    said.append(
                        f"{encoding} median {statistics.median(times):.1f} ms, "
                        f"most {max(times):.1f}, {runs[-1][1]:,} B"
                    )
                print(f"{label}: {'; '.join(said)}")
    finally:
        server.terminate()
        server.wait(30)


if __name__ == "__main__":
    main()
