"""The turn timer plays for a player who does not move; the ready timer deals the next round.

Rooms in this process with a clock moved by hand: the room is set for READY_SECONDS=2."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

import pytest

from app.rooms.live import LiveRoom
from app.rooms.registry import hash_token, new_token
from app.rooms.state import RoomState
from app.rooms.store import FinishedRound
from app.rooms.timers import RoomConfig, Timer
from tests.rooms.client import Refused, clone
from tests.rooms.fakes import FakeClock
from tests.rooms.local import Host, LocalClient, Table, open_table


def round_of(client: LocalClient) -> dict[str, Any]:
    assert client.state is not None
    current: dict[str, Any] = client.state["round"]
    return current


async def server_time(client: LocalClient) -> int:
    """The server's clock, from a fresh state."""
    await client.resync()
    states = [json.loads(text) for text in client.frames if text.startswith('{"type":"state"')]
    now: int = states[-1]["server_time"]
    return now


async def all_agree(table: Table) -> None:
    for client in table.everyone:
        before, fresh = await client.resync()
        assert before == fresh


async def started(rooms: Host, players: int = 2, **settings: Any) -> Table:
    table = await open_table(rooms, players, spectators=1, **settings)
    await table.host.act("start")
    await table.settle()
    return table


async def test_the_turn_timer_plays_the_turn_of_a_player_who_does_not_move(
    rooms: Host,
) -> None:
    table = await started(rooms, turn_seconds=1)
    first = round_of(table.host)
    deadline = first["turn"]["deadline"]
    assert isinstance(deadline, int)
    assert deadline - await server_time(table.host) <= 1000, "at most turn_seconds ahead"
    mover = table.mover()
    seat = mover.seat
    assert seat is not None
    state = await table.host.wait_for(lambda s: s["round"]["turn"]["seat"] != seat)
    current = state["round"]
    assert current["turn"]["seat"] == (seat + 1) % 2
    assert current["turn"]["pending"] == 0
    assert current["knocker"] is None, "the timer never knocks"
    assert current["discard"]["count"] == 1
    drawn = sum(p["count"] for p in first["piles"]) - sum(p["count"] for p in current["piles"])
    assert drawn == 1
    assert isinstance(current["turn"]["deadline"], int)
    assert current["turn"]["deadline"] > deadline
    await mover.wait_for(lambda s: s["round"]["turn"]["seat"] != seat)
    assert len(mover.view["you"]["hand"]) == 5
    assert mover.view["you"]["evaluation"] is not None
    await table.settle()
    await all_agree(table)
    await table.close()


async def test_the_turn_timer_discards_for_a_player_who_took(rooms: Host) -> None:
    table = await started(rooms, turn_seconds=1)
    mover = table.mover()
    seat = mover.seat
    deadline = round_of(mover)["turn"]["deadline"]
    await mover.act("take", piles=[3])
    held = list(mover.view["you"]["hand"])
    assert round_of(mover)["turn"]["deadline"] == deadline, "taking does not restart the clock"
    state = await mover.wait_for(lambda s: s["round"]["turn"]["seat"] != seat)
    hand = state["you"]["hand"]
    assert len(hand) == 5
    assert set(hand) < set(held)
    (dropped,) = set(held) - set(hand)
    assert state["round"]["discard"]["top"] == dropped
    # The take was the player's, the discard the timer's: only that one is the room's.
    assert [move["type"] for move in state["round"]["log"]] == ["take", "discard"]
    assert state["round"]["auto"] == [1]
    await table.settle(mover)
    await all_agree(table)
    await table.close()


async def test_the_turn_timer_goes_on_turn_after_turn(rooms: Host) -> None:
    table = await started(rooms, 3, turn_seconds=1)
    deadlines = {round_of(table.host)["turn"]["deadline"]}
    turns = [round_of(table.host)["turn"]["seat"]]
    for _ in range(2):
        state = await table.host.wait_for(lambda s, t=turns[-1]: s["round"]["turn"]["seat"] != t)
        turns.append(state["round"]["turn"]["seat"])
        deadlines.add(state["round"]["turn"]["deadline"])
    assert turns == [1, 2, 0]
    assert len(deadlines) == 3
    await table.close()


