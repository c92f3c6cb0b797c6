"""Load benchmark: real WebSocket clients play whole matches in R rooms of P players.

The same generator drives the game server and the floor (bench/floor.py, a bare uvicorn
WebSocket relay doing no game work) with the same rooms, players, action rate and message
sizes, interleaved, and reports the game server against the floor: server CPU per action and
per delivered message, action-to-last-delivery latency, resident memory per player and room,
and bytes per patch against the bytes of a full state.

Before the warm-up each room of the game server plays a random number of actions (0 to
``--spread``, by default about one whole match) as fast as they are delivered, not measured, so
that the rooms are at random points of their matches: the measured window holds later rounds,
round ends, rematches and the history written at each round's end, not only first rounds.
``--database postgresql+asyncpg://user@host:port/db`` measures the journal on PostgreSQL: each
run creates a fresh database (``bench_<pid>_<n>``) through that server and drops it after.

The game server's players ask for the binary encoding at hello, as the browser client does
(``--encoding compact``: its JSON form; ``--encoding standard``: RFC 6902 JSON Patch), and decode
its frames with the reader of docs/protocol.md that the tests use (tests/rooms/decoding.py, after
MessagePack for binary frames) into the same documents; the floor then sends messages of the size
of the frames the game server's last run sent.

Run: .venv/bin/python -m bench.load [--rooms 10,100,500,1000] [--players 2,4,6]
     [--seconds 10] [--rate 1.0] [--repeats 2] [--spread 400] [--encoding binary|compact|standard]
     [--database postgresql+asyncpg://postgres@127.0.0.1:5432/postgres] [--json results.json]
The servers run on core 0, this generator on core 1.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import random
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import msgpack
import orjson
from sqlalchemy.engine import make_url
from websockets.asyncio.client import ClientConnection, connect

from app.rooms.frames import CONNECTIONS
from tests.rooms.decoding import Tables, decode_patch

ROOT = Path(__file__).resolve().parents[1]
SERVER_CORE, CLIENT_CORE = 0, 1
TICKS = os.sysconf("SC_CLK_TCK")
LATE_TICK = 0.05
# A run whose generator used more than this share of its core, or whose ticks were late more
# often than this, measured the generator rather than the server.
GENERATOR_CPU_LIMIT = 0.8
LATE_TICKS_LIMIT = 0.01
# An action of the fast-forward not delivered to every player by then is given up.
LOST_SECONDS = 10.0
# About one whole match of 5 rounds: 360 to 410 actions at 2 to 6 players (bench/room.py).
MATCH_ACTIONS = 400
ENCODINGS = tuple(sorted(CONNECTIONS))


# Patches, applied the way a client does.


def _parent(document: Any, path: str) -> tuple[Any, str]:
    parts = [part.replace("~1", "/").replace("~0", "~") for part in path.split("/")[1:]]
    for part in parts[:-1]:
        document = document[int(part)] if isinstance(document, list) else document[part]
    return document, parts[-1]


def apply_patch(document: dict[str, Any], ops: list[dict[str, Any]]) -> None:
    """Apply RFC 6902 add/remove/replace operations in place."""
    for op in ops:
        parent, key = _parent(document, op["path"])
        if isinstance(parent, list):
            index = len(parent) if key == "-" else int(key)
            if op["op"] == "add":
                parent.insert(index, op["value"])
            elif op["op"] == "remove":
                del parent[index]
            else:
                parent[index] = op["value"]
        elif op["op"] == "remove":
            del parent[key]
        else:
            parent[key] = op["value"]


# Clients and rooms.


@dataclass
class Stats:
    """What one measurement window saw."""

    actions: int = 0
    delivered: int = 0
    errors: int = 0
    late: int = 0
    latencies: list[float] = field(default_factory=list)
    ticks: int = 0
    late_ticks: int = 0
    patch_bytes: int = 0
    patches: int = 0
    state_bytes: list[int] = field(default_factory=list)
    closed: int = 0
    refused: int = 0
    lost: int = 0
    readies: int = 0
    rematches: int = 0


class Player:
    """One WebSocket client of a room."""

    def __init__(self, room: Room, token: str) -> None:
        self.room = room
        self.token = token
        self.ws: ClientConnection | None = None
        self.state: dict[str, Any] = {}
        self.tables: Tables | None = None  # the compact encoding's, from the first state
        self.ready = asyncio.Event()
        self.checking: asyncio.Event | None = None  # set by the answer to a resync

    async def open(self, url: str, hello: dict[str, Any]) -> None:
        self.ws = await connect(url, compression=None, max_size=2**20, open_timeout=60)
        await self.ws.send(orjson.dumps(hello).decode())
        asyncio.get_running_loop().create_task(self.read())
        await asyncio.wait_for(self.ready.wait(), 60)

    async def read(self) -> None:
        assert self.ws is not None
        try:
            async for raw in self.ws:
                self.room.frame(self, raw)
        except Exception:  # the connection broke: counted below
            pass
        if not self.room.bench.closing:
            self.room.bench.stats.closed += 1


class Room:
    """A room driven at a fixed action rate; measures each action's last delivery."""

    def __init__(self, bench: Bench, code: str, game: bool) -> None:
        self.bench = bench
        self.code = code
        self.game = game
        self.players: list[Player] = []
        self.sent_at: float | None = None
        self.waiting: set[Player] = set()
        self.rng = random.Random(code)
        self.turn = 0
        self.landed: asyncio.Event | None = None

    def frame(self, player: Player, raw: str | bytes) -> None:
        stats = self.bench.stats
        if self.game:
            # A binary frame is a patch of the binary encoding: the compact one in MessagePack.
            message = msgpack.unpackb(raw) if isinstance(raw, bytes) else orjson.loads(raw)
            if isinstance(message, list):  # a compact patch: [version, ops] or [version, ops, ack]
                message = self.decode(player, message)
            kind = message["type"]
            if kind == "patch":
                try:
                    apply_patch(player.state, message["ops"])
                except (KeyError, IndexError, ValueError, TypeError):
                    self.bench.unreadable += 1
                stats.patches += 1
                stats.patch_bytes += len(raw)
            elif kind == "state":
                if message.get("encoding") is not None:
                    player.tables = message["encoding"]
                if player.checking is not None:
                    self.bench.checked += 1
                    self.bench.mismatched += message["state"] != player.state
                    player.checking.set()
                    player.checking = None
                player.state = message["state"]
                player.ready.set()
                return
            elif kind == "error" and self.sent_at is not None:
                # The action was refused: no one else hears of it, so it is over.
                stats.refused += 1
                self.finish()
                return
            else:
                stats.errors += 1
        elif not player.ready.is_set():
            player.ready.set()
            return
        if self.sent_at is not None and player in self.waiting:
            self.waiting.discard(player)
            stats.delivered += 1
            if not self.waiting:
                stats.latencies.append(time.perf_counter() - self.sent_at)
                self.finish()

    def decode(self, player: Player, frame: list[Any]) -> dict[str, Any]:
        """A compact patch as the standard one; one that cannot be read is counted and skipped."""
        try:
            assert player.tables is not None, "a compact patch before the tables"
            return decode_patch(frame, player.tables)
        except (AssertionError, KeyError, IndexError, TypeError):
            self.bench.unreadable += 1
            return {"type": "patch", "ops": []}

    def finish(self) -> None:
        """The action in flight is over: delivered to every player, refused or given up."""
        self.sent_at = None
        self.waiting = set()
        if self.landed is not None:
            self.landed.set()

    def next_message(self) -> tuple[Player, dict[str, Any]] | None:
        """Who acts next and what they send."""
        if not self.game:
            self.turn = (self.turn + 1) % len(self.players)
            return self.players[self.turn], {"type": "take", "reply": self.bench.reply_bytes}
        state = self.players[0].state
        status = state.get("status")
        if status == "round_over":
            waiting = [
                p for p in self.players if not p.state["players"][p.state["you"]["seat"]]["ready"]
            ]
            return (waiting[0], {"type": "ready"}) if waiting else None
        if status == "finished":
            return self.players[0], {"type": "rematch"}
        if status != "playing":
            return None
        turn = state["round"]["turn"] if state.get("round") else None
        if turn is None:
            return None
        mover = next((p for p in self.players if p.state["you"]["seat"] == turn["seat"]), None)
        if mover is None or mover.state["round"]["turn"] != turn:
            return None
        current, you = mover.state["round"], mover.state["you"]
        if turn["pending"]:
            cards = self.rng.sample(you["hand"], turn["pending"])
            return mover, {"type": "discard", "cards": cards}
        if current["knocker"] is None and self.rng.random() < 0.03:
            return mover, {"type": "knock"}
        piles = [index for index, pile in enumerate(current["piles"]) if pile["count"]]
        if current["discard"]["count"]:
            piles.append(4)
        return mover, {"type": "take", "piles": [self.rng.choice(piles)]}

    async def send(self, player: Player, message: dict[str, Any]) -> asyncio.Event:
        """Send one action; the event is set once it is over."""
        stats = self.bench.stats
        self.waiting = set(self.players)
        self.sent_at = time.perf_counter()
        self.landed = landed = asyncio.Event()
        stats.actions += 1
        if message["type"] == "ready":
            stats.readies += 1
        elif message["type"] == "rematch":
            stats.rematches += 1
        assert player.ws is not None
        await player.ws.send(orjson.dumps(message).decode())
        return landed

    async def fast_forward(self, count: int) -> None:
        """Play ``count`` actions, each as soon as the last was delivered to every player."""
        done = idle = 0
        while done < count and idle < 300:
            chosen = self.next_message()
            if chosen is None:  # a state not yet seen by every player
                idle += 1
                await asyncio.sleep(0.01)
                continue
            try:
                landed = await self.send(*chosen)
                await asyncio.wait_for(landed.wait(), LOST_SECONDS)
            except TimeoutError:
                self.bench.stats.lost += 1
                self.finish()
            done += 1

    async def drive(self, rate: float, until: float) -> None:
        """Send one action every 1/rate seconds (skipping a tick while the last is in flight).

        A tick that fires more than ``LATE_TICK`` after its time is counted: the generator
        fell behind.
        """
        period = 1 / rate
        await asyncio.sleep(self.rng.random() * period)
        tick = time.perf_counter()
        while tick < until:
            self.bench.stats.ticks += 1
            if time.perf_counter() - tick > LATE_TICK:
                self.bench.stats.late_ticks += 1
            if self.sent_at is not None and time.perf_counter() - self.sent_at > LOST_SECONDS:
                self.bench.stats.lost += 1
                self.finish()
            if self.sent_at is not None:
                self.bench.stats.late += 1
            else:
                chosen = self.next_message()
                if chosen is not None:
                    await self.send(*chosen)
            tick += period
            await asyncio.sleep(max(0.0, tick - time.perf_counter()))


