"""Cold start: from starting the server the way `make run` does to its first accepted WebSocket.

Each run starts `python -m app.scripts.start` on a free port with its own SQLite database in a
fresh temporary folder, then polls every 5 ms: create a room (POST /api/rooms), open a WebSocket
to it and say hello. The time is taken from just before the process is started to the moment the
WebSocket is accepted, and again when the room's first state arrives. Two kinds of start:

- fresh: no database file yet, so the start creates it and runs the migrations;
- at head: a database already migrated to the newest migration (copied from one made once),
  the container's every start after its first.

The server's own CPU time by then is reported too: on a shared machine it moves less with the
load than the wall-clock time does. Reported: the median (and the lowest and highest) of N runs
of each, and the load average. With --imports, also the total that
`python -X importtime -c "import app.main"` reports.

The project's own modules are compiled to bytecode first, as the image ships them and as any
start after the first finds them (Python writes it on a first import); with --no-bytecode their
bytecode is deleted and never written, so every start compiles them from source (as with
PYTHONDONTWRITEBYTECODE=1 set and nothing compiled).

With --against DIR, a second copy of the project is started in turn with this one (each run of
one followed by a run of the other), so that a change can be measured on a loaded machine.

Run: .venv/bin/python -m bench.coldstart [--runs 7] [--imports] [--against DIR] [--no-bytecode]
"""

from __future__ import annotations

import argparse
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
import orjson
from websockets.sync.client import connect

from bench.load import cpu_seconds, stop_process

ROOT = Path(__file__).resolve().parents[1]
TICKS = os.sysconf("SC_CLK_TCK")
POLL_SECONDS = 0.005
GIVE_UP_SECONDS = 60.0


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def environment(folder: Path, port: int) -> dict[str, str]:
    """The server's settings for one run: its own database and port, quiet logs."""
    return {
        **os.environ,
        "HOST": "127.0.0.1",
        "PORT": str(port),
        "DATABASE_URL": f"sqlite+aiosqlite:///{folder}/spectrum.db",
        "LOG_LEVEL": "warning",
    }


def prepare_bytecode(root: Path, compiled: bool) -> None:
    """Compile the project's modules under ``root`` to bytecode, or delete their bytecode."""
    if compiled:
        subprocess.run([sys.executable, "-m", "compileall", "-q", "app"], cwd=root, check=True)
        return
    for cache in (root / "app").rglob("__pycache__"):
        shutil.rmtree(cache)


def first_socket(base: str, deadline: float) -> tuple[float, float]:
    """Poll until a WebSocket to a new room is accepted; the times it was and its state came."""
    with httpx.Client(base_url=base, timeout=5) as http:
        while True:
            try:
                created = http.post("/api/rooms", json={"name": "P0"}).json()
                break
            except httpx.TransportError:
                if time.perf_counter() > deadline:
                    raise RuntimeError("the server did not answer") from None
                time.sleep(POLL_SECONDS)
    url = base.replace("http", "ws") + f"/ws/rooms/{created['code']}"
    with connect(url, compression=None, open_timeout=GIVE_UP_SECONDS) as websocket:
        accepted = time.perf_counter()
        websocket.send(orjson.dumps({"type": "hello", "token": created["token"]}).decode())
        while orjson.loads(websocket.recv(timeout=GIVE_UP_SECONDS))["type"] != "state":
            pass
        return accepted, time.perf_counter()


def one_start(database: Path | None, root: Path = ROOT) -> tuple[float, float, float]:
    """Seconds from starting the process to the first accepted WebSocket and its first state,
    and the CPU seconds the server had used by then (less moved by the machine's load)."""
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        if database is not None:
            shutil.copy(database, folder / "spectrum.db")
        port = free_port()
        env = environment(folder, port)
        started = time.perf_counter()
        process = subprocess.Popen(
            [sys.executable, "-m", "app.scripts.start"],
            cwd=root,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        try:
            accepted, state = first_socket(f"http://127.0.0.1:{port}", started + GIVE_UP_SECONDS)
        except Exception:
            process.kill()
            _, errors = process.communicate()
            sys.stderr.write(errors.decode(errors="replace"))
            raise
        cpu = cpu_seconds(process.pid)
        stop_process(process)
        return accepted - started, state - started, cpu


def migrated_database(folder: Path) -> Path:
    """A database at the newest migration, made by starting the server once on it."""
    one_start(None)  # warms the file cache the same way for both kinds
    with tempfile.TemporaryDirectory() as name:
        port = free_port()
        env = environment(Path(name), port)
        process = subprocess.Popen(
            [sys.executable, "-m", "alembic", "upgrade", "head"],
            cwd=ROOT,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        if process.wait(60):
            raise RuntimeError("the migrations failed")
        shutil.copy(Path(name) / "spectrum.db", folder / "spectrum.db")
    return folder / "spectrum.db"


def import_seconds(root: Path) -> float:
    """Seconds `import app.main` takes, by -X importtime's own account."""
    run = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", "import app.main"],
        cwd=root,
        capture_output=True,
        text=True,
        check=True,
    )
    for line in run.stderr.splitlines():
        parts = line.split("|")
        if len(parts) == 3 and parts[2] == " app.main":
            return int(parts[1]) / 1e6
    raise RuntimeError("app.main is not in the import times")


def summary(name: str, values: list[float]) -> str:
    return (
        f"{name}: median {statistics.median(values) * 1000:.0f} ms "
        f"(lowest {min(values) * 1000:.0f}, highest {max(values) * 1000:.0f}, {len(values)} runs)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--imports", action="store_true", help="also time `import app.main`")
    parser.add_argument(
        "--against",
        type=Path,
        help="another copy of the project (e.g. `git archive main | tar -x -C DIR`), started "
        "in turn with this one, so that both see the same load",
    )
    parser.add_argument(
        "--no-bytecode",
        action="store_true",
        help="start from source: the project's bytecode deleted and never written",
    )
    arguments = parser.parse_args()
    if arguments.no_bytecode:
        os.environ["PYTHONDONTWRITEBYTECODE"] = "1"
    roots = (
        {"": ROOT}
        if arguments.against is None
        else {"this: ": ROOT, "against: ": arguments.against}
    )
    for root in roots.values():
        prepare_bytecode(root, not arguments.no_bytecode)
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}", flush=True)
    with tempfile.TemporaryDirectory() as name:
        at_head = migrated_database(Path(name))
        times: dict[str, list[float]] = {}
        # Interleaved, so that a change in the machine's load falls on both kinds alike.
        for _ in range(arguments.runs):
            for label, root in roots.items():
                for kind, database in (("fresh", None), ("at head", at_head)):
                    accepted, state, cpu = one_start(database, root)
                    name = f"{label}{kind}"
                    times.setdefault(f"{name}: first WebSocket accepted", []).append(accepted)
                    times.setdefault(f"{name}: first state received", []).append(state)
                    times.setdefault(f"{name}: server CPU by its first state", []).append(cpu)
                if arguments.imports:
                    times.setdefault(f"{label}import app.main", []).append(import_seconds(root))
    for name, values in sorted(times.items()):
        print(summary(name, values))
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
