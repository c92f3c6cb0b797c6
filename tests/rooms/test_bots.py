"""Bots at the table, a bot standing in for an absent player, and hints.

Rooms in this process with a clock moved by hand; bots think in place (no worker processes)."""

from __future__ import annotations

import asyncio
import math
import os
import random
import signal
from typing import Any

import pytest

from app.bots.decision import Decision
from app.bots.levels import Level
from app.bots.observation import Observation, observe
from app.engine.errors import IllegalAction
from app.engine.round import Round
from app.engine.variant import Variant
from app.rooms import autoplay, dispatch
from app.rooms.live import RoomConfig
from app.rooms.thinking import Thinker
from tests.rooms.client import Refused
from tests.rooms.local import Host, LocalClient, open_table
from tests.rooms.test_compact import Seeds


@pytest.fixture
def bot_server() -> Host:
    """Bots play at once; a player away on their turn is stood in for after half a second."""
    return Host(RoomConfig(ready_seconds=2, bot_delay_seconds=0, standin_seconds=0.5))


async def lobby_with(server: Host, **settings: Any) -> LocalClient:
    room = server.create("Ann", turn_seconds=0, **settings)
    host = LocalClient(server, str(room["code"]), str(room["token"]))
    await host.connect()
    return host


async def test_the_host_seats_and_removes_bots(bot_server: Host) -> None:
    host = await lobby_with(bot_server, max_players=4)
    for level in ("easy", "normal", "strong"):
        await host.act("add_bot", level=level)
    players = host.view["players"]
    assert [player["bot"] for player in players] == [None, "easy", "normal", "strong"]
    assert [player["name"] for player in players[1:]] == ["Easy bot", "Normal bot", "Strong bot"]
    assert all(player["connected"] for player in players)
    with pytest.raises(Refused) as refused:
        await host.act("add_bot", level="strong")
    assert refused.value.code == "room_full"
    with pytest.raises(Refused) as refused:
        await host.act("kick", seat=1)
    assert refused.value.code == "bad_kick"
    with pytest.raises(Refused) as refused:
        await host.act("remove_bot", seat=0)
    assert refused.value.code == "no_such_bot"
    await host.act("remove_bot", seat=2)
    assert [p["name"] for p in host.view["players"]] == ["Ann", "Easy bot", "Strong bot"]
    await host.act("add_bot", level="strong")
    assert host.view["players"][3]["name"] == "Strong bot 2"
    await host.close()


async def test_a_bot_is_not_named_like_a_seated_person(bot_server: Host) -> None:
    room = bot_server.create("easy B0T", turn_seconds=0)
    host = LocalClient(bot_server, str(room["code"]), str(room["token"]))
    await host.connect()
    await host.act("add_bot", level="easy")
    await host.act("add_bot", level="easy")
    assert [p["name"] for p in host.view["players"]] == ["easy B0T", "Easy bot 2", "Easy bot 3"]
    await host.close()


async def test_no_one_is_shown_under_a_bots_name_in_another_language(bot_server: Host) -> None:
    """A French page shows "Easy bot 2" as "Bot facile 2": a bot is not named so beside a
    person called "Bot facile", and a person may not join as a seated bot is shown."""
    room = bot_server.create("bot FACILE", turn_seconds=0)
    code = str(room["code"])
    host = LocalClient(bot_server, code, str(room["token"]))
    await host.connect()
    await host.act("add_bot", level="easy")
    await host.act("add_bot", level="strong")
    names = ["bot FACILE", "Easy bot 2", "Strong bot"]
    assert [p["name"] for p in host.view["players"]] == names
    for name in ("Bot facile 2", "bot fort", "Bot f\u043ert"):  # a Cyrillic o in the last
        with pytest.raises(IllegalAction) as refused:
            await bot_server.join(code, name)
        assert refused.value.code == "name_taken"
    assert (await bot_server.join(code, "Bot moyen"))["seat"] == 3
    await host.close()


async def test_a_guest_cannot_add_bots(bot_server: Host) -> None:
    table = await open_table(bot_server, 2, turn_seconds=0)
    with pytest.raises(Refused) as refused:
        await table.players[1].act("add_bot", level="easy")
    assert refused.value.code == "not_host"
    await table.close()


