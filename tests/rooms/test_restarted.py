"""A room restored from the journal after the server was killed: who is host, which ids count."""

from __future__ import annotations

import random
import signal

import pytest

from tests.rooms.client import Client, create_room, join_room
from tests.server import Server

pytestmark = pytest.mark.usefixtures("closing_clients")


def host_seat(client: Client) -> int:
    assert client.state is not None
    return next(p["seat"] for p in client.state["players"] if p["host"])


async def test_the_creator_stays_host_across_a_restart_until_a_host_is_needed(
    own_server: Server,
) -> None:
    room = create_room(own_server, "Ann", rounds=1, turn_seconds=0)
    seats = [room] + [join_room(own_server, room["code"], name) for name in ("Bob", "Cy")]
    clients = [Client(own_server, room["code"], seat["token"]) for seat in seats]
    for client in clients:
        await client.connect()
    await clients[0].act("start")
    for client in clients:
        await client.wait_for(lambda s: s["status"] == "playing")
    mover = next(client for client in clients if client.my_turn())
    taken = await mover.play({"type": "take", "piles": [0]})
    assert taken["type"] == "patch"
    acked_id = taken["ack"]
    mover_seat = mover.seat
    assert mover_seat is not None

    own_server.stop(signal.SIGKILL)
    own_server.start()

    # Everyone but the creator comes back, the mover first.
    order = [mover_seat] + [seat for seat in (1, 2) if seat != mover_seat]
    back = {seat: Client(own_server, room["code"], seats[seat]["token"]) for seat in order if seat}
    for seat in order:
        if seat:
            await back[seat].connect()
    for client in back.values():
        assert host_seat(client) == 0, "the creator stays host during the match"

    if mover_seat:
        # An id acknowledged before the restart is new again: the rules answer it.
        retried = back[mover_seat]
        assert retried.state is not None
        pending = retried.state["round"]["turn"]["pending"]
        assert pending == 1
        await retried.send({"type": "take", "piles": [0], "id": acked_id})
        await retried.wait_for(lambda s: acked_id in retried.answers)
        assert retried.answers[acked_id]["type"] == "error"
        assert retried.answers[acked_id]["code"] == "wrong_step"

    # The creator comes back last and is still host.
    ann = Client(own_server, room["code"], seats[0]["token"])
    await ann.connect()
    assert host_seat(ann) == 0
    everyone = [ann, back[1], back[2]]

    # Play to the creator's turn; she knocks: Bob and Cy have a last turn each.
    rng = random.Random(11)
    while not ann.my_turn() or ann.view["round"]["turn"]["pending"]:
        mover = next(client for client in everyone if client.my_turn())
        await mover.play(mover.random_move(rng, knock_chance=0))
        for client in everyone:
            await client.wait_for(lambda s, v=mover.view: s["round"] == v["round"])
    await ann.play({"type": "knock"})
    for _ in range(2):
        await back[1].wait_for(lambda s: s["round"]["turn"]["seat"] == 1)
        await back[1].play(back[1].random_move(rng, knock_chance=0))
    await back[2].wait_for(lambda s: s["round"]["turn"]["seat"] == 2)
    assert back[2].view["round"]["final_turns"] == 1
    # The creator leaves; the last turn ends the match, which now needs a host for a rematch:
    # the role passes to Bob, next round the table, and stays with him when the creator returns.
    await ann.close()
    await back[1].wait_for(lambda s: not s["players"][0]["connected"])
    for _ in range(2):
        await back[2].play(back[2].random_move(rng, knock_chance=0))
    for client in everyone[1:]:
        await client.wait_for(lambda s: s["status"] == "finished")
        await client.wait_for(lambda s: s["players"][1]["host"])
    ann = Client(own_server, room["code"], seats[0]["token"])
    await ann.connect()
    assert host_seat(ann) == 1
    await back[1].act("rematch")
    await ann.wait_for(lambda s: s["status"] == "playing")
