"""A table of real clients that plays on through database faults, and what it checks after.

A move answered ``not_saved`` is held by the room: it is acknowledged later, once stored, or, if
the room was already holding another change, never (then it is sent again). Every state a
client is shown is kept, so that a test can check that what was shown survives a restart.
"""

from __future__ import annotations

import asyncio
import json
import random
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from app.rooms.patch import diff
from tests import fetch
from tests.databases import postgres_database
from tests.rooms.client import Client, Refused, create_room, join_room
from tests.server import FAST, Server, free_port, migrate, server_env

State = dict[str, Any]
HELD = "not_saved"


def comparable(state: State) -> State:
    """A view without what a restart rightly changes: presence and deadlines."""
    players = [{**player, "connected": None} for player in state["players"]]
    current = dict(state["round"] or {}, deadline=None)
    return {**state, "players": players, "round": current, "ready_deadline": None}


def point(state: State) -> tuple[Any, ...]:
    """Where a match is: its rounds done, the round and its turn, and whether it is played."""
    current = state["round"]
    return (len(state["results"]), current.get("number"), current.get("turn"), state["status"])


def unready(state: State) -> State:
    """A view without who said they were ready."""
    return {**state, "players": [{**player, "ready": None} for player in state["players"]]}


def told_held(client: Client) -> bool:
    """Whether the client was told the room holds a change the server could not save."""
    return any(error["code"] == HELD for error in client.errors)


async def settle(client: Client, message: dict[str, Any], timeout: float = 90) -> bool:
    """Send a message; True once acknowledged, False if the room refused it while holding."""
    message_id = f"m{random.getrandbits(40)}"
    await client.send({**message, "id": message_id})
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        answer = client.answers.get(message_id)
        if answer is not None and answer["type"] == "patch":
            client.answers.pop(message_id)
            return True
        if answer is not None and answer["code"] != HELD:
            raise Refused(answer)
        if answer is not None and _patched_since(client, message_id):
            client.answers.pop(message_id)
            return False  # refused while held: the stream moved on without it
        assert client.closed is None, f"closed {client.closed}"
        assert loop.time() < deadline, f"no answer to {message} in {timeout} s"
        await asyncio.sleep(0.02)


def _patched_since(client: Client, message_id: str) -> bool:
    """Whether a patch came after the error answering ``message_id``."""
    seen = False
    for text in client.frames:
        frame = json.loads(text)
        if frame["type"] == "error" and frame.get("id") == message_id:
            seen = True
        elif seen and frame["type"] in ("patch", "state"):
            return True
    return False


def new_server(database_url: str, **settings: str) -> Server:
    """A server (not yet started) on a migrated database, with short timeouts."""
    migrate(database_url)
    port = free_port()
    env = {"DATABASE_TIMEOUT_SECONDS": "2", "BOT_WORKERS": "0", **FAST, **settings}
    return Server(
        server_env(HOST="127.0.0.1", PORT=str(port), DATABASE_URL=database_url, **env), port
    )


@contextmanager
def serving() -> Iterator[tuple[str, Server]]:
    """A server started on a fresh PostgreSQL database (its URL too), stopped afterwards."""
    with postgres_database() as url, tempfile.TemporaryDirectory() as folder:
        server = new_server(url, OUTBOX_PATH=f"{folder}/outbox")
        server.start()
        try:
            yield url, server
        finally:
            server.stop()


def ready(server: Server) -> bool:
    """Whether /readyz says ready."""
    return fetch.get(f"{server.url}/readyz", timeout=10).status_code == 200


# What /readyz and the log say while the outbox kept at the last stop is not written.
OUTBOX_NOT_WRITTEN = (
    "live rooms are not restored yet: the outbox kept at the last stop is not written"
)


def waits_for_its_outbox(server: Server) -> None:
    """/readyz says not ready, because the outbox kept at the last stop is not written."""
    readiness = fetch.get(f"{server.url}/readyz", timeout=10)
    assert readiness.status_code == 503
    problems = readiness.json()["problems"]
    assert any(problem.startswith(OUTBOX_NOT_WRITTEN) for problem in problems), problems