@pytest.mark.parametrize(
    "settings",
    [{}, {"multi_pickup": True}, {"ten_card": True}, {"ten_card": True, "multi_pickup": True}],
    ids=["standard", "multi", "ten", "ten-multi"],
)
async def test_one_person_plays_a_whole_match_against_bots(
    bot_server: Host, settings: dict[str, object]
) -> None:
    host = await lobby_with(bot_server, rounds=2, **settings)
    for level in ("easy", "normal", "strong"):
        await host.act("add_bot", level=level)
    await host.act("start")
    rng = random.Random(8)
    while host.view["status"] != "finished":
        state = await host.wait_for(
            lambda s: s["status"] in ("round_over", "finished") or host.my_turn()
        )
        if state["status"] == "round_over":
            await host.act("ready")
            await host.wait_for(lambda s: s["status"] != "round_over")
        elif state["status"] == "playing":
            await host.play(host.random_move(rng, knock_chance=0.02))
    results = host.view["results"]
    assert len(results) == 2
    assert all(len(result["hands"]) == 4 for result in results)
    before, fresh = await host.resync()
    assert before == fresh
    await host.close()


async def test_a_bot_stands_in_for_an_absent_player_until_they_return(bot_server: Host) -> None:
    table = await open_table(bot_server, 2, rounds=3, turn_seconds=0)
    ann, bob = table.players
    await ann.act("start")
    await bob.wait_for(lambda s: s["status"] == "playing")
    await bob.close()
    await ann.wait_for(lambda s: not s["players"][1]["connected"])
    assert not ann.view["players"][1]["standin"]
    # Bob's turns are played for him once his grace is over: Ann keeps getting her turn back.
    for _ in range(3):
        await ann.wait_for(lambda s: ann.my_turn())
        await ann.act("take", piles=[0])
        await ann.play({"type": "discard", "cards": [ann.view["you"]["hand"][-1]]})
    await ann.wait_for(lambda s: s["players"][1]["standin"])
    bob = LocalClient(bot_server, table.code, table.tokens[1])
    await bob.connect()
    state = await ann.wait_for(lambda s: s["players"][1]["connected"])
    assert not state["players"][1]["standin"]
    assert len(bob.view["you"]["hand"]) in (5, 6)
    await ann.close()
    await bob.close()


async def bob_stood_in(server: Host) -> tuple[LocalClient, LocalClient]:
    """Ann and Bob at a table with a 1 s turn timer, once a bot stands in for Bob.

    Ann plays her turns; Bob, connected, never does: the timer plays two of his turns, then a
    bot stands in for him.
    """
    table = await open_table(server, 2, rounds=3, turn_seconds=1)
    ann, bob = table.players
    await ann.act("start")
    while not ann.view["players"][1]["standin"]:
        await ann.wait_for(lambda s: ann.my_turn() or s["players"][1]["standin"])
        if ann.my_turn():
            await ann.act("take", piles=[1])
            await ann.play({"type": "discard", "cards": [ann.view["you"]["hand"][0]]})
    return ann, bob


class Asked(Thinker):
    """Bots' decisions as made in this process, the level each was asked of, and whether it was
    asked as a hint."""

    def __init__(self) -> None:
        super().__init__(workers=0)
        self.levels: list[str] = []
        self.hints: list[bool] = []

    async def decide(
        self,
        level: str,
        observation: Observation,
        seed: int,
        within: float = math.inf,
        *,
        hint: bool = False,
    ) -> Decision:
        await self.asking(level, hint)
        return await super().decide(level, observation, seed, within, hint=hint)

    async def asking(self, level: str, hint: bool) -> None:
        """A decision is asked: noted, before it is made."""
        self.levels.append(level)
        self.hints.append(hint)


@pytest.mark.parametrize(("hints", "level"), [(True, "strong"), (False, "normal")])
async def test_a_stand_in_plays_strong_only_where_hints_are_on(hints: bool, level: str) -> None:
    """With hints off, letting one's turns go is no way to have the strong bot play one's hand:
    the stand-in plays at the normal level (never the easy one, which knocks on any hand)."""
    server = Host(RoomConfig(ready_seconds=2, bot_delay_seconds=0, standin_seconds=60))
    asked = Asked()
    table = await open_table(server, 2, rounds=3, turn_seconds=1, hints=hints)
    server.rooms[table.code].autoplay.thinker = asked
    ann, bob = table.players
    await ann.act("start")
    while len(asked.levels) < 2:
        await ann.wait_for(lambda s: ann.my_turn() or len(asked.levels) >= 2)
        if ann.my_turn() and len(asked.levels) < 2:
            await ann.act("take", piles=[1])
            await ann.play({"type": "discard", "cards": [ann.view["you"]["hand"][0]]})
    assert ann.view["players"][1]["standin"]
    assert set(asked.levels) == {level}
    await ann.close()
    await bob.close()


async def test_two_missed_deadlines_bring_a_stand_in_until_back() -> None:
    server = Host(RoomConfig(ready_seconds=2, bot_delay_seconds=0, standin_seconds=60))
    ann, bob = await bob_stood_in(server)
    assert bob.state is not None
    await bob.wait_for(lambda s: s["players"][1]["standin"])
    await bob.act("back")
    await ann.wait_for(lambda s: not s["players"][1]["standin"])
    await ann.close()
    await bob.close()


