"""Leaving and coming back: the seat, the hand and the turn are kept; the host role moves on
once the host has been away for the grace while the room needs a host.

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
    return host_of(client.state)


def host_of(state: State) -> int:
    hosts = [player["seat"] for player in state["players"] if player["host"]]
    assert len(hosts) == 1, hosts
    return hosts[0]


def hosted_by(seat: int) -> Callable[[State], bool]:
    return lambda state: host_of(state) == seat


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


async def test_host_passes_to_the_next_connected_player_after_the_grace(rooms: Host) -> None:
    table = await open_table(rooms, 3, spectators=1, turn_seconds=0)
    left = rooms.clock.now()
    await table.host.close()
    rest: list[LocalClient] = [*table.players[1:], *table.spectators]
    for client in rest:
        await client.wait_for(away(0))
        assert host_seat(client) == 0, "within the grace the role stays"
    for client in rest:
        await client.wait_for(hosted_by(1))
    assert rooms.clock.now() == left + rooms.config.host_grace_seconds
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
        await client.wait_for(hosted_by(2))
    await table.players[2].act("kick", seat=1)
    await table.players[3].wait_for(lambda s: len(s["players"]) == 3)
    assert host_seat(table.players[3]) == 1
    for client in table.players[2:]:
        await client.close()


async def test_a_host_back_within_the_grace_keeps_the_role(rooms: Host) -> None:
    """A host who reloads the lobby, or whose phone dropped the link while they shared it."""
    table = await open_table(rooms, 3, turn_seconds=0)
    await table.host.close()
    await table.players[1].wait_for(away(0))
    await rooms.clock.advance(rooms.config.host_grace_seconds - 1)
    again = LocalClient(rooms, table.code, table.tokens[0])
    await again.connect()
    table.players[0] = again
    assert host_seat(again) == 0
    # The grace's ring, had it stayed set, would have rung by now: the role stays.
    await rooms.clock.advance(rooms.config.host_grace_seconds)
    for client in table.players:
        await client.wait_for(lambda s: s["players"][0]["connected"] is True)
        assert host_seat(client) == 0
    assert rooms.rooms[table.code].timers.host.key is None
    await again.act("start")
    await table.players[2].wait_for(lambda s: s["status"] == "playing")
    await table.close()


async def test_a_player_away_who_inherits_the_role_has_no_grace(rooms: Host) -> None:
    """The host leaves the lobby and the role falls to the seat of a player who is away: the
    grace is the host's own, so it passes on at once to a player who is here."""
    table = await open_table(rooms, 3, turn_seconds=0)
    await table.players[1].close()
    await table.host.wait_for(away(1))
    await rooms.clock.advance(5)
    at = rooms.clock.now()
    await table.host.act("leave")
    cy = table.players[2]
    state = await cy.wait_for(lambda s: len(s["players"]) == 2)
    assert [p["name"] for p in state["players"]] == ["P1", "P2"]
    assert host_of(state) == 1, "Cy, who is here, not P1, who is away"
    assert rooms.clock.now() == at
    await cy.act("start")
    await cy.wait_for(lambda s: s["status"] == "playing")
    await table.host.close()
    await cy.close()


async def test_a_host_gone_for_good_from_a_finished_match_hands_on_the_rematch(
    rooms: Host,
) -> None:
    """Away during the match (the role stays), and still away when it finishes: the role passes
    once the grace, counted from when the host left, has gone by."""
    table = await open_table(rooms, 2, rounds=1, turn_seconds=30)
    await table.host.act("start")
    await table.settle()
    await table.host.close()
    bob = table.players[1]
    await bob.wait_for(away(0))
    await rooms.clock.advance(rooms.config.host_grace_seconds + 1)
    assert host_seat(bob) == 0, "during the match the role stays"
    state = await bob.wait_for(lambda s: s["status"] == "finished")
    assert host_of(state) == 1
    await bob.act("rematch")
    await bob.wait_for(lambda s: s["status"] == "playing")
    await bob.close()


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

    Unless the host role passes to them (once the host's grace has gone by), nobody present can
    start, kick or change settings.
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
    assert host_seat(bob) == 0, "within the grace the role stays"
    await bob.wait_for(hosted_by(1))
    await bob.act("start")
