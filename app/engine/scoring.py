"""Scoring of 5-card Spectrum hands and the best split of a 10-card hand.

A hand is reduced to two small bit masks: which values of each property it shows (the OR of
one-hot masks) and which pairs of properties run together or against each other on every card
(the AND of per-card relation bits). Those two masks decide everything, so the score of every
possible key is worked out once, at import, by the rules themselves.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations, product
from typing import Any

from app.engine.cards import CARD_IDS, DECK_SIZE, PROPERTIES, Card, card_values, check_distinct
from app.engine.errors import IllegalAction

SEQUENCE_NAMES: dict[int, str] = {1: "Mono", 2: "Duo", 3: "Tripo"}
NOTHING_SCORES = -5

# Points by (complete properties, largest simultaneous sequence).
POINTS_TABLE: dict[tuple[int, int], int] = {
    (0, 0): NOTHING_SCORES,
    (1, 1): 2,
    (2, 1): 5,
    (2, 2): 10,
    (3, 1): 10,
    (3, 2): 15,
    (3, 3): 25,
}

# Property pairs, in the order their relation bits are laid out: bit 2i is "equal on every
# card" (they run the same way), bit 2i+1 is "sum to 4 on every card" (they run opposite ways).
_PAIRS: tuple[tuple[int, int], ...] = ((0, 1), (0, 2), (1, 2))


def _value_bits(card: Card) -> int:
    number, shape, colour = card_values(card)
    return (1 << number) | (1 << (5 + shape)) | (1 << (10 + colour))


def _relation_bits(card: Card) -> int:
    values = card_values(card)
    bits = 0
    for index, (first, second) in enumerate(_PAIRS):
        if values[first] == values[second]:
            bits |= 1 << (2 * index)
        if values[first] + values[second] == 4:
            bits |= 1 << (2 * index + 1)
    return bits


_VALUE_BITS: tuple[int, ...] = tuple(_value_bits(card) for card in range(DECK_SIZE))
_RELATION_BITS: tuple[int, ...] = tuple(_relation_bits(card) for card in range(DECK_SIZE))
_PROPERTY_VALUE: tuple[tuple[int, ...], ...] = tuple(
    tuple(card_values(card)[prop] for card in range(DECK_SIZE)) for prop in range(3)
)


def _complete_mask(seen: int) -> int:
    return sum(1 << prop for prop in range(3) if (seen >> (5 * prop)) & 31 == 31)


# Indexed by the OR of value bits: the complete-property mask, shifted above the relation bits.
_COMPLETE_KEY: tuple[int, ...] = tuple(_complete_mask(seen) << 6 for seen in range(1 << 15))


@dataclass(frozen=True, slots=True)
class _Shape:
    """What a key means: points, complete and sequenced properties, and the property to sort by."""

    points: int
    complete: tuple[str, ...]
    sequenced: tuple[str, ...]
    anchor: int | None


def _shape_of(key: int) -> _Shape:
    complete = [prop for prop in range(3) if key >> (6 + prop) & 1]
    relations = key & 63

    def together(first: int, second: int) -> bool:
        bits = relations >> (2 * _PAIRS.index((first, second)))
        return first in complete and second in complete and bits & 3 != 0

    groups: list[tuple[int, ...]] = [(prop,) for prop in complete]
    groups += [pair for pair in _PAIRS if together(*pair)]
    if len(complete) == 3 and together(0, 1) and together(0, 2):
        groups.append((0, 1, 2))
    best = max(groups, key=len, default=())
    return _Shape(
        points=POINTS_TABLE[(len(complete), len(best))],
        complete=tuple(PROPERTIES[prop] for prop in complete),
        sequenced=tuple(PROPERTIES[prop] for prop in best),
        anchor=best[0] if best else None,
    )


_SHAPES: tuple[_Shape, ...] = tuple(_shape_of(key) for key in range(1 << 9))
_POINTS: tuple[int, ...] = tuple(shape.points for shape in _SHAPES)


@dataclass(frozen=True, slots=True)
class HandScore:
    """The score of one 5-card hand and one card order that reaches it."""

    points: int
    complete: tuple[str, ...]
    sequenced: tuple[str, ...]
    order: tuple[Card, ...]

    @property
    def sequence(self) -> str | None:
        """``Mono``, ``Duo`` or ``Tripo``; None when nothing scores."""
        return SEQUENCE_NAMES.get(len(self.sequenced))

    def as_dict(self) -> dict[str, Any]:
        """The scoring as every interface reports it."""
        return {
            "points": self.points,
            "complete": list(self.complete),
            "sequenced": list(self.sequenced),
            "sequence": self.sequence,
            "order": [CARD_IDS[card] for card in self.order],
        }


@dataclass(frozen=True, slots=True)
class SplitScore:
    """The best split of ten cards into two 5-card hands, and their scores."""

    points: int
    hands: tuple[HandScore, HandScore]

    def as_dict(self) -> dict[str, Any]:
        """The scoring as every interface reports it, each hand with its cards."""
        return {
            "points": self.points,
            "hands": [
                {"cards": [CARD_IDS[card] for card in sorted(hand.order)], **hand.as_dict()}
                for hand in self.hands
            ],
        }


Score = HandScore | SplitScore


def hand_points(hand: Sequence[Card]) -> int:
    """Points of five distinct cards (no checks: the hot path of bots and benchmarks)."""
    a, b, c, d, e = hand
    v, r = _VALUE_BITS, _RELATION_BITS
    return _POINTS[
        _COMPLETE_KEY[v[a] | v[b] | v[c] | v[d] | v[e]] | (r[a] & r[b] & r[c] & r[d] & r[e])
    ]


def _hand_score(hand: Sequence[Card]) -> HandScore:
    a, b, c, d, e = hand
    v, r = _VALUE_BITS, _RELATION_BITS
    shape = _SHAPES[
        _COMPLETE_KEY[v[a] | v[b] | v[c] | v[d] | v[e]] | (r[a] & r[b] & r[c] & r[d] & r[e])
    ]
    if shape.anchor is None:
        order = tuple(sorted(hand))
    else:
        order = tuple(sorted(hand, key=_PROPERTY_VALUE[shape.anchor].__getitem__))
    return HandScore(shape.points, shape.complete, shape.sequenced, order)


def score_hand(hand: Sequence[Card]) -> HandScore:
    """The best score of five distinct cards and one order that reaches it."""
    if len(hand) != 5:
        raise IllegalAction("wrong_count", f"a hand has 5 cards, got {len(hand)}")
    check_distinct(hand)
    return _hand_score(hand)


# Every split of positions 0-9 into two hands of five, keyed by the bit mask of the first hand.
_SPLITS: dict[int, tuple[tuple[int, ...], tuple[int, ...]]] = {
    sum(1 << position for position in chosen): (
        chosen,
        tuple(position for position in range(10) if position not in chosen),
    )
    for chosen in combinations(range(10), 5)
}


def _split_points(cards: Sequence[Card]) -> tuple[int, int]:
    """The best total over all splits of ten cards and the mask of one hand that reaches it."""
    v = [_VALUE_BITS[card] for card in cards]
    r = [_RELATION_BITS[card] for card in cards]
    # Only a hand with a complete property scores above -5, so the best split is one where a
    # hand holds one card of each value of some property; when there is none, every split
    # scores -5 twice.
    candidates: set[int] = set()
    for prop in range(3):
        by_value: list[list[int]] = [[], [], [], [], []]
        values = _PROPERTY_VALUE[prop]
        for position, card in enumerate(cards):
            by_value[values[card]].append(1 << position)
        if all(by_value):
            candidates.update(map(sum, product(*by_value)))
    best_points, best_mask = 2 * NOTHING_SCORES, 31
    points, complete = _POINTS, _COMPLETE_KEY
    for mask in sorted(candidates):
        (a, b, c, d, e), (f, g, h, i, j) = _SPLITS[mask]
        total = points[
            complete[v[a] | v[b] | v[c] | v[d] | v[e]] | (r[a] & r[b] & r[c] & r[d] & r[e])
        ]
        total += points[
            complete[v[f] | v[g] | v[h] | v[i] | v[j]] | (r[f] & r[g] & r[h] & r[i] & r[j])
        ]
        if total > best_points:
            best_points, best_mask = total, mask
    return best_points, best_mask


def split_points(cards: Sequence[Card]) -> int:
    """Points of the best split of ten distinct cards (no checks)."""
    return _split_points(cards)[0]


def best_split(cards: Sequence[Card]) -> SplitScore:
    """The best split of ten distinct cards into two 5-card hands."""
    if len(cards) != 10:
        raise IllegalAction("wrong_count", f"a 10-card hand has 10 cards, got {len(cards)}")
    check_distinct(cards)
    ordered = sorted(cards)
    total, mask = _split_points(ordered)
    first, second = _SPLITS[mask]
    hands = (
        _hand_score([ordered[position] for position in first]),
        _hand_score([ordered[position] for position in second]),
    )
    hands = (hands[1], hands[0]) if hands[1].points > hands[0].points else hands
    return SplitScore(total, hands)


def score_cards(cards: Sequence[Card]) -> Score:
    """The score of a 5-card hand or the best split of a 10-card hand."""
    if len(cards) == 10:
        return best_split(cards)
    if len(cards) == 5:
        return score_hand(cards)
    raise IllegalAction("wrong_count", f"a hand has 5 or 10 cards, got {len(cards)}")
