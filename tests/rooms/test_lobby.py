"""The host's controls: settings, kick, leave, start and rematch (rooms in this process).

Where the socket layer would answer (a join refused with 409, a hello refused with 4001), these
tests check the room's answer it is made from; test_http and test_closing check the wire's."""

from __future__ import annotations

import re

import pytest

from app.engine.errors import IllegalAction
from app.rooms.registry import hash_token
from tests.rooms.client import Refused, Table, clone, expect_refusal, others, plays_on
from tests.rooms.local import Host, LocalClient, open_table


def holds_a_seat(rooms: Host, code: str, token: str) -> bool:
    """Whether a hello with ``token`` would be given a seat (the socket closes 4001 if not)."""
    return rooms.rooms[code].state.seat_of(hash_token(token)) is not None


def settings_of(client: LocalClient) -> dict[str, object]:
    assert client.state is not None
    settings: dict[str, object] = client.state["settings"]
    return settings


def names(client: LocalClient) -> list[str]:
    assert client.state is not None
    return [player["name"] for player in client.state["players"]]


async def all_agree(table: Table[LocalClient]) -> None:
    for client in table.everyone:
        before, fresh = await client.resync()
        assert before == fresh


# Settings.


async def test_settings_change_only_the_fields_given(rooms: Host) -> None:
    table = await open_table(rooms, 2, spectators=1, rounds=7, turn_seconds=30)
    start = dict(settings_of(table.host))
    await table.host.act("settings", settings={"rounds": 3})
    await table.settle()
    assert settings_of(table.spectators[0]) == {**start, "rounds": 3}
    await table.host.act("settings", settings={"multi_pickup": True, "hints": False})
    await table.settle()
    expected = {**start, "rounds": 3, "multi_pickup": True, "hints": False}
    for client in table.everyone:
        assert settings_of(client) == expected
    await table.host.act("settings", settings={})
    assert settings_of(table.host) == expected
    info = rooms.info(table.code)
    assert info["settings"] == expected
    await all_agree(table)


async def test_ten_card_shrinks_the_table_to_four(rooms: Host) -> None:
    table = await open_table(rooms, 3, spectators=1)
    assert settings_of(table.host)["max_players"] == 6
    await table.host.act("settings", settings={"ten_card": True})
    await table.settle()
    for client in table.everyone:
        assert settings_of(client)["ten_card"] is True
        assert settings_of(client)["max_players"] == 4
    await table.host.act("settings", settings={"ten_card": False})
    assert settings_of(table.host)["max_players"] == 4, "turning it off keeps the table size"
    await all_agree(table)


async def test_ten_card_keeps_a_smaller_table(rooms: Host) -> None:
    table = await open_table(rooms, 2, max_players=3)
    await table.host.act("settings", settings={"ten_card": True})
    assert settings_of(table.host)["max_players"] == 3
    await table.host.act("settings", settings={"ten_card": False, "max_players": 6})
    await table.host.act("settings", settings={"ten_card": True, "max_players": 2})
    assert settings_of(table.host)["max_players"] == 2


async def test_a_smaller_table_closes_the_free_seats(rooms: Host) -> None:
    table = await open_table(rooms, 2)
    await table.host.act("settings", settings={"max_players": 2})
    with pytest.raises(IllegalAction) as refusal:
        await rooms.join(table.code, "Cid")
    assert refusal.value.code == "room_full"


# Kick.


async def test_kick_closes_the_player_and_renumbers_the_seats(rooms: Host) -> None:
    table = await open_table(rooms, 4, spectators=1)
    kicked = table.players[1]
    await table.host.act("kick", seat=1)
    code, reason = await kicked.wait_closed()
    assert code == 4010
    assert reason
    rest = [table.host, *table.players[2:], *table.spectators]
    for client in rest:
        state = await client.wait_for(lambda s: len(s["players"]) == 3)
        assert [(p["seat"], p["name"]) for p in state["players"]] == [
            (0, "P0"),
            (1, "P2"),
            (2, "P3"),
        ]
        assert state["spectators"] == 1
    assert [client.seat for client in table.players[2:]] == [1, 2]
    assert [p["host"] for p in table.host.view["players"]] == [True, False, False]
    info = rooms.info(table.code)
    assert [p["name"] for p in info["players"]] == ["P0", "P2", "P3"]
    table.players.remove(kicked)
    await all_agree(table)


async def test_a_kicked_token_no_longer_holds_a_seat(rooms: Host) -> None:
    table = await open_table(rooms, 3)
    await table.host.act("kick", seat=1)
    await table.players[1].wait_closed()
    assert not holds_a_seat(rooms, table.code, table.tokens[1])
    # The others' tokens follow them to their new seats.
    again = LocalClient(rooms, table.code, table.tokens[2])
    await again.connect()
    assert again.seat == 1
    assert (await table.players[2].wait_closed())[0] == 4009
    # The kicked player may join again, at the end.
    joined = await rooms.join(table.code, "P1")
    assert joined["seat"] == 2


