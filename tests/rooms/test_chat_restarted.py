"""The chat over real sockets: kept with the live room across a killed server, and never written
to the match history."""

from __future__ import annotations

import random
import signal
from collections.abc import AsyncIterator, Iterator

import httpx
import pytest

from tests.play import play_until
from tests.rooms.client import Client, Refused, close_all, create_room, join_room
from tests.server import FAST, Server, running_server

MARKUP = "<img src=x onerror=alert(1)><b>hi</b>"


@pytest.fixture(autouse=True)
async def _close_clients() -> AsyncIterator[None]:
    yield
    await close_all()


@pytest.fixture
def server() -> Iterator[Server]:
    """A server on an SQLite file."""
    with running_server(**FAST, STANDIN_SECONDS="600") as started:
        yield started


async def test_the_chat_survives_a_killed_server_and_stays_out_of_the_history(
    server: Server,
) -> None:
    room = create_room(server, "Ann", rounds=1, turn_seconds=0)
    seats = [room, join_room(server, room["code"], "Bob")]
    ann, bob = (Client(server, room["code"], seat["token"]) for seat in seats)
    watcher = Client(server, room["code"])
    for client in (ann, bob, watcher):
        await client.connect()
    await ann.act("spectator_chat", allowed=True)
    await bob.act("chat", text=MARKUP)
    await ann.act("react", reaction="🎉")
    await watcher.wait_for(lambda s: s["chat"]["spectators"])
    await watcher.act("chat", text="good luck, both 🍀")
    await ann.act("mute", seat=1)
    expected = [
        (1, "Bob", MARKUP, None),
        (0, "Ann", None, "🎉"),
        (None, None, "good luck, both 🍀", None),
    ]
    for client in (ann, bob, watcher):
        await client.wait_for(lambda s: s["chat"]["muted"] == [1])
        shown = client.view["chat"]["lines"]
        assert [(c["seat"], c["name"], c["text"], c["reaction"]) for c in shown] == expected
    before = ann.view["chat"]
    await ann.act("start")
    await play_until([ann, bob], random.Random(3), lambda s: s["status"] == "finished")
    match_id = ann.view["match_id"]

    server.stop(signal.SIGKILL)
    for client in (ann, bob, watcher):
        assert (await client.wait_closed())[0] == 1006
    server.start()

    ann, bob = (Client(server, room["code"], seat["token"]) for seat in seats)
    watcher = Client(server, room["code"])
    for client in (ann, bob, watcher):
        await client.connect()
        assert client.view["chat"] == before
    with pytest.raises(Refused) as refusal:
        await bob.act("chat", text="am I still muted?")
    assert refusal.value.code == "muted"
    await watcher.act("chat", text="after the restart")
    await ann.wait_for(lambda s: s["chat"]["lines"][-1]["text"] == "after the restart")
    assert [line["n"] for line in ann.view["chat"]["lines"]] == [0, 1, 2, 3]

    stored = httpx.get(f"{server.url}/api/matches/{match_id}")
    assert stored.status_code == 200
    assert stored.json()["status"] == "finished"
    for words in ("onerror", "good luck", "after the restart", "🎉", '"chat"'):
        assert words not in stored.text
