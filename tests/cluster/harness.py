"""A real cluster for tests: game nodes in child processes, and a real nginx in front of them.

The nodes share a fresh PostgreSQL database and the test Redis; nginx runs on free loopback ports
with a configuration generated from ``docker/nginx.conf`` (only the addresses, the listening port
and the paths of its own files are changed). Without nginx at /usr/sbin/nginx these tests skip,
unless REQUIRE_NGINX=1, when they fail.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import re
import secrets
import signal
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
import redis
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidStatus

from tests import fetch
from tests.databases import postgres_database
from tests.redis_server import TEST_REDIS_URL
from tests.rooms.client import Client
from tests.server import FAST, ROOT, Server, free_port, migrate, server_env, start_server

NGINX = os.environ.get("NGINX", "/usr/sbin/nginx")
CLOSE_MOVED = 4012
# Short leases, so that a dead node's rooms are taken over soon.
LEASE_MS = "2000"
# For tests that watch a lease stay where it is: a node that a loaded machine leaves without a
# turn for the 2 s of a short lease would rightly lose it.
STEADY_LEASE_MS = "10000"


def need_nginx() -> None:
    """Skip (or fail, with REQUIRE_NGINX=1) when nginx is not installed."""
    if Path(NGINX).is_file() and os.access(NGINX, os.X_OK):
        return
    problem = f"nginx is not installed at {NGINX} (Debian: apt-get install nginx)"
    if os.environ.get("REQUIRE_NGINX") == "1":
        pytest.fail(f"REQUIRE_NGINX=1 but {problem}")
    pytest.skip(problem)


def nginx_config(port: int, nodes: dict[str, int], folder: Path) -> str:
    """``docker/nginx.conf`` for these nodes on loopback ports, nginx listening on ``port``."""
    text = (ROOT / "docker" / "nginx.conf").read_text()
    every = "\n".join(
        f"        server 127.0.0.1:{node_port} max_fails=1 fail_timeout=5s;"
        for node_port in nodes.values()
    )
    text = re.sub(
        r"(upstream spectrum \{\n)(?:        server .*\n)+", rf"\g<1>{every}\n", text, count=1
    )
    each = "\n".join(
        f"    upstream {node} {{ server 127.0.0.1:{node_port}; keepalive 8; }}"
        for node, node_port in nodes.items()
    )
    text = re.sub(r"(?:    upstream node-\d \{.*\}\n)+", f"{each}\n", text)
    text = text.replace("listen 80;", f"listen 127.0.0.1:{port};")
    text = text.replace(
        "pid /tmp/nginx.pid;", f"pid {folder}/nginx.pid;\nerror_log {folder}/error.log;"
    )
    return text.replace("/tmp/nginx-", f"{folder}/")


class Front:
    """Where nginx is reached: the address tests and clients use."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.url = f"http://127.0.0.1:{port}"
        self.ws_url = f"ws://127.0.0.1:{port}"

    def api(self, method: str, path: str, body: Any = None) -> httpx.Response:
        """One request through nginx, following redirects to the node that answers it.

        A redirect is followed on the same connection. When nginx is reloaded, its old workers
        close their idle connections, and one may close or be reset as the next request goes
        out on it: nothing was answered. A browser sends a GET again on a new connection then,
        and so does this, twice at most (never a POST, which may have been done)."""
        url = f"{self.url}{path}"
        for _ in range(2 if method == "GET" else 0):
            with contextlib.suppress(httpx.RemoteProtocolError, httpx.ReadError):
                return fetch.request(method, url, json=body, follow_redirects=True, timeout=30)
        return fetch.request(method, url, json=body, follow_redirects=True, timeout=30)


