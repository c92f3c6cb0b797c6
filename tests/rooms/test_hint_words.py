"""Hints in the words a player would use: the move, what it gives, what to look out for."""

from __future__ import annotations

import random

from app.bots.decision import Decision
from app.bots.levels import Level, decide_seeded
from app.bots.observation import observe
from app.engine.actions import Discard, Knock, Take
from app.engine.cards import parse_card
from app.engine.round import Round
from app.engine.scoring import score_cards
from app.engine.variant import STANDARD, TEN_CARD, VARIANTS
from app.rooms.hints import advice, advice_text


def cards(*ids: str) -> tuple[int, ...]:
    return tuple(parse_card(card) for card in ids)


KEEP = cards(
    "1-circle-violet", "2-crescent-cyan", "3-triangle-yellow", "4-square-orange", "5-star-red"
)


def test_a_take_and_a_discard_say_which_card_from_which_pile_and_what_it_gives() -> None:
    decision = Decision(
        actions=(Take(0, (1,)), Discard(0, cards("5-circle-red"))),
        took=cards("5-star-red"),
        keep=KEEP,
        aim=KEEP,
        points=25,
        reason="holds 25 points now",
    )
    assert advice_text(decision) == (
        "Take the 5 red star from the second pile, then discard the 5 red circle: that gives"
        " you all five numbers, shapes and colours, all in order (a Tripo), 25 points."
    )


def test_a_hand_still_short_says_what_to_look_out_for() -> None:
    keep = cards(
        "1-circle-violet", "2-crescent-cyan", "3-triangle-yellow", "4-square-orange", "4-star-red"
    )
    decision = Decision(
        actions=(Take(0, (4,)), Discard(0, cards("4-star-red"))),
        took=cards("4-star-red"),
        keep=keep,
        aim=KEEP,
        points=25,
        reason="",
    )
    text = advice_text(decision)
    assert text.startswith(
        "Take the 4 red star from the discard pile, then discard it again: that gives you"
    )
    assert text.endswith(
        "Then look out for the 5 star red (or a card like it): that would make 25 points.".replace(
            "5 star red", "5 red star"
        )
    )


def test_a_knock_says_why() -> None:
    decision = Decision((Knock(0),), (), KEEP, KEEP, 25, "")
    assert advice_text(decision).startswith("Knock now: your hand makes all five numbers")


def test_the_frame_never_carries_the_bots_own_words() -> None:
    for variant in (STANDARD, TEN_CARD):
        for seed in range(8):
            current = Round(variant, 2, 0, f"{seed:064x}")
            rng = random.Random(seed)
            for _ in range(seed * 5):
                current.apply(current.random_action(rng, 0))
            decision = decide_seeded(Level.STRONG, observe(current, current.turn), 0)
            given = advice(decision)
            assert "reason" not in given
            text = given["text"]
            assert decision.reason not in text
            for word in ("aiming", "expects", "holds", "complete ·", "draw pile", "(or alike)"):
                assert word not in text
            assert not any(part.count("-") == 2 for part in text.split()), text  # no card ids
            assert text[0].isupper()
            assert text.endswith(".")


def test_a_final_turn_after_a_knock_looks_out_for_nothing() -> None:
    """After a knock each other player has one turn left: the hint aims at the hand it keeps."""
    for variant in VARIANTS.values():
        for seed in range(3):
            current = Round(variant, 3, 0, f"{seed:064x}")
            current.apply(Knock(current.turn))
            while not current.ended:
                decision = decide_seeded(Level.STRONG, observe(current, current.turn), 0)
                given = advice(decision)
                assert sorted(decision.aim) == sorted(decision.keep), given["text"]
                assert given["points"] == score_cards(decision.keep).points
                assert "look out" not in given["text"], given["text"]
                for action in decision.actions:
                    current.apply(action)


def test_a_hint_never_looks_out_for_a_card_it_discards() -> None:
    """A discarded card goes to the discard pile, where only the next player may take it."""
    for variant in VARIANTS.values():
        for seed in range(5):
            current = Round(variant, 2, 0, f"{seed:064x}")
            while not current.ended:
                decision = decide_seeded(Level.STRONG, observe(current, current.turn), 0)
                dropped = {
                    card
                    for action in decision.actions
                    if isinstance(action, Discard)
                    for card in action.cards
                }
                assert not dropped & set(decision.aim), advice_text(decision)
                for action in decision.actions:
                    current.apply(action)