async def test_kick_of_a_player_who_is_away(rooms: Host) -> None:
    table = await open_table(rooms, 3, spectators=1)
    away = table.players.pop()
    await away.close()
    await table.host.wait_for(lambda s: s["players"][2]["connected"] is False)
    await table.host.act("kick", seat=2)
    await table.settle()
    assert names(table.spectators[0]) == ["P0", "P1"]
    await all_agree(table)


async def said_no(table: Table[LocalClient], message: dict[str, object]) -> dict[str, object]:
    """The host's ``message`` refused as ``seat_changed``, nothing changed for anyone."""
    await table.settle()
    return await expect_refusal(table.host, others(table, table.host), message, "seat_changed")


async def test_what_the_host_meant_for_a_seat_whose_player_left_falls_on_no_one(
    rooms: Host,
) -> None:
    """Seats move down when a player leaves: a kick or a mute the host sent for the one who
    left, naming them, is refused instead of falling on the player now in that seat."""
    table = await open_table(rooms, 3, spectators=1)
    await table.players[1].act("leave")
    await table.settle()
    assert table.players[2].seat == 1
    for message in (
        {"type": "kick", "seat": 1, "name": "P1", "id": 1},
        {"type": "mute", "seat": 1, "name": "P1", "id": 2},
    ):
        error = await said_no(table, message)
        assert error["message"] == "seat 1 is P2's now, not P1's; nothing was done"
    await plays_on(table)
    await table.host.act("mute", seat=1, name="P2")
    await table.host.act("kick", seat=1, name="P2")
    code, _ = await table.players[2].wait_closed()
    assert code == 4010


async def test_a_bot_removed_by_name_is_that_bot_or_none(rooms: Host) -> None:
    table = await open_table(rooms, 1, spectators=1)
    await table.host.act("add_bot", level="easy")
    await table.host.act("add_bot", level="easy")
    await table.settle()
    assert table.host.state is not None
    first, second = (p["name"] for p in table.host.state["players"][1:])
    await table.host.act("remove_bot", seat=1, name=first)
    await table.settle()
    message = {"type": "remove_bot", "seat": 1, "name": first, "id": 3}
    error = await said_no(table, message)
    assert error["message"] == f"seat 1 is {second}'s now, not {first}'s; nothing was done"
    await table.host.act("remove_bot", seat=1, name=second)
    state = await table.host.wait_for(lambda s: len(s["players"]) == 1)
    assert [p["name"] for p in state["players"]] == ["P0"]


async def test_a_connection_closing_as_a_seat_leaves_stays_until_it_ends(rooms: Host) -> None:
    """The host's connection is being closed (too far behind) as another player leaves: it
    stays at the table until it ends, and the host is away from then, as any leaving
    connection makes its seat (it was dropped at once, and its end then counted for nothing:
    the host's grace ran from long before)."""
    table = await open_table(rooms, 3, spectators=1)
    live = rooms.rooms[table.code]
    host = table.host.connection
    assert host is not None
    host.close(4008, "fell too far behind; reconnect to resync")
    await table.players[1].act("leave")
    assert [seat.name for seat in live.state.seats] == ["P0", "P2"]
    assert host in live.table.connections
    rooms.clock.time += 100
    await live.detach(host)
    assert host not in live.table.connections
    assert live.table.host_away[1] == rooms.clock.now()
    assert live.table.away_since[0] == rooms.clock.steady()


# Leave.


async def test_a_player_who_leaves_goes_on_watching(rooms: Host) -> None:
    table = await open_table(rooms, 3, spectators=1)
    leaver = table.players[1]
    await leaver.act("leave")
    assert leaver.closed is None
    assert leaver.state is not None
    assert leaver.state["you"] == {"seat": None, "hand": [], "evaluation": None}
    assert leaver.state["spectators"] == 2
    assert names(leaver) == ["P0", "P2"]
    await table.settle(leaver)
    assert table.players[2].seat == 1
    await table.host.act("start")
    await leaver.wait_for(lambda s: s["status"] == "playing")
    assert leaver.state["you"]["hand"] == []
    assert not holds_a_seat(rooms, table.code, table.tokens[1])
    await all_agree(table)


async def test_the_host_may_leave_and_the_role_moves_on(rooms: Host) -> None:
    table = await open_table(rooms, 3, spectators=1)
    await table.host.act("leave")
    await table.settle(table.host)
    for client in table.everyone:
        assert client.state is not None
        players = client.state["players"]
        assert [p["name"] for p in players] == ["P1", "P2"]
        hosts = [p for p in players if p["host"]]
        assert len(hosts) == 1
        assert hosts[0]["connected"] is True
    new_host = next(c for c in table.players[1:] if c.view["players"][c.seat]["host"])
    await new_host.act("start")
    await all_agree(table)


