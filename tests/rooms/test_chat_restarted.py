"""The chat over real sockets: kept with the live room across a killed server, and never written
to the match history."""

from __future__ import annotations

import random
import signal

import pytest

from tests import fetch
from tests.play import play_until
from tests.rooms.client import Client, Refused, create_room, join_room
from tests.server import Server

MARKUP = "<img src=x onerror=alert(1)><b>hi</b>"


pytestmark = pytest.mark.usefixtures("closing_clients")


async def test_the_chat_survives_a_killed_server_and_stays_out_of_the_history(
    own_server: Server,
) -> None:
    room = create_room(own_server, "Ann", rounds=1, turn_seconds=0)
    seats = [room, join_room(own_server, room["code"], "Bob")]
    ann, bob = (Client(own_server, room["code"], seat["token"]) for seat in seats)
    watcher = Client(own_server, room["code"])
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

    own_server.stop(signal.SIGKILL)
    for client in (ann, bob, watcher):
        assert (await client.wait_closed())[0] == 1006
    own_server.start()

    ann, bob = (Client(own_server, room["code"], seat["token"]) for seat in seats)
    watcher = Client(own_server, room["code"])
    for client in (ann, bob, watcher):
        await client.connect()
        assert client.view["chat"] == before
    with pytest.raises(Refused) as refusal:
        await bob.act("chat", text="am I still muted?")
    assert refusal.value.code == "muted"
    await watcher.act("chat", text="after the restart")
    await ann.wait_for(lambda s: s["chat"]["lines"][-1]["text"] == "after the restart")
    assert [line["n"] for line in ann.view["chat"]["lines"]] == [0, 1, 2, 3]

    stored = fetch.get(f"{own_server.url}/api/matches/{match_id}")
    assert stored.status_code == 200
    assert stored.json()["status"] == "finished"
    for words in ("onerror", "good luck", "after the restart", "🎉", '"chat"'):
        assert words not in stored.text