@dataclass
class Bench:
    """One server under load."""

    url: str
    ws_url: str
    game: bool
    reply_bytes: int = 400
    state_bytes: int = 2000
    encoding: str = "standard"  # what bench.profile and bench.cluster ask for
    stats: Stats = field(default_factory=Stats)
    # Frames the documents could not take, over the whole run (a document that went wrong in
    # the fast-forward stays wrong).
    unreadable: int = 0
    checked: int = 0
    mismatched: int = 0
    rooms: list[Room] = field(default_factory=list)
    closing: bool = False

    async def setup(self, rooms: int, players: int) -> None:
        """Create the rooms and connect every player."""
        async with httpx.AsyncClient(base_url=self.url, timeout=60) as http:
            for index in range(rooms):
                if self.game:
                    created = (
                        await http.post(
                            "/api/rooms",
                            json={
                                "name": "P0",
                                "settings": {"rounds": 5, "turn_seconds": 60},
                            },
                        )
                    ).json()
                    room = Room(self, created["code"], True)
                    tokens = [created["token"]]
                    for seat in range(1, players):
                        joined = await http.post(
                            f"/api/rooms/{created['code']}/join", json={"name": f"P{seat}"}
                        )
                        tokens.append(joined.json()["token"])
                else:
                    room = Room(self, f"R{index}", False)
                    tokens = [str(seat) for seat in range(players)]
                room.players = [Player(room, token) for token in tokens]
                self.rooms.append(room)
        for batch in range(0, len(self.rooms), 50):
            await asyncio.gather(*(self._open(room) for room in self.rooms[batch : batch + 50]))
        if self.game:
            for room in self.rooms:
                host = room.players[0].ws
                assert host is not None
                await host.send('{"type":"start"}')
            await asyncio.sleep(1)

    async def _open(self, room: Room) -> None:
        for player in room.players:
            hello: dict[str, Any]
            if self.game:
                hello = {"type": "hello", "token": player.token}
                if self.encoding != "standard":  # the default, as any client may leave it
                    hello["encoding"] = self.encoding
                await player.open(f"{self.ws_url}/ws/rooms/{room.code}", hello)
            else:
                hello = {"room": room.code, "state": self.state_bytes}
                await player.open(f"{self.ws_url}/ws/rooms/{room.code}", hello)

    async def fast_forward(self, spread: int) -> None:
        """Each room plays 0 to ``spread`` actions (its own random number), unmeasured."""
        await asyncio.gather(
            *(room.fast_forward(room.rng.randrange(spread + 1)) for room in self.rooms)
        )

    async def run(self, seconds: float, rate: float) -> None:
        """Drive every room for ``seconds``."""
        until = time.perf_counter() + seconds
        await asyncio.gather(*(room.drive(rate, until) for room in self.rooms))
        await asyncio.sleep(0.5)  # let the last deliveries land

    async def check(self) -> None:
        """Every player asks for a fresh state (resync) and compares it with the document its
        patches built; counted in ``checked`` and ``mismatched``."""

        async def one(player: Player) -> None:
            assert player.ws is not None
            player.checking = checking = asyncio.Event()
            await player.ws.send('{"type":"resync"}')
            try:
                await asyncio.wait_for(checking.wait(), LOST_SECONDS)
            except TimeoutError:
                player.checking = None

        await asyncio.gather(*(one(player) for room in self.rooms for player in room.players))

    async def close(self) -> None:
        self.closing = True
        for room in self.rooms:
            for player in room.players:
                if player.ws is not None:
                    await player.ws.close()