async def test_the_turn_timer_pauses_while_no_player_is_connected(rooms: Host) -> None:
    table = await started(rooms, turn_seconds=1)
    (watcher,) = table.spectators
    before = clone(round_of(watcher))
    for player in table.players:
        await player.close()
    state = await watcher.wait_for(lambda s: not any(p["connected"] for p in s["players"]))
    assert state["round"]["turn"]["deadline"] is None
    await rooms.clock.advance(1.3)  # longer than the turn
    assert round_of(watcher)["turn"]["seat"] == before["turn"]["seat"]
    assert round_of(watcher)["discard"]["count"] == 0
    back = LocalClient(rooms, table.code, table.tokens[0])
    await back.connect()
    current = round_of(back)
    assert current["turn"]["seat"] == before["turn"]["seat"]
    assert current["turn"]["pending"] == 0
    assert current["discard"]["count"] == 0
    assert isinstance(current["turn"]["deadline"], int)
    assert current["turn"]["deadline"] > before["turn"]["deadline"]
    await back.wait_for(lambda s: s["round"]["turn"]["seat"] != before["turn"]["seat"])
    await back.close()
    await watcher.close()


async def test_a_paused_turn_goes_on_with_the_time_it_had_left(rooms: Host) -> None:
    """Leaving and coming back gives no one a new turn's time: the turn goes on where it
    stopped."""
    table = await started(rooms, turn_seconds=10)
    (watcher,) = table.spectators
    seat = round_of(watcher)["turn"]["seat"]
    await rooms.clock.advance(6)
    for player in table.players:
        await player.close()
    await watcher.wait_for(lambda s: not any(p["connected"] for p in s["players"]))
    await rooms.clock.advance(30)
    back = LocalClient(rooms, table.code, table.tokens[0])
    await back.connect()
    left = round_of(back)["turn"]["deadline"] - await server_time(back)
    assert 3900 <= left <= 4000, left
    await rooms.clock.advance(3.8)
    assert round_of(back)["turn"]["seat"] == seat
    assert round_of(back)["discard"]["count"] == 0
    await rooms.clock.advance(0.3)
    await back.wait_for(lambda s: s["round"]["turn"]["seat"] != seat)
    assert round_of(back)["turn"]["deadline"] - await server_time(back) > 9000, "a new turn"
    await back.close()
    await watcher.close()


async def test_no_deadline_without_a_turn_timer(rooms: Host) -> None:
    table = await started(rooms, turn_seconds=0)
    assert round_of(table.host)["turn"]["deadline"] is None
    mover = table.mover()
    await mover.act("knock")
    assert round_of(mover)["turn"]["deadline"] is None
    await table.close()


async def end_first_round(table: Table) -> None:
    """The first player knocks and each other takes and discards: the round is over."""
    first = table.mover()
    await first.act("knock")
    await table.settle(first)
    for _ in table.players[1:]:
        mover = table.mover()
        await mover.act("take", piles=[0])
        await mover.act("discard", cards=[mover.view["you"]["hand"][0]])
        await table.settle(mover)
    assert table.host.state is not None
    assert table.host.state["status"] == "round_over"


async def test_the_next_round_is_dealt_after_the_ready_time(rooms: Host) -> None:
    """The room waits READY_SECONDS=2 for players who do not say they are ready."""
    table = await started(rooms, rounds=2, turn_seconds=0)
    await end_first_round(table)
    state = table.host.state
    assert state is not None
    assert isinstance(state["ready_deadline"], int)
    assert state["ready_deadline"] - await server_time(table.host) <= 2000
    assert state["round"]["ending"] == "knock"
    assert state["round"]["turn"] is None
    assert len(state["results"]) == 1
    for client in table.everyone:
        state = await client.wait_for(lambda s: s["status"] == "playing")
        assert state["round"]["number"] == 2
        assert state["round"]["dealer"] == 1
        assert state["round"]["turn"]["seat"] == 0
        assert state["ready_deadline"] is None
    await all_agree(table)
    await table.close()


