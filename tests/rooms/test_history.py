"""Finished rounds are handed to the history once each, with what the history keeps of them."""

from __future__ import annotations

from tests.rooms.client import Table
from tests.rooms.local import Host, LocalClient, open_table


async def play_one_round(table: Table[LocalClient]) -> None:
    """The first player knocks and the other takes and discards: the round is over."""
    first = table.mover()
    await first.act("knock")
    second = table.mover()
    await second.act("take", piles=[0])
    await second.act("discard", cards=[second.view["you"]["hand"][0]])


async def test_each_finished_round_is_saved_once_and_the_last_is_final(rooms: Host) -> None:
    table = await open_table(rooms, 2, rounds=2, turn_seconds=0)
    await table.host.act("start")
    await play_one_round(table)
    assert [saved.result.number for saved in rooms.store.rounds] == [1]
    for player in table.players:
        await player.act("ready")
    await play_one_round(table)
    saved = rooms.store.rounds
    assert [(entry.result.number, entry.final) for entry in saved] == [(1, False), (2, True)]
    assert {entry.match_id for entry in saved} == {table.host.view["match_id"]}
    assert saved[-1].names == ("P0", "P1")
    assert saved[-1].places == tuple(p["place"] for p in table.host.view["players"])
    events = rooms.store.events[table.code]
    assert [event["type"] for event in events[:3]] == ["join", "join", "start"]


async def test_after_a_restart_the_rounds_of_the_match_are_saved_again(rooms: Host) -> None:
    table = await open_table(rooms, 2, rounds=2, turn_seconds=0)
    await table.host.act("start")
    await play_one_round(table)
    await rooms.rooms[table.code].resave_finished_rounds()
    assert [saved.result.number for saved in rooms.store.rounds] == [1, 1]


async def test_after_a_restart_a_finished_match_is_handed_over_again(rooms: Host) -> None:
    """Its last round may not have been committed before the server stopped (SQLite commits
    it after the events that ended it); the history stores it once and keeps the match's end
    time (tests/storage/test_honest_history.py, tests/faults/test_locked.py)."""
    table = await open_table(rooms, 2, rounds=1, turn_seconds=0)
    await table.host.act("start")
    await play_one_round(table)
    assert [saved.final for saved in rooms.store.rounds] == [True]
    await rooms.rooms[table.code].resave_finished_rounds()
    assert [saved.final for saved in rooms.store.rounds] == [True, True]