# Servers.


def _pin_server() -> None:
    os.sched_setaffinity(0, {SERVER_CORE})


def keepalive_pings(url: str) -> float:
    """The game server's count of keepalive pings sent, from /metrics."""
    for line in httpx.get(f"{url}/metrics", timeout=10).text.splitlines():
        if line.startswith("spectrum_keepalive_pings_total "):
            return float(line.split()[1])
    raise RuntimeError("/metrics has no spectrum_keepalive_pings_total")


def cpu_seconds(pid: int) -> float:
    """User plus system CPU time of a process so far."""
    user, system = cpu_split(pid)
    return user + system


def cpu_split(pid: int) -> tuple[float, float]:
    """User and system CPU time of a process so far, apart."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return int(fields[11]) / TICKS, int(fields[12]) / TICKS


def sleeps(pid: int) -> int:
    """How many times the threads of a process have slept and been woken so far (voluntary
    context switches, summed over the threads there are now: a thread that ends takes its
    count with it, so compare readings of servers whose threads last)."""
    total = 0
    for status in Path(f"/proc/{pid}/task").glob("*/status"):
        try:
            text = status.read_text()
        except OSError:  # the thread ended meanwhile
            continue
        for line in text.splitlines():
            if line.startswith("voluntary_ctxt_switches:"):
                total += int(line.split()[1])
    return total


def rss_bytes(pid: int) -> int:
    """Resident memory of a process."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    return 0


