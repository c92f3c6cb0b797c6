"""Bot workers end with the server that started them, even when it is killed outright."""

from __future__ import annotations

import asyncio
import os
import random
import signal
import time
from pathlib import Path

from tests.rooms.client import Client, create_room
from tests.server import FAST, running_server


def children_of(pid: int) -> set[int]:
    """The processes whose parent is ``pid``."""
    found = set()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        # pid (comm) state ppid ...: the name may hold spaces, so read after its last ")".
        if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
            found.add(int(entry.name))
    return found


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


async def test_bot_workers_end_when_the_server_is_killed() -> None:
    with running_server(**FAST, BOT_WORKERS="1", BOT_DELAY_SECONDS="0") as server:
        room = create_room(server, "Ann", turn_seconds=0, rounds=1)
        host = Client(server, room["code"], room["token"])
        await host.connect()
        await host.act("add_bot", level="normal")
        await host.act("start")
        rng = random.Random(1)
        # Play until the bot has moved: its decision was made in a worker.
        for _ in range(20):
            state = await host.wait_for(lambda s: s["round"] is not None)
            if any(move["seat"] == 1 for move in state["round"]["log"]):
                break
            if host.my_turn():
                await host.play(host.random_move(rng, knock_chance=0))
            else:
                await host.wait_for(lambda s: host.my_turn() or s["round"]["turn"] is None)
        assert any(move["seat"] == 1 for move in host.state["round"]["log"])  # type: ignore[index]
        process = server.process
        assert process is not None
        started = children_of(process.pid)
        assert started, "no bot worker was started"
        await host.close()

        os.kill(process.pid, signal.SIGKILL)  # the server alone, not its process group
        deadline = time.monotonic() + 60
        while any(alive(pid) for pid in started):
            assert time.monotonic() < deadline, [pid for pid in started if alive(pid)]
            await asyncio.sleep(0.1)
