import random
from itertools import combinations

import pytest

from app.bots.greedy import greedy_turn
from app.engine.actions import Discard, Take
from app.engine.options import Step
from app.engine.round import Round
from app.engine.scoring import hand_points, split_points
from app.engine.variant import Variant

VARIANTS = [Variant(), Variant(multi_pickup=True), Variant(ten_card=True), Variant(True, True)]


def value(cards: list[int], ten_card: bool) -> int:
    return split_points(cards) if ten_card else hand_points(cards)


@pytest.mark.parametrize("variant", VARIANTS, ids=["standard", "multi", "ten", "ten-multi"])
def test_greedy_turn_is_legal_and_keeps_the_best_hand_reachable(variant: Variant) -> None:
    rng = random.Random(4)
    current = Round(variant, 3, dealer=0, seed="9" * 64)
    for _ in range(12):
        seat = current.turn
        take, discard = greedy_turn(current, seat)
        assert isinstance(take, Take)
        assert isinstance(discard, Discard)
        # No other single-pile take beats it (multi-pile takes are at least as good).
        hand = list(current.hands[seat])
        best_single = max(
            value([card for card in [*hand, top] if card not in dropped], variant.ten_card)
            for pile in range(5)
            if (top := current.top(pile)) is not None
            for dropped in combinations([*hand, top], 1)
        )
        current.apply(take)
        current.apply(discard)
        assert value(current.hands[seat], variant.ten_card) >= best_single
        if current.ended:
            break
        if rng.random() < 0.3:  # leave a turn half-played: greedy finishes it
            seat = current.turn
            current.apply(current.random_action(rng, knock_chance=0))
            assert current.step is Step.DISCARD
            (finish,) = greedy_turn(current, seat)
            current.apply(finish)
            assert current.turn != seat


def test_best_keep_reports_what_to_keep() -> None:
    cards = [0, 31, 62, 93, 124, 5, 6]  # a Tripo plus two strays
    points, kept = Variant().best_keep(cards)
    assert points == 25
    assert kept == 0b11111