def _psql(url: str, statement: str) -> None:
    """Run one statement on the PostgreSQL server at ``url`` (its maintenance database)."""
    dsn = make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)
    subprocess.run(
        ["psql", dsn, "-v", "ON_ERROR_STOP=1", "-q", "-c", statement],
        check=True,
        capture_output=True,
    )


class Database:
    """Where a game server keeps its journal: SQLite in the run's folder, or a fresh database
    on the PostgreSQL server at ``server`` (created here, dropped by ``drop``)."""

    made = 0

    def __init__(self, folder: str, server: str | None) -> None:
        self.server = server
        if server is None:
            self.url = f"sqlite+aiosqlite:///{folder}/bench.db"
            return
        Database.made += 1
        self.name = f"bench_{os.getpid()}_{Database.made}"
        _psql(server, f'DROP DATABASE IF EXISTS "{self.name}"')
        _psql(server, f'CREATE DATABASE "{self.name}"')
        self.url = make_url(server).set(database=self.name).render_as_string(hide_password=False)

    def drop(self) -> None:
        if self.server is not None:
            _psql(self.server, f'DROP DATABASE IF EXISTS "{self.name}" WITH (FORCE)')


class Server:
    """A server process on the server core."""

    def __init__(
        self,
        game: bool,
        port: int,
        folder: str,
        flush_ms: int | None = None,
        database: str | None = None,
    ) -> None:
        self.game = game
        self.port = port
        self.database: Database | None = None
        env = {**os.environ, "HOST": "127.0.0.1", "PORT": str(port)}
        if game:
            self.database = Database(folder, database)
            env.update(
                DATABASE_URL=self.database.url,
                CONNECTIONS_PER_ADDRESS="100000",
                PENDING_CONNECTIONS="100000",
                PENDING_CONNECTIONS_PER_ADDRESS="100000",
                ROOMS_PER_ADDRESS_PER_MINUTE="100000",
                API_REQUESTS_PER_SECOND="100000",
                API_REQUEST_BURST="100000",
                MESSAGES_PER_SECOND="1000",
                MESSAGE_BURST="1000",
                MAX_ROOMS="100000",
                LOG_LEVEL="warning",
                # Segments small enough that the event log is folded into the database several
                # times in each measured window, so that its cost is in the figures.
                EVENT_LOG_SEGMENT_KB="512",
            )
            if flush_ms is not None:
                env["JOURNAL_FLUSH_MS"] = str(flush_ms)
            try:
                subprocess.run(
                    [sys.executable, "-m", "alembic", "upgrade", "head"],
                    cwd=ROOT,
                    env=env,
                    check=True,
                    capture_output=True,
                )
            except subprocess.CalledProcessError:
                self.database.drop()
                raise
            command = [sys.executable, "-m", "app"]
        else:
            command = [
                sys.executable,
                "-m",
                "uvicorn",
                "bench.floor:app",
                "--host",
                "127.0.0.1",
                "--port",
                str(port),
                "--loop",
                "uvloop",
                "--http",
                "httptools",
                "--ws",
                "websockets-sansio",
                "--ws-per-message-deflate",
                "false",
                "--no-access-log",
                "--log-level",
                "warning",
                "--lifespan",
                "on",
            ]
        self.process = subprocess.Popen(command, cwd=ROOT, env=env, preexec_fn=_pin_server)
        self.url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                httpx.get(f"{self.url}/healthz", timeout=1)
                return
            except httpx.TransportError:
                time.sleep(0.1)
        self.stop()
        raise RuntimeError("server did not start")

    def stop(self) -> None:
        stop_process(self.process)
        if self.database is not None:
            self.database.drop()


