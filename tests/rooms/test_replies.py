"""An action id is an idempotency key per seat for the match, over a real server's sockets."""

from __future__ import annotations

import asyncio
import json
import random
from typing import Any

import pytest

from app.rooms.replies import KEPT_PER_SEAT
from tests.rooms.client import Client, Table, open_table
from tests.server import Server

pytestmark = pytest.mark.usefixtures("closing_clients")


async def answer(client: Client, message: dict[str, Any], key: object) -> dict[str, Any]:
    """Send ``message`` with id ``key``; the patch acknowledging it or the error refusing it."""
    await client.send({**message, "id": key})
    await client.wait_frames(len(client.frames) + 1)
    for _ in range(100):
        if key in client.answers:
            return client.answers.pop(key)
        await asyncio.sleep(0.05)
    raise AssertionError(f"no answer to {key!r}")


async def unchanged_for_everyone(
    table: Table[Client], marks: dict[int, int], sender: Client
) -> None:
    """Nobody but ``sender`` got a frame since ``marks``, and every view equals a fresh one."""
    for client in table.everyone:
        before, fresh = await client.resync()
        assert before == fresh
        if client is not sender:
            assert len(client.frames) == marks[id(client)] + 1, client.frames[marks[id(client)] :]


async def started(server: Server) -> Table[Client]:
    table = await open_table(server, 3, turn_seconds=0)
    await table.host.act("start")
    await table.settle()
    return table


async def test_the_same_id_twice_applies_once_and_gets_the_same_answer(
    rooms_server: Server,
) -> None:
    table = await started(rooms_server)
    mover = table.mover()
    move = mover.random_move(random.Random(1), knock_chance=0)
    first = await answer(mover, move, "move-1")
    assert first["type"] == "patch"
    assert first["ack"] == "move-1"
    await table.settle(mover)
    kept = json.dumps(mover.state)
    marks = {id(client): len(client.frames) for client in table.everyone}
    again = await answer(mover, move, "move-1")
    assert again["type"] == "patch"
    assert again["ack"] == "move-1"
    assert again["ops"] == []
    assert json.dumps(mover.state) == kept
    await unchanged_for_everyone(table, marks, mover)


async def test_a_new_move_reusing_an_acked_id_is_not_applied(rooms_server: Server) -> None:
    table = await started(rooms_server)
    mover = table.mover()
    taken = await answer(mover, {"type": "take", "piles": [0]}, 41)
    assert taken["ack"] == 41
    await table.settle(mover)
    assert mover.state is not None
    pending = mover.state["round"]["turn"]["pending"]
    assert pending == 1
    hand = mover.state["you"]["hand"]
    marks = {id(client): len(client.frames) for client in table.everyone}
    reused = await answer(mover, {"type": "discard", "cards": [hand[0]]}, 41)
    assert reused["type"] == "patch"
    assert reused["ack"] == 41
    assert reused["ops"] == []
    assert mover.state["round"]["turn"]["pending"] == pending
    await unchanged_for_everyone(table, marks, mover)
    # A fresh id plays the discard.
    await mover.play({"type": "discard", "cards": [hand[0]]})


async def test_a_refused_id_gets_the_same_refusal_even_once_it_would_apply(
    rooms_server: Server,
) -> None:
    table = await started(rooms_server)
    mover = table.mover()
    waiting = next(client for client in table.players if client is not mover)
    refused = await answer(waiting, {"type": "take", "piles": [1]}, "early")
    assert refused["type"] == "error"
    assert refused["code"] == "not_your_turn"
    # Play on until it is that player's turn: the same id is still answered as before.
    rng = random.Random(3)
    while not waiting.my_turn():
        current = table.mover()
        await current.play(current.random_move(rng, knock_chance=0))
        await table.settle(current)
    again = await answer(waiting, {"type": "take", "piles": [1]}, "early")
    assert again == refused
    assert waiting.state is not None
    assert waiting.state["round"]["turn"]["pending"] == 0


async def test_the_id_that_started_the_match_is_not_kept(rooms_server: Server) -> None:
    table = await open_table(rooms_server, 3, turn_seconds=0)
    host = table.host
    start = await answer(host, {"type": "start"}, "S")
    assert start["type"] == "patch"
    await table.settle()
    # A discard before any take, under the start's id: refused by the rules (out of turn, or
    # before taking), not answered as the start was.
    assert host.state is not None
    card = host.state["you"]["hand"][0]
    refused = await answer(host, {"type": "discard", "cards": [card]}, "S")
    assert refused["type"] == "error"
    assert refused["code"] in {"not_your_turn", "wrong_step"}


async def test_a_retry_after_a_reconnect_is_answered_not_applied(rooms_server: Server) -> None:
    table = await started(rooms_server)
    mover = table.mover()
    seat = mover.seat
    assert seat is not None
    await answer(mover, {"type": "take", "piles": [2]}, "retry-me")
    await table.settle(mover)
    await mover.close()
    back = Client(rooms_server, table.code, table.tokens[seat])
    await back.connect()
    assert back.state is not None
    kept = json.dumps(back.state["round"])
    retried = await answer(back, {"type": "take", "piles": [2]}, "retry-me")
    assert retried["type"] == "patch"
    assert retried["ack"] == "retry-me"
    assert retried["ops"] == []
    before, fresh = await back.resync()
    assert before == fresh
    assert json.dumps(fresh["round"]) == kept


async def test_each_seat_keeps_its_latest_ids_only(rooms_server: Server) -> None:
    table = await started(rooms_server)
    waiting = next(client for client in table.players if client is not table.mover())
    for key in range(KEPT_PER_SEAT + 1):
        refused = await answer(waiting, {"type": "knock"}, f"k{key}")
        assert refused["code"] == "not_your_turn"
    rng = random.Random(4)
    while not waiting.my_turn():
        current = table.mover()
        await current.play(current.random_move(rng, knock_chance=0))
        await table.settle(current)
    # Still kept: answered as then, though a knock is allowed now.
    assert (await answer(waiting, {"type": "knock"}, "k1"))["code"] == "not_your_turn"
    # The oldest was forgotten: it is a new knock, and applies.
    knocked = await answer(waiting, {"type": "knock"}, "k0")
    assert knocked["type"] == "patch"
    assert knocked["ops"]
    await table.settle(waiting)
    assert waiting.view["round"]["knocker"] == waiting.seat


async def test_an_integer_id_holds_on_its_own_connection_only(rooms_server: Server) -> None:
    """A reloaded page numbers its actions from 1 again: its integer ids are new actions."""
    table = await started(rooms_server)
    mover = table.mover()
    seat = mover.seat
    assert seat is not None
    assert (await answer(mover, {"type": "take", "piles": [1]}, 1))["ack"] == 1
    await table.settle(mover)
    await mover.close()
    back = Client(rooms_server, table.code, table.tokens[seat])
    await back.connect()
    card = back.view["you"]["hand"][0]
    discarded = await answer(back, {"type": "discard", "cards": [card]}, 1)
    assert discarded["type"] == "patch"
    assert discarded["ops"]
    assert back.view["round"]["discard"]["top"] == card
