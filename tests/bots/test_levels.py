import contextlib
import io
import random
from collections.abc import Callable

import pytest

from app.bots.levels import Decision, Level, bot_turn, decide, decide_seeded
from app.bots.observation import observe
from app.bots.plans import points_of
from app.engine.actions import DISCARD_PILE, Action, Discard, Knock, Take
from app.engine.cards import Card
from app.engine.errors import IllegalAction
from app.engine.match import Match, MatchRules
from app.engine.options import Step
from app.engine.round import Round
from app.engine.variant import VARIANTS, Variant
from app.simulate import Setup, main, run
from tests.engine.helpers import where_is_every_card

LEVELS = list(Level)
TRIPO = [0, 31, 62, 93, 124]  # 1-circle-violet, 2-crescent-cyan, ... 5-star-red


def check_decision(
    current: Round, seat: int, decision: Decision, apply: Callable[[Action], object] | None = None
) -> None:
    """The decision is legal move by move and explains itself consistently; then it is played."""
    size = current.variant.hand_size
    assert len(decision.aim) == size
    assert len(set(decision.aim)) == size
    assert decision.points == points_of(decision.aim)
    assert decision.reason
    assert "aiming for" in decision.hint
    for action in decision.actions:
        assert action.seat == seat
        assert current.can(action), (action, decision)
        (apply or current.apply)(action)
    if not isinstance(decision.actions[0], Knock) and not current.ended:
        assert sorted(current.hands[seat]) == sorted(decision.keep)


def arrange(current: Round, seat: int, hand: list[Card], tops: dict[int, Card]) -> None:
    """Swap cards around so ``seat`` holds ``hand`` and the piles show ``tops``."""

    def place(card: Card, cards: list[Card], index: int) -> None:
        for place_cards in [*current.hands, *current.piles, current.discard]:
            if card in place_cards:
                found = place_cards.index(card)
                place_cards[found], cards[index] = cards[index], card
                return

    for index, card in enumerate(hand):
        place(card, current.hands[seat], index)
    for pile, card in tops.items():
        place(card, current.piles[pile], len(current.piles[pile]) - 1)
    assert sorted(where_is_every_card(current)) == list(range(125))


@pytest.mark.parametrize("name", list(VARIANTS))
@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_every_level_plays_only_legal_moves_through_whole_matches(name: str, players: int) -> None:
    variant = VARIANTS[name]
    if players > variant.max_players:
        return
    rules = MatchRules(2, variant)
    match = Match(players, rules, f"bots-{name}-{players}")
    levels = [LEVELS[seat % 3] for seat in range(players)]
    rngs = [random.Random(seat) for seat in range(players)]
    half_turns = random.Random(players)
    while not match.finished:
        current = match.start_round()
        while not current.ended:
            seat = current.turn
            if half_turns.random() < 0.1:  # a turn left half-played: the bot finishes it
                match.apply(current.random_action(half_turns, knock_chance=0))
                assert current.step is Step.DISCARD
            decision = decide(levels[seat], observe(current, seat), rngs[seat])
            if current.step is Step.DISCARD:
                assert len(decision.actions) == 1
            check_decision(current, seat, decision, match.apply)
    assert len(match.results) == 2


@pytest.mark.parametrize("name", list(VARIANTS))
def test_bots_are_deterministic_for_a_seed(name: str) -> None:
    def play() -> list[object]:
        current = Round(VARIANTS[name], 3, dealer=0, seed="5" * 64)
        rngs = [random.Random(7 + seat) for seat in range(3)]
        while not current.ended and current.turns < 40:
            seat = current.turn
            for action in bot_turn(current, seat, LEVELS[seat], rngs[seat]).actions:
                current.apply(action)
        return list(current.actions)

    assert play() == play()


def test_the_round_logs_the_cards_each_action_moved() -> None:
    rules = MatchRules(1, Variant(multi_pickup=True))
    match = Match(3, rules, "log")
    current = match.start_round()
    rng = random.Random(3)
    while not current.ended:
        match.apply(current.random_action(rng))
    assert len(current.moved) == len(current.actions)
    for action, cards in zip(current.actions, current.moved, strict=True):
        if isinstance(action, Take):
            assert len(cards) == len(action.piles)
        elif isinstance(action, Discard):
            assert cards == action.cards
        else:
            assert cards == ()
    assert Match.replay(match.record()).rounds[0].moved == current.moved


@pytest.mark.parametrize("level", [Level.NORMAL, Level.STRONG])
def test_an_obvious_completing_card_is_taken(level: Level) -> None:
    current = Round(Variant(), 3, dealer=2, seed="2" * 64)
    seat = current.turn
    junk = 7  # 1-crescent-yellow
    arrange(current, seat, [*TRIPO[:4], junk], {2: TRIPO[4]})
    decision = bot_turn(current, seat, level, random.Random(1))
    assert decision.actions == (Take(seat, (2,)), Discard(seat, (junk,)))
    assert decision.points == 25
    assert sorted(decision.aim) == TRIPO
    assert decision.hint.startswith("take 5-star-red from draw pile 2, discard 1-crescent-yellow")


def to_discard_pile(current: Round, card: Card) -> None:
    """Move ``card`` from wherever it lies to the top of the discard pile."""
    for hand in current.hands:
        if card in hand:
            spare = current.piles[0][0]
            hand[hand.index(card)], current.piles[0][0] = spare, card
    for pile in current.piles:
        if card in pile:
            pile.remove(card)
    current.discard.append(card)
    assert sorted(where_is_every_card(current)) == list(range(125))


DUO = [0, 30, 61, 91, 122]  # numbers and shapes run together; colours are incomplete