async def test_the_last_seat_may_leave(rooms: Host) -> None:
    table = await open_table(rooms, 2)
    await table.players[1].act("leave")
    await table.settle(table.players[1])
    assert names(table.host) == ["P0"]
    with pytest.raises(Refused) as refusal:
        await table.host.act("start")
    assert refusal.value.code == "not_enough_players"


# Start and rematch.


async def test_start_deals_the_first_round_to_everyone(rooms: Host) -> None:
    table = await open_table(rooms, 3, spectators=1, turn_seconds=0)
    await table.host.act("start")
    await table.settle()
    for client in table.everyone:
        state = client.state
        assert state is not None
        assert state["status"] == "playing"
        assert state["match_number"] == 1
        assert re.fullmatch(r"[0-9a-f]{32}", state["match_id"])
        assert state["results"] == []
        current = state["round"]
        assert (current["number"], current["dealer"], current["knocker"]) == (1, 0, None)
        assert current["turn"] == {"seat": 1, "pending": 0, "deadline": current["turn"]["deadline"]}
        assert current["discard"] == {"top": None, "count": 0}
        assert [pile["count"] for pile in current["piles"]] == [28, 28, 27, 27]
        assert re.fullmatch(r"[0-9a-f]{64}", current["commitment"])
        assert [p["place"] for p in state["players"]] == [1, 1, 1]
        if client.seat is not None:
            assert len(state["you"]["hand"]) == 5
            assert state["you"]["evaluation"] is not None
    info = rooms.info(table.code)
    assert info["status"] == "playing"


async def play_one_round(table: Table[LocalClient]) -> None:
    """The first player knocks, the rest take and discard once: the round is over."""
    first = table.mover()
    await first.act("knock")
    await table.settle(first)
    for _ in range(len(table.players) - 1):
        mover = table.mover()
        await mover.act("take", piles=[0])
        await mover.act("discard", cards=[mover.view["you"]["hand"][0]])
        await table.settle(mover)


async def test_the_deal_moves_on_from_one_match_to_the_next(rooms: Host) -> None:
    """A rematch's first round is dealt by the seat after the last round's dealer, as the
    next round would have been: seat 0 does not deal, nor seat 1 play, first in every match."""
    table = await open_table(rooms, 3, spectators=1, rounds=2, turn_seconds=0)
    await table.host.act("start")
    await table.settle()
    dealers = []
    for _ in range(3):
        for number in (1, 2):
            if number == 2:
                for player in table.players:
                    await player.act("ready")
                await table.settle()
            for client in table.everyone:
                assert client.state is not None
                current = client.state["round"]
                assert current["number"] == number
                assert current["turn"]["seat"] == (current["dealer"] + 1) % 3
            assert table.host.state is not None
            dealers.append(table.host.state["round"]["dealer"])
            await play_one_round(table)
        await table.host.act("rematch")
        await table.settle()
    assert dealers == [0, 1, 2, 0, 1, 2]
    assert table.host.state is not None
    assert table.host.state["round"]["dealer"] == 0
    await all_agree(table)


async def test_rematch_keeps_series_totals_and_resets_the_match(rooms: Host) -> None:
    table = await open_table(rooms, 2, spectators=1, rounds=1, turn_seconds=0)
    await table.host.act("start")
    await table.settle()
    await play_one_round(table)
    finished = clone(table.host.state)
    assert finished is not None
    assert finished["status"] == "finished"
    first_totals = [p["total"] for p in finished["players"]]
    assert [p["series"] for p in finished["players"]] == first_totals
    first_id = finished["match_id"]
    with pytest.raises(Refused) as refusal:
        await table.players[1].act("rematch")
    assert refusal.value.code == "not_host"
    await table.host.act("rematch")
    await table.settle()
    for client in table.everyone:
        state = client.state
        assert state is not None
        assert state["status"] == "playing"
        assert state["match_number"] == 2
        assert state["match_id"] != first_id
        assert re.fullmatch(r"[0-9a-f]{32}", state["match_id"])
        assert state["results"] == []
        assert [p["total"] for p in state["players"]] == [0, 0]
        assert [p["series"] for p in state["players"]] == first_totals
        assert [p["place"] for p in state["players"]] == [1, 1]
        assert state["round"]["number"] == 1
        assert state["round"]["ending"] is None
        assert state["round"]["commitment"] != finished["round"]["commitment"]
    await all_agree(table)
    await play_one_round(table)
    final = table.host.state
    assert final is not None
    second_totals = [p["total"] for p in final["players"]]
    assert second_totals == final["results"][0]["totals"]
    assert [p["series"] for p in final["players"]] == [
        a + b for a, b in zip(first_totals, second_totals, strict=True)
    ]
    assert len(final["results"]) == 1
    await all_agree(table)
