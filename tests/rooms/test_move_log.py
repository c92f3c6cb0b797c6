"""The round's move log in the public view: every public move, nothing private, and the same
after a reconnect as the patches built it."""

from __future__ import annotations

import json

import pytest

from tests.rooms.client import Client, open_table
from tests.server import Server

pytestmark = pytest.mark.usefixtures("closing_clients")


async def test_the_log_holds_every_public_move_and_survives_a_reconnect(
    rooms_server: Server,
) -> None:
    table = await open_table(rooms_server, 2, spectators=1, rounds=1, turn_seconds=0)
    ann, bob = table.players
    (watcher,) = table.spectators
    await ann.act("start")
    await watcher.wait_for(lambda s: s["status"] == "playing")
    expected: list[dict[str, object]] = []
    for _ in range(3):
        await table.settle()
        mover = ann if ann.my_turn() else bob
        seat = mover.seat
        pile = 1
        top = mover.view["round"]["piles"][pile]["top"]
        await mover.act("take", piles=[pile])
        expected.append({"seat": seat, "type": "take", "piles": [pile], "cards": [top]})
        dropped = mover.view["you"]["hand"][0]
        await mover.act("discard", cards=[dropped])
        expected.append({"seat": seat, "type": "discard", "cards": [dropped]})
    await table.settle()
    mover = ann if ann.my_turn() else bob
    await mover.act("knock")
    expected.append({"seat": mover.seat, "type": "knock"})
    await table.settle(watcher)
    assert watcher.view["round"]["log"] == expected
    assert ann.view["round"]["log"] == expected

    # Nothing else: a take shows the face-up top it took, a discard what went face up.
    assert all(set(move) <= {"seat", "type", "piles", "cards"} for move in expected)

    # A fresh connection gets the whole log in its first state.
    again = Client(rooms_server, table.code, table.tokens[1])
    await again.connect()
    await again.wait_for(lambda s: s["round"] is not None)
    assert again.view["round"]["log"] == expected


async def test_a_ping_is_answered_with_a_pong_outside_the_versioned_stream(
    rooms_server: Server,
) -> None:
    table = await open_table(rooms_server, 2, turn_seconds=0)
    ann = table.players[0]
    version = ann.version
    frames = len(ann.frames)
    await ann.send('{"type":"ping"}')
    await ann.send({"type": "ping", "id": 7})
    await ann.wait_frames(frames + 2)
    answers = [json.loads(frame) for frame in ann.frames[frames:]]
    assert answers == [{"type": "pong", "id": None}, {"type": "pong", "id": 7}]
    assert ann.version == version
