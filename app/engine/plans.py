"""Ways to finish a turn, seen from an observation: which piles to take and what to keep."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import combinations

from app.engine.actions import DISCARD_PILE, Action, Discard, Take
from app.engine.cards import Card, card_values
from app.engine.greedy import best_keep, dropped_cards
from app.engine.observation import Observation
from app.engine.round import Step
from app.engine.scoring import hand_points, split_points


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


def available_piles(observation: Observation) -> list[int]:
    """The piles with a face-up card."""
    return [pile for pile, count in enumerate(observation.counts) if count]


def pile_of(observation: Observation, card: Card) -> int:
    """The pile whose face-up card is ``card``."""
    return observation.tops.index(card)


def pass_pile(observation: Observation) -> int:
    """The pile to take from when keeping the hand: a draw pile, so the round moves on."""
    piles = available_piles(observation)
    draws = [pile for pile in piles if pile != DISCARD_PILE]
    return (draws or piles)[0]


def plan_for_keep(observation: Observation, keep: Sequence[Card]) -> Plan:
    """The plan that ends the turn holding ``keep``, taking the face-up cards it needs."""
    kept = set(keep)
    if observation.step is Step.DISCARD:
        drop = tuple(card for card in observation.hand if card not in kept)
        return Plan((), drop, tuple(keep))
    hand = set(observation.hand)
    piles = tuple(sorted(pile_of(observation, card) for card in keep if card not in hand))
    if not piles:
        piles = (pass_pile(observation),)
    taken = [card for pile in piles if (card := observation.tops[pile]) is not None]
    drop = tuple(card for card in [*observation.hand, *taken] if card not in kept)
    return Plan(piles, drop, tuple(keep))


def candidate_keeps(observation: Observation) -> Iterator[tuple[Card, ...]]:
    """Every hand the turn can end with (one per distinct hand), own cards first."""
    hand = observation.hand
    size = observation.variant.hand_size
    if observation.step is Step.DISCARD:
        yield from combinations(hand, size)
        return
    tops = [card for card in observation.tops if card is not None]
    yield hand
    most = min(observation.variant.max_take, len(tops))
    for count in range(1, most + 1):
        for taken in combinations(tops, count):
            for kept in combinations(hand, size - count):
                yield (*kept, *taken)


def greedy_keep(observation: Observation) -> tuple[int, tuple[Card, ...]]:
    """The best immediate points and a hand reaching them, over every way to end the turn."""
    hand = list(observation.hand)
    ten_card = observation.variant.ten_card
    if observation.step is Step.DISCARD:
        points, mask = best_keep(hand, ten_card)
        return points, _kept(hand, mask)
    best: tuple[int, tuple[Card, ...]] | None = None
    piles = available_piles(observation)
    for count in range(1, min(observation.variant.max_take, len(piles)) + 1):
        for chosen in combinations(piles, count):
            cards = [
                *hand,
                *(card for pile in chosen if (card := observation.tops[pile]) is not None),
            ]
            points, mask = best_keep(cards, ten_card)
            if best is None or points > best[0]:
                best = (points, _kept(cards, mask))
    assert best is not None, "a turn always has a pile to take from"
    return best


def _kept(cards: Sequence[Card], mask: int) -> tuple[Card, ...]:
    dropped = set(dropped_cards(cards, mask))
    return tuple(card for card in cards if card not in dropped)


def plan_actions(observation: Observation, plan: Plan) -> tuple[Action, ...]:
    """The actions that carry out ``plan`` for the observing seat."""
    seat = observation.seat
    if not plan.piles:
        return (Discard(seat, plan.drop),)
    return (Take(seat, plan.piles), Discard(seat, plan.drop))