async def test_a_stood_in_player_who_moves_is_back_for_everyone() -> None:
    server = Host(RoomConfig(ready_seconds=2, bot_delay_seconds=30, standin_seconds=60))
    ann, bob = await bob_stood_in(server)
    # The bot waits 30 s before it plays for Bob: Bob's own move on his turn comes first,
    # and that move alone tells everyone he is back.
    await bob.wait_for(lambda s: bob.my_turn())
    await bob.act("take", piles=[1])
    # Before his turn timer plays the rest of his turn: the take's own patch said it.
    for client in (ann, bob):
        before, fresh = await client.resync()
        assert before == fresh
        assert not before["players"][1]["standin"]
        assert before["round"]["turn"]["pending"] > 0
    await ann.close()
    await bob.close()


async def test_hints_answer_only_the_asker_with_a_legal_move(bot_server: Host) -> None:
    table = await open_table(bot_server, 2, spectators=1, rounds=1, turn_seconds=0)
    ann, bob = table.players
    (watcher,) = table.spectators
    await ann.act("start")
    await ann.wait_for(lambda s: s["status"] == "playing")
    await bob.wait_for(lambda s: s["status"] == "playing")
    mover, other = (ann, bob) if ann.my_turn() else (bob, ann)
    frames_before = len(other.frames)
    advice = await answer(mover, {"type": "hint", "id": "h1"})
    assert advice["type"] == "hint"
    again = await answer(mover, {"type": "hint", "id": "h2"})
    assert {key: value for key, value in again.items() if key != "id"} == {
        key: value for key, value in advice.items() if key != "id"
    }
    assert "points" in advice["text"]
    assert isinstance(advice["points"], int)
    assert advice["aim"]
    for client, code in ((other, "not_your_turn"), (watcher, "not_a_player")):
        assert (await answer(client, {"type": "hint", "id": "x"}))["code"] == code
    for action in advice["actions"]:
        fields = {key: value for key, value in action.items() if key != "seat"}
        await mover.play(fields)
    await bot_server.clock.advance(0.2)
    assert not any('"type":"hint"' in frame for frame in other.frames[frames_before:])
    for client in (ann, bob, watcher):
        await client.close()


