import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.engine.actions import DISCARD_PILE, Action, Discard, Knock, Take
from app.engine.errors import IllegalAction
from app.engine.fairdeal import commitment, shuffled_deck
from app.engine.options import Step
from app.engine.round import Ending, Round
from app.engine.variant import Variant
from tests.engine.helpers import round_state, where_is_every_card

STANDARD = Variant()
MULTI = Variant(multi_pickup=True)
TEN = Variant(ten_card=True)
SEED = "0" * 64


def refused(current: Round, action: Action, code: str) -> IllegalAction:
    before = round_state(current)
    with pytest.raises(IllegalAction) as raised:
        current.apply(action)
    assert raised.value.code == code
    assert raised.value.message
    assert round_state(current) == before
    assert not current.can(action)
    return raised.value


@pytest.mark.parametrize(
    ("variant", "players", "sizes"),
    [
        (STANDARD, 2, [29, 29, 29, 28]),
        (STANDARD, 6, [24, 24, 24, 23]),
        (TEN, 4, [22, 21, 21, 21]),
        (TEN, 2, [27, 26, 26, 26]),
    ],
)
def test_deal(variant: Variant, players: int, sizes: list[int]) -> None:
    current = Round(variant, players, dealer=1, seed=SEED)
    deck = shuffled_deck(SEED)
    assert [len(hand) for hand in current.hands] == [variant.hand_size] * players
    # Dealt one at a time starting left of the dealer.
    assert current.hands[2 % players][0] == deck[0]
    assert current.hands[1][0] == deck[players - 1]
    assert [len(pile) for pile in current.piles] == sizes
    dealt = players * variant.hand_size
    assert current.top(0) == deck[dealt]
    assert current.top(1) == deck[dealt + sizes[0]]
    assert current.top(DISCARD_PILE) is None
    assert current.count(DISCARD_PILE) == 0
    assert sorted(where_is_every_card(current)) == list(range(125))
    assert current.turn == 2 % players
    assert current.step is Step.TAKE
    assert current.commitment == commitment(SEED)


@pytest.mark.parametrize(("variant", "players"), [(STANDARD, 1), (STANDARD, 7), (TEN, 5)])
def test_player_counts_outside_the_rules_are_refused(variant: Variant, players: int) -> None:
    with pytest.raises(IllegalAction) as raised:
        Round(variant, players, dealer=0, seed=SEED)
    assert raised.value.code == "bad_player_count"


def test_take_then_discard() -> None:
    current = Round(STANDARD, 3, dealer=0, seed=SEED)
    seat = current.turn
    top, below = current.piles[2][-1], current.piles[2][-2]
    current.apply(Take(seat, (2,)))
    assert current.hands[seat][-1] == top
    assert current.top(2) == below
    assert current.step is Step.DISCARD
    assert len(current.hands[seat]) == 6
    # The card just taken may be discarded at once.
    current.apply(Discard(seat, (top,)))
    assert current.top(DISCARD_PILE) == top
    assert current.turn == (seat + 1) % 3
    assert current.step is Step.TAKE
    # The next player may take it back from the discard pile.
    current.apply(Take(current.turn, (DISCARD_PILE,)))
    assert current.count(DISCARD_PILE) == 0
    assert top in current.hands[current.turn]


def test_refusals_leave_the_round_unchanged() -> None:
    current = Round(STANDARD, 3, dealer=0, seed=SEED)
    seat, other = current.turn, (current.turn + 1) % 3
    refused(current, Take(other, (0,)), "not_your_turn")
    refused(current, Take(7, (0,)), "no_such_seat")
    refused(current, Take(seat, (DISCARD_PILE,)), "pile_empty")
    refused(current, Take(seat, (0, 1)), "wrong_count")
    refused(current, Take(seat, ()), "wrong_count")
    refused(current, Take(seat, (5,)), "bad_pile")
    refused(current, Take(seat, (-1,)), "bad_pile")
    refused(current, Discard(seat, (current.hands[seat][0],)), "wrong_step")
    current.apply(Take(seat, (0,)))
    refused(current, Take(seat, (1,)), "wrong_step")
    refused(current, Knock(seat), "wrong_step")
    refused(current, Discard(seat, tuple(current.hands[seat][:2])), "wrong_count")
    refused(current, Discard(seat, (current.hands[other][0],)), "card_not_in_hand")
    refused(current, Discard(seat, ()), "wrong_count")


def test_multiple_pickups() -> None:
    current = Round(MULTI, 2, dealer=0, seed=SEED)
    seat = current.turn
    tops = [current.top(pile) for pile in (3, 0, 1)]
    refused(current, Take(seat, (1, 1)), "duplicate_pile")
    refused(current, Take(seat, (0, 1, 2, 3, DISCARD_PILE)), "pile_empty")
    current.apply(Take(seat, (3, 0, 1)))
    assert current.hands[seat][-3:] == tops
    assert current.pending == 3
    hand = current.hands[seat]
    refused(current, Discard(seat, (hand[0],)), "wrong_count")
    refused(current, Discard(seat, (hand[0], hand[0], hand[1])), "duplicate_card")
    chosen = (hand[5], hand[0], hand[2])
    current.apply(Discard(seat, chosen))
    assert current.discard == list(chosen)
    assert current.top(DISCARD_PILE) == chosen[-1]
    assert len(current.hands[seat]) == 5
    # Five at once, one from each face-up pile.
    nxt = current.turn
    current.apply(Take(nxt, (0, 1, 2, 3, DISCARD_PILE)))
    assert len(current.hands[nxt]) == 10
    refused(current, Discard(nxt, tuple(current.hands[nxt][:4])), "wrong_count")
    current.apply(Discard(nxt, tuple(current.hands[nxt][:5])))
    assert current.count(DISCARD_PILE) == 7


