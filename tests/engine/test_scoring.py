import random
from itertools import combinations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.engine.cards import CARD_IDS, PROPERTIES
from app.engine.errors import IllegalAction
from app.engine.scoring import (
    _COMPLETE_KEY,
    HandScore,
    _complete_mask,
    best_hand_of,
    best_split,
    best_two_hands_of,
    hand_points,
    score_cards,
    score_hand,
    split_points,
)
from tests.engine.helpers import brute_force_points, brute_force_split, cards, sequenced_in_order

five_cards = st.lists(st.integers(0, 124), min_size=5, max_size=5, unique=True)
ten_cards = st.lists(st.integers(0, 124), min_size=10, max_size=10, unique=True)

# name: (cards, points, complete properties, sequenced properties)
HANDS = {
    "one complete number": (
        "1-circle-violet 2-circle-cyan 3-crescent-cyan 4-star-red 5-star-red",
        2, "number", "number",
    ),
    "one complete colour": (
        "1-circle-violet 1-circle-cyan 1-circle-yellow 2-star-orange 2-star-red",
        2, "colour", "colour",
    ),
    "two complete, Mono": (
        "1-circle-violet 2-triangle-violet 3-crescent-violet 4-star-violet 5-square-violet",
        5, "number shape", "number",
    ),
    "two complete, Duo, same direction": (
        "1-circle-red 2-crescent-red 3-triangle-violet 4-square-cyan 5-star-cyan",
        10, "number shape", "number shape",
    ),
    "two complete, Duo, opposite directions": (
        "1-circle-red 2-circle-orange 3-star-yellow 4-star-cyan 5-star-violet",
        10, "number colour", "number colour",
    ),
    "three complete, Mono": (
        "1-circle-cyan 2-triangle-orange 3-crescent-violet 4-star-yellow 5-square-red",
        10, "number shape colour", "number",
    ),
    "three complete, Duo, opposite directions": (
        "3-circle-red 1-crescent-orange 5-triangle-yellow 2-square-cyan 4-star-violet",
        15, "number shape colour", "shape colour",
    ),
    "three complete, Tripo, all ascending": (
        "1-circle-violet 2-crescent-cyan 3-triangle-yellow 4-square-orange 5-star-red",
        25, "number shape colour", "number shape colour",
    ),
    "three complete, Tripo, mixed directions": (
        "1-star-red 2-square-orange 3-triangle-yellow 4-crescent-cyan 5-circle-violet",
        25, "number shape colour", "number shape colour",
    ),
    "nothing complete": (
        "1-circle-violet 1-circle-cyan 2-crescent-violet 3-star-red 4-star-red",
        -5, "", "",
    ),
}  # fmt: skip


def hand_of(name: str) -> list[int]:
    return cards(*HANDS[name][0].split())


@pytest.mark.parametrize("name", list(HANDS))
def test_each_scoring_hand(name: str) -> None:
    _, points, complete, sequenced = HANDS[name]
    hand = hand_of(name)
    random.Random(name).shuffle(hand)
    score = score_hand(hand)
    assert score.points == points
    assert score.complete == tuple(complete.split())
    assert score.sequenced == tuple(sequenced.split())
    assert hand_points(hand) == points
    assert brute_force_points(hand) == points
    assert sorted(score.order) == sorted(hand)
    assert set(sequenced.split()) <= {PROPERTIES[p] for p in sequenced_in_order(score.order)}


def test_sequence_names_and_report() -> None:
    tripo = score_hand(hand_of("three complete, Tripo, mixed directions"))
    assert tripo.sequence == "Tripo"
    assert tripo.as_dict() == {
        "points": 25,
        "complete": ["number", "shape", "colour"],
        "sequenced": ["number", "shape", "colour"],
        "sequence": "Tripo",
        "order": HANDS["three complete, Tripo, mixed directions"][0].split(),
    }
    assert score_hand(hand_of("two complete, Duo, opposite directions")).sequence == "Duo"
    assert score_hand(hand_of("two complete, Mono")).sequence == "Mono"
    assert score_hand(hand_of("nothing complete")).sequence is None


def test_descending_order_counts_like_ascending() -> None:
    hand = cards(
        *["5-circle-violet", "4-crescent-violet", "3-triangle-cyan", "2-square-red", "1-star-red"]
    )
    assert score_hand(hand).points == 10  # numbers descend while shapes ascend: a Duo


def test_an_incomplete_property_never_sequences() -> None:
    # Numbers run 1-5 and every shape is a circle: the shapes "match" but never sequence.
    hand = cards(*[f"{number}-circle-violet" for number in "12345"])
    assert score_hand(hand).sequenced == ("number",)
    assert score_hand(hand).points == 2