def stop_process(process: subprocess.Popen[bytes]) -> None:
    """End a server: SIGTERM, then SIGKILL if it has not exited in 30 s."""
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(30)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def free_port() -> int:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@dataclass
class Result:
    """One server's figures for one configuration."""

    cpu_per_action_us: float
    cpu_per_message_us: float
    p50_ms: float
    p90_ms: float
    p99_ms: float
    max_ms: float
    rss_per_player_kb: float
    rss_per_room_kb: float
    actions: int
    delivered: int
    errors: int
    late: int
    closed: int
    patch_bytes: float
    state_bytes: float
    ticks: int = 0
    late_ticks: int = 0
    generator_cpu: float = 0.0
    refused: int = 0
    lost: int = 0
    readies: int = 0
    rematches: int = 0
    past_first_round: float = 0.0
    unreadable: int = 0
    checked: int = 0  # players whose document was compared with a fresh state after the window
    mismatched: int = 0
    players: int = 0
    pings_per_second: float = 0.0  # the game server's keepalive pings in the window

    @property
    def valid(self) -> bool:
        """Whether the generator kept up (its CPU and its late ticks under the limits) and every
        frame could be applied, and every document checked equal to a fresh state."""
        return (
            self.generator_cpu <= GENERATOR_CPU_LIMIT
            and self.late_ticks <= LATE_TICKS_LIMIT * max(self.ticks, 1)
            and self.unreadable == 0
            and self.mismatched == 0
            and self.checked == self.players
        )


