"""A hello that comes while the seats are being renumbered takes the seat its token holds then.

A player leaving (or kicked) renumbers the seats after theirs. A hello that arrives while that
change waits for the room takes its seat only once the room is its: looked up any sooner, it
would take a seat that is by then another player's (and see their hand), or one that no longer
exists. On a real server whose journal writes at most once a second, so that a change holds the room
while it waits to be written and the leave and the hello both come meanwhile.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest

from tests.rooms.client import Client, create_room, join_room
from tests.server import FAST, Server, running_server

pytestmark = pytest.mark.usefixtures("closing_clients")


@pytest.fixture(scope="module")
def slow_journal_server() -> Iterator[Server]:
    with running_server(**FAST, JOURNAL_FLUSH_MS="1000") as server:
        yield server
        assert "Traceback" not in server.logs()


def names(client: Client) -> list[str]:
    assert client.state is not None
    return [player["name"] for player in client.state["players"]]


@pytest.mark.parametrize("racer", ["P2", "P3"], ids=["a middle seat", "the last seat"])
async def test_a_hello_during_a_leave_takes_the_renumbered_seat(
    slow_journal_server: Server, racer: str
) -> None:
    server = slow_journal_server
    room = create_room(server, "Ann", turn_seconds=0)
    code = room["code"]
    tokens = {"Ann": room["token"]}
    for name in ("P1", "P2", "P3"):
        tokens[name] = join_room(server, code, name)["token"]
    clients = {name: Client(server, code, tokens[name]) for name in tokens}
    for name, client in clients.items():
        if name != racer:
            await client.connect()
    ann, leaver, late = clients["Ann"], clients["P1"], clients[racer]

    # A change just written: the next one waits up to a second to be written, holding the room.
    await ann.act("settings", settings={"rounds": 3})
    await ann.send({"type": "settings", "settings": {"rounds": 4}})
    await leaver.send({"type": "leave"})  # P2 moves to seat 1, P3 to seat 2
    await late.connect()  # its hello waits for the room behind the leave

    assert names(late) == ["Ann", "P2", "P3"]
    assert late.seat == names(late).index(racer)
    everyone = list(clients.values())
    for client in everyone:
        await client.wait_for(lambda s: s["settings"]["rounds"] == 4 and len(s["players"]) == 3)
    assert [client.closed for client in everyone] == [None] * 4
    assert leaver.seat is None
    assert [clients[name].seat for name in ("Ann", "P2", "P3")] == [0, 1, 2]

    await ann.act("start")
    hands = {}
    for name in ("Ann", "P2", "P3"):
        state = await clients[name].wait_for(lambda s: s["status"] == "playing")
        hands[name] = state["you"]["hand"]
        assert len(hands[name]) == 5
    assert len({card for hand in hands.values() for card in hand}) == 15  # each their own
    for client in everyone:
        before, fresh = await client.resync()
        assert before == fresh
    await asyncio.sleep(0)
    assert [client.closed for client in everyone] == [None] * 4
