"""Ways to finish a turn, seen from an observation: which piles to take and what to keep."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import combinations

from app.bots.observation import Observation
from app.engine.actions import DISCARD_PILE, Action, Discard, Take
from app.engine.cards import Card, card_values
from app.engine.options import Options, Step
from app.engine.scoring import best_two_hands_of, hand_points, split_points


@dataclass(frozen=True, slots=True)
class Plan:
    """The rest of a turn: take from ``piles`` (none if already taken), discard ``drop``."""

    piles: tuple[int, ...]
    drop: tuple[Card, ...]
    keep: tuple[Card, ...]


def points_of(cards: Sequence[Card]) -> int:
    """Points of a full hand: five cards, or the best split of ten."""
    return hand_points(cards) if len(cards) == 5 else split_points(cards)


def progress(cards: Sequence[Card]) -> int:
    """How near five cards are to a complete property: most different values of one, then all."""
    seen = [0, 0, 0]
    for card in cards:
        for prop, value in enumerate(card_values(card)):
            seen[prop] |= 1 << value
    counts = [mask.bit_count() for mask in seen]
    return 16 * max(counts) + sum(counts)


def closeness(keep: Sequence[Card]) -> int:
    """How near a hand is to complete properties: its ``progress``, per half of the best split."""
    if len(keep) == 5:
        return progress(keep)
    _, first, second = best_two_hands_of(keep)
    return progress(kept_cards(keep, first)) + progress(kept_cards(keep, second))


def pile_of(observation: Observation, card: Card) -> int:
    """The pile whose face-up card is ``card``."""
    return observation.tops.index(card)


def pass_pile(options: Options) -> int:
    """The pile to take from when keeping the hand: a draw pile, so the round moves on."""
    draws = [pile for pile in options.piles if pile != DISCARD_PILE]
    return (draws or options.piles)[0]


def kept_cards(cards: Sequence[Card], mask: int) -> tuple[Card, ...]:
    """The cards at the positions in the bit mask ``mask``, in order."""
    return tuple(card for position, card in enumerate(cards) if mask >> position & 1)


def plan_for_keep(observation: Observation, keep: Sequence[Card]) -> Plan:
    """The plan that ends the turn holding ``keep``, taking the face-up cards it needs."""
    kept = set(keep)
    if observation.step is Step.DISCARD:
        drop = tuple(card for card in observation.hand if card not in kept)
        return Plan((), drop, tuple(keep))
    hand = set(observation.hand)
    piles = tuple(sorted(pile_of(observation, card) for card in keep if card not in hand))
    if not piles:
        piles = (pass_pile(observation.options),)
    taken = observation.tops_of(piles)
    drop = tuple(card for card in [*observation.hand, *taken] if card not in kept)
    return Plan(piles, drop, tuple(keep))


def candidate_keeps(observation: Observation) -> Iterator[tuple[Card, ...]]:
    """Every hand the turn can end with (one per distinct hand), own cards first."""
    options = observation.options
    hand = options.hand
    size = observation.variant.hand_size
    if options.step is Step.DISCARD:
        yield from combinations(hand, size)
        return
    yield hand
    for piles in options.takes():
        taken = observation.tops_of(piles)
        for kept in combinations(hand, size - len(piles)):
            yield (*kept, *taken)


def plan_actions(observation: Observation, plan: Plan) -> tuple[Action, ...]:
    """The actions that carry out ``plan`` for the observing seat."""
    seat = observation.seat
    if not plan.piles:
        return (Discard(seat, plan.drop),)
    return (Take(seat, plan.piles), Discard(seat, plan.drop))