async def test_the_next_round_is_dealt_once_everyone_is_ready(rooms: Host) -> None:
    table = await started(rooms, 3, rounds=2, turn_seconds=0)
    await end_first_round(table)
    ann, bob, cid = table.players
    await ann.act("ready")
    await bob.act("ready")
    assert bob.state is not None
    assert bob.state["status"] == "round_over"
    assert [p["ready"] for p in bob.state["players"]] == [True, True, False]
    await cid.act("ready")
    assert cid.state is not None
    assert cid.state["status"] == "playing", "the last ready deals at once"
    assert [p["ready"] for p in cid.state["players"]] == [False, False, False]
    assert cid.state["round"]["number"] == 2
    await table.settle(cid)
    await all_agree(table)
    await table.close()


async def test_a_second_ready_is_acknowledged_and_changes_nothing(rooms: Host) -> None:
    table = await started(rooms, rounds=2, turn_seconds=0)
    await end_first_round(table)
    ann = table.host
    await ann.act("ready")
    frames = len(ann.frames)
    answer = await ann.act("ready")
    assert answer["type"] == "patch"
    assert answer["ops"] == []
    assert len(ann.frames) == frames + 1
    await table.close()


# Between rounds a player who lost their link is waited for STANDIN_SECONDS=5 (then not), well
# within READY_SECONDS=30, so what deals is the grace's end, not the ready time.
GRACE = RoomConfig(ready_seconds=30, standin_seconds=5)


def status_of(client: LocalClient) -> str:
    assert client.state is not None
    status: str = client.state["status"]
    return status


async def at_the_results(players: int = 2) -> tuple[Host, Table]:
    """Rooms on GRACE, and a table of ``players`` whose first round of two is over."""
    rooms = Host(GRACE)
    table = await started(rooms, players, rounds=2, turn_seconds=0)
    await end_first_round(table)
    return rooms, table


async def bob_gone_ann_ready(rooms: Host, table: Table) -> float:
    """Bob's link closes, not ready, and Ann says she is; when Bob left."""
    ann, bob = table.players
    left = rooms.clock.time
    await bob.close()
    await ann.act("ready")
    return left


async def test_players_who_are_away_are_not_waited_for_past_the_grace() -> None:
    rooms, table = await at_the_results()
    ann, bob = table.players
    await bob.close()
    await ann.wait_for(lambda s: s["players"][1]["connected"] is False)
    await rooms.clock.advance(5)
    await ann.act("ready")
    assert status_of(ann) == "playing"
    await table.close()


async def test_a_player_who_loses_their_link_between_rounds_is_waited_for_a_while() -> None:
    """A reload, or a phone's blip, on the results: the others' ready does not deal the next
    round at once; the grace's end does, if the player has not come back."""
    rooms, table = await at_the_results()
    ann = table.host
    left = await bob_gone_ann_ready(rooms, table)
    assert status_of(ann) == "round_over"
    await rooms.clock.advance(4.9)
    assert status_of(ann) == "round_over"
    state = await ann.wait_for(lambda s: s["status"] == "playing")
    assert rooms.clock.time == left + 5, "dealt as the grace ended, not at the ready time"
    assert state["round"]["number"] == 2
    await table.close()


async def test_a_player_back_within_the_grace_deals_the_round_by_saying_ready() -> None:
    rooms, table = await at_the_results()
    ann, bob = table.players
    await bob_gone_ann_ready(rooms, table)
    await rooms.clock.advance(2)
    back = LocalClient(rooms, bob.code, bob.token)
    await back.connect()
    assert status_of(back) == "round_over", "back to the results"
    await rooms.clock.advance(10)  # past the grace: back, and not ready, so waited for
    assert status_of(ann) == "round_over"
    await back.act("ready")
    assert status_of(back) == "playing"
    await back.close()
    await table.close()


async def test_a_change_that_comes_as_the_grace_ends_deals_before_its_timer_rings() -> None:
    """The grace's end and a chat line at that moment: the chat, handled first, deals (its
    change used to call off the timer, and the round waited for the ready time)."""
    rooms, table = await at_the_results()
    ann = table.host
    left = await bob_gone_ann_ready(rooms, table)
    rooms.clock.time = left + 5  # the timer is due, and has not rung yet
    await ann.act("chat", text="gg")
    assert status_of(ann) == "playing"
    await table.close()