def play_turn(current: Round, pile: int = 0) -> None:
    seat = current.turn
    current.apply(Take(seat, (pile,)))
    current.apply(Discard(seat, (current.hands[seat][0],)))


def test_knock_gives_every_other_player_one_turn() -> None:
    current = Round(STANDARD, 4, dealer=3, seed=SEED)
    play_turn(current)
    knocker = current.turn
    knocker_hand = list(current.hands[knocker])
    current.apply(Knock(knocker))
    assert current.knocker == knocker
    others = []
    for _ in range(3):
        assert not current.ended
        seat = current.turn
        assert seat != knocker
        refused(current, Knock(seat), "knock_not_allowed")
        others.append(seat)
        play_turn(current)
    assert others == [(knocker + k) % 4 for k in (1, 2, 3)]
    assert current.ending is Ending.KNOCK
    assert current.hands[knocker] == knocker_hand
    refused(current, Take(current.turn, (0,)), "round_over")
    assert list(current.legal_actions(current.turn)) == []


def test_a_knock_on_the_first_turn_is_allowed() -> None:
    current = Round(STANDARD, 2, dealer=0, seed=SEED)
    current.apply(Knock(1))
    play_turn(current)
    assert current.ending is Ending.KNOCK


def test_the_round_ends_when_the_draw_piles_are_exhausted() -> None:
    current = Round(STANDARD, 2, dealer=0, seed=SEED)
    turns = 0
    while not current.ended:
        pile = next(pile for pile in range(4) if current.count(pile))
        play_turn(current, pile)
        turns += 1
    assert turns == 115  # one card leaves the draw piles each turn
    assert current.ending is Ending.EXHAUSTED
    assert all(current.count(pile) == 0 for pile in range(4))
    assert current.count(DISCARD_PILE) == 115


def test_an_empty_draw_pile_stays_empty_while_others_remain() -> None:
    current = Round(STANDARD, 2, dealer=0, seed=SEED)
    while current.count(3):
        play_turn(current, 3)
    assert not current.ended
    refused(current, Take(current.turn, (3,)), "pile_empty")
    assert all(Take(current.turn, (3,)) != action for action in current.legal_actions(current.turn))


def test_exhaustion_ends_the_final_turns_after_a_knock_early() -> None:
    current = Round(STANDARD, 3, dealer=0, seed=SEED)
    while sum(current.count(pile) for pile in range(4)) > 1:
        play_turn(current, next(pile for pile in range(4) if current.count(pile)))
    current.apply(Knock(current.turn))
    play_turn(current, next(pile for pile in range(4) if current.count(pile)))
    assert current.ending is Ending.EXHAUSTED


def test_legal_actions() -> None:
    current = Round(MULTI, 2, dealer=0, seed=SEED)
    seat = current.turn
    actions = list(current.legal_actions(seat))
    assert Knock(seat) in actions
    takes = [action for action in actions if isinstance(action, Take)]
    assert len(takes) == 15  # the non-empty subsets of four draw piles
    assert list(current.legal_actions(1 - seat)) == []
    current.apply(Take(seat, (0, 1)))
    discards = list(current.legal_actions(seat))
    assert len(discards) == 21  # two cards of seven
    for action in discards:
        assert current.can(action)


@given(
    st.integers(0, 2**32),
    st.sampled_from([STANDARD, MULTI, TEN, Variant(True, True)]),
    st.integers(2, 4),
    st.floats(0, 0.1),
)
@settings(max_examples=60, deadline=None)
def test_random_play_keeps_every_card_in_one_place(
    seed: int, variant: Variant, players: int, knock_chance: float
) -> None:
    rng = random.Random(seed)
    current = Round(variant, players, dealer=seed % players, seed=f"{seed:064x}")
    while not current.ended:
        action = current.random_action(rng, knock_chance)
        assert current.can(action)
        current.apply(action)
        assert sorted(where_is_every_card(current)) == list(range(125))
        if current.step is Step.TAKE:
            assert all(len(hand) == variant.hand_size for hand in current.hands)


def random_wrong_action(rng: random.Random, current: Round) -> Action:
    seat = rng.randrange(-1, current.players + 1)
    kind = rng.randrange(3)
    if kind == 0:
        return Take(seat, tuple(rng.randrange(-1, 6) for _ in range(rng.randrange(0, 7))))
    if kind == 1:
        return Discard(seat, tuple(rng.sample(range(125), rng.randrange(0, 6))))
    return Knock(seat)


@given(st.integers(0, 2**32), st.sampled_from([STANDARD, MULTI, TEN]))
@settings(max_examples=40, deadline=None)
def test_an_illegal_action_never_changes_the_state(seed: int, variant: Variant) -> None:
    rng = random.Random(seed)
    current = Round(variant, 3, dealer=0, seed=f"{seed:064x}")
    while not current.ended:
        for _ in range(5):
            action = random_wrong_action(rng, current)
            before = round_state(current)
            try:
                current.apply(action)
            except IllegalAction:
                assert round_state(current) == before
            else:
                assert round_state(current) != before
        if not current.ended:
            current.apply(current.random_action(rng))
