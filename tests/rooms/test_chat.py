"""Chat and quick reactions in a room: who may say what, how often, and what everyone sees."""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from app.rooms.chat import (
    CHAT_BURST,
    CHAT_KEPT,
    CHAT_WINDOW,
    MARKS_ON_A_LETTER,
    MAX_CHAT_LENGTH,
    REACTIONS,
)
from app.rooms.events import decode, encode
from app.rooms.state import RoomState
from app.rooms.views import ViewBuilder
from tests.rooms.client import Refused, card_ids_in, public, refused
from tests.rooms.local import Host, LocalClient, open_table


def lines(client: LocalClient) -> list[dict[str, Any]]:
    assert client.state is not None
    found: list[dict[str, Any]] = client.state["chat"]["lines"]
    return found


def said(client: LocalClient) -> list[tuple[str | None, str | None, str | None]]:
    return [(line["name"], line["text"], line["reaction"]) for line in lines(client)]


def journal(rooms: Host, code: str) -> list[dict[str, Any]]:
    return rooms.store.events.get(code, [])


async def test_a_message_and_a_reaction_reach_everyone_at_the_senders_seat(rooms: Host) -> None:
    table = await open_table(rooms, 3, spectators=1, turn_seconds=0)
    ann, bob, _ = table.players
    assert ann.view["chat"] == {"lines": [], "muted": [], "spectators": False}
    answer = await bob.act("chat", text="  good   luck\tall \n")
    assert answer["type"] == "patch"
    await ann.act("react", reaction="🎉")
    await table.settle()
    for client in table.everyone:
        assert said(client) == [("P1", "good luck all", None), ("P0", None, "🎉")]
        assert [line["seat"] for line in lines(client)] == [1, 0]
        assert [line["n"] for line in lines(client)] == [0, 1]
        assert all(isinstance(line["at"], int) for line in lines(client))
    await table.close()


async def test_chat_patches_add_only_the_new_line(rooms: Host) -> None:
    table = await open_table(rooms, 2, turn_seconds=0)
    ann, bob = table.players
    for number in range(CHAT_KEPT + 3):
        rooms.clock.time += CHAT_WINDOW  # out of the chat limit's way
        mark = len(bob.frames)
        await ann.act("chat", text=f"line {number}")
        await bob.wait_frames(mark + 1)
        ops = orjson.loads(bob.frames[mark])["ops"]
        added = [{"op": "add", "path": "/chat/lines/-", "value": lines(bob)[-1]}]
        dropped = [{"op": "remove", "path": "/chat/lines/0"}] if number >= CHAT_KEPT else []
        assert ops == dropped + added
    assert len(lines(bob)) == CHAT_KEPT
    assert lines(bob)[0]["text"] == "line 3"
    assert [line["n"] for line in lines(bob)] == list(range(3, CHAT_KEPT + 3))
    fresh = await bob.resync()
    assert fresh[0] == fresh[1]
    await table.close()


async def test_a_move_does_not_rebuild_or_send_the_chat(rooms: Host) -> None:
    table = await open_table(rooms, 2, turn_seconds=0)
    ann = table.host
    await ann.act("chat", text="hi")
    await ann.act("start")
    await table.settle()
    room = ann.room
    chat = room.public["chat"]
    mark = len(ann.frames)
    for _ in range(4):
        mover = table.mover()
        assert mover.seat is not None
        pending = mover.view["round"]["turn"]["pending"]
        if pending:
            await mover.act("discard", cards=mover.view["you"]["hand"][-pending:])
        else:
            await mover.act("take", piles=[0])
        await table.settle(mover)
    assert room.public["chat"] is chat
    assert not [frame for frame in ann.frames[mark:] if "/chat" in frame]
    await table.close()