def _past_first_round(state: dict[str, Any]) -> bool:
    """Whether a room has played past its first match's first round."""
    round_number = (state.get("round") or {}).get("number", 1)
    return bool(state.get("match_number", 1) > 1 or round_number > 1)


async def measure_server(
    game: bool,
    rooms: int,
    players: int,
    seconds: float,
    rate: float,
    reply_bytes: int,
    state_bytes: int,
    flush_ms: int | None = None,
    spread: int = 0,
    database: str | None = None,
    encoding: str = "compact",
) -> Result:
    """Start a server, load it, measure a window, stop it."""
    with tempfile.TemporaryDirectory() as folder:
        server = Server(game, free_port(), folder, flush_ms, database)
        try:
            await asyncio.sleep(0.5)
            base_rss = rss_bytes(server.process.pid)
            bench = Bench(
                server.url,
                server.url.replace("http", "ws"),
                game,
                reply_bytes,
                state_bytes,
                encoding,
            )
            await bench.setup(rooms, players)
            if game and spread:
                await bench.fast_forward(spread)
            # The generator's own garbage collections would pause its clients and show up as
            # server latency: collect once now, then not while measuring.
            gc.collect()
            gc.freeze()
            gc.disable()
            await bench.run(min(3.0, seconds), rate)  # warm up
            loaded_rss = rss_bytes(server.process.pid)
            past_first_round = (
                statistics.mean(_past_first_round(room.players[0].state) for room in bench.rooms)
                if game
                else 0.0
            )
            bench.stats = Stats()
            pinged = keepalive_pings(server.url) if game else 0.0
            cpu = cpu_seconds(server.process.pid)
            own_cpu, started = time.process_time(), time.perf_counter()
            await bench.run(seconds, rate)
            used = cpu_seconds(server.process.pid) - cpu
            elapsed = time.perf_counter() - started
            generator_cpu = (time.process_time() - own_cpu) / elapsed
            pings_per_second = (keepalive_pings(server.url) - pinged) / elapsed if game else 0.0
            stats = bench.stats
            if game:
                stats.state_bytes = [
                    len(orjson.dumps(room.players[0].state)) for room in bench.rooms[:50]
                ]
                await bench.check()
            await bench.close()
        finally:
            gc.enable()
            gc.unfreeze()
            server.stop()
    latencies = sorted(stats.latencies) or [0.0]
    grown = max(0, loaded_rss - base_rss)
    return Result(
        cpu_per_action_us=used / max(stats.actions, 1) * 1e6,
        cpu_per_message_us=used / max(stats.delivered, 1) * 1e6,
        p50_ms=latencies[len(latencies) // 2] * 1000,
        p90_ms=latencies[int(len(latencies) * 0.9)] * 1000,
        p99_ms=latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))] * 1000,
        max_ms=latencies[-1] * 1000,
        rss_per_player_kb=grown / (rooms * players) / 1024,
        rss_per_room_kb=grown / rooms / 1024,
        actions=stats.actions,
        delivered=stats.delivered,
        errors=stats.errors,
        late=stats.late,
        closed=stats.closed,
        patch_bytes=stats.patch_bytes / max(stats.patches, 1),
        state_bytes=statistics.mean(stats.state_bytes) if stats.state_bytes else 0.0,
        ticks=stats.ticks,
        late_ticks=stats.late_ticks,
        generator_cpu=generator_cpu,
        refused=stats.refused,
        lost=stats.lost,
        readies=stats.readies,
        rematches=stats.rematches,
        past_first_round=past_first_round,
        unreadable=bench.unreadable,
        checked=bench.checked,
        mismatched=bench.mismatched,
        players=rooms * players if game else 0,
        pings_per_second=pings_per_second,
    )