async def until(condition: Any, timeout: float = 60, what: str = "the condition") -> None:
    """Wait until ``condition()`` holds."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not condition():
        assert loop.time() < deadline, f"{what} never came true in {timeout} s"
        await asyncio.sleep(0.1)


class Table:
    """A room with its players connected, played through faults."""

    def __init__(self, server: Server, players: int = 2, rounds: int = 2) -> None:
        room = create_room(server, "Ann", rounds=rounds, turn_seconds=0)
        names = ("Bob", "Cy", "Di")[: players - 1]
        self.seats = [room] + [join_room(server, room["code"], name) for name in names]
        self.code = room["code"]
        self.server = server
        self.clients: list[Client] = []
        self.rng = random.Random(11)
        self.acked = 0
        self.refused = 0
        self.restarts = 0
        self.rounds = 0
        self.told = 0  # players told not_saved when the fault began

    async def connect(self) -> None:
        """Open every seat's connection (again, after a restart)."""
        self.clients = [Client(self.server, self.code, seat["token"]) for seat in self.seats]
        for client in self.clients:
            await client.connect()

    async def close(self) -> None:
        for client in self.clients:
            await client.close()

    @property
    def state(self) -> State:
        state = self.clients[0].state
        assert state is not None
        return state

    async def start(self) -> None:
        assert await settle(self.clients[0], {"type": "start"})
        for client in self.clients:
            await client.wait_for(lambda s: s["status"] == "playing")

    async def step(self) -> bool:
        """One move, or everyone ready between rounds; True if it was acknowledged."""
        state = self.state
        if state["status"] == "round_over":
            acked = [await settle(client, {"type": "ready"}) for client in self.clients]
            if all(acked):
                await self.clients[0].wait_for(lambda s: s["status"] != "round_over", 30)
            return all(acked)
        for client in self.clients:
            await client.wait_for(lambda s, v=state: s["round"] == v["round"], 30)
        mover = next(client for client in self.clients if client.my_turn())
        acked = await settle(mover, mover.random_move(self.rng, knock_chance=0.04))
        self.acked += acked
        self.refused += not acked
        if acked:
            for client in self.clients:
                await client.wait_for(lambda s, v=mover.state: s["round"] == v["round"], 30)
        return acked

    async def play_until_held(self, knock_chance: float, tries: int = 2000) -> int:
        """Moves, each waited for, until one is answered ``not_saved``; every player is then
        told, and shown nothing of it. Returns how many were acknowledged before."""
        for number in range(tries):
            before = self.views()
            mover = next(client for client in self.clients if client.my_turn())
            await mover.send({**mover.random_move(self.rng, knock_chance), "id": number})
            await until(lambda m=mover, n=number: n in m.answers, 60, "an answer")
            if mover.answers[number]["type"] == "error":
                break
            for client in self.clients:
                await client.wait_for(lambda s, v=mover.state: s["round"] == v["round"])
        assert mover.answers[number]["code"] == HELD, number
        for client in self.clients:
            await until(lambda c=client: told_held(c), 60, "every player told")
        assert self.views() == before
        return number

    def views(self) -> list[State]:
        """What each player was last shown."""
        return [comparable(client.state or {}) for client in self.clients]

    async def check_restored(self, shown: list[State]) -> None:
        """After a restart, every player is shown at least what they were shown before: the
        same view, or (a move was being stored when the server died) a later one."""
        self.restarts += 1
        await self.connect()
        for client, before in zip(self.clients, shown, strict=True):
            await client.wait_for(lambda s: all(p["connected"] for p in s["players"]), 30)
            now = comparable(client.state or {})
            if now != before:
                assert now["results"][: len(before["results"])] == before["results"]
                if point(now) != point(before):
                    continue
                # At the same point of the round, the one later state there is: a player's
                # "ready" stored before the server died and not shown yet. A "ready" shown is
                # never lost.
                assert not any(
                    was["ready"] and not is_["ready"]
                    for was, is_ in zip(before["players"], now["players"], strict=True)
                ), f"a ready shown was lost: {diff(before, now)}"
                assert unready(now) == unready(before), (
                    f"a different state at the same point of the round: {diff(before, now)}"
                )

    async def play_until(self, done: Any, steps: int = 10_000) -> None:
        """Steps until ``done(state)`` holds (or ``steps`` were acknowledged)."""
        while not done(self.state) and steps > 0:
            if await self.step():
                steps -= 1
            else:
                await asyncio.sleep(0.2)  # held: give the database a moment

    def check_history(self) -> None:
        """Every round shown is stored exactly once, with the totals shown."""
        shown = self.state["results"]
        match_id = self.state["match_id"]
        stored = fetch.get(f"{self.server.url}/api/matches/{match_id}", timeout=10).json()
        numbers = [played["number"] for played in stored["rounds"]]
        assert numbers == [result["number"] for result in shown], (numbers, shown)
        for played, result in zip(stored["rounds"], shown, strict=True):
            assert played["seed"] == result["seed"]
            assert [hand["total"] for hand in played["hands"]] == result["totals"]
        self.rounds = len(numbers)

    def report(self, fault: str) -> None:
        """One line of the fault matrix (docs/reliability.md), printed for ``pytest -s``."""
        told = self.told
        print(
            f"\nfault | {fault} | moves acknowledged {self.acked}"
            f" | refused while held {self.refused} | players told {told}/{len(self.clients)}"
            f" | restarts {self.restarts} | rounds shown = stored {self.rounds}"
        )