@pytest.mark.parametrize(
    ("message", "code"),
    [
        ({"type": "chat", "text": "x" * (MAX_CHAT_LENGTH + 1)}, "chat_too_long"),
        ({"type": "chat", "text": " " + "y" * 10_000}, "chat_too_long"),
        ({"type": "chat", "text": ""}, "chat_empty"),
        ({"type": "chat", "text": " \t\n "}, "chat_empty"),
        ({"type": "chat", "text": "\u0000\u0007\u202e\u200f"}, "chat_empty"),
        # Letters that show as nothing, joiners, invisible marks, a mark on nothing.
        ({"type": "chat", "text": "\u3164 \u2800\u115f"}, "chat_empty"),
        ({"type": "chat", "text": "\u200b\u200d\u00ad\u2060\u2060"}, "chat_empty"),
        ({"type": "chat", "text": " \u0301 "}, "chat_empty"),
        ({"type": "react", "reaction": "💩"}, "unknown_reaction"),
        ({"type": "react", "reaction": "👍👍"}, "unknown_reaction"),
        ({"type": "react", "reaction": "<b>"}, "unknown_reaction"),
        ({"type": "chat", "text": 5}, "bad_message"),
        ({"type": "chat"}, "bad_message"),
        ({"type": "chat", "text": "hi", "seat": 1}, "bad_message"),
        ({"type": "react"}, "bad_message"),
        ({"type": "mute", "seat": "1"}, "bad_message"),
        ({"type": "spectator_chat", "allowed": "yes"}, "bad_message"),
    ],
)
async def test_bad_chat_is_refused_and_changes_nothing(
    rooms: Host, message: dict[str, Any], code: str
) -> None:
    table = await open_table(rooms, 2, spectators=1, turn_seconds=0)
    bob = table.players[1]
    await bob.act("chat", text="before")
    kept = len(journal(rooms, table.code))
    await refused(table, bob, {**message, "id": "m1"}, code)
    assert len(journal(rooms, table.code)) == kept
    await table.close()


async def test_control_characters_are_taken_out_and_the_length_counts_what_is_left(
    rooms: Host,
) -> None:
    table = await open_table(rooms, 2, turn_seconds=0)
    ann = table.host
    await ann.act("chat", text="a\u0000b\u202ec\u0007" + "z" * (MAX_CHAT_LENGTH - 3))
    family = "\U0001f468\u200d\U0001f469\u200d\U0001f467 \u2764\ufe0f"
    await ann.act("chat", text=family)
    rooms.clock.time += CHAT_WINDOW
    # A mark taken out between spaces leaves one space; a blank letter is a space.
    await ann.act("chat", text="a \u200e b\u3164\u3164c\td")
    rooms.clock.time += CHAT_WINDOW
    # Newer emoji than this Python's Unicode tables, and private-use letters, are drawn.
    await ann.act("chat", text="\U0001fa77")
    await ann.act("chat", text="\uf8ff")
    await table.settle()
    texts = [line["text"] for line in lines(table.players[1])]
    expected = ["abc" + "z" * (MAX_CHAT_LENGTH - 3), family, "a b c d", "\U0001fa77", "\uf8ff"]
    assert texts == expected
    await table.close()


# Unicode's Bidi_Control characters: each turns the text around it (before a number, the
# Arabic letter mark has "30 - 12" shown as "12 - 30", as the right-to-left mark does).
BIDI_CONTROLS = "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"


@pytest.mark.parametrize("mark", BIDI_CONTROLS)
async def test_every_mark_that_turns_text_around_is_taken_out(rooms: Host, mark: str) -> None:
    table = await open_table(rooms, 2, turn_seconds=0)
    await table.host.act("chat", text=f"I won {mark}30 - 12")
    await table.settle()
    assert [line["text"] for line in lines(table.players[1])] == ["I won 30 - 12"]
    await table.close()


