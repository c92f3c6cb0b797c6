"""Side by side under one load generator: this server, Colyseus, boardgame.io and two bare relays.

Each run starts one server fresh on core 0 and the Node generator (bench/peers/harness) on
core 1; servers are interleaved (this server, then each other one, repeated) and each figure
is the median of the repeats. The server's CPU comes from /proc: first with every room
connected and no actions for ``--idle`` seconds (its idle cost), then over the measured window,
so that the marginal CPU per delivered message is (window CPU - idle rate x window) / messages.
The window's CPU per action is also given as user and system time apart, with how many times
per action the server's threads slept and were woken (voluntary context switches): where the
time goes, the interpreter and the libraries in the process or the kernel, and whether a server
wakes more often than the messages it reads (every thread's count, helpers' too: the journal's
fold, Node's workers). Each figure is its own median, so with three repeats or more the two
parts need not add up to the total shown.
The relays (bench/floor.py on uvicorn, bench/peers/relay on Node ws) send every member a message
of the size this server's last run sent. This server's players ask for the binary encoding
(``--encoding binary``, the browser client's), its JSON form (``--encoding compact``) or standard
JSON Patch (``--encoding standard``); the generator reads the frames with the browser's own
decoders (frontend/js/patch.js and unpack.js). A run
whose generator fell behind, or whose documents could not take a frame, is marked invalid.

Install the peers once: .venv/bin/python -m bench.peers install
Run: .venv/bin/python -m bench.compare [--rooms 20] [--players 4] [--seconds 10] [--idle 5]
     [--repeats 3] [--servers game,colyseus,boardgameio,floor,relay] [--spread 160]
     [--encoding binary|compact|standard]
     [--database postgresql+asyncpg://postgres@127.0.0.1:5432/postgres]
     [--json PATH] [--markdown PATH] [--perf FOLDER]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, NamedTuple

from bench.load import (
    CLIENT_CORE,
    ENCODINGS,
    SERVER_CORE,
    TICKS,
    Server,
    cpu_split,
    free_port,
    rss_bytes,
    sleeps,
    stop_process,
)

ROOT = Path(__file__).resolve().parents[1]
PEERS = ROOT / "bench" / "peers"
NAMES = {
    "game": "this server",
    "colyseus": "Colyseus 0.18",
    "boardgameio": "boardgame.io 0.50",
    "floor": "uvicorn floor",
    "relay": "Node ws relay",
}
NODE_SERVERS = {"colyseus": "colyseus", "boardgameio": "boardgameio", "relay": "relay"}
# About one whole 2-round match, as the generator plays them (bench/room.py: some 75 actions a
# round at 2 to 6 players), so that the fast-forward leaves rooms anywhere in a match.
SPREAD = 160
# /proc counts CPU in ticks (10 ms here): fewer than this in a window is too coarse to compare.
COARSE_CPU_TICKS = 100
MEDIANS = (
    "cpu_per_action_us",
    "cpu_per_message_us",
    "user_us_per_action",
    "system_us_per_action",
    "sleeps_per_action",
    "marginal_cpu_per_message_us",
    "idle_cpu_share",
    "window_cpu_share",
    "p50_ms",
    "p99_ms",
    "max_ms",
    "bytes_per_frame",
    "rss_per_player_kb",
    "generator_cpu",
)


def _pin(core: int) -> Any:
    return lambda: os.sched_setaffinity(0, {core})


class NodeServer:
    """A peer server (bench/peers/<folder>/server.mjs) on the server core."""

    def __init__(self, folder: str, port: int) -> None:
        self.url = f"http://127.0.0.1:{port}"
        self.process = subprocess.Popen(
            ["node", "server.mjs", str(port)],
            cwd=PEERS / folder,
            preexec_fn=_pin(SERVER_CORE),
            stdout=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                return
            except OSError:
                if self.process.poll() is not None:
                    break
                time.sleep(0.1)
        self.stop()
        raise RuntimeError(f"{folder} did not start")

    def stop(self) -> None:
        stop_process(self.process)


def start(target: str, folder: str, database: str | None = None) -> NodeServer | Server:
    """Start one server fresh, as the benchmark configures it."""
    port = free_port()
    if target in NODE_SERVERS:
        return NodeServer(NODE_SERVERS[target], port)
    return Server(target == "game", port, folder, database=database)


class Mark(NamedTuple):
    """The server as the generator reached one of its marks: its user and system CPU so far,
    how many times its threads had slept and been woken, and when (``time.perf_counter``)."""

    user: float
    system: float
    sleeps: int
    at: float

    @property
    def cpu(self) -> float:
        return self.user + self.system


def record(pid: int, seconds: float, output: Path) -> subprocess.Popen[bytes]:
    """Linux perf sampling a process's stacks on the kernel's software clock (so that it works
    in a virtual machine without hardware counters), for ``seconds``, into ``output``."""
    command = ["perf", "record", "-e", "cpu-clock", "-F", "2000", "-g", "-p", str(pid)]
    return subprocess.Popen(
        [*command, "-o", str(output), "--", "sleep", f"{seconds:g}"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )


def recorded(recording: subprocess.Popen[bytes], output: Path) -> None:
    """Wait for a recording to end (stop it if it has not after a minute); say so if perf
    failed or refused (``kernel.perf_event_paranoid``, say) rather than leave no file unsaid."""
    try:
        _, errors = recording.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        recording.terminate()
        _, errors = recording.communicate()
    if recording.returncode != 0 or not output.exists():
        said = errors.decode(errors="replace").strip().splitlines()
        print(f"perf recorded nothing into {output}: {said[-1] if said else 'no reason given'}")


def run_once(
    target: str, arguments: argparse.Namespace, reply_bytes: int, repeat: int = 0
) -> dict[str, Any]:
    """One server, one generator run: the generator's figures and the server's CPU and memory."""
    with tempfile.TemporaryDirectory() as folder:
        server = start(target, folder, arguments.database)
        pid = server.process.pid
        try:
            time.sleep(0.5)
            base_rss = rss_bytes(pid)
            command = [
                "node",
                str(PEERS / "harness" / "load.mjs"),
                f"--target={target}",
                f"--url={server.url}",
                f"--rooms={arguments.rooms}",
                f"--players={arguments.players}",
                f"--seconds={arguments.seconds}",
                f"--idle={arguments.idle}",
                f"--warmup={arguments.warmup}",
                f"--spread={arguments.spread}",
                f"--reply-bytes={reply_bytes}",
                f"--encoding={arguments.encoding}",
            ]
            generator = subprocess.Popen(
                command, stdout=subprocess.PIPE, text=True, preexec_fn=_pin(CLIENT_CORE)
            )
            assert generator.stdout is not None
            marks: dict[str, Mark] = {}
            recording: subprocess.Popen[bytes] | None = None
            output = Path()
            result: dict[str, Any] = {}
            check: dict[str, Any] = {}
            for line in generator.stdout:
                event = json.loads(line)
                marks[event["event"]] = Mark(*cpu_split(pid), sleeps(pid), time.perf_counter())
                if event["event"] == "measure_start" and arguments.perf:
                    arguments.perf.mkdir(parents=True, exist_ok=True)
                    output = arguments.perf / f"{target}-{repeat + 1}.data"
                    recording = record(pid, max(arguments.seconds - 1, 1), output)
                if event["event"] == "connected":
                    connected_rss = rss_bytes(pid)
                if event["event"] == "result":
                    result = event
                    loaded_rss = rss_bytes(pid)
                if event["event"] == "checked":
                    check = event
            if generator.wait() != 0 or not result:
                raise RuntimeError(f"the generator failed against {target}")
        finally:
            if recording is not None:
                recorded(recording, output)
            server.stop()
    begun, ended = marks["measure_start"], marks["result"]
    idle_cpu = marks["idle_done"].cpu - marks["connected"].cpu
    idle_wall = marks["idle_done"].at - marks["connected"].at
    window_cpu = ended.cpu - begun.cpu
    window_wall = ended.at - begun.at
    idle_rate = idle_cpu / idle_wall
    delivered = max(result["delivered"], 1)
    actions = max(result["actions"], 1)
    players = arguments.rooms * arguments.players
    invalid = list(result["invalid"])
    if check and check["mismatched"]:
        invalid.append(f"{check['mismatched']} documents differed from a fresh state")
    if check and check["checked"] < check["players"]:
        invalid.append(f"{check['players'] - check['checked']} resyncs unanswered")
    return {
        **result,
        "checked": check.get("checked", 0),
        "mismatched": check.get("mismatched", 0),
        "valid": not invalid,
        "invalid": invalid,
        "server": NAMES[target] + (f" ({result['encoding']})" if result["encoding"] else ""),
        "cpu_per_action_us": window_cpu / actions * 1e6,
        "user_us_per_action": (ended.user - begun.user) / actions * 1e6,
        "system_us_per_action": (ended.system - begun.system) / actions * 1e6,
        "sleeps_per_action": (ended.sleeps - begun.sleeps) / actions,
        "cpu_per_message_us": window_cpu / delivered * 1e6,
        "marginal_cpu_per_message_us": (window_cpu - idle_rate * window_wall) / delivered * 1e6,
        "idle_cpu_share": idle_rate,
        "window_cpu_share": window_cpu / window_wall,
        "window_cpu_ticks": round(window_cpu * TICKS),
        "rss_per_player_kb": max(0, loaded_rss - base_rss) / players / 1024,
        "rss_connected_per_player_kb": max(0, connected_rss - base_rss) / players / 1024,
    }


def median_row(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """Each figure's median over the repeats; counts summed; valid only if every run was."""
    row: dict[str, Any] = {name: statistics.median(run[name] for run in runs) for name in MEDIANS}
    for name in (
        "actions",
        "delivered",
        "errors",
        "unreadable",
        "checked",
        "mismatched",
        "lost",
        "closed",
        "ticks",
        "late_ticks",
    ):
        row[name] = sum(run[name] for run in runs)
    kinds: dict[str, int] = {}
    for run in runs:
        for kind, count in run["kinds"].items():
            kinds[kind] = kinds.get(kind, 0) + count
    row["kinds"] = kinds
    # Each kind of action's p99 (the median over the runs) and how many there were in all: which
    # actions the tail is made of.
    by_kind: dict[str, list[dict[str, float]]] = {}
    for run in runs:
        for kind, figures in run.get("by_kind", {}).items():
            by_kind.setdefault(kind, []).append(figures)
    row["by_kind"] = {
        kind: {
            "count": sum(figures["count"] for figures in runs_of_kind),
            "p99_ms": statistics.median(figures["p99_ms"] for figures in runs_of_kind),
        }
        for kind, runs_of_kind in sorted(by_kind.items())
    }
    row["valid"] = all(run["valid"] for run in runs)
    row["window_cpu_ticks"] = min(run["window_cpu_ticks"] for run in runs)
    row["invalid"] = sorted({reason for run in runs for reason in run["invalid"]})
    row["server"] = runs[0]["server"]
    row["encoding"] = runs[0]["encoding"]
    return row


