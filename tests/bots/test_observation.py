"""What a seat may know of a round, and that bots decide from that alone."""

import copy
import pickle
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from app.bots.levels import Level, bot_turn, decide
from app.bots.observation import Observation, observe
from app.engine.actions import DISCARD_PILE, Discard, Take
from app.engine.options import Step
from app.engine.round import Round
from app.engine.variant import VARIANTS, Variant
from tests.engine.helpers import where_is_every_card

LEVELS = list(Level)


def twin(current: Round, seat: int, rng: random.Random) -> Round:
    """A copy of the round differing only in what ``seat`` cannot see."""
    other = copy.deepcopy(current)
    known = observe(current, seat).known
    hidden = [
        (hand, index)
        for opponent, hand in enumerate(other.hands)
        if opponent != seat
        for index, card in enumerate(hand)
        if card not in known[opponent]
    ]
    hidden += [(pile, index) for pile in other.piles for index in range(len(pile) - 1)]
    cards = [place[index] for place, index in hidden]
    rng.shuffle(cards)
    for (place, index), card in zip(hidden, cards, strict=True):
        place[index] = card
    assert sorted(where_is_every_card(other)) == list(range(125))
    return other


@given(
    st.integers(0, 2**32),
    st.sampled_from(sorted(VARIANTS)),
    st.integers(0, 4),
    st.integers(0, 30),
    st.booleans(),
)
@settings(max_examples=40, deadline=None)
def test_decisions_depend_only_on_what_the_seat_may_see(
    seed: int, name: str, more: int, turns: int, mid_turn: bool
) -> None:
    """In every variant, from two players to the most, at either step of a turn."""
    rng = random.Random(seed)
    variant = VARIANTS[name]
    players = min(2 + more, variant.max_players)
    current = Round(variant, players, dealer=seed % players, seed=f"{seed:064x}")
    while not current.ended and current.turns < turns:
        current.apply(current.random_action(rng, knock_chance=0.02))
    if mid_turn and not current.ended:  # a take: the seat on turn is to discard
        current.apply(current.random_action(rng, knock_chance=0))
    if current.ended:
        return
    seat = current.turn
    other = twin(current, seat, rng)
    assert other.hands != current.hands or other.piles != current.piles
    assert observe(other, seat) == observe(current, seat)
    for level in LEVELS:
        first = bot_turn(current, seat, level, random.Random(seed))
        second = bot_turn(other, seat, level, random.Random(seed))
        assert first == second


def test_the_observation_holds_the_public_record_and_nothing_more() -> None:
    current = Round(Variant(), 3, dealer=2, seed="1" * 64)
    first, second, third = 0, 1, 2
    dealt = list(current.hands[first])
    taken = current.top(1)
    assert taken is not None
    current.apply(Take(first, (1,)))
    current.apply(Discard(first, (dealt[0],)))
    current.apply(Take(second, (DISCARD_PILE,)))
    current.apply(Discard(second, (current.hands[second][0],)))
    seen = observe(current, third)
    assert seen.known[first] == (taken,)
    assert seen.known[second] == (dealt[0],)
    assert seen.discard == tuple(current.discard)
    assert seen.hand == tuple(current.hands[third])
    assert seen.turn == third
    assert seen.step is Step.TAKE
    assert seen.opponents == (first, second)
    assert seen.turns_taken(first) == 1
    assert seen.turns_taken(third) == 0
    assert seen.tops == tuple(current.top(pile) for pile in range(5))
    unseen = set(seen.unseen())
    assert not unseen & set(current.hands[third])
    assert not unseen & set(current.discard)
    assert taken not in unseen
    assert set(current.hands[first]) - {taken} <= unseen
    assert len(current.discard) == 1
    assert len(unseen) == 125 - 5 - 1 - 4 - 2


def test_the_observation_is_a_value() -> None:
    current = Round(Variant(ten_card=True), 2, dealer=0, seed="a" * 64)
    seen = observe(current, 0)
    assert isinstance(seen, Observation)
    assert seen == observe(current, 0)
    assert hash(seen) == hash(observe(current, 0))


def test_observations_and_decisions_cross_process_boundaries() -> None:
    current = Round(Variant(ten_card=True, multi_pickup=True), 3, dealer=0, seed="c" * 64)
    rng = random.Random(4)
    while len(current.actions) < 40:
        current.apply(current.random_action(rng, knock_chance=0))
    seen = observe(current, current.turn)
    assert pickle.loads(pickle.dumps(seen)) == seen
    # Every bot turn in a room sends one to a worker process: it holds no more than bots read.
    assert len(pickle.dumps(seen)) < 400
    decision = decide(Level.STRONG, seen, random.Random(1))
    assert pickle.loads(pickle.dumps(decision)) == decision
