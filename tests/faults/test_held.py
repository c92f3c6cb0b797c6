"""What a room's connections are told around a change held while PostgreSQL refuses every
connection: each one warned ``not_saved`` is later given a patch or a state, which ends the
warning (the browser's banner), even when the held change came to nothing for it."""

import asyncio
from itertools import count
from typing import Any

import orjson

from tests import fetch
from tests.databases import set_connections_allowed
from tests.faults.table import HELD, Table, ready, serving, told_held, until
from tests.rooms.client import Client

_probes = count()


def kinds(client: Client) -> list[tuple[str, Any]]:
    """Every frame the client got, in order: its type, and the error's code and id."""
    seen: list[tuple[str, Any]] = []
    for raw in client.received:
        if isinstance(raw, bytes):
            seen.append(("patch", None))  # a binary frame is a patch
            continue
        frame = orjson.loads(raw)
        if isinstance(frame, list):
            seen.append(("patch", None))  # a compact patch
        elif frame["type"] == "error":
            seen.append(("error", (frame["code"], frame.get("id"))))
        else:
            seen.append((frame["type"], None))
    return seen


def warned_then_shown(client: Client) -> bool:
    """Whether a patch or a state came after the room's last ``not_saved`` warning."""
    frames = kinds(client)
    warnings = [n for n, (kind, what) in enumerate(frames) if what == (HELD, None)]
    assert warnings, "never warned"
    return any(kind in ("patch", "state") for kind, _ in frames[warnings[-1] :])


async def released(client: Client) -> dict[str, Any]:
    """Send a move the lobby refuses until it is refused for itself, not ``not_saved``: the room
    holds nothing any more, and whatever it sent this connection on release came before."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 90
    while True:
        probe = f"probe{next(_probes)}"
        await client.send({"type": "knock", "id": probe})
        await until(lambda p=probe: p in client.answers, 60, "an answer to the probe")
        answer: dict[str, Any] = client.answers.pop(probe)
        if answer.get("code") != HELD:
            return answer
        assert loop.time() < deadline, "the room never stopped holding"
        await asyncio.sleep(0.2)  # still held: give the database a moment


async def test_a_join_the_database_could_not_take_ends_every_warning_once_it_is_back() -> None:
    """A join held while the database refuses is withdrawn: once the database is back, the
    room's public view is as it was shown, yet each connection warned gets a frame that ends
    the warning (an empty patch), in every encoding."""
    with serving() as (url, server):
        table = Table(server, players=2, rounds=2)
        await table.connect()
        watchers = [Client(server, table.code), Client(server, table.code)]
        await watchers[0].connect(encoding="compact")
        await watchers[1].connect(encoding="binary")
        everyone = [*table.clients, *watchers]
        before = [orjson.loads(orjson.dumps(client.state)) for client in everyone]
        join = f"{server.url}/api/rooms/{table.code}/join"
        set_connections_allowed(url, False)
        try:
            refused = fetch.post(join, json={"name": "Cid"}, timeout=60)
            assert refused.status_code == 503, refused.text
            assert refused.json()["code"] == HELD
            for client in everyone:
                await until(lambda c=client: told_held(c), 30, "every connection warned")
        finally:
            set_connections_allowed(url, True)
        await until(lambda: ready(server), 60, "/readyz saying ready again")

        for client in everyone:
            answer = await released(client)
            assert answer["type"] == "error", answer
            assert warned_then_shown(client), kinds(client)
        assert [client.state for client in everyone] == before
        for client in everyone:
            patched, fresh = await client.resync()
            assert patched == fresh
        await table.close()
        for watcher in watchers:
            await watcher.close()


async def test_no_hint_is_given_for_a_position_held_from_the_table() -> None:
    """A take held while the database refuses is a position nobody was shown (the card it
    takes, the one it uncovers): a hint asked meanwhile is refused (``not_saved``), not worked
    out from it; once the take is shown, the hint is for the position shown."""
    with serving() as (url, server):
        table = Table(server, players=2, rounds=1)
        await table.connect()
        await table.start()
        mover = next(client for client in table.clients if client.my_turn())
        assert mover.state is not None
        shown = orjson.loads(orjson.dumps(mover.state))
        set_connections_allowed(url, False)
        try:
            await mover.send({"type": "take", "piles": [0], "id": "held"})
            await until(lambda: "held" in mover.answers, 30, "an answer to the take")
            assert mover.answers["held"]["code"] == HELD
            await mover.send({"type": "hint", "id": "asked"})
            await until(lambda: "asked" in mover.answers, 30, "an answer to the hint")
            answer = mover.answers.pop("asked")
            assert answer["type"] == "error", f"a hint from a position not shown: {answer}"
            assert answer["code"] == HELD
            assert mover.state == shown
        finally:
            set_connections_allowed(url, True)

        await until(lambda: mover.answers["held"]["type"] == "patch", 60, "the held take shown")
        assert mover.state["round"]["turn"]["pending"] > 0
        await mover.send({"type": "hint", "id": "again"})
        await until(lambda: "again" in mover.answers, 60, "an answer to the hint")
        hint = mover.answers.pop("again")
        assert hint["type"] == "hint", hint
        assert [action["type"] for action in hint["actions"]] == ["discard"]
        await table.close()