async def test_what_draws_as_nothing_and_marks_piled_on_a_letter_are_taken_out(
    rooms: Host,
) -> None:
    """A zero-width space, a tag or an annotation mark shows nothing, and dozens of accents on
    one letter cover the lines around it: taken out. What emoji, flags and scripts are made of
    stays: joiners, variation selectors, a flag's tags, and a few marks on a letter."""
    table = await open_table(rooms, 2, turn_seconds=0)
    ann = table.host
    scotland = "\U0001f3f4\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f"
    hebrew = "\u05d1\u05bc\u05b0\u0591\u05bd"  # a letter, its dagesh, a vowel and two marks
    mongolian = "\u182d\u180b\u1820\u180e\u1821"  # a variation selector, the vowel separator
    smuggled = "\U0001f3f4" + "".join(chr(0xE0000 + ord(letter)) for letter in "hidden text")
    await ann.act("chat", text="g\u200bg \U000e0041\U000e0042x\ufff9y\ufffbz\u2060!")
    await ann.act("chat", text="z" + "\u0301" * 48 + "algo " + "e\u0301\u0302")
    await ann.act("chat", text=f"{scotland} {hebrew} \u0915\u094d\u200d\u0937 1\ufe0f\u20e3")
    rooms.clock.time += CHAT_WINDOW
    # Joiners between the marks leave them on one letter: they are counted all the same.
    await ann.act("chat", text="a" + ("\u0301" * 4 + "\u200c") * 20 + " " + mongolian)
    await ann.act("chat", text=f"{smuggled}\U000e007f flag")
    await table.settle()
    texts = [line["text"] for line in lines(table.players[1])]
    assert texts == [
        "gg xyz!",
        "z" + "\u0301" * MARKS_ON_A_LETTER + "algo e\u0301\u0302",
        f"{scotland} {hebrew} \u0915\u094d\u200d\u0937 1\ufe0f\u20e3",
        "a" + "\u0301" * 4 + "\u200c" + "\u0301" * 2 + "\u200c" * 19 + " " + mongolian,
        "\U0001f3f4 flag",
    ]
    rooms.clock.time += CHAT_WINDOW
    kept = len(journal(rooms, table.code))
    await refused(
        table, ann, {"type": "chat", "text": "\u200b\U000e0020\ufeff", "id": "m"}, "chat_empty"
    )
    assert len(journal(rooms, table.code)) == kept
    await table.close()


async def test_every_quick_reaction_is_accepted(rooms: Host) -> None:
    table = await open_table(rooms, 2, turn_seconds=0)
    for reaction in REACTIONS:
        rooms.clock.time += CHAT_WINDOW
        await table.host.act("react", reaction=reaction)
    await table.settle()
    assert [line["reaction"] for line in lines(table.players[1])] == list(REACTIONS)
    await table.close()


async def test_the_chat_limit_is_per_seat_and_frees_up_with_time(rooms: Host) -> None:
    table = await open_table(rooms, 2, turn_seconds=0)
    ann, bob = table.players
    for number in range(CHAT_BURST):  # reactions count with messages
        if number % 2:
            await ann.act("chat", text=f"{number}")
        else:
            await ann.act("react", reaction="👍")
    kept = len(journal(rooms, table.code))
    await refused(table, ann, {"type": "chat", "text": "one too many", "id": 7}, "chat_too_fast")
    await refused(table, ann, {"type": "react", "reaction": "😂", "id": 8}, "chat_too_fast")
    assert len(journal(rooms, table.code)) == kept
    await bob.act("chat", text="Bob has his own limit")
    # A refused message does not count: once the window has passed, Ann may chat again.
    rooms.clock.time += CHAT_WINDOW
    await ann.act("chat", text="later")
    await table.settle()
    assert said(bob)[-2:] == [("P1", "Bob has his own limit", None), ("P0", "later", None)]
    await table.close()


async def test_a_spectator_chats_only_if_the_host_allows_it(rooms: Host) -> None:
    table = await open_table(rooms, 2, spectators=2, turn_seconds=0)
    ann, bob = table.players
    watcher, other = table.spectators
    await refused(table, watcher, {"type": "chat", "text": "hello", "id": 1}, "spectator_chat_off")
    await refused(
        table, watcher, {"type": "react", "reaction": "👍", "id": 2}, "spectator_chat_off"
    )
    await refused(table, bob, {"type": "spectator_chat", "allowed": True, "id": 3}, "not_host")
    await refused(
        table, watcher, {"type": "spectator_chat", "allowed": True, "id": 4}, "not_a_player"
    )
    await ann.act("spectator_chat", allowed=True)
    await table.settle()
    assert watcher.view["chat"]["spectators"] is True
    await watcher.act("chat", text="go Bob")
    await table.settle()
    assert lines(bob)[-1] | {"at": 0} == {
        "n": 0, "seat": None, "name": None, "text": "go Bob", "reaction": None, "at": 0
    }  # fmt: skip
    # Each spectator has a limit of their own.
    for _ in range(CHAT_BURST - 1):
        await watcher.act("react", reaction="🔥")
    await refused(table, watcher, {"type": "chat", "text": "more", "id": 5}, "chat_too_fast")
    await other.act("chat", text="me too")
    await ann.act("spectator_chat", allowed=False)
    await refused(table, other, {"type": "chat", "text": "still?", "id": 6}, "spectator_chat_off")
    await table.close()