def markdown(
    rows: dict[str, dict[str, Any]],
    runs: dict[str, list[dict[str, Any]]],
    arguments: argparse.Namespace,
) -> str:
    """One line per server (ratios are that server's marginal CPU per message against this
    one's), each kind of action's p99, and this server against each other repeat by repeat."""
    base = rows.get("game", {}).get("marginal_cpu_per_message_us")
    lines = [
        f"{arguments.rooms} rooms x {arguments.players} players, {arguments.seconds:g} s windows, "
        f"medians of {arguments.repeats}, this server's patches {arguments.encoding}, journal on "
        f"{'PostgreSQL' if arguments.database else 'SQLite'}, "
        f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC, "
        f"load average {os.getloadavg()[0]:.1f}",
        "",
        "| Server | CPU/action µs (user + system) | sleeps/action | CPU/message µs "
        "| marginal µs/message (÷ this server) "
        "| idle CPU | p50 / p99 / max ms | B/frame | RSS/player KB | actions (ready, rematch) "
        "| generator CPU, late ticks | valid |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for row in rows.values():
        marginal = row["marginal_cpu_per_message_us"]
        ratio = f" (x{marginal / base:.2f})" if base and base > 0 else ""
        kinds = row["kinds"]
        ticks = row["window_cpu_ticks"]
        coarse = f" (CPU only {ticks} ticks)" if ticks < COARSE_CPU_TICKS else ""
        lines.append(
            f"| {row['server']} | {row['cpu_per_action_us']:.0f} "
            f"({row['user_us_per_action']:.0f} + {row['system_us_per_action']:.0f}) "
            f"| {row['sleeps_per_action']:.2f} | {row['cpu_per_message_us']:.0f} "
            f"| {marginal:.0f}{ratio} | {row['idle_cpu_share']:.1%} "
            f"| {row['p50_ms']:.1f} / {row['p99_ms']:.1f} / {row['max_ms']:.0f} "
            f"| {row['bytes_per_frame']:.0f} | {row['rss_per_player_kb']:.1f} "
            f"| {row['actions']} ({kinds.get('ready', 0)}, {kinds.get('rematch', 0)}) "
            f"| {row['generator_cpu']:.0%}, {row['late_ticks']}/{row['ticks']} "
            f"| {'yes' if row['valid'] else 'no: ' + '; '.join(row['invalid'])}{coarse} |"
        )
    lines += ["", "p99 ms by kind of action (how many in all):", ""]
    for row in rows.values():
        kinds_said = ", ".join(
            f"{kind} {figures['p99_ms']:.1f} ({figures['count']})"
            for kind, figures in row["by_kind"].items()
        )
        lines.append(f"- {row['server']}: {kinds_said or 'none'}")
    return "\n".join(lines + paired(runs))


def paired(runs: dict[str, list[dict[str, Any]]]) -> list[str]:
    """Each repeat's figures for this server against each other server's run of the same
    repeat: the runs of one repeat follow each other, so the machine drifting from one repeat
    to the next (other tenants, its clock) weighs on both sides of each ratio alike."""
    ours = runs.get("game", [])
    others = [target for target in runs if target != "game" and runs[target]]
    if len(ours) < 2 or not others:
        return []
    lines = ["", "This server ÷ each other server, repeat by repeat:", ""]
    for target in others:
        figures = []
        for name, label in (
            ("cpu_per_action_us", "CPU/action"),
            ("marginal_cpu_per_message_us", "marginal"),
            ("p99_ms", "p99"),
        ):
            ratios = [
                f"x{mine[name] / theirs[name]:.2f}" if theirs[name] > 0 else "n/a"
                for mine, theirs in zip(ours, runs[target], strict=False)
            ]
            figures.append(f"{label} {', '.join(ratios)}")
        lines.append(f"- {runs[target][0]['server']}: {'; '.join(figures)}")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rooms", type=int, default=20)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--idle", type=float, default=5.0, help="seconds connected, no actions")
    parser.add_argument("--warmup", type=float, default=3.0)
    parser.add_argument(
        "--spread",
        type=int,
        default=SPREAD,
        help="rooms first play 0 to this many actions (default about one whole match)",
    )
    parser.add_argument(
        "--database",
        help="this server's journal on PostgreSQL: a server URL "
        "(postgresql+asyncpg://user@host:port/maintenance-db) on which each run gets a fresh "
        "database (default: SQLite)",
    )
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument(
        "--encoding",
        choices=ENCODINGS,
        default="binary",
        help="the patch encoding this server's players ask for at hello (default: binary, as "
        "the browser client does)",
    )
    parser.add_argument("--servers", default="game,colyseus,boardgameio,floor,relay")
    parser.add_argument("--json", type=Path, default=ROOT / "bench" / "results" / "compare.json")
    parser.add_argument("--markdown", type=Path, help="also write the table here")
    parser.add_argument(
        "--perf",
        type=Path,
        help="record each server's measured window with Linux perf into this folder "
        "(SERVER-REPEAT.data; `perf report -i FILE --sort dso` splits it by library); the "
        "sampling costs the servers CPU, so a recorded run's figures are not compared with others",
    )
    arguments = parser.parse_args()
    servers = arguments.servers.split(",")
    unknown = set(servers) - set(NAMES)
    if unknown:
        sys.exit(f"unknown servers: {', '.join(sorted(unknown))}")
    if arguments.perf and shutil.which("perf") is None:
        sys.exit("--perf needs Linux perf (Debian: apt-get install linux-perf)")
    if not (PEERS / "harness" / "node_modules").exists():
        sys.exit("the peers are not installed: .venv/bin/python -m bench.peers install")
    runs: dict[str, list[dict[str, Any]]] = {target: [] for target in servers}
    reply_bytes = 250
    for repeat in range(arguments.repeats):
        for target in servers:
            run = run_once(target, arguments, reply_bytes, repeat)
            if target == "game":
                reply_bytes = round(run["bytes_per_frame"]) or reply_bytes
            runs[target].append(run)
            print(
                f"[{repeat + 1}/{arguments.repeats}] {run['server']}: "
                f"{run['marginal_cpu_per_message_us']:.0f} µs/message marginal, "
                f"p99 {run['p99_ms']:.1f} ms, {run['actions']} actions, "
                f"{run['errors']} refused, {run['lost']} lost, {run['closed']} closed, "
                f"{'valid' if run['valid'] else 'INVALID: ' + '; '.join(run['invalid'])}",
                flush=True,
            )
    rows = {target: median_row(runs[target]) for target in servers}
    table = markdown(rows, runs, arguments)
    print(table)
    arguments.json.parent.mkdir(parents=True, exist_ok=True)
    document = {"settings": vars(arguments), "rows": rows, "runs": runs}
    arguments.json.write_text(json.dumps(document, indent=2, default=str))
    if arguments.markdown:
        arguments.markdown.write_text(table + "\n")


if __name__ == "__main__":
    main()