class Cluster:
    """Three (or ``count``) nodes on one database and Redis, and nginx in front."""

    def __init__(
        self,
        database_url: str,
        folder: Path,
        count: int = 3,
        node_env: dict[int, dict[str, str]] | None = None,
        **env: str,
    ) -> None:
        tag = secrets.token_hex(2)
        self.database_url = database_url
        self.name = f"test-{tag}"
        self.ids = [f"t{tag}-{n}" for n in range(1, count + 1)]
        # Each node's environment; its port is chosen as it starts.
        self.envs: dict[str, dict[str, str]] = {}
        self.nodes: dict[str, Server] = {}
        for index, node in enumerate(self.ids):
            settings = {
                **FAST,
                "HOST": "127.0.0.1",
                "DATABASE_URL": database_url,
                "REDIS_URL": TEST_REDIS_URL,
                "NODE_ID": node,
                "CLUSTER_NAME": self.name,
                "LEASE_MS": LEASE_MS,
                "BOT_WORKERS": "0",
                "SHUTDOWN_GRACE_SECONDS": "10",
                # Between rounds the players' "ready" deals, never the clock: a view taken at a
                # round's end is still the room's after a node or Redis was lost, however long
                # that took on a loaded machine.
                "READY_SECONDS": "600",
                **env,
                **(node_env or {}).get(index, {}),
            }
            self.envs[node] = server_env(**settings)
        self.folder = folder
        self.front = Front(0)  # its port is chosen as nginx starts, once the nodes listen
        self.nginx: subprocess.Popen[bytes] | None = None

    def start(self, tries: int = 5) -> None:
        """Start every node, then nginx; wait until nginx answers. nginx listens on a port
        chosen once the nodes listen on theirs (a port chosen before could be given to a node
        meanwhile, which would then answer in nginx's place); on another one when the port was
        taken between the probe and nginx, up to ``tries`` ports in all."""
        for node, env in self.envs.items():
            self.nodes[node] = start_server(env)
        ports = {node: server.port for node, server in self.nodes.items()}
        for _ in range(tries):
            self.front = Front(free_port())
            if self._start_nginx(ports):
                return
        raise RuntimeError(f"nginx found no free port in {tries} tries: {self.nginx_log()}")

    def _start_nginx(self, ports: dict[str, int]) -> bool:
        """Start nginx on the front's port: True once it answers there, False if the port was
        taken."""
        config = self.folder / "nginx.conf"
        config.write_text(nginx_config(self.front.port, ports, self.folder))
        self.nginx = subprocess.Popen(
            [NGINX, "-g", "daemon off;", "-p", str(self.folder), "-c", str(config)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self.nginx.poll() is not None:
                if "Address already in use" in self.nginx_log():
                    (self.folder / "error.log").unlink()
                    return False
                raise RuntimeError(f"nginx exited: {self.nginx_log()}")
            with contextlib.suppress(httpx.TransportError):
                answer = fetch.get(f"{self.front.url}/healthz", timeout=2)
                # nginx names itself: what answers there is not some other server.
                named = answer.headers.get("server", "")
                if answer.status_code == 200 and named.startswith("nginx"):
                    return True
            time.sleep(0.1)
        raise RuntimeError(f"nginx did not answer: {self.nginx_log()}")

    def nginx_log(self) -> str:
        log = self.folder / "error.log"
        return log.read_text(errors="replace") if log.exists() else ""

    def stop(self) -> None:
        """Stop nginx and every node still running."""
        if self.nginx is not None and self.nginx.poll() is None:
            self.nginx.send_signal(signal.SIGQUIT)
            try:
                self.nginx.wait(10)
            except subprocess.TimeoutExpired:
                os.killpg(self.nginx.pid, signal.SIGKILL)
                self.nginx.wait()
        for server in self.nodes.values():
            if server.process is not None and server.process.poll() is None:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(server.process.pid, signal.SIGCONT)
                server.stop(signal.SIGKILL)

    def logs(self) -> str:
        return "\n".join(f"== {node}\n{server.logs()}" for node, server in self.nodes.items())

    # Through the front.

    def api(self, method: str, path: str, body: Any = None) -> httpx.Response:
        """One request through nginx, following redirects to the node that answers it."""
        return self.front.api(method, path, body)

    def create_room(self, name: str = "Ann", **settings: Any) -> dict[str, Any]:
        response = self.api("POST", "/api/rooms", {"name": name, "settings": settings})
        assert response.status_code == 201, response.text
        body: dict[str, Any] = response.json()
        return body

    def join_room(self, code: str, name: str) -> dict[str, Any]:
        response = self.api("POST", f"/api/rooms/{code}/join", {"name": name})
        assert response.status_code == 201, response.text
        body: dict[str, Any] = response.json()
        return body

    def owner(self, code: str) -> str:
        """The node that holds the room (claiming it if none does)."""
        deadline = time.monotonic() + 60
        while True:
            response = self.api("GET", f"/api/rooms/{code}")
            if response.status_code == 200:
                return str(response.json()["node"])
            # 503 while the room changes hands; 502/504 while its owner is gone or paused.
            assert response.status_code in (502, 503, 504), response.text
            assert time.monotonic() < deadline, response.text
            time.sleep(0.2)

    def metrics(self, node: str) -> dict[str, float]:
        """A node's own metrics (asked directly), by name with labels."""
        return metrics_of(self.nodes[node].url)


def metrics_of(url: str) -> dict[str, float]:
    """The metrics of the server at ``url``, by name with labels."""
    text = fetch.get(f"{url}/metrics", timeout=10).text
    values = {}
    for line in text.splitlines():
        if line and not line.startswith("#"):
            name, _, value = line.rpartition(" ")
            values[name] = float(value)
    return values


def table(state: dict[str, Any]) -> dict[str, Any]:
    """What a player's view says of the game (not of timers or who is connected): equal before
    a node is lost and after the room is back elsewhere when no acknowledged move is lost."""

    def strip(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: strip(v) for k, v in value.items() if not k.endswith("deadline")}
        if isinstance(value, list):
            return [strip(item) for item in value]
        return value

    kept = ("status", "match_id", "round", "results", "you")
    return {key: strip(state.get(key)) for key in kept}


async def back_at_table(clients: list[ClusterClient], deadline_seconds: float = 60) -> None:
    """Reconnect every client whose socket closed; each gets a fresh state."""
    for client in clients:
        if client.closed is not None or client.ws is None:
            await client.reconnect(deadline_seconds)


async def play_moves(clients: list[Client], rng: random.Random, moves: int) -> None:
    """Up to ``moves`` random legal moves (readying between rounds), each acknowledged, every
    client seeing each before the next; stops early when the match is over."""
    for _ in range(moves):
        state = clients[0].view
        if state["status"] == "finished":
            return
        if state["status"] == "round_over":
            for client in clients:
                await client.act("ready", timeout=30)
            await clients[0].wait_for(lambda s: s["status"] != "round_over", 30)
            continue
        for client in clients:
            await client.wait_for(lambda s, v=state: s["round"] == v["round"], 30)
        mover = next(client for client in clients if client.my_turn())
        await mover.play(mover.random_move(rng, knock_chance=0.05), 30)
        for client in clients:
            await client.wait_for(lambda s, v=mover.view: s["round"] == v["round"], 30)


@contextmanager
def running_cluster(
    count: int = 3, node_env: Callable[[str], dict[int, dict[str, str]]] | None = None, **env: str
) -> Iterator[Cluster]:
    """A started cluster on a fresh database, stopped afterwards. ``node_env``, given the
    database's address, answers the settings of some nodes (by index) over ``env``."""
    need_nginx()
    need_sync_redis()
    with postgres_database() as url, tempfile.TemporaryDirectory() as folder:
        migrate(url)
        Path(folder).chmod(0o755)
        each = node_env(url) if node_env is not None else None
        cluster = Cluster(url, Path(folder), count, each, **env)
        try:
            cluster.start()
            yield cluster
        except BaseException:
            print(cluster.logs()[-20000:])
            print(cluster.nginx_log()[-5000:])
            raise
        finally:
            cluster.stop()
            forget_keys(f"{cluster.name}:*")


def need_sync_redis() -> None:
    """Skip (or fail, with REQUIRE_REDIS=1) when the test Redis does not answer."""
    client = redis.Redis.from_url(TEST_REDIS_URL, socket_timeout=2, socket_connect_timeout=2)
    try:
        client.ping()
        return
    except (redis.RedisError, OSError) as error:
        problem = f"Redis at {TEST_REDIS_URL} is not reachable: {error}"
    finally:
        client.close()
    if os.environ.get("REQUIRE_REDIS") == "1":
        pytest.fail(f"REQUIRE_REDIS=1 but {problem}")
    pytest.skip(problem)


def forget_keys(pattern: str) -> None:
    """Delete a test cluster's keys from the test Redis."""
    client = redis.Redis.from_url(TEST_REDIS_URL, socket_timeout=5)
    try:
        keys = list(client.scan_iter(match=pattern, count=500))
        if keys:
            client.delete(*keys)
    finally:
        client.close()


class ClusterClient(Client):
    """A client through nginx that follows "moved" closes and reconnects by itself."""

    def __init__(self, cluster: Cluster | Front, code: str, token: str | None = None) -> None:
        self.front = cluster.front if isinstance(cluster, Cluster) else cluster
        super().__init__(self.front, code, token)
        self.node_paths: list[str] = []

    async def connect(self, origin: str | None = None, hello: dict[str, Any] | None = None) -> None:
        """Reach the room wherever it is: at the front address, then where "moved" points."""
        await self.reconnect()

    async def reconnect(self, deadline_seconds: float = 60) -> None:
        """Open a new socket and wait for a fresh state, following 4012 and retrying failures."""
        deadline = time.monotonic() + deadline_seconds
        path = f"/ws/rooms/{self.code}"
        while True:
            assert time.monotonic() < deadline, f"not back at the table: closed {self.closed}"
            if self._reader is not None and not self._reader.done():
                await self.close()
            self.state, self.version, self.closed = None, 0, None
            try:
                self.ws = await connect(
                    f"{self.front.ws_url}{path}",
                    compression=None,
                    max_size=2**22,
                    # A node that is paused accepts and never answers: a try given up soon
                    # is tried again (a slow answer only costs another try).
                    open_timeout=3,
                )
            except (InvalidHandshake, InvalidStatus, OSError):
                path = f"/ws/rooms/{self.code}"
                await asyncio.sleep(0.3)
                continue
            hello = {"type": "hello", "token": self.token} if self.token else None
            self._reader = asyncio.create_task(self._read())
            with contextlib.suppress(ConnectionClosed):  # closed "moved" before the hello
                await self.ws.send(json.dumps(hello or {"type": "hello", "spectate": True}))
            async with self._changed:
                await self._changed.wait_for(
                    lambda: self.state is not None or self.closed is not None
                )
            if self.state is not None and self.closed is None:
                self.node_paths.append(path)
                return
            code, reason = self.closed or (1006, "")
            assert code in (CLOSE_MOVED, 1006, 1011, 1012), f"refused: {code} {reason}"
            path = (
                reason
                if code == CLOSE_MOVED and reason.startswith("/")
                else f"/ws/rooms/{self.code}"
            )
            if code != CLOSE_MOVED or not reason:
                await asyncio.sleep(0.3)


class PrivateRedis:
    """A Redis of the test's own on a free port, keeping nothing on disk, that it may restart."""

    def __init__(self, folder: Path, password: str = "", options: tuple[str, ...] = ()) -> None:
        self.port = free_port()
        self.password = password
        self.options = options
        self.url = f"redis://{f':{password}@' if password else ''}127.0.0.1:{self.port}/0"
        self.folder = folder
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        self.process = subprocess.Popen(
            [
                "redis-server",
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                str(self.folder),
                *(["--requirepass", self.password] if self.password else []),
                *self.options,
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        client = redis.Redis.from_url(self.url, socket_timeout=2, socket_connect_timeout=2)
        deadline = time.monotonic() + 30
        try:
            while True:
                with contextlib.suppress(redis.RedisError, OSError):
                    if client.ping():
                        return
                assert time.monotonic() < deadline, "redis-server did not start"
                time.sleep(0.05)
        finally:
            client.close()

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait()

    def restart(self) -> None:
        """Stop it (all it held is lost), then start it again on the same port."""
        self.stop()
        self.start()


@contextmanager
def private_redis(
    password: str = "", started: bool = True, options: tuple[str, ...] = ()
) -> Iterator[PrivateRedis]:
    """A Redis of this test's own (asking for ``password`` if given, with redis-server's
    ``options``; started later by the test unless ``started``), stopped afterwards; skipped
    without redis-server."""
    if not any((Path(d) / "redis-server").exists() for d in os.environ["PATH"].split(":")):
        if os.environ.get("REQUIRE_REDIS") == "1":
            pytest.fail("REQUIRE_REDIS=1 but redis-server is not installed")
        pytest.skip("redis-server is not installed")
    with tempfile.TemporaryDirectory() as folder:
        server = PrivateRedis(Path(folder), password, options)
        if started:
            server.start()
        try:
            yield server
        finally:
            server.stop()
