"""Every refusal of docs/protocol.md that can be provoked by a message, in this process.

Each refusal must answer its sender alone with the right code, echo the message's id and
change nothing for anyone; the room must play on afterwards. Those the socket layer makes (too
large, rate limited) are in test_wire.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import pytest

from tests.rooms.client import Table, expect_refusal, plays_on, refused
from tests.rooms.local import Host, LocalClient, open_table

OTHER_CARD = "3-star-orange"


@pytest.fixture
async def lobby(rooms: Host) -> AsyncIterator[Table[LocalClient]]:
    """Three players and a spectator in a lobby."""
    table = await open_table(rooms, 3, spectators=1, turn_seconds=0)
    yield table
    await table.close()


@pytest.fixture
async def playing(rooms: Host) -> AsyncIterator[Table[LocalClient]]:
    """Two players and a spectator, the first round dealt, nobody has moved."""
    table = await open_table(rooms, 2, spectators=1, turn_seconds=0)
    await table.host.act("start")
    await table.settle()
    yield table
    await table.close()


@pytest.fixture
async def multi(rooms: Host) -> AsyncIterator[Table[LocalClient]]:
    """Like ``playing`` with multiple pickups."""
    table = await open_table(rooms, 2, spectators=1, turn_seconds=0, multi_pickup=True)
    await table.host.act("start")
    await table.settle()
    yield table
    await table.close()


def not_turn(table: Table) -> LocalClient:
    return next(client for client in table.players if not client.my_turn())


def hand(client: LocalClient) -> list[str]:
    assert client.state is not None
    hand: list[str] = client.state["you"]["hand"]
    return hand


def round_of(client: LocalClient) -> dict[str, Any]:
    assert client.state is not None
    current: dict[str, Any] = client.state["round"]
    return current


# Acknowledgements.


@pytest.mark.parametrize("given", ["a", "x" * 64, 0, 2**53, "\u00e9t\u00e9"], ids=str)
async def test_an_accepted_action_is_acknowledged_with_its_id(lobby: Table, given: object) -> None:
    mark = len(lobby.players[1].frames)
    await lobby.host.send({"type": "settings", "settings": {"rounds": 9}, "id": given})
    answer = await lobby.host.wait_for(lambda s: s["settings"]["rounds"] == 9)
    assert answer["settings"]["rounds"] == 9
    ack = json.loads(lobby.host.frames[-1])
    assert ack["type"] == "patch"
    assert ack["ack"] == given
    await lobby.players[1].wait_for(lambda s: s["settings"]["rounds"] == 9)
    assert "ack" not in json.loads(lobby.players[1].frames[mark])


async def test_an_action_without_an_id_gets_no_ack(lobby: Table) -> None:
    await lobby.host.send({"type": "settings", "settings": {"rounds": 9}})
    await lobby.host.wait_for(lambda s: s["settings"]["rounds"] == 9)
    assert "ack" not in json.loads(lobby.host.frames[-1])


# Malformed messages.


async def test_bad_json(lobby: Table) -> None:
    for text in ["not json", '{"type": "start"', "", "{'type': 'start'}"]:
        await refused(lobby, lobby.players[1], text, "bad_json", echo=None)
    await plays_on(lobby)


async def test_bad_json_says_where_and_why(lobby: Table) -> None:
    cases = {
        '{"type": "start"': "EOF while parsing an object at line 1 column 16",
        "[" * 1000 + "]" * 1000: "recursion limit exceeded",  # valid, but nested too deeply
    }
    for text, why in cases.items():
        others = [client for client in lobby.everyone if client is not lobby.host]
        error = await expect_refusal(lobby.host, others, text, "bad_json", echo=None)
        assert error["message"].startswith("the message is not valid JSON: " + why), error
    await plays_on(lobby)


@pytest.mark.parametrize("text", ["[1, 2]", '"start"', "42", "null", "true", '[{"type": "start"}]'])
async def test_bad_message_not_an_object(lobby: Table, text: str) -> None:
    await lobby.settle()
    others = [client for client in lobby.everyone if client is not lobby.host]
    error = await expect_refusal(lobby.host, others, text, "bad_message", echo=None)
    assert error["message"] == "a message is a JSON object with a type"
    await plays_on(lobby)


@pytest.mark.parametrize("text", ["[1, 2]", "5", "null"])
async def test_bad_message_not_an_object_in_a_round(playing: Table, text: str) -> None:
    await playing.settle()
    mover = playing.mover()
    others = [client for client in playing.everyone if client is not mover]
    error = await expect_refusal(mover, others, text, "bad_message", echo=None)
    assert error["message"] == "a message is a JSON object with a type"
    await plays_on(playing)


@pytest.mark.parametrize("text", ['{"type": Infinity}', '{"type": NaN, "id": "n"}'])
async def test_a_type_that_is_not_even_json_is_a_bad_message(lobby: Table, text: str) -> None:
    await refused(lobby, lobby.host, text, "bad_message", echo=None)
    await plays_on(lobby)


@pytest.mark.parametrize(
    "message",
    [
        {"id": 5},
        {"id": "m", "piles": [0]},
        {"type": "start", "id": 6, "colour": "red"},
        {"type": "resync", "id": 7, "now": True},
        {"type": "kick", "id": 8, "seat": "1"},
        {"type": "kick", "id": 9, "seat": 1.0},
        {"type": "kick", "id": 10, "seat": True},
        {"type": "kick", "id": 11},
        {"type": "take", "id": 12, "piles": "0"},
        {"type": "discard", "id": 14, "cards": [1]},
        {"type": "discard", "id": 15, "cards": "1-star-red"},
        {"type": "settings", "id": 16, "settings": [1]},
        {"type": "hello", "id": 17, "spectate": True},
        {"type": "start", "id": [1]},
        {"type": "start", "id": -1},
        {"type": "start", "id": "x" * 65},
        {"type": "start", "id": 1.5},
        {"type": 5, "id": 18},
        {"type": None, "id": 19},
        {"type": ["start"], "id": 20},
        {"type": True, "id": 21},
    ],
    ids=lambda message: "-".join(f"{k}={v!s:.8}" for k, v in message.items()),
)
async def test_bad_message_fields(lobby: Table, message: dict[str, Any]) -> None:
    """Missing type, an extra field, a field of the wrong type, a second hello, a bad id."""
    given = message.get("id")
    valid_int = type(given) is int and 0 <= given <= 2**53
    echoed = valid_int or (isinstance(given, str) and len(given) <= 64)
    await refused(lobby, lobby.host, message, "bad_message", echo=given if echoed else None)
    await plays_on(lobby)


@pytest.mark.parametrize(
    "given", ["-1", str(2**53 + 1), str(2**63), "1" + "0" * 30, "1.5", '"' + "x" * 65 + '"', "[1]"]
)
async def test_a_bad_id_is_refused_saying_what_an_id_may_be(lobby: Table, given: str) -> None:
    others = [client for client in lobby.everyone if client is not lobby.host]
    text = '{"type": "resync", "id": ' + given + "}"
    error = await expect_refusal(lobby.host, others, text, "bad_message", echo=None)
    assert error["message"].startswith("id: a string of at most 64 characters, or a whole "), error
    await plays_on(lobby)


@pytest.mark.parametrize("kind", ["shuffle", "Start", "", "whisper"])
async def test_unknown_type(lobby: Table, kind: str) -> None:
    await refused(lobby, lobby.host, {"type": kind, "id": f"u-{kind}"}, "unknown_type")
    await plays_on(lobby)


async def test_unknown_type_names_the_known_types(lobby: Table) -> None:
    await lobby.settle()
    error = await expect_refusal(lobby.host, [], {"type": "shuffle", "id": 1}, "unknown_type")
    for known in ["start", "take", "discard", "knock", "ready", "kick", "leave", "rematch", "chat"]:
        assert known in error["message"]


# Who may do what.


@pytest.mark.parametrize(
    "message",
    [
        {"type": "take", "piles": [0]},
        {"type": "discard", "cards": [OTHER_CARD]},
        {"type": "knock"},
        {"type": "ready"},
        {"type": "leave"},
    ],
    ids=lambda message: message["type"],
)
async def test_not_a_player_in_the_lobby(lobby: Table, message: dict[str, Any]) -> None:
    (watcher,) = lobby.spectators
    await refused(lobby, watcher, {**message, "id": "w"}, "not_a_player")
    await plays_on(lobby)


@pytest.mark.parametrize(
    "message",
    [{"type": "take", "piles": [0]}, {"type": "knock"}, {"type": "ready"}],
    ids=lambda message: message["type"],
)
async def test_not_a_player_in_a_round(playing: Table, message: dict[str, Any]) -> None:
    (watcher,) = playing.spectators
    await refused(playing, watcher, {**message, "id": 99}, "not_a_player")
    await plays_on(playing)


@pytest.mark.parametrize(
    "message",
    [
        {"type": "start"},
        {"type": "settings", "settings": {"rounds": 3}},
        {"type": "kick", "seat": 2},
        {"type": "rematch"},
    ],
    ids=lambda message: message["type"],
)
async def test_not_host(lobby: Table, message: dict[str, Any]) -> None:
    await refused(lobby, lobby.players[1], {**message, "id": "h"}, "not_host")
    await plays_on(lobby)


@pytest.mark.parametrize(
    "message",
    [
        {"type": "start"},
        {"type": "settings", "settings": {"rounds": 3}},
        {"type": "kick", "seat": 1},
        {"type": "rematch"},
        {"type": "add_bot", "level": "easy"},
        {"type": "remove_bot", "seat": 1},
        {"type": "mute", "seat": 1},
        {"type": "spectator_chat", "allowed": True},
    ],
    ids=lambda message: message["type"],
)
async def test_a_spectator_is_not_a_player_for_what_the_host_does(
    lobby: Table, message: dict[str, Any]
) -> None:
    (watcher,) = lobby.spectators
    await refused(lobby, watcher, {**message, "id": 3}, "not_a_player")
    await plays_on(lobby)


@pytest.mark.parametrize(
    "message",
    [
        {"type": "start"},
        {"type": "settings", "settings": {"rounds": 3}},
        {"type": "kick", "seat": 1},
    ],
    ids=lambda message: message["type"],
)
async def test_wrong_status_for_lobby_actions_once_playing(
    playing: Table, message: dict[str, Any]
) -> None:
    await refused(playing, playing.host, {**message, "id": 21}, "wrong_status")
    await plays_on(playing)


@pytest.mark.parametrize("message", [{"type": "leave"}, {"type": "ready"}], ids=str)
async def test_wrong_status_for_a_player_once_playing(
    playing: Table, message: dict[str, Any]
) -> None:
    await refused(playing, playing.players[1], {**message, "id": 22}, "wrong_status")
    await plays_on(playing)


@pytest.mark.parametrize("message", [{"type": "rematch"}, {"type": "ready"}], ids=str)
async def test_wrong_status_in_the_lobby(lobby: Table, message: dict[str, Any]) -> None:
    await refused(lobby, lobby.host, {**message, "id": 23}, "wrong_status")
    await plays_on(lobby)


async def test_wrong_status_for_rematch_during_a_match(playing: Table) -> None:
    await refused(playing, playing.host, {"type": "rematch", "id": 24}, "wrong_status")
    await plays_on(playing)


async def test_not_enough_players(rooms: Host) -> None:
    table = await open_table(rooms, 1, spectators=1, turn_seconds=0)
    await refused(table, table.host, {"type": "start", "id": "s"}, "not_enough_players")
    await plays_on(table)
    await table.close()


@pytest.mark.parametrize(
    "settings",
    [
        {"rounds": 0},
        {"rounds": 51},
        {"rounds": "3"},
        {"turn_seconds": -5},
        {"max_players": 7},
        {"max_players": 2},
        {"multi_pickup": 1},
        {"colour_blind": True},
        {"ten_card": True, "max_players": 5},
    ],
    ids=str,
)
async def test_bad_settings(lobby: Table, settings: dict[str, Any]) -> None:
    """``max_players: 2`` does not fit the three seated players."""
    await refused(
        lobby, lobby.host, {"type": "settings", "settings": settings, "id": 7}, "bad_settings"
    )
    await plays_on(lobby)


async def test_bad_settings_when_ten_card_does_not_fit_the_table(rooms: Host) -> None:
    table = await open_table(rooms, 5, turn_seconds=0)
    message = {"type": "settings", "settings": {"ten_card": True}, "id": 8}
    await refused(table, table.host, message, "bad_settings")
    await plays_on(table)
    await table.close()


@pytest.mark.parametrize("seat", [3, 4, 100, -1])
async def test_no_such_seat(lobby: Table, seat: int) -> None:
    await refused(lobby, lobby.host, {"type": "kick", "seat": seat, "id": 9}, "no_such_seat")
    await plays_on(lobby)


async def test_bad_kick_of_the_host(lobby: Table) -> None:
    await refused(lobby, lobby.host, {"type": "kick", "seat": 0, "id": 10}, "bad_kick")
    await plays_on(lobby)


# Turns.


@pytest.mark.parametrize(
    "message",
    [{"type": "take", "piles": [0]}, {"type": "discard", "cards": [OTHER_CARD]}, {"type": "knock"}],
    ids=lambda message: message["type"],
)
async def test_no_round_in_the_lobby(lobby: Table, message: dict[str, Any]) -> None:
    await refused(lobby, lobby.players[1], {**message, "id": "n"}, "no_round")
    await plays_on(lobby)


async def test_round_over_between_rounds(rooms: Host) -> None:
    """After a knock ends the round, turn actions and hints are refused until the next deal."""
    table = await open_table(rooms, 2, spectators=1, rounds=2, turn_seconds=0)
    await table.host.act("start")
    await table.settle()
    first = table.mover()
    await first.act("knock")
    await table.settle(first)
    second = table.mover()
    await second.act("take", piles=[0])
    await second.act("discard", cards=[hand(second)[0]])
    await table.settle(second)
    assert table.host.state is not None
    assert table.host.state["status"] == "round_over"
    for client in table.players:
        for message in [
            {"type": "take", "piles": [1]},
            {"type": "knock"},
            {"type": "discard", "cards": [hand(client)[0]]},
        ]:
            await refused(table, client, {**message, "id": 31}, "round_over")
        await refused(table, client, {"type": "hint", "id": 32}, "round_over")
    for client in table.players:
        await client.act("ready")
    await table.settle(table.players[-1])
    await plays_on(table)
    await table.close()


@pytest.mark.parametrize(
    "message",
    [
        {"type": "take", "piles": [0]},
        {"type": "knock"},
        {"type": "discard", "cards": [OTHER_CARD]},
    ],
    ids=lambda message: message["type"],
)
async def test_not_your_turn(playing: Table, message: dict[str, Any]) -> None:
    waiting = not_turn(playing)
    if message["type"] == "discard":
        message = {"type": "discard", "cards": [hand(waiting)[0]]}
    await refused(playing, waiting, {**message, "id": 40}, "not_your_turn")
    await plays_on(playing)


async def test_wrong_step_discard_before_taking(playing: Table) -> None:
    mover = playing.mover()
    message = {"type": "discard", "cards": [hand(mover)[0]], "id": 41}
    await refused(playing, mover, message, "wrong_step")
    await plays_on(playing)


@pytest.mark.parametrize(
    "message", [{"type": "take", "piles": [1]}, {"type": "knock"}], ids=lambda m: m["type"]
)
async def test_wrong_step_after_taking(playing: Table, message: dict[str, Any]) -> None:
    mover = playing.mover()
    await mover.act("take", piles=[0])
    await playing.settle(mover)
    await refused(playing, mover, {**message, "id": 42}, "wrong_step")
    await mover.act("discard", cards=[hand(mover)[-1]])
    await playing.settle(mover)
    await plays_on(playing)


@pytest.mark.parametrize("piles", [[], [0, 1], [0, 1, 2, 3, 4]], ids=str)
async def test_wrong_count_of_piles(playing: Table, piles: list[int]) -> None:
    mover = playing.mover()
    await refused(playing, mover, {"type": "take", "piles": piles, "id": 43}, "wrong_count")
    await plays_on(playing)


async def test_wrong_count_of_piles_with_multiple_pickups(multi: Table) -> None:
    mover = multi.mover()
    await refused(multi, mover, {"type": "take", "piles": [], "id": 44}, "wrong_count")
    six = {"type": "take", "piles": [0, 1, 2, 3, 4, 0], "id": 46}
    await refused(multi, mover, six, "wrong_count")
    await plays_on(multi)


@pytest.mark.parametrize("count", [0, 2])
async def test_wrong_count_of_cards(playing: Table, count: int) -> None:
    mover = playing.mover()
    await mover.act("take", piles=[2])
    await playing.settle(mover)
    message = {"type": "discard", "cards": hand(mover)[:count], "id": 45}
    await refused(playing, mover, message, "wrong_count")
    await mover.act("discard", cards=hand(mover)[:1])
    await playing.settle(mover)
    await plays_on(playing)


async def test_wrong_count_of_cards_with_multiple_pickups(multi: Table) -> None:
    mover = multi.mover()
    await mover.act("take", piles=[0, 1, 3])
    await multi.settle(mover)
    for count in (1, 2, 4):
        message = {"type": "discard", "cards": hand(mover)[:count], "id": count}
        await refused(multi, mover, message, "wrong_count")
    await mover.act("discard", cards=hand(mover)[:3])
    await multi.settle(mover)
    assert len(hand(mover)) == 5


@pytest.mark.parametrize("pile", [5, -1, 99])
async def test_bad_pile(playing: Table, pile: int) -> None:
    mover = playing.mover()
    await refused(playing, mover, {"type": "take", "piles": [pile], "id": 46}, "bad_pile")
    await plays_on(playing)


async def test_bad_pile_with_multiple_pickups(multi: Table) -> None:
    mover = multi.mover()
    await refused(multi, mover, {"type": "take", "piles": [0, 7], "id": 47}, "bad_pile")
    await plays_on(multi)


async def test_duplicate_pile(multi: Table) -> None:
    mover = multi.mover()
    for piles in ([0, 0], [1, 2, 1]):
        await refused(multi, mover, {"type": "take", "piles": piles, "id": 48}, "duplicate_pile")
    await plays_on(multi)


async def test_duplicate_card(multi: Table) -> None:
    mover = multi.mover()
    await mover.act("take", piles=[0, 1])
    await multi.settle(mover)
    card = hand(mover)[0]
    message = {"type": "discard", "cards": [card, card], "id": 49}
    await refused(multi, mover, message, "duplicate_card")
    await mover.act("discard", cards=hand(mover)[:2])
    await multi.settle(mover)
    await plays_on(multi)


async def test_pile_empty_discard_pile_at_the_first_turn(playing: Table) -> None:
    mover = playing.mover()
    assert round_of(mover)["discard"] == {"top": None, "count": 0}
    await refused(playing, mover, {"type": "take", "piles": [4], "id": 50}, "pile_empty")
    await plays_on(playing)


async def test_pile_empty_with_multiple_pickups(multi: Table) -> None:
    mover = multi.mover()
    await refused(multi, mover, {"type": "take", "piles": [0, 4], "id": 51}, "pile_empty")
    await plays_on(multi)


@pytest.mark.parametrize(
    "card", ["6-star-red", "3-star", "3-hexagon-red", "3-star-pink", "banana", "", "3-Star-red"]
)
async def test_unknown_card(playing: Table, card: str) -> None:
    mover = playing.mover()
    await mover.act("take", piles=[0])
    await playing.settle(mover)
    await refused(playing, mover, {"type": "discard", "cards": [card], "id": 52}, "unknown_card")
    await mover.act("discard", cards=[hand(mover)[0]])
    await playing.settle(mover)
    await plays_on(playing)


async def test_card_not_in_hand(playing: Table) -> None:
    mover = playing.mover()
    await mover.act("take", piles=[0])
    await playing.settle(mover)
    foreign = round_of(mover)["piles"][1]["top"]
    assert foreign not in hand(mover)
    await refused(
        playing, mover, {"type": "discard", "cards": [foreign], "id": 53}, "card_not_in_hand"
    )
    await mover.act("discard", cards=[hand(mover)[0]])
    await playing.settle(mover)
    await plays_on(playing)


async def test_card_not_in_hand_of_another_player(playing: Table) -> None:
    """Naming a card the other player holds is refused the same way and shows nothing."""
    mover = playing.mover()
    other = not_turn(playing)
    await mover.act("take", piles=[0])
    await playing.settle(mover)
    message = {"type": "discard", "cards": [hand(other)[0]], "id": 54}
    await refused(playing, mover, message, "card_not_in_hand")


async def test_knock_not_allowed_after_a_knock(playing: Table) -> None:
    first = playing.mover()
    await first.act("knock")
    await playing.settle(first)
    second = playing.mover()
    assert second is not first
    await refused(playing, second, {"type": "knock", "id": 55}, "knock_not_allowed")
    await plays_on(playing)
