"""Cluster benchmark: what nginx in front costs, and what a second node gives on one machine.

The generator is bench/load.py's: real WebSocket clients, R rooms of P players, each room one
action every 1/rate seconds, the latency of an action measured to its last delivery. The nodes
run in cluster mode on one fresh PostgreSQL database and a Redis (keys under a cluster name of
the run's own), nginx with docker/nginx.conf rewritten for loopback ports (as the tests do).

``hop``: one node on core 0, nginx (one worker) on core 0 too, the generator on core 1; the same
rooms played straight at the node, then through nginx. Server CPU per delivered message: the
node's, nginx's, and their sum, against the node's alone when played directly.

``scale``: one node, then two, behind nginx, nothing pinned: the nodes, nginx and the generator
share the machine's cores. The number of rooms grows step by step at ``--rate`` actions per room
per second; for each count of nodes the answer is the highest throughput (actions a second)
whose p99 action-to-last-delivery stays under ``--p99-ms``. Rooms are created through nginx,
which places each on the least loaded node, and each socket opens at the node's own path.

Run: .venv/bin/python -m bench.cluster [hop|scale|both] [--rooms 1000] [--players 4]
     [--seconds 10] [--rate 1.0] [--steps 250,500,750,1000,1500,2000,2500,3000] [--nodes 1,2]
     [--database postgresql+asyncpg://postgres@127.0.0.1:5432/postgres]
     [--redis redis://127.0.0.1:6379/0] [--json results.json]
Smoke run (proves it works, figures meaningless): --rooms 100 --seconds 3 --steps 50,100
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import secrets
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import redis

from bench.load import (
    CLIENT_CORE,
    ROOT,
    SERVER_CORE,
    Bench,
    Database,
    Player,
    Room,
    Stats,
    cpu_seconds,
    free_port,
    stop_process,
)
from tests.cluster.harness import NGINX, nginx_config

DEFAULT_DATABASE = "postgresql+asyncpg://postgres@127.0.0.1:5432/postgres"
DEFAULT_REDIS = "redis://127.0.0.1:6379/0"


def _affinity(cores: set[int] | None) -> Any:
    return (lambda: os.sched_setaffinity(0, cores)) if cores else None


def group_cpu_seconds(pid: int) -> float:
    """CPU of a process and its children (nginx: the master and its workers)."""
    total = cpu_seconds(pid)
    children = Path(f"/proc/{pid}/task/{pid}/children")
    for child in children.read_text().split() if children.exists() else []:
        total += cpu_seconds(int(child))
    return total


class Cluster:
    """``count`` nodes on a fresh database and nginx in front, each pinned as asked."""

    def __init__(
        self,
        count: int,
        folder: str,
        database: str,
        redis_url: str,
        node_cores: set[int] | None,
        nginx_cores: set[int] | None,
    ) -> None:
        self.name = f"bench-{secrets.token_hex(3)}"
        self.redis_url = redis_url
        self.database = Database(folder, database)
        self.folder = Path(folder)
        base = {
            **os.environ,
            "HOST": "127.0.0.1",
            "DATABASE_URL": self.database.url,
            "REDIS_URL": redis_url,
            "CLUSTER_NAME": self.name,
            "CONNECTIONS_PER_ADDRESS": "100000",
            "PENDING_CONNECTIONS": "100000",
            "PENDING_CONNECTIONS_PER_ADDRESS": "100000",
            "ROOMS_PER_ADDRESS_PER_MINUTE": "100000",
            "API_REQUESTS_PER_SECOND": "100000",
            "API_REQUEST_BURST": "100000",
            "MESSAGES_PER_SECOND": "1000",
            "MESSAGE_BURST": "1000",
            "MAX_ROOMS": "100000",
            "LOG_LEVEL": "warning",
            "OUTBOX_PATH": f"{folder}/outbox",
        }
        # The schema first, as one server would make it (no cluster: no Redis, no cluster name).
        migrated = subprocess.run(
            [sys.executable, "-m", "alembic", "upgrade", "head"],
            cwd=ROOT,
            env={**base, "REDIS_URL": "", "CLUSTER_NAME": ""},
            capture_output=True,
            text=True,
        )
        if migrated.returncode:
            self.database.drop()
            raise RuntimeError(f"the database could not be migrated:\n{migrated.stderr}")
        self.nodes: dict[str, tuple[subprocess.Popen[bytes], int]] = {}
        for n in range(1, count + 1):
            node, port = f"b{n}", free_port()
            env = {**base, "NODE_ID": node, "PORT": str(port), "OUTBOX_PATH": f"{folder}/o{n}"}
            process = subprocess.Popen(
                [sys.executable, "-m", "app"], cwd=ROOT, env=env, preexec_fn=_affinity(node_cores)
            )
            self.nodes[node] = (process, port)
        for _, port in self.nodes.values():
            self._wait(f"http://127.0.0.1:{port}/readyz")
        self.port = free_port()
        config = nginx_config(
            self.port, {node: port for node, (_, port) in self.nodes.items()}, self.folder
        )
        config = config.replace(
            "worker_processes auto;", f"worker_processes {len(nginx_cores or {0, 1})};"
        )
        (self.folder / "nginx.conf").write_text(config)
        self.nginx = subprocess.Popen(
            [NGINX, "-g", "daemon off;", "-p", folder, "-c", str(self.folder / "nginx.conf")],
            preexec_fn=_affinity(nginx_cores),
        )
        self.url = f"http://127.0.0.1:{self.port}"
        self._wait(f"{self.url}/readyz")

    def _wait(self, url: str) -> None:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                if httpx.get(url, timeout=2).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            time.sleep(0.1)
        self.stop()
        raise RuntimeError(f"{url} did not become ready")

    def node_url(self, node: str) -> str:
        return f"http://127.0.0.1:{self.nodes[node][1]}"

    def stop(self) -> None:
        if self.nginx.poll() is None:
            stop_process(self.nginx)
        for process, _ in self.nodes.values():
            if process.poll() is None:
                stop_process(process)
        self.database.drop()
        client = redis.Redis.from_url(self.redis_url, socket_timeout=5)
        try:
            keys = list(client.scan_iter(match=f"{self.name}:*", count=500))
            if keys:
                client.delete(*keys)
        finally:
            client.close()


class ClusterBench(Bench):
    """bench/load.py's generator; each room's sockets open at the path its creation gave."""

    def __init__(self, url: str, ws_url: str, direct: bool) -> None:
        super().__init__(url, ws_url, True)
        self.direct = direct
        self.paths: dict[str, str] = {}

    async def setup(self, rooms: int, players: int) -> None:
        # A node sends a new room to the least loaded node (a redirect to its /n/<node>/ path).
        async with httpx.AsyncClient(base_url=self.url, timeout=60, follow_redirects=True) as http:
            for _ in range(rooms):
                body = {"name": "P0", "settings": {"rounds": 5, "turn_seconds": 60}}
                answer = await http.post("/api/rooms", json=body)
                answer.raise_for_status()
                created = answer.json()
                room = Room(self, created["code"], True)
                tokens = [created["token"]]
                for seat in range(1, players):
                    joined = await http.post(
                        f"/api/rooms/{created['code']}/join", json={"name": f"P{seat}"}
                    )
                    joined.raise_for_status()
                    tokens.append(joined.json()["token"])
                # Straight at the node: its own path; through nginx: the per-node path it gave.
                self.paths[room.code] = (
                    f"/ws/rooms/{room.code}" if self.direct else created["socket"]
                )
                room.players = [Player(room, token) for token in tokens]
                self.rooms.append(room)
        for batch in range(0, len(self.rooms), 50):
            await asyncio.gather(*(self._open(room) for room in self.rooms[batch : batch + 50]))
        for room in self.rooms:
            first = room.players[0].ws
            assert first is not None
            await first.send('{"type":"start"}')
        await asyncio.sleep(1)

    async def _open(self, room: Room) -> None:
        for player in room.players:
            hello = {"type": "hello", "token": player.token}
            await player.open(f"{self.ws_url}{self.paths[room.code]}", hello)


@dataclass
class Window:
    """What one measured window saw: CPU by process, deliveries and latencies."""

    cpu: dict[str, float]
    seconds: float
    elapsed: float
    stats: Stats
    generator_cpu: float

    def per_message_us(self, role: str) -> float:
        return self.cpu[role] / max(self.stats.delivered, 1) * 1e6

    def percentile_ms(self, share: float) -> float:
        latencies = sorted(self.stats.latencies) or [0.0]
        return latencies[min(len(latencies) - 1, int(len(latencies) * share))] * 1000

    def summary(self) -> dict[str, Any]:
        return {
            "actions_per_second": self.stats.actions / self.seconds,
            "delivered_per_second": self.stats.delivered / self.seconds,
            "cpu_per_message_us": {role: self.per_message_us(role) for role in self.cpu},
            "cpu_share": {role: cpu / self.elapsed for role, cpu in self.cpu.items()},
            "p50_ms": self.percentile_ms(0.5),
            "p99_ms": self.percentile_ms(0.99),
            "generator_cpu": self.generator_cpu,
            "late_ticks": self.stats.late_ticks,
            "ticks": self.stats.ticks,
            "lost": self.stats.lost,
            "closed": self.stats.closed,
            "refused": self.stats.refused,
            "skipped": self.stats.late,
        }


async def measure(
    bench: ClusterBench,
    pids: dict[str, int],
    rooms: int,
    players: int,
    seconds: float,
    rate: float,
) -> Window:
    """Set the rooms up, warm up, then measure one window."""
    try:
        await bench.setup(rooms, players)
    except TimeoutError:
        # A socket got no state: its room was closed "moved", which at this point means the
        # node could not renew its leases in time (its event loop starved of CPU).
        raise SystemExit(
            "a player was never shown its room: a node lost its leases while the rooms were "
            "set up (its log says 'lost its lease'); the machine is too loaded to measure"
        ) from None
    gc.collect()
    gc.freeze()
    gc.disable()
    try:
        await bench.run(min(3.0, seconds), rate)  # warm up
        bench.stats = Stats()
        before = {role: group_cpu_seconds(pid) for role, pid in pids.items()}
        own, started = time.process_time(), time.perf_counter()
        await bench.run(seconds, rate)
        elapsed = time.perf_counter() - started
        cpu = {role: group_cpu_seconds(pid) - before[role] for role, pid in pids.items()}
        generator = (time.process_time() - own) / elapsed
        await bench.close()
    finally:
        gc.enable()
        gc.unfreeze()
    # ``seconds`` of ticks, then the half second the run waits for the last deliveries.
    return Window(cpu, seconds, elapsed, bench.stats, generator)


async def hop(arguments: argparse.Namespace) -> dict[str, Any]:
    """One node: played straight at it, then through nginx, on the same cores."""
    os.sched_setaffinity(0, {CLIENT_CORE})
    runs: dict[str, dict[str, Any]] = {}
    for way in ("direct", "nginx"):
        with tempfile.TemporaryDirectory() as folder:
            cluster = Cluster(
                1, folder, arguments.database, arguments.redis, {SERVER_CORE}, {SERVER_CORE}
            )
            try:
                (node,) = cluster.nodes
                process, _ = cluster.nodes[node]
                if way == "direct":
                    url = cluster.node_url(node)
                    pids = {"node": process.pid}
                else:
                    url = cluster.url
                    pids = {"node": process.pid, "nginx": cluster.nginx.pid}
                bench = ClusterBench(url, url.replace("http", "ws"), way == "direct")
                window = await measure(
                    bench,
                    pids,
                    arguments.rooms,
                    arguments.players,
                    arguments.seconds,
                    arguments.rate,
                )
            finally:
                cluster.stop()
        runs[way] = window.summary()
        per = runs[way]["cpu_per_message_us"]
        print(
            f"hop {way:6s} R={arguments.rooms} P={arguments.players} "
            + " ".join(f"{role} {value:.1f} us/msg" for role, value in per.items())
            + f" total {sum(per.values()):.1f} us/msg | p50 {runs[way]['p50_ms']:.1f} ms "
            f"p99 {runs[way]['p99_ms']:.1f} ms | generator CPU {runs[way]['generator_cpu']:.0%} "
            f"late ticks {runs[way]['late_ticks']}/{runs[way]['ticks']} lost {runs[way]['lost']}",
            flush=True,
        )
    direct = sum(runs["direct"]["cpu_per_message_us"].values())
    through = sum(runs["nginx"]["cpu_per_message_us"].values())
    print(
        f"hop: through nginx {through:.1f} us/msg against {direct:.1f} direct "
        f"(x{through / max(direct, 1e-9):.2f})"
    )
    return runs


async def scale(arguments: argparse.Namespace) -> dict[str, Any]:
    """One node, then two, behind nginx, sharing every core with the generator."""
    os.sched_setaffinity(0, set(range(os.cpu_count() or 1)))
    found: dict[str, Any] = {}
    for count in arguments.nodes:
        steps = []
        best = 0.0
        for rooms in arguments.steps:
            with tempfile.TemporaryDirectory() as folder:
                cluster = Cluster(count, folder, arguments.database, arguments.redis, None, None)
                try:
                    pids = {node: process.pid for node, (process, _) in cluster.nodes.items()}
                    pids["nginx"] = cluster.nginx.pid
                    bench = ClusterBench(cluster.url, cluster.url.replace("http", "ws"), False)
                    window = await measure(
                        bench, pids, rooms, arguments.players, arguments.seconds, arguments.rate
                    )
                finally:
                    cluster.stop()
            row = {"rooms": rooms, **window.summary()}
            steps.append(row)
            under = row["p99_ms"] <= arguments.p99_ms and not row["lost"]
            print(
                f"scale nodes={count} R={rooms} P={arguments.players} "
                f"{row['actions_per_second']:.0f} actions/s "
                f"{row['delivered_per_second']:.0f} msg/s "
                f"p50 {row['p50_ms']:.1f} ms p99 {row['p99_ms']:.1f} ms "
                f"| CPU "
                + " ".join(f"{r} {v:.0%}" for r, v in row["cpu_share"].items())
                + f" generator {row['generator_cpu']:.0%} "
                f"| lost {row['lost']} skipped {row['skipped']}"
                + ("" if under else f" | over {arguments.p99_ms:.0f} ms"),
                flush=True,
            )
            if not under:
                break
            best = max(best, row["actions_per_second"])
        found[str(count)] = {"best_actions_per_second": best, "steps": steps}
        print(
            f"scale nodes={count}: {best:.0f} actions/s with p99 under {arguments.p99_ms:.0f} ms",
            flush=True,
        )
    return found


async def main_async(arguments: argparse.Namespace) -> dict[str, Any]:
    results: dict[str, Any] = {"rooms": arguments.rooms, "players": arguments.players}
    if arguments.what in ("hop", "both"):
        results["hop"] = await hop(arguments)
    if arguments.what in ("scale", "both"):
        results["scale"] = await scale(arguments)
    return results


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("what", nargs="?", choices=("hop", "scale", "both"), default="both")
    parser.add_argument("--rooms", type=int, default=1000, help="rooms of the hop measurement")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--rate", type=float, default=1.0, help="actions per room per second")
    parser.add_argument(
        "--steps",
        type=lambda text: [int(part) for part in text.split(",")],
        default=[250, 500, 750, 1000, 1500, 2000, 2500, 3000],
        help="room counts of the scaling measurement, smallest first",
    )
    parser.add_argument("--p99-ms", type=float, default=50.0)
    parser.add_argument(
        "--nodes",
        type=lambda text: [int(x) for x in text.split(",")],
        default=[1, 2],
        help="the counts of nodes the scale measurement compares",
    )
    parser.add_argument("--database", default=DEFAULT_DATABASE)
    parser.add_argument("--redis", default=DEFAULT_REDIS)
    parser.add_argument("--json", type=Path, help="write the figures here as JSON")
    arguments = parser.parse_args()
    if not Path(NGINX).exists():
        raise SystemExit(f"nginx is not installed at {NGINX} (Debian: apt-get install nginx)")
    results = asyncio.run(main_async(arguments))
    if arguments.json:
        arguments.json.parent.mkdir(parents=True, exist_ok=True)
        arguments.json.write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