def test_strong_completes_a_duo_from_the_discard_pile() -> None:
    current = Round(Variant(), 2, dealer=1, seed="3" * 64)
    seat = current.turn
    arrange(current, seat, [*DUO[:4], 5], {})
    to_discard_pile(current, DUO[4])
    decision = bot_turn(current, seat, Level.STRONG, random.Random(1))
    assert decision.actions == (Take(seat, (DISCARD_PILE,)), Discard(seat, (5,)))
    assert points_of(decision.keep) == 10


def test_knocks() -> None:
    current = Round(Variant(), 4, dealer=3, seed="4" * 64)
    seat = current.turn
    arrange(current, seat, TRIPO, {})
    for level in (Level.NORMAL, Level.STRONG):
        decision = bot_turn(current, seat, level, random.Random(1))
        assert decision.actions == (Knock(seat),)
        assert decision.points == 25
        assert sorted(decision.aim) == TRIPO
    # Nobody knocks on a hand that scores nothing at the start of a round.
    arrange(current, seat, [0, 1, 2, 3, 4], {})  # five 1s, all circles
    for level in (Level.NORMAL, Level.STRONG):
        decision = bot_turn(current, seat, level, random.Random(1))
        assert not isinstance(decision.actions[0], Knock)
    # After a knock, the others take their final turns and do not knock.
    current.apply(Knock(seat))
    while not current.ended:
        other = current.turn
        decision = bot_turn(current, other, Level.STRONG, random.Random(other))
        assert not any(isinstance(action, Knock) for action in decision.actions)
        check_decision(current, other, decision)
    assert current.knocker == seat


def test_normal_knocks_once_its_hand_is_good_enough() -> None:
    current = Round(Variant(), 3, dealer=0, seed="6" * 64)
    seat = current.turn
    arrange(current, seat, DUO, {})
    assert points_of(DUO) == 10
    assert bot_turn(current, seat, Level.NORMAL, random.Random(1)).actions == (Knock(seat),)
    arrange(current, seat, [0, 26, 52, 78, 111], {})  # numbers complete only
    assert points_of(current.hands[seat]) == 2
    decision = bot_turn(current, seat, Level.NORMAL, random.Random(1))
    assert not isinstance(decision.actions[0], Knock)


def test_easy_knocks_now_and_then_and_plays_randomly() -> None:
    current = Round(Variant(), 3, dealer=0, seed="7" * 64)
    seat = current.turn
    decisions = [bot_turn(current, seat, Level.EASY, random.Random(seed)) for seed in range(200)]
    knocks = sum(isinstance(decision.actions[0], Knock) for decision in decisions)
    assert 0 < knocks < 40
    takes = {decision.actions[0] for decision in decisions if len(decision.actions) == 2}
    assert len(takes) > 2


def test_the_hint_rooms_give_names_the_move_and_the_aim() -> None:
    current = Round(Variant(multi_pickup=True), 3, dealer=0, seed="8" * 64)
    seat = current.turn
    advice = decide_seeded(Level.STRONG, observe(current, seat), 0)
    assert advice == decide_seeded(Level.STRONG, observe(current, seat), 0)
    assert advice.hint.startswith("take ")
    assert "aiming for" in advice.hint
    assert advice.points == points_of(advice.aim)
    check_decision(current, seat, advice)


def test_a_decision_is_refused_out_of_turn() -> None:
    current = Round(Variant(), 3, dealer=0, seed="9" * 64)
    other = (current.turn + 1) % 3
    with pytest.raises(IllegalAction) as raised:
        bot_turn(current, other, Level.NORMAL, random.Random(1))
    assert raised.value.code == "not_your_turn"
    with pytest.raises(ValueError, match="'expert' is not a valid Level"):
        decide("expert", observe(current, current.turn), random.Random(1))


def test_the_simulator_prints_a_table_and_repeats_itself() -> None:
    output = io.StringIO()
    with contextlib.redirect_stdout(output):
        main(["--players", "3", "--bots", "strong,normal,easy", "--matches", "3"])
        main(["--players", "2", "--bots", "normal,easy", "--matches", "2", "--variant", "ten"])
    text = output.getvalue()
    for level in ("strong", "normal", "easy"):
        assert f"\n{level} " in text
    assert "win rate" in text
    setup = Setup((Level.NORMAL, Level.EASY), MatchRules(rounds=1), seed=3)
    assert run(setup, 4, processes=1) == run(setup, 4, processes=2)


@pytest.mark.parametrize("name", list(VARIANTS))
def test_bots_play_on_when_the_draw_piles_are_nearly_empty(name: str) -> None:
    current = Round(VARIANTS[name], 2, dealer=0, seed="b" * 64)
    rng = random.Random(2)
    while sum(current.count(pile) for pile in range(4)) > 3:
        current.apply(current.random_action(rng, knock_chance=0))
    assert not current.ended
    while not current.ended:
        seat = current.turn
        level = LEVELS[current.turns % 3]
        check_decision(current, seat, bot_turn(current, seat, level, random.Random(seat)))


def test_each_level_outscores_the_one_below_over_many_rounds() -> None:
    """Points per round, each level in every seat on the same deals: strong > normal > easy."""
    setup = Setup((Level.STRONG, Level.NORMAL, Level.EASY), MatchRules(rounds=5), seed=11)
    results = run(setup, 60, processes=2)
    average: dict[Level, float] = {}
    for level in Level:
        points = [p for result in results if result.level is level for p in result.points]
        average[level] = sum(points) / len(points)
    assert average[Level.STRONG] > average[Level.NORMAL] + 0.3, average
    assert average[Level.NORMAL] > average[Level.EASY] + 3, average