@given(five_cards)
@settings(max_examples=400, deadline=None)
def test_fast_scorer_equals_brute_force(hand: list[int]) -> None:
    score = score_hand(hand)
    assert score.points == hand_points(hand) == brute_force_points(hand)
    assert sorted(score.order) == sorted(hand)
    runs = {PROPERTIES[p] for p in sequenced_in_order(score.order)}
    assert set(score.sequenced) <= runs
    assert len(runs) == len(score.sequenced)


def test_ten_card_split_finds_tripo_and_duo() -> None:
    tripo = HANDS["three complete, Tripo, all ascending"][0].split()
    duo = HANDS["three complete, Duo, opposite directions"][0].split()
    ten = cards(*tripo, *duo)
    random.Random(3).shuffle(ten)
    split = best_split(ten)
    assert split.points == 40
    assert [hand.points for hand in split.hands] == [25, 15]
    assert sorted(split.hands[0].order) == sorted(cards(*tripo))
    assert sorted(split.hands[1].order) == sorted(cards(*duo))
    report = split.as_dict()
    assert report["points"] == 40
    assert sorted(report["hands"][0]["cards"]) == sorted(tripo)
    assert report["hands"][1]["sequence"] == "Duo"


def test_ten_cards_with_nothing_complete_score_minus_ten() -> None:
    # Two numbers, two shapes and three colours: no property can be complete.
    ids = [
        f"{n}-{s}-{c}" for n in "12" for s in ("circle", "star") for c in ("violet", "cyan", "red")
    ]
    ten = cards(*ids[:10])
    assert best_split(ten).points == -10
    assert split_points(ten) == -10


@given(ten_cards)
@settings(max_examples=150, deadline=None)
def test_best_split_equals_brute_force_over_all_splits(ten: list[int]) -> None:
    split = best_split(ten)
    assert split.points == split_points(ten) == brute_force_split(ten, hand_points)
    first, second = (set(hand.order) for hand in split.hands)
    assert first | second == set(ten)
    assert not first & second
    assert split.points == sum(hand_points(list(hand.order)) for hand in split.hands)


def test_ten_card_split_agrees_with_literal_scoring_on_a_sample() -> None:
    rng = random.Random(11)
    for _ in range(3):
        ten = rng.sample(range(125), 10)
        assert best_split(ten).points == brute_force_split(ten, brute_force_points)


@pytest.mark.parametrize(
    ("ids", "code"),
    [
        (["1-circle-violet"] * 5, "duplicate_card"),
        (CARD_IDS[:4], "wrong_count"),
        (CARD_IDS[:6], "wrong_count"),
    ],
)
def test_bad_hands_are_refused(ids: list[str], code: str) -> None:
    with pytest.raises(IllegalAction) as raised:
        score_cards(cards(*ids))
    assert raised.value.code == code


def test_score_cards_dispatches_on_count() -> None:
    assert isinstance(score_cards(list(range(5))), HandScore)
    assert score_cards(list(range(10))).points == best_split(list(range(10))).points


@given(st.lists(st.integers(0, 124), min_size=5, max_size=10, unique=True))
@settings(max_examples=150, deadline=None)
def test_best_hand_of_many_cards_equals_brute_force(many: list[int]) -> None:
    points, mask = best_hand_of(many)
    assert points == max(hand_points(hand) for hand in combinations(many, 5))
    chosen = [card for position, card in enumerate(many) if mask >> position & 1]
    assert len(chosen) == 5
    assert hand_points(chosen) == points


@given(st.lists(st.integers(0, 124), min_size=10, max_size=12, unique=True))
@settings(max_examples=60, deadline=None)
def test_best_two_hands_of_many_cards_equals_brute_force(many: list[int]) -> None:
    total, first, second = best_two_hands_of(many)
    brute = max(
        hand_points(one) + hand_points(other)
        for one in combinations(many, 5)
        for other in combinations([card for card in many if card not in one], 5)
    )
    assert total == brute
    assert not first & second
    hands = [[card for p, card in enumerate(many) if mask >> p & 1] for mask in (first, second)]
    assert [len(hand) for hand in hands] == [5, 5]
    assert hand_points(hands[0]) + hand_points(hands[1]) == total
    assert hand_points(hands[0]) >= hand_points(hands[1])


def test_the_complete_property_table_is_each_entry_computed() -> None:
    assert tuple(_complete_mask(seen) << 6 for seen in range(1 << 15)) == _COMPLETE_KEY
