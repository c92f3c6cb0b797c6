"""A long evening in one room, compressed: does anything grow with the number of matches?

Starts a server the way the tests do (its own SQLite database, bots playing at once, 0.3 s
between rounds), seats three players on the Python protocol client (compact patches) and an
easy bot, and has them play --matches matches of --rounds rounds, one rematch after another.
After each match a player says a 150-character line (when the chat limit lets it); every 7th
match a player's connection drops and comes back, every 11th a spectator leaves and another
comes. Every --every matches it prints the server's resident memory, open files and threads,
its bot workers' memory, the database, its write-ahead log and its event-log segments on disk,
and the live journal's rows. At the end the server is stopped and started again, and the time
the start took and whether the room came back whole (matches, series totals, chat) is printed.

With --browser it instead keeps a player's page open in Debian's Chromium (the tests' flags)
for the whole run, a bot standing in for that player, and prints the page's element count,
JavaScript heap (after a garbage collection), event listeners, localStorage keys and bytes,
and the time the page took to handle each frame (its socket's message handler, patching and
drawing included) over the last stretch.

Run: .venv/bin/python -m bench.session [--matches 1500] [--rounds 2] [--every 100]
     .venv/bin/python -m bench.session --browser [--matches 300] [--rounds 1] [--every 50]
Ports are free ones (--port to choose).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import sqlite3
import statistics
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from tests.rooms.client import Client, Refused, converge, create_room, join_room
from tests.server import FAST, Server, free_port, migrate, server_env

SETTINGS = {
    **FAST,
    "READY_SECONDS": "0.3",
    "BOT_DELAY_SECONDS": "0",
    "STANDIN_SECONDS": "600",
    "LOG_LEVEL": "warning",
}
TABLES = ("live_room_events", "live_room_snapshots", "rounds")
# Wraps the page's socket handler to time it; installed before the page's own scripts run.
TIMING = """
window.__times = [];
const Native = WebSocket;
window.WebSocket = class extends Native {
  set onmessage(handler) {
    super.onmessage = (event) => {
      const start = performance.now();
      handler(event);
      window.__times.push(performance.now() - start);
    };
  }
  get onmessage() { return super.onmessage; }
};
"""
PAGE = """() => ({
  elements: document.getElementsByTagName('*').length,
  keys: Object.keys(localStorage).length,
  bytes: Object.entries(localStorage).reduce((sum, [k, v]) => sum + k.length + v.length, 0),
  chat: document.querySelectorAll('.chatlog p').length,
})"""


def rss_mib(pid: int) -> int:
    """Resident memory of a process, in MiB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) // 1024
    return 0


def children(pid: int) -> list[int]:
    """The processes ``pid`` started (its bot workers)."""
    found: list[int] = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        found += [int(child) for child in (task / "children").read_text().split()]
    return found


def kib(path: Path) -> int:
    """Size of a file, or of the files in a folder, in KiB (0 if missing)."""
    if path.is_dir():
        return sum(part.stat().st_size for part in path.iterdir()) // 1024
    return path.stat().st_size // 1024 if path.exists() else 0


def server_line(server: Server, database: Path, number: int, chats: int) -> str:
    """What the server holds after ``number`` matches."""
    assert server.process is not None
    pid = server.process.pid
    workers = [rss_mib(child) for child in children(pid)]
    # Closed at once: an open reader would keep SQLite's checkpoints from emptying its log.
    with contextlib.closing(sqlite3.connect(f"file:{database}?mode=ro", uri=True)) as db:
        rows = {t: db.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in TABLES}
    return (
        f"match {number}: RSS {rss_mib(pid)} MiB, workers {workers} MiB, "
        f"{len(os.listdir(f'/proc/{pid}/fd'))} files, {len(os.listdir(f'/proc/{pid}/task'))} "
        f"threads; database {kib(database)} KiB, WAL {kib(Path(f'{database}-wal'))} KiB, "
        f"segments {kib(Path(f'{database}-live'))} KiB; rows {rows}; chat lines said {chats}"
    )