async def test_a_grace_that_ends_while_a_save_is_under_way_still_deals() -> None:
    """A chat line's save holds the room while the grace ends and its timer rings: the ring,
    handled after it, deals."""
    rooms, table = await at_the_results()
    ann = table.host
    left = await bob_gone_ann_ready(rooms, table)
    store, gate = rooms.store, asyncio.Event()
    save = store.save

    saving = asyncio.Event()

    async def slow_save(state: RoomState | None, rounds: Sequence[FinishedRound] = ()) -> bool:
        saving.set()
        await gate.wait()
        return await save(state, rounds)

    store.save = slow_save  # type: ignore[method-assign]
    chat = asyncio.create_task(ann.act("chat", text="gg"))
    await saving.wait()  # the chat's change holds the room, its save under way
    rooms.clock.time = left + 5
    ring = asyncio.create_task(rooms.clock.advance(0))  # waits for the room
    await asyncio.sleep(0)
    gate.set()
    await chat
    await ring
    store.save = save  # type: ignore[method-assign]
    assert status_of(ann) == "playing"
    assert rooms.clock.time == left + 5
    await table.close()


async def hold_a_change(rooms: Host, client: LocalClient) -> Callable[[], Awaitable[None]]:
    """The database refuses a chat line of ``client``'s: the room holds it. Gives what saves
    it and shows it."""
    store, saved = rooms.store, asyncio.Event()
    save, wait = store.save, store.saved

    async def refuse(state: RoomState | None, rounds: Sequence[FinishedRound] = ()) -> bool:
        return False

    async def until_saved(room: str | None = None) -> None:
        await saved.wait()

    store.save, store.saved = refuse, until_saved  # type: ignore[method-assign]
    with pytest.raises(Refused, match="not_saved"):
        await client.act("chat", text="gg")
    assert client.room.holding

    async def release() -> None:
        store.save, store.saved = save, wait  # type: ignore[method-assign]
        saved.set()
        assert client.room.release is not None
        await client.room.release

    return release


async def test_a_grace_that_ends_while_a_change_is_held_deals_once_it_is_saved() -> None:
    """The database refuses a change between rounds, and the grace ends while the room holds
    it: the round is dealt once the change is saved, not at the ready time."""
    rooms, table = await at_the_results()
    ann = table.host
    left = await bob_gone_ann_ready(rooms, table)
    release = await hold_a_change(rooms, ann)
    await rooms.clock.advance(5.5)  # the grace ends; its ring comes while the change is held
    assert status_of(ann) == "round_over"
    await release()  # the held change is saved and shown
    assert status_of(ann) == "playing"
    assert rooms.clock.time == left + 5.5
    await table.close()


def at_most_a_milli_apart(shown: int, seconds: float) -> bool:
    return abs(shown - seconds * 1000) <= 1


async def test_the_pause_between_rounds_stands_still_while_a_change_is_held() -> None:
    """Nobody can say they are ready while a change is held: the ready time goes on after it
    with the time it had left (it was set again for the whole 30 s), and the deadline shown
    says so."""
    rooms, table = await at_the_results()
    ann = table.host
    await rooms.clock.advance(20)
    release = await hold_a_change(rooms, ann)
    await rooms.clock.advance(40)  # longer than the pause had left
    assert status_of(ann) == "round_over"
    await release()
    assert ann.state is not None
    assert at_most_a_milli_apart(ann.state["ready_deadline"], rooms.clock.time + 10)
    await rooms.clock.advance(9.9)
    assert status_of(ann) == "round_over"
    await rooms.clock.advance(0.2)
    assert status_of(ann) == "playing"
    await table.close()


async def turn_with_a_change_held() -> tuple[
    Host, Table, LocalClient, Callable[[], Awaitable[None]]
]:
    """A 10 s turn, 8 s of it gone, when someone else's chat line is held: the player on turn
    is refused meanwhile, and the database is back 30 s later. Gives the release."""
    rooms = Host(GRACE)
    table = await started(rooms, turn_seconds=10)
    mover = table.mover()
    other = next(player for player in table.players if player is not mover)
    await rooms.clock.advance(8)
    release = await hold_a_change(rooms, other)
    with pytest.raises(Refused, match="not_saved"):
        await mover.act("take", piles=[0])
    await rooms.clock.advance(30)
    return rooms, table, mover, release


