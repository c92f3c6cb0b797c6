"""The easy and normal bots: loose play, and the best hand of the moment."""

from __future__ import annotations

import random
from collections.abc import Mapping
from types import MappingProxyType

from app.bots.decision import Decision, knock_decision, plan_decision
from app.bots.greedy import greedy_keep
from app.bots.observation import Observation
from app.bots.plans import Plan, candidate_keeps, closeness, plan_for_keep, points_of
from app.engine.cards import Card
from app.engine.options import Step
from app.engine.variant import TEN_CARD_MULTI_PICKUP

# Easy: loose play.

EASY_KNOCK_CHANCE = 0.04
EASY_SENSIBLE_CHANCE = 0.4


def easy_decision(observation: Observation, rng: random.Random) -> Decision:
    """Mostly random takes and discards, now and then the best hand, and knocks on a whim."""
    hand = observation.hand
    options = observation.options
    if options.random_knock(rng, EASY_KNOCK_CHANCE):
        return knock_decision(observation, hand, "knocking on a hunch")
    if rng.random() < EASY_SENSIBLE_CHANCE:
        _, keep = greedy_keep(observation)
        return plan_decision(
            observation, plan_for_keep(observation, keep), keep, "the best hand I can see"
        )
    if options.step is Step.DISCARD:
        drop = options.random_discard(rng)
        keep = tuple(card for card in hand if card not in drop)
        return plan_decision(observation, Plan((), drop, keep), keep, "this one looked spare")
    chosen = tuple(sorted(options.random_take(rng)))
    cards = [*hand, *observation.tops_of(chosen)]
    drop = tuple(rng.sample(cards, len(chosen)))
    keep = tuple(card for card in cards if card not in drop)
    return plan_decision(observation, Plan(chosen, drop, keep), keep, "this one looked nice")


# Normal: the best immediate hand.

# Points at which the normal bot knocks, by hand size.
NORMAL_KNOCK_POINTS: Mapping[int, int] = MappingProxyType({5: 10, 10: 15})


def normal_decision(observation: Observation, rng: random.Random, knocks: bool = True) -> Decision:
    """The best hand it can make this turn; knocks once its hand is good enough (if ``knocks``)."""
    hand = observation.hand
    if knocks and observation.options.knock:
        points = points_of(hand)
        if points >= NORMAL_KNOCK_POINTS[observation.variant.hand_size]:
            return knock_decision(observation, hand, f"{points} points is good enough")
    keep = _normal_keep(observation, rng)
    return plan_decision(
        observation, plan_for_keep(observation, keep), keep, "the best hand I can make now"
    )


def _normal_keep(observation: Observation, rng: random.Random) -> tuple[Card, ...]:
    if observation.variant == TEN_CARD_MULTI_PICKUP:
        # Too many hands to list them all: the greedy best hand stands in.
        return greedy_keep(observation)[1]
    best: list[tuple[Card, ...]] = []
    best_key = (-100, 0)
    for keep in candidate_keeps(observation):
        key = (points_of(keep), closeness(keep))
        if key > best_key:
            best, best_key = [keep], key
        elif key == best_key:
            best.append(keep)
    return best[0] if len(best) == 1 else rng.choice(best)