async def play_match(players: list[Client], rng: random.Random) -> None:
    """Random legal moves until the match is over, everyone ready between rounds."""
    while True:
        state = await converge(players)
        if state["status"] == "finished":
            return
        if state["status"] == "round_over":
            for client in players:
                with contextlib.suppress(Refused):  # the round was dealt meanwhile
                    await client.act("ready")
            continue
        mover = next((client for client in players if client.my_turn()), None)
        if mover is None:  # the bot's turn
            await asyncio.sleep(0.002)
            continue
        with contextlib.suppress(Refused):
            await mover.play(mover.random_move(rng, knock_chance=0.3))


async def evening(server: Server, database: Path, matches: int, rounds: int, every: int) -> None:
    """The players' side of the server benchmark."""
    room = create_room(server, "Ann", rounds=rounds, turn_seconds=0)
    code = room["code"]
    tokens = [room["token"]] + [join_room(server, code, name)["token"] for name in ("Bob", "Cid")]
    players = [Client(server, code, token) for token in tokens]
    for client in players:
        await client.connect(encoding="compact")
    await players[0].act("add_bot", level="easy")
    spectator = Client(server, code)
    await spectator.connect()
    rng = random.Random(5)
    await players[0].act("start")
    chats = 0
    started = time.monotonic()
    for number in range(1, matches + 1):
        await play_match(players, rng)
        try:
            await players[number % 3].act("chat", text=f"gg {number} " + "x" * 150)
            chats += 1
        except Refused:
            pass  # at most 5 lines in 10 s a seat
        if number % 7 == 0:
            seat = number % 3
            await players[seat].close()
            players[seat] = Client(server, code, tokens[seat])
            await players[seat].connect(encoding="compact")
        if number % 11 == 0:
            await spectator.close()
            spectator = Client(server, code)
            await spectator.connect()
        for client in [*players, spectator]:  # what the clients keep is no part of it
            client.frames.clear()
            client.received.clear()
            client.packed.clear()
            client.answers.clear()
        if number == 1 or number % every == 0:
            took = time.monotonic() - started
            print(f"{server_line(server, database, number, chats)} ({took:.0f} s)", flush=True)
        if number < matches:
            await players[0].act("rematch")
    before = players[0].state
    assert before is not None
    for client in [*players, spectator]:
        await client.close()
    stopped = time.monotonic()
    server.stop()
    restart = time.monotonic()
    server.start()
    came_back = time.monotonic() - restart
    again = Client(server, code, tokens[0])
    await again.connect()
    after = again.state
    assert after is not None

    def kept(state: dict[str, Any]) -> list[Any]:
        players = [(p["name"], p["total"], p["series"], p["host"]) for p in state["players"]]
        return [state["match_number"], state["status"], players, state["chat"], state["results"]]

    whole = kept(before) == kept(after)
    if not whole:
        print([(b, a) for b, a in zip(kept(before), kept(after), strict=True) if a != b])
    print(
        f"stop {restart - stopped:.2f} s, start {came_back:.2f} s; match "
        f"{after['match_number']}, series {[p['series'] for p in after['players']]}, "
        f"{len(after['chat']['lines'])} chat lines; the same as before the stop: {whole}"
    )
    await again.close()


async def host_for_page(
    server: Server, code: str, token: str, matches: int, samples: set[int], hold: dict[str, Any]
) -> None:
    """The host's side of the browser benchmark: Ann knocks at once, a bot plays the page's
    seat (it stands in once the turn timer has played for it), and Ann starts each rematch,
    waiting at the matches in ``samples`` until the page has been measured."""
    ann = Client(server, code, token)
    await ann.connect(encoding="compact")
    await ann.act("add_bot", level="easy")
    await ann.wait_for(lambda state: state["players"][1]["connected"], timeout=60)
    await ann.act("start")
    rng = random.Random(3)
    number = 1
    while True:
        state = ann.state
        assert state is not None
        if state["status"] == "finished":
            with contextlib.suppress(Refused):
                await ann.act("chat", text=f"good game {number}")
            if number in samples:
                hold["match"] = number
                hold["event"].clear()
                await asyncio.to_thread(hold["event"].wait)
            if number == matches:
                break
            number += 1
            match_id = state["match_id"]
            await ann.act("rematch")
            await ann.wait_for(lambda state, was=match_id: state["match_id"] != was)
            ann.frames.clear()
            ann.received.clear()
            ann.answers.clear()
        elif state["status"] == "round_over":
            with contextlib.suppress(Refused):
                await ann.act("ready")
            await ann.wait_for(lambda state: state["status"] != "round_over")
        elif ann.my_turn():
            with contextlib.suppress(Refused):
                await ann.play(ann.random_move(rng, knock_chance=1.0))
        else:
            version = ann.version
            await ann.wait_for(lambda state, was=version: ann.version > was)
    hold["done"] = True
    await ann.close()


