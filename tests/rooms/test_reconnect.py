"""Leaving and coming back: the seat, the hand and the turn are kept; the host role moves on.

Rooms in this process; a connection closed is the room's detach, as a closed socket's is."""

from __future__ import annotations

from collections.abc import Callable

from app.engine.cards import parse_card
from app.engine.scoring import score_cards
from tests.rooms.client import State
from tests.rooms.local import Host, LocalClient, open_table


def away(seat: int) -> Callable[[State], bool]:
    return lambda state: state["players"][seat]["connected"] is False


def host_seat(client: LocalClient) -> int:
    assert client.state is not None
    hosts = [player["seat"] for player in client.state["players"] if player["host"]]
    assert len(hosts) == 1, hosts
    return hosts[0]


async def test_reconnect_mid_turn_keeps_seat_hand_and_step(rooms: Host) -> None:
    table = await open_table(rooms, 3, spectators=1, turn_seconds=0)
    await table.host.act("start")
    await table.settle()
    mover = table.mover()
    seat = mover.seat
    assert seat is not None
    await mover.act("take", piles=[2])
    await table.settle(mover)
    assert mover.state is not None
    held = list(mover.state["you"]["hand"])
    assert len(held) == 6
    public_round = mover.state["round"]
    await mover.close()
    rest = [client for client in table.everyone if client is not mover]
    for client in rest:
        state = await client.wait_for(away(seat))
        assert state["round"] == public_round
        assert state["round"]["turn"]["pending"] == 1  # the seat holds 6 cards
    back = LocalClient(rooms, table.code, table.tokens[seat])
    await back.connect()
    assert back.version == 1
    state = back.state
    assert state is not None
    assert state["you"]["seat"] == seat
    assert state["you"]["hand"] == held
    # Still the score of the hand held before taking, whose cards come first.
    before_taking = [parse_card(card) for card in held[:5]]
    assert state["you"]["evaluation"] == score_cards(before_taking).as_dict()
    assert state["round"]["turn"]["seat"] == seat
    assert state["round"]["turn"]["pending"] == 1
    assert state["players"][seat]["connected"] is True
    for client in rest:
        await client.wait_for(lambda s: s["players"][seat]["connected"] is True)
    await back.act("discard", cards=[held[0]])
    assert back.state is not None
    assert back.state["you"]["hand"] == held[1:]
    assert back.state["round"]["turn"]["seat"] == (seat + 1) % 3
    assert back.state["round"]["discard"]["top"] == held[0]
    table.players[seat] = back
    await table.settle(back)
    for client in table.everyone:
        before, fresh = await client.resync()
        assert before == fresh
    await table.close()


async def test_the_others_see_a_player_leave_and_come_back(rooms: Host) -> None:
    table = await open_table(rooms, 2, spectators=1)
    bob = table.players[1]
    await bob.close()
    await table.host.wait_for(away(1))
    info = rooms.info(table.code)
    assert [player["connected"] for player in info["players"]] == [True, False]
    again = LocalClient(rooms, table.code, table.tokens[1])
    await again.connect()
    assert again.seat == 1
    await table.host.wait_for(lambda s: s["players"][1]["connected"] is True)
    table.players[1] = again
    await table.close()


async def test_a_replaced_connection_hears_nothing_more(rooms: Host) -> None:
    table = await open_table(rooms, 2, turn_seconds=0)
    first = table.players[1]
    second = LocalClient(rooms, table.code, table.tokens[1])
    await second.connect()
    assert (await first.wait_closed())[0] == 4009
    frames = len(first.frames)
    await table.host.act("start")
    await second.wait_for(lambda s: s["status"] == "playing")
    assert len(first.frames) == frames
    assert table.host.state is not None
    assert table.host.state["players"][1]["connected"] is True
    table.players[1] = second
    await table.close()


async def test_host_passes_to_the_next_connected_player(rooms: Host) -> None:
    table = await open_table(rooms, 3, spectators=1, turn_seconds=0)
    await table.host.close()
    rest: list[LocalClient] = [*table.players[1:], *table.spectators]
    for client in rest:
        await client.wait_for(away(0))
        assert host_seat(client) == 1
    info = rooms.info(table.code)
    assert [player["host"] for player in info["players"]] == [False, True, False]
    bob = table.players[1]
    await bob.act("settings", settings={"rounds": 2})
    await bob.act("start")
    await table.players[2].wait_for(lambda s: s["status"] == "playing")
    # The host role does not come back with the old host.
    again = LocalClient(rooms, table.code, table.tokens[0])
    await again.connect()
    assert host_seat(again) == 1
    table.players[0] = again
    await table.close()


async def test_host_skips_players_who_are_away(rooms: Host) -> None:
    table = await open_table(rooms, 4, turn_seconds=0)
    await table.players[1].close()
    await table.host.wait_for(away(1))
    assert host_seat(table.host) == 0
    await table.host.close()
    for client in table.players[2:]:
        await client.wait_for(away(0))
        assert host_seat(client) == 2
    await table.players[2].act("kick", seat=1)
    await table.players[3].wait_for(lambda s: len(s["players"]) == 3)
    assert host_seat(table.players[3]) == 1
    for client in table.players[2:]:
        await client.close()


async def test_host_keeps_the_role_while_away_during_a_match(rooms: Host) -> None:
    """Nobody needs a host until the match is over: a host who reloads keeps the role."""
    table = await open_table(rooms, 3, rounds=1, turn_seconds=0)
    await table.host.act("start")
    await table.settle()
    await table.host.close()
    for client in table.players[1:]:
        await client.wait_for(away(0))
        assert host_seat(client) == 0
    again = LocalClient(rooms, table.code, table.tokens[0])
    await again.connect()
    assert host_seat(again) == 0
    table.players[0] = again
    await table.close()


async def test_a_player_alone_in_the_room_becomes_host(rooms: Host) -> None:
    """Everyone left, the host last; the first player back is the only one present.

    Unless the host role passes to them, nobody present can start, kick or change settings.
    """
    table = await open_table(rooms, 3)
    await table.players[1].close()
    await table.players[2].close()
    await table.host.wait_for(lambda s: not any(p["connected"] for p in s["players"][1:]))
    await table.host.close()
    bob = LocalClient(rooms, table.code, table.tokens[1])
    await bob.connect()
    assert bob.state is not None
    assert [p["connected"] for p in bob.state["players"]] == [False, True, False]
    assert host_seat(bob) == 1, "the host role stays with a player who is away"
    await bob.act("start")
