"""A turn's options: what ``legal_actions`` lists is exactly what the round accepts."""

import random
from collections.abc import Iterator
from itertools import combinations, islice, permutations

from hypothesis import given, settings
from hypothesis import strategies as st

from app.engine.actions import Action, Discard, Knock, Take
from app.engine.cards import Card
from app.engine.options import Step
from app.engine.round import Round
from app.engine.variant import VARIANTS, Variant
from tests.engine.helpers import canonical, positions

# Every take of up to three piles numbered -1 to 5, every order of four or five real piles, repeats.
TAKES = [
    *(piles for size in range(4) for piles in permutations(range(-1, 6), size)),
    *(piles for size in (4, 5) for piles in permutations(range(5), size)),
    (0, 0),
    (0, 1, 2, 3, 4, 0),
]


def every_action(current: Round, stranger: Card) -> Iterator[Action]:
    """Knocks and takes of every seat (and seats that do not exist), and many discards."""
    for seat in range(-1, current.players + 1):
        yield Knock(seat)
        for piles in TAKES:
            yield Take(seat, piles)
        if 0 <= seat < current.players:
            hand = current.hands[seat]
            yield Discard(seat, tuple(hand[: current.pending]))
            yield Discard(seat, (hand[0],) * max(current.pending, 2))
    seat = current.turn
    pool = [*current.hands[seat], stranger]
    for cards in combinations(pool, current.pending):
        yield Discard(seat, cards)
    for size in (current.pending - 1, current.pending + 1):
        for cards in islice(combinations(pool, max(size, 0)), 200):
            yield Discard(seat, cards)


@given(st.integers(0, 2**32), st.sampled_from(sorted(VARIANTS)), st.integers(2, 4))
@settings(max_examples=20, deadline=None)
def test_the_round_accepts_exactly_the_legal_actions(seed: int, name: str, players: int) -> None:
    rng = random.Random(seed)
    for current in positions(VARIANTS[name], players, seed, rng, stops=3):
        legal = list(current.legal_actions(current.turn))
        listed = set(legal)
        assert len(listed) == len(legal)
        for seat in range(current.players):
            if seat != current.turn:
                assert list(current.legal_actions(seat)) == []
        stranger = next(card for card in range(125) if card not in current.hands[current.turn])
        for action in every_action(current, stranger):
            accepted = current.can(action)
            assert accepted == (canonical(current, action) in listed), action
        for action in legal:
            assert canonical(current, action) == action
            assert current.can(action)


@given(st.integers(0, 2**32), st.sampled_from(sorted(VARIANTS)), st.integers(2, 4))
@settings(max_examples=40, deadline=None)
def test_random_play_picks_only_legal_actions(seed: int, name: str, players: int) -> None:
    rng = random.Random(seed)
    current = Round(VARIANTS[name], players, dealer=seed % players, seed=f"{seed:064x}")
    while not current.ended:
        action = current.random_action(rng, knock_chance=0.02)
        assert canonical(current, action) in list(current.legal_actions(current.turn))
        current.apply(action)


def test_options_list_the_piles_with_a_card_and_the_most_a_take_may_list() -> None:
    current = Round(Variant(multi_pickup=True), 2, dealer=0, seed="0" * 64)
    current.piles[2].clear()
    options = current.options()
    assert options.piles == (0, 1, 3)
    assert options.most == 3
    assert options.knock
    assert len(list(options.takes())) == 7
    current.apply(Take(current.turn, (0, 1)))
    options = current.options()
    assert options.step is Step.DISCARD
    assert not options.knock
    assert options.pending == 2
    assert len(list(options.discards())) == 21