async def test_a_spectator_who_connects_again_keeps_the_limit_of_their_address(
    rooms: Host,
) -> None:
    """A spectator's limit is their address's: connecting again does not start it afresh,
    while a spectator at another address has their own."""
    table = await open_table(rooms, 2, turn_seconds=0)
    await table.host.act("spectator_chat", allowed=True)

    async def watching(address: str) -> LocalClient:
        client = LocalClient(rooms, table.code)
        client.address = address
        await client.connect()
        return client

    async def too_fast(client: LocalClient) -> None:
        with pytest.raises(Refused) as refusal:
            await client.act("chat", text="more")
        assert refusal.value.code == "chat_too_fast"

    watcher = await watching("203.0.113.7")
    for _ in range(CHAT_BURST):
        await watcher.act("react", reaction="🔥")
    await too_fast(watcher)
    await watcher.close()
    again = await watching("203.0.113.7")
    await too_fast(again)
    other = await watching("198.51.100.9")
    await other.act("chat", text="my own limit")
    rooms.clock.time += CHAT_WINDOW
    await again.act("chat", text="later")
    for client in (again, other):
        await client.close()
    await table.close()


async def test_chat_counts_follow_the_seats_that_move_down_when_one_leaves(rooms: Host) -> None:
    """Seats after one that leaves the lobby move down: their counts go with them, so nobody
    is given a fresh limit, nor someone else's."""
    table = await open_table(rooms, 3, turn_seconds=0)
    ann, bob, cy = table.players
    for _ in range(CHAT_BURST):
        await cy.act("react", reaction="👍")
    await bob.act("leave")
    await cy.wait_for(lambda s: len(s["players"]) == 2)
    assert cy.seat == 1
    await refused(table, cy, {"type": "chat", "text": "fresh?", "id": 1}, "chat_too_fast")
    await ann.act("chat", text="Ann's limit is hers")
    await table.close()


async def test_the_host_mutes_and_unmutes_a_player(rooms: Host) -> None:
    table = await open_table(rooms, 3, spectators=1, turn_seconds=0)
    ann, bob, cy = table.players
    await refused(table, bob, {"type": "mute", "seat": 2, "id": 1}, "not_host")
    await refused(table, table.spectators[0], {"type": "mute", "seat": 2, "id": 2}, "not_a_player")
    await refused(table, ann, {"type": "mute", "seat": 0, "id": 3}, "bad_mute")
    await refused(table, ann, {"type": "mute", "seat": 3, "id": 4}, "no_such_seat")
    await refused(table, ann, {"type": "mute", "seat": -1, "id": 5}, "no_such_seat")
    await ann.act("mute", seat=1)
    await table.settle()
    for client in table.everyone:
        assert client.view["chat"]["muted"] == [1]
    kept = len(journal(rooms, table.code))
    await refused(table, bob, {"type": "chat", "text": "let me talk", "id": 6}, "muted")
    await refused(table, bob, {"type": "react", "reaction": "😢", "id": 7}, "muted")
    assert len(journal(rooms, table.code)) == kept
    await cy.act("chat", text="Cy is not muted")
    await ann.act("mute", seat=1, muted=False)
    await table.settle()
    assert ann.view["chat"]["muted"] == []
    await bob.act("chat", text="thanks")
    await table.settle()
    assert said(ann) == [("P2", "Cy is not muted", None), ("P1", "thanks", None)]
    await table.close()


