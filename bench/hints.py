"""Hints under bot load: how long a person waits for a hint while many rooms of bots keep
the bot worker busy.

One server (SQLite, WORKERS bot workers, 1 by default, and as many for hints;
BOT_DELAY_SECONDS=1, STANDIN_SECONDS=1). ROOMS rooms of 10-card Spectrum with multiple
pickups, each a host who stays connected but never moves (the 1 s turn timer, then a strong
stand-in, plays for them: a room nobody is connected to plays nothing) and 3 strong bots: at
100 rooms, more decisions than one worker can think through. PROBES rooms
of a person and one strong bot, same variant, no turn timer: the person asks a hint on each
of their turns, timed from sending it to its answer, then plays a random legal move. After a
warm-up, hints are timed for SECONDS; reports how many were answered or refused
(``hint_busy``), their median, p90, p99 and longest, the rounds finished, and the bot
decisions the workers were late for (``spectrum_bot_decisions_late_total``).

Run (when the machine is otherwise idle):
    .venv/bin/python -m bench.hints [--rooms 100] [--probes 10] [--warmup 20] [--seconds 120]
        [--workers 1]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import random
import re
import statistics
import time
from typing import Any

from tests import fetch
from tests.rooms.client import Client, Refused, create_room
from tests.server import FAST, Server, running_server

SETTINGS: dict[str, Any] = {"ten_card": True, "multi_pickup": True, "rounds": 50}


async def load_room(server: Server) -> asyncio.Task[None]:
    room = create_room(server, "Host", **SETTINGS, turn_seconds=1)
    host = Client(server, room["code"], room["token"])
    await host.connect()
    for _ in range(3):
        await host.act("add_bot", level="strong")
    await host.act("start")
    # Nothing is played in a room with nobody connected: the host stays, never moves (the 1 s
    # turn timer, then a strong stand-in, plays for them) and says ready between rounds.
    return asyncio.create_task(readies(host))


async def readies(host: Client) -> None:
    while True:
        await host.wait_for(lambda s: s["status"] in ("round_over", "finished"), timeout=3600)
        if host.view["status"] == "finished":
            return
        with contextlib.suppress(Refused):
            await host.act("ready")
        await host.wait_for(lambda s: s["status"] != "round_over", timeout=3600)


async def probe_room(
    server: Server,
    seed: int,
    until: float,
    latencies: list[float],
    refused: list[float],
    other: list[Any],
) -> None:
    rng = random.Random(seed)
    room = create_room(server, "Probe", **SETTINGS, turn_seconds=0, max_players=2)
    me = Client(server, room["code"], room["token"])
    await me.connect()
    await me.act("add_bot", level="strong")
    await me.act("start")
    n = 0
    while time.monotonic() < until:
        state = await me.wait_for(
            lambda s: me.my_turn() or s["status"] in ("round_over", "finished"), timeout=120
        )
        if state["status"] == "round_over":
            with contextlib.suppress(Refused):
                await me.act("ready")
            await me.wait_for(lambda s: s["status"] != "round_over", timeout=120)
            continue
        if state["status"] == "finished":
            break
        n += 1
        mid = f"h{seed}-{n}"
        started = time.perf_counter()
        await me.send({"type": "hint", "id": mid})
        await me.wait_for(lambda s, asked=mid: asked in me.answers, timeout=120)
        took = (time.perf_counter() - started) * 1000
        answer = me.answers.pop(mid)
        if answer["type"] == "hint":
            latencies.append(took)
        elif answer.get("code") == "hint_busy":
            refused.append(took)
        else:
            other.append(answer.get("code"))
        while me.my_turn():
            with contextlib.suppress(Refused):
                await me.play(me.random_move(rng))
    await me.close()


async def run(server: Server, rooms: int, probes: int, warmup: float, seconds: float) -> None:
    hosts = [await load_room(server) for _ in range(rooms)]
    await asyncio.sleep(warmup)
    before = fetch.get(server.url + "/metrics").text
    latencies: list[float] = []
    refused: list[float] = []
    other: list[object] = []
    started = time.monotonic()
    until = time.monotonic() + seconds
    await asyncio.gather(
        *(probe_room(server, n, until, latencies, refused, other) for n in range(probes))
    )
    metrics = fetch.get(server.url + "/metrics").text
    spent = time.monotonic() - started
    late = re.search(r"^spectrum_bot_decisions_late_total (\S+)", metrics, re.M)
    rounds = [saved(text) for text in (before, metrics)]
    print(f"rounds finished {rounds[1] - rounds[0]:.0f} in {spent:.0f} s")
    all_ = sorted(latencies + refused)
    ok = sorted(latencies)
    print(
        f"hints asked {len(all_)}: answered {len(ok)}, refused hint_busy {len(refused)}, "
        f"other {other}"
    )
    print(
        f"all asked: median {statistics.median(all_):.1f} ms, p90 {quantile(all_, 0.9):.1f} ms, "
        f"p99 {quantile(all_, 0.99):.1f} ms, max {all_[-1]:.1f} ms"
    )
    print(
        f"answered: median {statistics.median(ok):.1f} ms, p90 {quantile(ok, 0.9):.1f} ms, "
        f"max {ok[-1]:.1f} ms"
    )
    print(f"server: bot decisions late {late.group(1) if late else '?'}")
    for task in hosts:
        task.cancel()


def saved(metrics: str) -> float:
    """The rounds stored so far, from the server's metrics."""
    found = re.search(r"^spectrum_rounds_saved_total (\S+)", metrics, re.M)
    assert found is not None, "the metrics count the rounds stored"
    return float(found.group(1))


def quantile(ordered: list[float], fraction: float) -> float:
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rooms", type=int, default=100)
    parser.add_argument("--probes", type=int, default=10)
    parser.add_argument("--warmup", type=float, default=20)
    parser.add_argument("--seconds", type=float, default=120)
    parser.add_argument("--workers", type=int, default=1, help="BOT_WORKERS")
    args = parser.parse_args()
    env = {
        **FAST,
        "BOT_WORKERS": str(args.workers),
        "BOT_DELAY_SECONDS": "1",
        "STANDIN_SECONDS": "1",
        "LOG_LEVEL": "warning",
    }
    with running_server(**env) as server:
        asyncio.run(run(server, args.rooms, args.probes, args.warmup, args.seconds))


if __name__ == "__main__":
    main()