def describe(rooms: int, players: int, game: Result, floor: Result, encoding: str) -> str:
    """One line comparing the game server with the bare relay."""

    def ratio(value: float, base: float) -> float:
        return value / max(base, 1e-9)

    return (
        f"R={rooms:5d} P={players} "
        f"| CPU/action {game.cpu_per_action_us:7.1f} us (floor {floor.cpu_per_action_us:6.1f}, "
        f"x{ratio(game.cpu_per_action_us, floor.cpu_per_action_us):.2f}) "
        f"| CPU/message {game.cpu_per_message_us:6.1f} us "
        f"(floor {floor.cpu_per_message_us:5.1f}, "
        f"x{ratio(game.cpu_per_message_us, floor.cpu_per_message_us):.2f}) "
        f"| p50 {game.p50_ms:5.1f} ms p99 {game.p99_ms:6.1f} ms "
        f"(floor {floor.p50_ms:4.1f}/{floor.p99_ms:5.1f}) "
        f"| RSS/player {game.rss_per_player_kb:5.1f} KB /room {game.rss_per_room_kb:6.1f} KB "
        f"(floor {floor.rss_per_player_kb:4.1f}/{floor.rss_per_room_kb:5.1f}) "
        f"| patch {game.patch_bytes:.0f} B {encoding}, state {game.state_bytes:.0f} B "
        f"(1/{ratio(game.state_bytes, game.patch_bytes):.1f}) "
        f"| actions {game.actions} (ready {game.readies}, rematch {game.rematches}; "
        f"{game.past_first_round:.0%} of rooms past their first round) "
        f"errors {game.errors} refused {game.refused} lost {game.lost} skipped {game.late} "
        f"closed {game.closed} unreadable {game.unreadable} "
        f"documents equal to a fresh state {game.checked - game.mismatched}/{game.players} "
        f"| keepalive pings {game.pings_per_second:.0f}/s "
        f"| generator CPU {game.generator_cpu:.0%}/{floor.generator_cpu:.0%}, late ticks "
        f"{game.late_ticks}/{floor.late_ticks}"
        + (
            ""
            if game.valid and floor.valid
            else " | INVALID: the generator fell behind"
            if game.unreadable == 0 and game.mismatched == 0 and game.checked == game.players
            else " | INVALID: documents that do not follow the server's"
        )
    )


