"""Matches played by the Python protocol client (tests/rooms/client.py), recording every frame."""

from __future__ import annotations

import asyncio
import random
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from tests.rooms.client import Client, close_all, converge, create_room, join_room
from tests.server import Server


@dataclass
class Recorded:
    """What each connection received (text, or the bytes of a binary frame), and the fresh
    state each got at the very end."""

    frames: list[list[str | bytes]]
    finals: list[dict[str, Any]]
    code: str


def in_thread(work: Any, *args: Any) -> Any:
    """Run a coroutine function in a thread of its own (the browser tests' thread has no loop)."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, work(*args)).result(timeout=120)


async def _play(players: list[Client], rng: random.Random, knock_chance: float) -> None:
    """Random legal moves until the match is finished; everyone ready between rounds."""
    while True:
        state = await converge(players)
        if state["status"] == "finished":
            return
        if state["status"] == "round_over":
            for client in players:
                await client.act("ready")
            continue
        mover = next(client for client in players if client.my_turn())
        await mover.play(mover.random_move(rng, knock_chance=knock_chance))


async def play_matches(
    server: Server,
    names: list[str],
    count: int,
    seed: int = 7,
    key: str | None = None,
    ten_card: bool = False,
) -> str:
    """Play ``count`` one-round matches in one room (rematches), the first player with the
    player key ``key`` if given, of 10-card hands if ``ten_card``; returns the room's code."""
    try:
        room = create_room(server, names[0], key, rounds=1, turn_seconds=0, ten_card=ten_card)
        tokens = [room["token"]] + [join_room(server, room["code"], n)["token"] for n in names[1:]]
        players = [Client(server, room["code"], token) for token in tokens]
        for client in players:
            await client.connect()
        rng = random.Random(seed)
        await players[0].act("start")
        for number in range(count):
            await _play(players, rng, knock_chance=0.25)
            if number < count - 1:
                await players[0].act("rematch")
        return str(room["code"])
    finally:
        await close_all()


async def record_room(server: Server, seed: int = 11, encoding: str | None = None) -> Recorded:
    """A room that sees seats come and go, settings change and a 2-round match, all recorded
    (every connection asking for ``encoding``, if given)."""
    try:
        room = create_room(server, "Ann", rounds=2, turn_seconds=0)
        code = room["code"]
        watcher = Client(server, code)
        await watcher.connect(encoding=encoding)
        host = Client(server, code, room["token"])
        await host.connect(encoding=encoding)
        others = []
        for name in ("Bob", "Cid", "Dee"):
            client = Client(server, code, join_room(server, code, name)["token"])
            await client.connect(encoding=encoding)
            others.append(client)
        await host.act("kick", seat=2)  # Cid: the seats after his move down
        await others[1].wait_closed()
        await others[0].act("leave")  # Bob goes on watching
        eve = Client(server, code, join_room(server, code, 'Eve ~/ "q"')["token"])
        await eve.connect(encoding=encoding)
        await host.act("settings", settings={"multi_pickup": True, "ten_card": True})
        await host.act("settings", settings={"rounds": 2, "max_players": 3})
        players = [host, others[2], eve]
        await host.act("start")
        await _play(players, random.Random(seed), knock_chance=0.05)
        everyone = [watcher, host, *others, eve]
        finals = []
        for client in everyone:
            if client.closed is None:
                _, fresh = await client.resync()
                finals.append(fresh)
            else:
                assert client.state is not None
                finals.append(client.state)
        # The frames up to (not including) each final resync's answer.
        frames = [
            client.received[:-1] if client.closed is None else list(client.received)
            for client in everyone
        ]
        return Recorded(frames, finals, code)
    finally:
        await close_all()