async def test_a_turn_stands_still_while_a_change_is_held() -> None:
    """The player on turn was refused while a change was held, so their time did not run: after
    it the turn goes on with the 2 s it had left (it was played at once, or set again for the
    whole turn), then the timer plays it."""
    rooms, table, mover, release = await turn_with_a_change_held()
    seat = mover.seat
    assert round_of(mover)["turn"]["seat"] == seat
    await release()
    assert at_most_a_milli_apart(round_of(mover)["turn"]["deadline"], rooms.clock.time + 2)
    await rooms.clock.advance(1.9)
    assert round_of(mover)["turn"]["seat"] == seat
    await rooms.clock.advance(0.2)
    await table.settle()
    played = round_of(mover)
    assert played["turn"]["seat"] != seat
    assert [move["type"] for move in played["log"]] == ["take", "discard"]
    assert played["auto"] == [0, 1], "both the timer's"
    await table.close()


async def test_a_move_refused_while_a_change_was_held_is_taken_when_sent_again() -> None:
    """The move sent again as soon as the held change is shown is the player's own, and no
    missed turn is counted against them."""
    rooms, table, mover, release = await turn_with_a_change_held()
    await release()
    await rooms.clock.advance(0)  # what is due rings
    await mover.act("take", piles=[0])
    assert round_of(mover)["auto"] == []
    assert mover.room.table.stand_ins.missed == {}
    await table.close()


async def ann_and_a_bot(rooms: Host, turn_seconds: int) -> LocalClient:
    """Ann's room with a normal bot, its match started; Ann's connection."""
    room = rooms.create("Ann", turn_seconds=turn_seconds)
    ann = LocalClient(rooms, str(room["code"]), str(room["token"]))
    await ann.connect()
    await ann.act("add_bot", level="normal")
    await ann.act("start")
    return ann


async def test_a_bots_turn_stands_still_while_a_change_is_held() -> None:
    """A change held as a bot's turn comes: after it, the bot plays once its own delay (1 s) has
    run, not the turn timer's greedy move for it (both of them rang at once)."""
    rooms = Host(GRACE)
    ann = await ann_and_a_bot(rooms, turn_seconds=5)
    await ann.wait_for(lambda s: s["round"]["turn"]["seat"] == 1)  # Ann's time runs out first
    release = await hold_a_change(rooms, ann)
    await rooms.clock.advance(10)  # past the bot's delay and the turn's time
    assert round_of(ann)["turn"]["seat"] == 1
    await release()
    await rooms.clock.advance(0.9)
    assert round_of(ann)["turn"]["seat"] == 1
    await rooms.clock.advance(0.2)
    assert round_of(ann)["turn"]["seat"] == 0, "the bot played, 1 s after the release"
    await ann.close()


async def test_a_bot_whose_time_comes_with_the_turns_still_plays_after_a_hold() -> None:
    """A bot's delay and the turn's time end together: the bot plays, not the turn timer's
    greedy move for it, after a hold as without one (the timers went on turn first)."""

    async def who_plays(hold: bool) -> list[str]:
        rooms = Host(GRACE)  # a bot plays after 1 s
        ann = await ann_and_a_bot(rooms, turn_seconds=1)
        timers, played = ann.room.timers, []
        for name, timer in (("bot", timers.bot), ("turn", timers.turn)):

            async def noted(key: Any, job: Any = timer.job, name: str = name) -> None:
                moves = len(round_of(ann)["log"])
                await job(key)
                if len(round_of(ann)["log"]) != moves:
                    played.append(name)

            timer.job = noted
        if round_of(ann)["turn"]["seat"] == 0:
            await ann.act("take", piles=[0])
            await ann.act("discard", cards=[ann.view["you"]["hand"][0]])
        assert round_of(ann)["turn"]["seat"] == 1
        if hold:
            await rooms.clock.advance(0.5)
            release = await hold_a_change(rooms, ann)
            await rooms.clock.advance(5)
            await release()
        await rooms.clock.advance(1)
        await ann.close()
        return played

    assert await who_plays(hold=False) == ["bot"]
    assert await who_plays(hold=True) == ["bot"]


