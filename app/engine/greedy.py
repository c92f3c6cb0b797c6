"""The greedy move: whatever makes the best hand right now, without looking further ahead."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations

from app.engine.actions import DISCARD_PILE, Action, Discard, Take
from app.engine.cards import Card
from app.engine.round import Round, Step
from app.engine.scoring import best_hand_of, best_two_hands_of


def best_keep(cards: Sequence[Card], ten_card: bool) -> tuple[int, int]:
    """The best points a hand can keep from ``cards`` and the position mask of what it keeps."""
    if ten_card:
        total, first, second = best_two_hands_of(cards)
        return total, first | second
    return best_hand_of(cards)


def dropped_cards(cards: Sequence[Card], kept: int) -> tuple[Card, ...]:
    """The cards outside the position mask ``kept``, in order."""
    return tuple(card for position, card in enumerate(cards) if not kept >> position & 1)


def greedy_turn(current: Round, seat: int) -> list[Action]:
    """The actions that finish ``seat``'s turn with the best immediate hand (never a knock)."""
    ten_card = current.variant.ten_card
    hand = current.hands[seat]
    if current.step is Step.DISCARD:
        return [Discard(seat, dropped_cards(hand, best_keep(hand, ten_card)[1]))]
    available = [pile for pile in range(DISCARD_PILE + 1) if current.count(pile)]
    best: tuple[int, tuple[int, ...], tuple[Card, ...]] | None = None
    for size in range(1, min(current.variant.max_take, len(available)) + 1):
        for piles in combinations(available, size):
            cards = [*hand, *(card for pile in piles if (card := current.top(pile)) is not None)]
            points, kept = best_keep(cards, ten_card)
            if best is None or points > best[0]:
                best = (points, piles, dropped_cards(cards, kept))
    assert best is not None, "a turn always has a pile to take from"
    return [Take(seat, best[1]), Discard(seat, best[2])]
