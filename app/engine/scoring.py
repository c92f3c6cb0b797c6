"""Scoring of 5-card Spectrum hands and the best split of a 10-card hand.

A hand is reduced to two small bit masks: which values of each property it shows (the OR of
one-hot masks) and which pairs of properties run together or against each other on every card
(the AND of per-card relation bits). Those two masks decide everything, so the score of every
possible key is worked out once, at import, by the rules themselves.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import product
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


def _complete_keys() -> tuple[int, ...]:
    """``_complete_mask(seen) << 6`` for every ``seen`` below 2**15, built a property at a time
    (a property's five value bits are all set only in the last of each 32 entries): the same
    table as computing each entry, without the tens of milliseconds that cost every start."""
    keys = [0] * 31 + [1 << 6]
    for prop in (1, 2):
        keys = keys * 31 + [key | 1 << (6 + prop) for key in keys]
    return tuple(keys)


# Indexed by the OR of value bits: the complete-property mask, shifted above the relation bits.
_COMPLETE_KEY: tuple[int, ...] = _complete_keys()


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


def _scoring_hands(cards: Sequence[Card]) -> dict[int, int]:
    """Points of every 5-card hand of ``cards`` with a complete property, by position mask.

    Only such hands score above -5: they hold one card of each value of some property, so they
    are found by choosing one card per value, property by property, instead of trying them all.
    """
    v = [_VALUE_BITS[card] for card in cards]
    r = [_RELATION_BITS[card] for card in cards]
    points, complete = _POINTS, _COMPLETE_KEY
    found: dict[int, int] = {}
    for prop in range(3):
        by_value: list[list[int]] = [[], [], [], [], []]
        values = _PROPERTY_VALUE[prop]
        for position, card in enumerate(cards):
            by_value[values[card]].append(position)
        if not all(by_value):
            continue
        for a, b, c, d, e in product(*by_value):
            mask = (1 << a) | (1 << b) | (1 << c) | (1 << d) | (1 << e)
            if mask not in found:
                found[mask] = points[
                    complete[v[a] | v[b] | v[c] | v[d] | v[e]] | (r[a] & r[b] & r[c] & r[d] & r[e])
                ]
    return found


def _by_points(found: dict[int, int]) -> list[tuple[int, int]]:
    return sorted(((points, mask) for mask, points in found.items()), reverse=True)


def _positions(mask: int) -> list[int]:
    return [position for position in range(mask.bit_length()) if mask >> position & 1]


def _first_five_outside(mask: int, size: int) -> int:
    chosen = 0
    for position in range(size):
        if not mask >> position & 1 and chosen.bit_count() < 5:
            chosen |= 1 << position
    return chosen


def best_hand_of(cards: Sequence[Card]) -> tuple[int, int]:
    """The best 5-card hand among five or more distinct cards: (points, position mask)."""
    found = _scoring_hands(cards)
    if found:
        return max((points, mask) for mask, points in found.items())
    return NOTHING_SCORES, 31


def best_two_hands_of(cards: Sequence[Card]) -> tuple[int, int, int]:
    """The best two disjoint 5-card hands among ten or more distinct cards.

    Returns (total points, position mask of the better hand, position mask of the other).
    """
    found = _scoring_hands(cards)
    scored = _by_points(found)
    size = len(cards)
    best_total, best_first, best_second = 2 * NOTHING_SCORES, 31, 31 << 5
    if size == 10:
        # The partner of a hand is the other five cards, worth -5 unless it scores too.
        for first_points, first in scored:
            if first_points + max(first_points, NOTHING_SCORES) <= best_total:
                break
            second = 1023 ^ first
            total = first_points + found.get(second, NOTHING_SCORES)
            if total > best_total:
                best_total, best_first, best_second = total, first, second
        return best_total, best_first, best_second
    for index, (first_points, first) in enumerate(scored):
        # Partners come later in the list (earlier pairs were tried from the other side) or
        # are any five other cards, worth -5 unless they are in the list themselves.
        if first_points + max(first_points, NOTHING_SCORES) <= best_total:
            break
        for second_points, second in scored[index + 1 :]:
            if first_points + second_points <= best_total:
                break
            if not first & second:
                best_total, best_first, best_second = first_points + second_points, first, second
                break
        if first_points + NOTHING_SCORES > best_total:
            second = _first_five_outside(first, size)
            second_points = hand_points([cards[position] for position in _positions(second)])
            best_total, best_first, best_second = first_points + second_points, first, second
    return best_total, best_first, best_second


def split_points(cards: Sequence[Card]) -> int:
    """Points of the best split of ten distinct cards (no checks)."""
    return best_two_hands_of(cards)[0]


def best_split(cards: Sequence[Card]) -> SplitScore:
    """The best split of ten distinct cards into two 5-card hands."""
    if len(cards) != 10:
        raise IllegalAction("wrong_count", f"a 10-card hand has 10 cards, got {len(cards)}")
    check_distinct(cards)
    ordered = sorted(cards)
    total, first, second = best_two_hands_of(ordered)
    hands = (
        _hand_score([ordered[position] for position in _positions(first)]),
        _hand_score([ordered[position] for position in _positions(second)]),
    )
    return SplitScore(total, hands)


def score_cards(cards: Sequence[Card]) -> Score:
    """The score of a 5-card hand or the best split of a 10-card hand."""
    if len(cards) == 10:
        return best_split(cards)
    if len(cards) == 5:
        return score_hand(cards)
    raise IllegalAction("wrong_count", f"a hand has 5 or 10 cards, got {len(cards)}")
