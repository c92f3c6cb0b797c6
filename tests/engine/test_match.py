import random

import pytest

from app.engine.actions import Discard, Knock, Take
from app.engine.errors import IllegalAction
from app.engine.fairdeal import commitment, round_seed, shuffled_deck
from app.engine.match import Match, MatchRules, places
from app.engine.round import Ending
from app.engine.variant import MULTI_PICKUP, TEN_CARD, TEN_CARD_MULTI_PICKUP

VARIANTS = [
    MatchRules(rounds=3),
    MatchRules(3, MULTI_PICKUP),
    MatchRules(3, TEN_CARD),
    MatchRules(3, TEN_CARD_MULTI_PICKUP),
]


def play_match(match: Match, rng: random.Random, knock_chance: float = 0.05) -> None:
    while not match.finished:
        current = match.start_round()
        while not current.ended:
            match.apply(current.random_action(rng, knock_chance))


@pytest.mark.parametrize("rules", VARIANTS, ids=["standard", "multi", "ten", "ten-multi"])
@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_whole_matches_by_random_legal_play(rules: MatchRules, players: int) -> None:
    if players > rules.variant.max_players:
        with pytest.raises(IllegalAction):
            Match(players, rules, "seed")
        return
    for seed in range(3):
        match = Match(players, rules, f"match-{seed}")
        play_match(match, random.Random(seed), knock_chance=[0.0, 0.02, 0.3][seed])
        assert len(match.results) == 3
        assert [result.number for result in match.results] == [1, 2, 3]
        assert [result.dealer for result in match.results] == [r % players for r in range(3)]
        running = [0] * players
        for result in match.results:
            running = [total + gained for total, gained in zip(running, result.points, strict=True)]
            assert list(result.totals) == running
            revealed = [card for hand in result.hands for card in hand]
            assert len(set(revealed)) == len(revealed) == players * rules.variant.hand_size
            for hand, score in zip(result.hands, result.scores, strict=True):
                assert len(hand) == rules.variant.hand_size
                assert score.points in range(-10, 51)
        assert match.totals == running
        assert match.places() == places(running)
        with pytest.raises(IllegalAction) as raised:
            match.start_round()
        assert raised.value.code == "match_over"
        if seed == 0:
            assert {result.ending for result in match.results} == {Ending.EXHAUSTED}


def test_rounds_are_dealt_from_published_seeds() -> None:
    match = Match(3, MatchRules(rounds=2), "secret")
    first = match.start_round()
    assert first.seed == round_seed("secret", 1)
    assert first.commitment == commitment(first.seed)
    deck = shuffled_deck(first.seed)
    assert sorted(card for hand in first.hands for card in hand) == sorted(deck[:15])
    with pytest.raises(IllegalAction) as raised:
        match.start_round()
    assert raised.value.code == "round_in_progress"


def test_replay_rebuilds_the_same_match() -> None:
    for rules in VARIANTS:
        match = Match(3, rules, "replayable")
        rng = random.Random(5)
        play_match(match, rng)
        again = Match.replay(match.record())
        assert again.totals == match.totals
        assert again.results == match.results
    # A match in the middle of a round replays to the same position.
    match = Match(2, MatchRules(rounds=2), "midway")
    current = match.start_round()
    for _ in range(7):
        match.apply(current.random_action(rng, 0))
    again = Match.replay(match.record())
    assert again.round is not None
    assert again.round.hands == current.hands
    assert again.round.piles == current.piles
    assert (again.round.turn, again.round.step) == (current.turn, current.step)


def test_places_share_equal_totals() -> None:
    assert places([10, 25, 10, -5]) == [2, 1, 2, 4]
    assert places([3, 3]) == [1, 1]


def test_bad_rules_are_refused() -> None:
    with pytest.raises(IllegalAction) as raised:
        Match(2, MatchRules(rounds=0), "seed")
    assert raised.value.code == "bad_settings"
    with pytest.raises(IllegalAction) as raised:
        Match(5, MatchRules(variant=TEN_CARD), "seed")
    assert raised.value.code == "bad_player_count"


def test_actions_outside_a_round_are_refused() -> None:
    match = Match(2, MatchRules(rounds=1), "seed")
    with pytest.raises(IllegalAction) as raised:
        match.apply(Take(1, (0,)))
    assert raised.value.code == "no_round"
    current = match.start_round()
    match.apply(Knock(1))
    match.apply(Take(0, (0,)))
    result = match.apply(Discard(0, (current.hands[0][0],)))
    assert result is not None
    assert result.knocker == 1
    with pytest.raises(IllegalAction) as raised:
        match.apply(Take(1, (0,)))
    assert raised.value.code == "round_over"


def test_a_match_may_begin_with_any_seat_dealing() -> None:
    """A rematch is dealt on from the last round's dealer; the record rebuilds it so."""
    match = Match(3, MatchRules(rounds=4), "moved-on", first_dealer=2)
    play_match(match, random.Random(4))
    assert [result.dealer for result in match.results] == [2, 0, 1, 2]
    again = Match.replay(match.record())
    assert [result.dealer for result in again.results] == [2, 0, 1, 2]
    assert again.results == match.results
    assert "first_dealer" not in Match(3, MatchRules(), "from-seat-0").record()
    for seat in (-1, 3):
        with pytest.raises(IllegalAction) as refused:
            Match(3, MatchRules(), "nobody", first_dealer=seat)
        assert refused.value.code == "bad_settings"