async def test_a_hint_is_asked_of_the_hints_worker_and_a_bots_turn_not(
    bot_server: Host, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A person waits on a hint: it is worked out in the hints' workers, not behind the bots'
    turns; a bot's turn is not a hint. The deal and the bot's draws are fixed: on some deals
    the bot knocks on the first turn, and the match ends with no bot's turn after the hint."""
    monkeypatch.setattr(dispatch, "secrets", Seeds())
    host = await lobby_with(bot_server, rounds=1)
    await host.act("add_bot", level="strong")
    asked = Asked()
    host.room.autoplay.thinker = asked
    host.room.autoplay.rng = random.Random(1)
    await host.act("start")
    await host.wait_for(lambda s: host.my_turn())
    assert host.view["round"]["knocker"] is None
    assert (await answer(host, {"type": "hint", "id": "h"}))["type"] == "hint"
    await host.act("take", piles=[0])
    await host.play({"type": "discard", "cards": [host.view["you"]["hand"][-1]]})
    await host.wait_for(lambda s: host.my_turn())
    # The bot's turn before the host's first (the host deals); the hint; the bot's turn after.
    assert asked.hints == [False, True, False]
    await host.close()


async def test_the_host_can_switch_hints_off(bot_server: Host) -> None:
    table = await open_table(bot_server, 2, rounds=1, turn_seconds=0, hints=False)
    await table.host.act("start")
    for client in table.players:
        await client.wait_for(lambda s: s["status"] == "playing")
        assert (await answer(client, {"type": "hint", "id": "no"}))["code"] == "hints_off"
    await table.close()


async def answer(client: LocalClient, message: dict[str, object]) -> dict[str, Any]:
    """Send a message with an id and wait for the frame that answers it (hint or error)."""
    message_id = message["id"]
    await client.send(message)
    await client.wait_for(lambda s: message_id in client.answers)
    return client.answers.pop(message_id)


class GatedThinker(Asked):
    """Decides only once let through: what happens at the table meanwhile comes first."""

    def __init__(self) -> None:
        super().__init__()
        self.gate = asyncio.Event()
        self.asked = asyncio.Event()

    async def asking(self, level: str, hint: bool) -> None:
        await super().asking(level, hint)
        self.asked.set()
        await self.gate.wait()


async def test_a_hint_for_a_position_that_passed_meanwhile_is_refused(bot_server: Host) -> None:
    """The hint is worked out outside the room's lock; the turn is played meanwhile (here by
    the player, as the turn timer might): the asker is told it came too late, not advised on a
    position that is gone."""
    table = await open_table(bot_server, 2, rounds=1, turn_seconds=0)
    await table.host.act("start")
    for client in table.players:
        await client.wait_for(lambda s: s["status"] == "playing")
    mover = next(client for client in table.players if client.my_turn())
    thinker = GatedThinker()
    mover.room.autoplay.thinker = thinker
    asking = asyncio.create_task(mover.send({"type": "hint", "id": "late"}))
    await asyncio.sleep(0)
    await mover.act("take", piles=[0])
    thinker.gate.set()
    await asking
    late = mover.answers.pop("late")
    assert late["type"] == "error"
    assert late["code"] == "hint_late"
    # Asked again in the new position, the hint comes.
    assert (await answer(mover, {"type": "hint", "id": "now"}))["type"] == "hint"
    await table.close()


def actions(room: Any) -> list[Any]:
    """The moves of the round under way."""
    assert room.state.match is not None
    assert room.state.match.round is not None
    return list(room.state.match.round.actions)


async def test_a_player_back_and_gone_again_while_the_stand_in_thinks_is_owed_a_whole_grace() -> (
    None
):
    """The stand-in's move, worked out before the player came back, is not played when they
    leave again as it comes: the timer was set again for the same turn, and that grace runs
    whole before a bot plays for them."""
    server = Host(RoomConfig(ready_seconds=2, bot_delay_seconds=0, standin_seconds=5))
    table = await open_table(server, 2, rounds=1, turn_seconds=0)
    ann, bob = table.players
    await ann.act("start")
    await bob.wait_for(lambda s: s["status"] == "playing")
    if ann.my_turn():
        await ann.act("take", piles=[0])
        await ann.play({"type": "discard", "cards": [ann.view["you"]["hand"][-1]]})
    assert bob.my_turn()
    room = server.rooms[table.code]
    thinker = GatedThinker()
    room.autoplay.thinker = thinker
    played = len(actions(room))
    await bob.close()
    ringing = asyncio.create_task(server.clock.ring_next())  # the grace ends: the bot thinks
    await asyncio.wait_for(thinker.asked.wait(), 5)
    back = LocalClient(server, table.code, table.tokens[1])
    await back.connect()
    await back.close()  # gone again as the bot's move comes
    thinker.gate.set()
    await ringing
    assert len(actions(room)) == played
    assert room.timers.bot.left() == 5
    await server.clock.ring_next()  # the new grace ends: now the bot plays the turn
    assert len(actions(room)) > played
    await table.close()


async def test_with_the_bot_workers_held_up_bots_play_the_timers_move_and_hints_are_refused(
    bot_server: Host, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The workers held up (stopped here; in use, more asked of them than they can think for):
    a bot's decision not made in time gives way to the turn timer's move, and the table goes
    on; a hint not worked out in time is refused with ``hint_busy`` (it was waited for, a
    minute and more behind decisions nobody waited for any more). Each is counted apart."""
    monkeypatch.setattr(autoplay, "DECISION_SECONDS", 0.05)
    thinker = Thinker(workers=1)
    current = Round(Variant(), 2, dealer=0, seed="7" * 64)
    for hint in (False, True):  # both workers are up
        await thinker.decide(Level.STRONG, observe(current, current.turn), 1, hint=hint)
    assert thinker.bot_workers.pool is not None
    assert thinker.hint_workers.pool is not None
    workers = [
        *thinker.bot_workers.pool._processes.values(),
        *thinker.hint_workers.pool._processes.values(),
    ]
    host = await lobby_with(bot_server, rounds=1)
    await host.act("add_bot", level="strong")
    host.room.autoplay.thinker = thinker
    for worker in workers:
        os.kill(worker.pid, signal.SIGSTOP)
    try:
        await host.act("start")
        for turn in range(4):
            await host.wait_for(lambda s: host.my_turn())
            if turn == 0:
                busy = await answer(host, {"type": "hint", "id": "busy"})
                assert (busy["type"], busy["code"]) == ("error", "hint_busy")
            await host.act("take", piles=[0])
            await host.play({"type": "discard", "cards": [host.view["you"]["hand"][-1]]})
        assert thinker.bot_workers.late >= 3  # the bot's turns between the host's
        assert thinker.hint_workers.late == 1
    finally:
        for worker in workers:
            os.kill(worker.pid, signal.SIGCONT)
        thinker.close()
    await host.close()
