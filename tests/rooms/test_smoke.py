"""One match over real sockets and HTTP: what the in-process room tests cannot reach."""

import random

from tests.rooms.client import Client, api, create_room, join_room
from tests.server import Server


async def test_two_players_play_a_round(rooms_server: Server) -> None:
    room = create_room(rooms_server, "Ann", rounds=1, turn_seconds=0)
    bob = join_room(rooms_server, room["code"], "Bob")
    ann_client = Client(rooms_server, room["code"], room["token"])
    bob_client = Client(rooms_server, room["code"], bob["token"])
    await ann_client.connect()
    await bob_client.connect()
    await ann_client.act("start")
    rng = random.Random(1)
    clients = [ann_client, bob_client]
    while True:
        state = await ann_client.wait_for(lambda s: s["status"] != "lobby")
        if state["status"] == "finished":
            break
        for client in clients:
            await client.wait_for(lambda s, v=ann_client.state: s["round"] == v["round"])
        mover = next(c for c in clients if c.my_turn())
        await mover.play(mover.random_move(rng))
        before, fresh = await mover.resync()
        assert before == fresh
    assert api(rooms_server, "GET", f"/api/rooms/{room['code']}").json()["status"] == "finished"
    for client in clients:
        assert client.state is not None
        hand = client.state["you"]["hand"]
        answer = api(rooms_server, "POST", "/api/score", {"cards": hand}).json()
        assert client.state["you"]["evaluation"] == answer
    await ann_client.close()
    await bob_client.close()
