"""The rules of who is at the table and who plays for whom, and what the timers wait for."""

from __future__ import annotations

from app.rooms.registry import hash_token
from app.rooms.settings import RoomSettings
from app.rooms.standins import (
    NOBODY,
    bot_played,
    came_back,
    next_host,
    presence,
    turn_timed_out,
)
from app.rooms.state import RoomState
from app.rooms.timers import RoomConfig, bot_turn, ready_key, turn_key


def table(players: int = 3, bots: int = 0, **settings: object) -> RoomState:
    state = RoomState("ABCD-EFGH", RoomSettings.model_validate(settings), 0)
    for seat in range(players):
        state.join(f"P{seat}", hash_token(f"t{seat}"), 0)
    for _ in range(bots):
        state.add_bot(0, "easy")
    return state


def test_one_missed_turn_brings_no_stand_in_and_two_do() -> None:
    state = table()
    once = turn_timed_out(NOBODY, state, 1)
    assert once.seats() == frozenset()
    twice = turn_timed_out(once, state, 1)
    assert twice.seats() == {1}


def test_a_bots_own_turns_are_never_missed() -> None:
    state = table(2, bots=1)
    assert turn_timed_out(turn_timed_out(NOBODY, state, 2), state, 2) is NOBODY


def test_a_player_who_comes_back_is_played_for_no_more_and_misses_start_again() -> None:
    state = table()
    standing = turn_timed_out(turn_timed_out(NOBODY, state, 1), state, 1)
    back = came_back(standing, 1)
    assert back.seats() == frozenset()
    assert turn_timed_out(back, state, 1).seats() == frozenset()


def test_a_bot_playing_for_someone_away_stands_in_until_they_return() -> None:
    state = table()
    assert bot_played(NOBODY, state, 1, here={0, 1}) is NOBODY
    away = bot_played(NOBODY, state, 1, here={0})
    assert away.seats() == {1}
    assert came_back(away, 1).seats() == frozenset()


def test_the_host_passes_round_the_table_to_the_next_player_connected() -> None:
    state = table(4)
    assert next_host(state, {0, 2}) is None
    assert next_host(state, {2, 3}) == 2
    state.pass_host(3)
    assert next_host(state, {1, 2}) == 1
    assert next_host(state, set()) is None


def test_the_host_stays_while_away_during_a_match() -> None:
    state = table(3)
    state.start(0, "m", "0" * 64, 0)
    assert next_host(state, {1, 2}) is None


def test_bots_are_always_at_the_table() -> None:
    assert presence(table(2, bots=1), {1}) == [False, True, True]


def test_the_turn_timer_runs_only_for_a_timed_turn_with_someone_connected() -> None:
    state = table(2, turn_seconds=30)
    state.start(0, "m", "s" * 64, 0)
    assert turn_key(state, {0}) is not None
    assert turn_key(state, set()) is None
    untimed = table(2, turn_seconds=0)
    untimed.start(0, "m", "s" * 64, 0)
    assert turn_key(untimed, {0, 1}) is None
    assert ready_key(state) is None


def test_a_player_away_on_their_turn_gets_the_longer_grace() -> None:
    config = RoomConfig(bot_delay_seconds=1, standin_seconds=10)
    state = table(2)
    state.start(0, "m", "s" * 64, 0)
    assert state.match is not None
    assert state.match.round is not None
    on_turn = state.match.round.turn
    other = 1 - on_turn
    assert bot_turn(state, {0, 1}, frozenset(), config) is None
    away = bot_turn(state, {other}, frozenset(), config)
    assert away is not None
    assert (away.key.away, away.delay) == (True, 10)
    stood_in = bot_turn(state, {0, 1}, frozenset({on_turn}), config)
    assert stood_in is not None
    assert (stood_in.key.away, stood_in.delay) == (False, 1)
    assert bot_turn(state, set(), frozenset({on_turn}), config) is None