async def test_a_player_who_takes_their_seat_again_as_the_grace_ends_is_waited_for() -> None:
    """Bob joins again (a new device, his player key) just as his grace ends: the join is not
    the change that deals; his new token's connection is waited for."""
    rooms, table = await at_the_results()
    ann = table.host
    room = ann.room
    key = hash_token("Bob's player key")
    room.state.seats[1].key_hash = key  # as a join with his player key keeps it
    left = await bob_gone_ann_ready(rooms, table)
    rooms.clock.time = left + 5  # the grace is over, its timer not rung yet
    token = new_token()
    assert await room.join(room.state.seats[1].name, hash_token(token), key) == 1
    assert status_of(ann) == "round_over"
    again = LocalClient(rooms, table.code, token)
    await again.connect()
    await again.act("ready")
    assert status_of(again) == "playing"
    await again.close()
    await table.close()


async def test_the_first_player_back_at_a_table_everyone_left_waits_for_the_others() -> None:
    """Everyone's link closed together (the server's own blip) for longer than the grace: the
    first player back, ready, does not deal while the others reconnect; their grace runs from
    that return."""
    rooms, table = await at_the_results()
    await table.host.act("ready")
    for client in table.everyone:
        await client.close()
    await rooms.clock.advance(6)
    back = LocalClient(rooms, table.code, table.tokens[0])
    await back.connect()
    returned = rooms.clock.time
    assert status_of(back) == "round_over"
    await back.wait_for(lambda s: s["status"] == "playing")
    assert rooms.clock.time == returned + 5
    await back.close()


async def test_a_room_set_up_again_waits_for_its_players_between_rounds() -> None:
    """A restart (or a move to another node) is a reload for everyone: the first player back
    who says ready does not deal the next round while the others reconnect."""
    rooms, table = await at_the_results()
    old = table.host.room
    old.close(1012, "restart")
    state = RoomState.replay(
        old.state.code, old.state.initial_settings, 0, rooms.store.events[table.code]
    )
    rooms.rooms[table.code] = LiveRoom(state, GRACE, rooms.drop, rooms.store, clock=rooms.clock)
    set_up = rooms.clock.time
    ann = LocalClient(rooms, table.code, table.tokens[0])
    await ann.connect()
    await rooms.clock.advance(0.5)
    await ann.act("ready")
    assert status_of(ann) == "round_over"
    await ann.wait_for(lambda s: s["status"] == "playing")
    assert rooms.clock.time == set_up + 5, "dealt when the others' grace ended"
    await ann.close()


async def test_a_player_who_said_ready_and_left_is_not_waited_for() -> None:
    _, table = await at_the_results()
    ann, bob = table.players
    await bob.act("ready")
    await bob.close()
    await ann.act("ready")
    assert status_of(ann) == "playing"
    await table.close()


async def test_the_grace_is_each_players_own() -> None:
    """Two players lose their link a moment apart: the round waits for the later one's
    grace."""
    rooms, table = await at_the_results(3)
    ann, bob, cid = table.players
    start = rooms.clock.time
    await bob.close()
    await rooms.clock.advance(3)
    await cid.close()
    await ann.act("ready")
    await rooms.clock.advance(2.5)  # past Bob's grace, within Cid's
    assert status_of(ann) == "round_over"
    await ann.wait_for(lambda s: s["status"] == "playing")
    assert rooms.clock.time == start + 8
    await table.close()


class SetClock(FakeClock):
    """A clock whose system time a test sets anywhere, its steady time untouched."""

    def __init__(self) -> None:
        super().__init__()
        self.set_by = 0.0

    def now(self) -> float:
        return self.time + self.set_by


async def test_the_time_a_turn_has_left_ignores_the_system_clock_being_set() -> None:
    clock = SetClock()
    rings: list[str] = []

    async def ring(key: str) -> None:
        rings.append(key)

    timer: Timer[str] = Timer(clock, ring)
    timer.set("turn", 30)
    await clock.advance(10)
    for set_by in (-3600.0, 3600.0):
        clock.set_by = set_by
        assert timer.left() == 20
    await clock.advance(20)
    assert rings == ["turn"]