def browser(server: Server, matches: int, rounds: int, every: int) -> None:
    """A player's page open for the whole run; see the module's description."""
    from playwright.sync_api import sync_playwright

    from tests.e2e.conftest import CHROMIUM, CHROMIUM_ARGS, DESKTOP

    room = create_room(server, "Ann", rounds=rounds, turn_seconds=1)
    code = room["code"]
    bob = join_room(server, code, "Bob")
    samples = {1, 2, *range(every, matches + 1, every)}
    hold: dict[str, Any] = {"event": threading.Event(), "done": False, "match": 0}
    hold["event"].set()
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        context = chromium.new_context(viewport=DESKTOP)
        context.add_init_script(
            f"localStorage.setItem('spectrum.token.{code}', {json.dumps(bob['token'])});" + TIMING
        )
        page = context.new_page()
        cdp = context.new_cdp_session(page)
        cdp.send("Performance.enable")
        page.goto(f"{server.url}/r/{code}")
        host = threading.Thread(
            target=asyncio.run,
            args=(host_for_page(server, code, room["token"], matches, samples, hold),),
        )
        host.start()
        while not hold["done"]:
            if hold["event"].is_set():
                time.sleep(0.05)
                continue
            page.wait_for_timeout(1000)  # the last frames drawn
            times = sorted(page.evaluate("window.__times.splice(0)"))
            cdp.send("HeapProfiler.collectGarbage")
            metrics = {m["name"]: m["value"] for m in cdp.send("Performance.getMetrics")["metrics"]}
            seen = page.evaluate(PAGE)
            handled = (
                f"{len(times)} frames since the last line, median {statistics.median(times):.1f}"
                f" ms, p90 {times[int(len(times) * 0.9)]:.1f} ms"
                if times
                else "no frames"
            )
            print(
                f"match {hold['match']}: {seen['elements']} elements, heap "
                f"{metrics['JSHeapUsedSize'] / 1e6:.2f} MB, {metrics['JSEventListeners']:.0f} "
                f"listeners, localStorage {seen['keys']} keys {seen['bytes']} B, "
                f"{seen['chat']} chat lines; {handled}",
                flush=True,
            )
            hold["event"].set()
        host.join()
        chromium.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int)
    parser.add_argument("--rounds", type=int)
    parser.add_argument("--every", type=int)
    parser.add_argument("--browser", action="store_true")
    parser.add_argument("--port", type=int)
    arguments = parser.parse_args()
    port = arguments.port or free_port()
    with tempfile.TemporaryDirectory() as folder:
        database = Path(folder) / "spectrum.db"
        url = f"sqlite+aiosqlite:///{database}"
        migrate(url)
        env = server_env(HOST="127.0.0.1", DATABASE_URL=url, PORT=str(port), **SETTINGS)
        server = Server(env, port)
        server.log = Path(folder) / "server.log"
        server.start()
        try:
            if arguments.browser:
                browser(
                    server, arguments.matches or 300, arguments.rounds or 1, arguments.every or 50
                )
            else:
                asyncio.run(
                    evening(
                        server,
                        database,
                        arguments.matches or 1500,
                        arguments.rounds or 2,
                        arguments.every or 100,
                    )
                )
        finally:
            server.stop()


if __name__ == "__main__":
    main()
