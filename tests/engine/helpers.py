"""Small builders and reference implementations shared by the engine tests."""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from itertools import combinations, permutations
from typing import Any

from app.engine.actions import Action, Discard, Take
from app.engine.cards import Card, card_values, parse_card
from app.engine.round import Round
from app.engine.scoring import POINTS_TABLE
from app.engine.variant import Variant


def cards(*ids: str) -> list[Card]:
    """Cards from their public ids."""
    return [parse_card(card_id) for card_id in ids]


def sequenced_in_order(order: Sequence[Card]) -> list[int]:
    """The properties whose values run 0-4 or 4-0 along ``order``."""
    runs = []
    for prop in range(3):
        values = [card_values(card)[prop] for card in order]
        if values in ([0, 1, 2, 3, 4], [4, 3, 2, 1, 0]):
            runs.append(prop)
    return runs


def brute_force_points(hand: Sequence[Card]) -> int:
    """The rules read literally: the best points over all 120 orders of five cards."""
    complete = sum(len({card_values(card)[prop] for card in hand}) == 5 for prop in range(3))
    longest = max(len(sequenced_in_order(order)) for order in permutations(hand))
    return POINTS_TABLE[(complete, longest)]


def brute_force_split(ten: Sequence[Card], score: Any) -> int:
    """The best total over all 252 ways to choose the first hand of five."""
    return max(
        score(first) + score([card for card in ten if card not in first])
        for first in combinations(ten, 5)
    )


def round_state(current: Round) -> tuple[Any, ...]:
    """Everything a round holds, copied, for before-and-after comparisons."""
    return (
        [list(hand) for hand in current.hands],
        [list(pile) for pile in current.piles],
        list(current.discard),
        current.turn,
        current.step,
        current.pending,
        current.knocker,
        current.final_turns,
        current.ending,
        current.turns,
        list(current.actions),
    )


def where_is_every_card(current: Round) -> list[Card]:
    """Every card of the round, wherever it lies."""
    found = [card for hand in current.hands for card in hand]
    found += [card for pile in current.piles for card in pile]
    return found + current.discard


def positions(
    variant: Variant, players: int, seed: int, rng: random.Random, stops: int
) -> Iterator[Round]:
    """A round played at random, seen at ``stops`` random points (some of them mid-turn)."""
    current = Round(variant, players, dealer=seed % players, seed=f"{seed:064x}")
    moments = sorted(rng.sample(range(120), stops))
    played = 0
    for moment in moments:
        while played < moment and not current.ended:
            current.apply(current.random_action(rng, knock_chance=0.01))
            played += 1
        if current.ended:
            return
        yield current


def canonical(current: Round, action: Action) -> Action:
    """The action as ``legal_actions`` spells it: piles in pile order, cards in hand order."""
    if isinstance(action, Take):
        return Take(action.seat, tuple(sorted(action.piles)))
    if isinstance(action, Discard):
        hand = current.hands[action.seat] if 0 <= action.seat < current.players else []
        order = {card: index for index, card in enumerate(hand)}
        return Discard(action.seat, tuple(sorted(action.cards, key=lambda c: order.get(c, -1))))
    return action
