"""Watching a room: no seat, no cards, no say, but every move live (rooms in this process)."""

from __future__ import annotations

import pytest

from tests.rooms.client import Refused, card_ids_in, expect_refusal, public
from tests.rooms.local import Host, LocalClient, open_table


async def test_a_spectator_has_no_seat_and_no_hand(rooms: Host) -> None:
    table = await open_table(rooms, 2, spectators=1, turn_seconds=0)
    (watcher,) = table.spectators
    assert watcher.state is not None
    assert watcher.state["you"] == {"seat": None, "hand": [], "evaluation": None}
    await table.host.act("start")
    await table.settle()
    assert watcher.state["you"] == {"seat": None, "hand": [], "evaluation": None}
    assert watcher.state["round"]["turn"]["pending"] == 0
    await table.close()


async def test_the_spectator_count_is_shown_to_everyone(rooms: Host) -> None:
    room = rooms.create()
    host = LocalClient(rooms, room["code"], room["token"])
    await host.connect()
    assert host.state is not None
    assert host.state["spectators"] == 0
    watchers = [LocalClient(rooms, room["code"]) for _ in range(3)]
    for count, watcher in enumerate(watchers, start=1):
        await watcher.connect()
        assert watcher.state is not None
        assert watcher.state["spectators"] == count
        await host.wait_for(lambda s, n=count: s["spectators"] == n)
    info = rooms.info(room["code"])
    assert info["spectators"] == 3
    assert [player["connected"] for player in info["players"]] == [True]
    await watchers[0].close()
    await host.wait_for(lambda s: s["spectators"] == 2)
    await watchers[2].wait_for(lambda s: s["spectators"] == 2)
    for client in [host, *watchers[1:]]:
        await client.close()


async def test_a_spectators_actions_are_refused(rooms: Host) -> None:
    table = await open_table(rooms, 2, spectators=1, turn_seconds=0)
    (watcher,) = table.spectators
    await table.host.act("start")
    await table.settle()
    for kind, fields in [("take", {"piles": [0]}), ("knock", {}), ("ready", {})]:
        with pytest.raises(Refused) as refusal:
            await watcher.act(kind, **fields)
        assert refusal.value.code == "not_a_player"
    await expect_refusal(
        watcher,
        table.players,
        {"type": "discard", "cards": ["1-star-red"], "id": 1},
        "not_a_player",
    )
    await table.close()


async def test_a_spectator_sees_every_move_live(rooms: Host) -> None:
    table = await open_table(rooms, 2, spectators=1, turn_seconds=0)
    (watcher,) = table.spectators
    await table.host.act("start")
    await table.settle()
    for _ in range(3):
        mover = table.mover()
        await mover.act("take", piles=[1])
        assert mover.state is not None
        taken = mover.state["round"]
        await watcher.wait_for(lambda s, r=taken: s["round"] == r)
        assert watcher.state is not None
        assert watcher.state["round"]["turn"] == {**taken["turn"], "pending": 1}
        card = mover.state["you"]["hand"][0]
        await mover.act("discard", cards=[card])
        state = await watcher.wait_for(lambda s, c=card: s["round"]["discard"]["top"] == c)
        assert public(state) == public(mover.state)
    before, fresh = await watcher.resync()
    assert before == fresh
    await table.close()


async def test_a_spectator_arriving_mid_round_gets_the_table_without_hands(
    rooms: Host,
) -> None:
    table = await open_table(rooms, 3, turn_seconds=0)
    await table.host.act("start")
    await table.settle()
    mover = table.mover()
    await mover.act("take", piles=[0])
    await table.settle(mover)
    late = LocalClient(rooms, table.code)
    await late.connect()
    assert late.state is not None
    assert late.state["you"] == {"seat": None, "hand": [], "evaluation": None}
    assert mover.state is not None
    assert late.state["round"] == mover.state["round"]
    tops = {pile["top"] for pile in late.state["round"]["piles"]}
    taken = {card for move in late.state["round"]["log"] for card in move["cards"]}
    assert len(taken) == 1  # the face-up card the mover took, in the round's log
    assert card_ids_in("".join(late.frames)) == tops | taken
    await late.close()
    await table.close()


async def test_a_watcher_who_joins_by_http_needs_a_new_connection(rooms: Host) -> None:
    """Watching does not seat you: joining over HTTP gives a token for a new connection."""
    room = rooms.create()
    watcher = LocalClient(rooms, room["code"])
    await watcher.connect()
    joined = await rooms.join(room["code"], "Bob")
    state = await watcher.wait_for(lambda s: len(s["players"]) == 2)
    assert state["you"]["seat"] is None
    bob = LocalClient(rooms, room["code"], joined["token"])
    await bob.connect()
    assert bob.seat == 1
    await watcher.wait_for(lambda s: s["players"][1]["connected"] is True)
    await watcher.close()
    await bob.close()