def median_result(results: list[Result]) -> Result:
    """Each figure's median over repeats; counts summed."""

    def middle(name: str) -> float:
        return float(statistics.median(getattr(result, name) for result in results))

    return Result(
        **{
            name: middle(name)
            for name in (
                "cpu_per_action_us",
                "cpu_per_message_us",
                "p50_ms",
                "p90_ms",
                "p99_ms",
                "max_ms",
                "rss_per_player_kb",
                "rss_per_room_kb",
                "patch_bytes",
                "state_bytes",
                "generator_cpu",
                "past_first_round",
                "pings_per_second",
            )
        },
        **{
            name: sum(getattr(result, name) for result in results)
            for name in (
                "actions",
                "delivered",
                "errors",
                "late",
                "closed",
                "ticks",
                "late_ticks",
                "refused",
                "lost",
                "readies",
                "rematches",
                "unreadable",
                "checked",
                "mismatched",
                "players",
            )
        },
    )


async def main_async(arguments: argparse.Namespace) -> list[dict[str, Any]]:
    rows = []
    reply_bytes, state_bytes = 400, 2000

    async def measure(game: bool, rooms: int, players: int, sizes: tuple[int, int]) -> Result:
        return await measure_server(
            game,
            rooms,
            players,
            arguments.seconds,
            arguments.rate,
            *sizes,
            arguments.flush_ms,
            arguments.spread,
            arguments.database,
            arguments.encoding,
        )

    for rooms in arguments.rooms:
        for players in arguments.players:
            games, floors = [], []
            for _ in range(arguments.repeats):
                # The floor sends messages of the sizes the game server just sent (its patches
                # in the encoding asked for; its states are always standard).
                game = await measure(True, rooms, players, (reply_bytes, state_bytes))
                games.append(game)
                reply_bytes = int(game.patch_bytes) or reply_bytes
                state_bytes = int(game.state_bytes) or state_bytes
                floors.append(await measure(False, rooms, players, (reply_bytes, state_bytes)))
            game, floor = median_result(games), median_result(floors)
            row = {
                "rooms": rooms,
                "players": players,
                "database": "postgresql" if arguments.database else "sqlite",
                "spread": arguments.spread,
                "encoding": arguments.encoding,
                "game": {**vars(game), "valid": game.valid},
                "floor": {**vars(floor), "valid": floor.valid},
            }
            rows.append(row)
            print(describe(rooms, players, game, floor, arguments.encoding), flush=True)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--rooms", type=lambda text: [int(x) for x in text.split(",")], default=[10, 100, 500, 1000]
    )
    parser.add_argument(
        "--players", type=lambda text: [int(x) for x in text.split(",")], default=[2, 4, 6]
    )
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--rate", type=float, default=1.0, help="actions per room per second")
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument(
        "--flush-ms", type=int, help="the game server's JOURNAL_FLUSH_MS (default: its default)"
    )
    parser.add_argument(
        "--spread",
        type=int,
        default=MATCH_ACTIONS,
        help="each room first plays 0 to this many actions, unmeasured (0: none; default about "
        "one whole match)",
    )
    parser.add_argument(
        "--database",
        help="a PostgreSQL server (postgresql+asyncpg://user@host:port/maintenance-db) on which "
        "each run gets a fresh database for the game server's journal (default: SQLite)",
    )
    parser.add_argument(
        "--encoding",
        choices=ENCODINGS,
        default="binary",
        help="the patch encoding the game server's players ask for at hello (default: binary, "
        "as the browser client does)",
    )
    parser.add_argument("--json", type=Path, help="write the figures here as JSON")
    arguments = parser.parse_args()
    os.sched_setaffinity(0, {CLIENT_CORE})
    rows = asyncio.run(main_async(arguments))
    if arguments.json:
        arguments.json.parent.mkdir(parents=True, exist_ok=True)
        arguments.json.write_bytes(orjson.dumps(rows, option=orjson.OPT_INDENT_2))


if __name__ == "__main__":
    main()
