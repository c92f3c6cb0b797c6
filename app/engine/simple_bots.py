"""The easy and normal bots: loose play, and the best hand of the moment."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from types import MappingProxyType

from app.engine.cards import Card
from app.engine.decision import Decision, can_knock, knock_decision, plan_decision
from app.engine.observation import Observation
from app.engine.plans import (
    Plan,
    available_piles,
    candidate_keeps,
    greedy_keep,
    plan_for_keep,
    points_of,
    progress,
)
from app.engine.round import Step
from app.engine.scoring import best_two_hands_of

# Easy: loose play.

EASY_KNOCK_CHANCE = 0.04
EASY_SENSIBLE_CHANCE = 0.4


def easy_decision(observation: Observation, rng: random.Random) -> Decision:
    """Mostly random takes and discards, now and then the best hand, and knocks on a whim."""
    hand = observation.hand
    if can_knock(observation) and rng.random() < EASY_KNOCK_CHANCE:
        return knock_decision(observation, hand, "knocking on a hunch")
    if rng.random() < EASY_SENSIBLE_CHANCE:
        _, keep = greedy_keep(observation)
        return plan_decision(
            observation, plan_for_keep(observation, keep), keep, "the best hand I can see"
        )
    if observation.step is Step.DISCARD:
        drop = tuple(rng.sample(hand, observation.pending))
        keep = tuple(card for card in hand if card not in drop)
        return plan_decision(observation, Plan((), drop, keep), keep, "this one looked spare")
    piles = available_piles(observation)
    count = rng.randint(1, min(observation.variant.max_take, len(piles)))
    chosen = tuple(sorted(rng.sample(piles, count)))
    taken = [card for pile in chosen if (card := observation.tops[pile]) is not None]
    cards = [*hand, *taken]
    drop = tuple(rng.sample(cards, count))
    keep = tuple(card for card in cards if card not in drop)
    return plan_decision(observation, Plan(chosen, drop, keep), keep, "this one looked nice")


# Normal: the best immediate hand.

# Points at which the normal bot knocks (5-card, 10-card).
NORMAL_KNOCK_POINTS: Mapping[bool, int] = MappingProxyType({False: 10, True: 15})


def normal_decision(observation: Observation, rng: random.Random, knocks: bool = True) -> Decision:
    """The best hand it can make this turn; knocks once its hand is good enough (if ``knocks``)."""
    hand = observation.hand
    ten_card = observation.variant.ten_card
    if knocks and can_knock(observation):
        points = points_of(hand)
        if points >= NORMAL_KNOCK_POINTS[ten_card]:
            return knock_decision(observation, hand, f"{points} points is good enough")
    keep = _normal_keep(observation, rng)
    return plan_decision(
        observation, plan_for_keep(observation, keep), keep, "the best hand I can make now"
    )


def _normal_keep(observation: Observation, rng: random.Random) -> tuple[Card, ...]:
    if observation.variant.ten_card and observation.variant.multi_pickup:
        return greedy_keep(observation)[1]
    best: list[tuple[Card, ...]] = []
    best_key = (-100, 0)
    for keep in candidate_keeps(observation):
        key = (points_of(keep), _closeness(keep))
        if key > best_key:
            best, best_key = [keep], key
        elif key == best_key:
            best.append(keep)
    return best[0] if len(best) == 1 else rng.choice(best)


def _closeness(keep: Sequence[Card]) -> int:
    if len(keep) == 5:
        return progress(keep)
    _, first, second = best_two_hands_of(keep)
    return sum(
        progress([card for index, card in enumerate(keep) if mask >> index & 1])
        for mask in (first, second)
    )