async def test_a_muted_seat_and_its_lines_follow_a_seat_that_leaves(rooms: Host) -> None:
    table = await open_table(rooms, 3, turn_seconds=0)
    ann, bob, cy = table.players
    await bob.act("chat", text="bye")
    await cy.act("chat", text="I stay")
    await ann.act("mute", seat=2)
    await bob.act("leave")
    await ann.wait_for(lambda s: len(s["players"]) == 2)
    await cy.wait_for(lambda s: len(s["players"]) == 2)
    assert public(cy.view) == public(ann.view)
    assert ann.view["chat"]["muted"] == [1]
    assert [(line["seat"], line["name"]) for line in lines(ann)] == [(None, "P1"), (1, "P2")]
    with pytest.raises(Refused) as refusal:
        await cy.act("chat", text="still muted")
    assert refusal.value.code == "muted"
    fresh = await ann.resync()
    assert fresh[0] == fresh[1]
    await ann.close()
    await cy.close()


async def test_a_muted_player_who_becomes_host_is_unmuted(rooms: Host) -> None:
    """The role passes to a muted seat when the host leaves the lobby (or stays away): that
    host could not unmute themselves and nobody else may, so they were muted for good."""
    table = await open_table(rooms, 3, turn_seconds=0)
    ann, bob, cy = table.players
    await ann.act("mute", seat=1)
    await ann.act("leave")  # the role passes to Bob, muted
    await bob.wait_for(lambda s: len(s["players"]) == 2)
    assert bob.view["players"][0]["host"] is True
    assert bob.view["chat"]["muted"] == []
    await bob.act("chat", text="I can speak as host")
    await bob.act("mute", seat=1)  # and mute others, as any host
    await cy.wait_for(lambda s: s["chat"]["muted"] == [1])
    with pytest.raises(Refused) as refusal:
        await cy.act("chat", text="no")
    assert refusal.value.code == "muted"
    room = bob.room
    restored = RoomState.replay(
        room.state.code, room.state.initial_settings, 0, journal(rooms, table.code)
    )
    assert [seat.muted for seat in restored.seats] == [False, True]
    await bob.close()
    await cy.close()


async def test_the_chat_is_restored_from_the_journal_and_holds_no_hand(rooms: Host) -> None:
    table = await open_table(rooms, 2, spectators=1, turn_seconds=0)
    ann, bob = table.players
    await ann.act("spectator_chat", allowed=True)
    await ann.act("start")
    await ann.act("mute", seat=1)
    await ann.act("chat", text="<img src=x onerror=alert(1)><b>hi</b>")
    await table.spectators[0].act("react", reaction="😮")
    await table.settle()
    room = ann.room
    state = room.state
    restored = RoomState.replay(
        state.code, state.initial_settings, state.created_at, journal(rooms, table.code)
    )
    view = ViewBuilder().public(restored, [True, True], set(), 1, None, None)
    assert view["chat"] == ann.view["chat"]
    assert view["chat"]["muted"] == [1]
    assert view["chat"]["spectators"] is True
    kinds = [event["type"] for event in journal(rooms, table.code)]
    assert kinds.count("chat") == 2
    # Nobody's chat view holds a card: the hands stay in each player's own "you".
    for client in table.everyone:
        assert card_ids_in(orjson.dumps(client.view["chat"]).decode()) == set()
    hand = set(bob.view["you"]["hand"])
    assert not hand & card_ids_in(orjson.dumps(public(ann.view)).decode())
    await table.close()


@pytest.mark.parametrize(
    "raw",
    [
        {"type": "chat", "seat": 2, "text": "hi", "at": 5},
        {"type": "chat", "seat": None, "reaction": "👍", "at": 6},
        {"type": "mute", "seat": 1, "muted": True},
        {"type": "mute", "seat": 1, "muted": False},
        {"type": "spectator_chat", "allowed": True},
    ],
)
def test_the_chat_events_keep_their_journal_form(raw: dict[str, Any]) -> None:
    assert encode(decode(raw)) == raw
