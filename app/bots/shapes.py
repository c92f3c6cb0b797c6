"""The shapes scoring hands take: each card's values, the Duo families and their slots, Tripos."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations

from app.engine.cards import DECK_SIZE, Card, card_values

VALUES: tuple[tuple[int, int, int], ...] = tuple(card_values(card) for card in range(DECK_SIZE))
# Two properties and the third one.
PAIRS: tuple[tuple[int, int, int], ...] = ((0, 1, 2), (0, 2, 1), (1, 2, 0))


def _card(values: dict[int, int]) -> Card:
    return values[0] * 25 + values[1] * 5 + values[2]


@dataclass(frozen=True, slots=True)
class Family:
    """The Duos where properties ``first`` and ``second`` run together (or against each other)."""

    first: int
    second: int
    third: int
    opposite: bool

    def slot(self, card: Card) -> int:
        """The card's slot (its value of ``first``), or -1 if it does not fit the Duo."""
        values = VALUES[card]
        low, high = values[self.first], values[self.second]
        return low if high == (4 - low if self.opposite else low) else -1

    def card(self, slot: int, third: int) -> Card:
        """The card of ``slot`` with ``third`` as its third property's value."""
        second = 4 - slot if self.opposite else slot
        return _card({self.first: slot, self.second: second, self.third: third})


FAMILIES: tuple[Family, ...] = tuple(
    Family(first, second, third, opposite)
    for first, second, third in PAIRS
    for opposite in (False, True)
)
FAMILY_SLOTS: tuple[tuple[int, ...], ...] = tuple(
    tuple(family.slot(card) for card in range(DECK_SIZE)) for family in FAMILIES
)
FAMILY_CARDS: tuple[tuple[tuple[Card, ...], ...], ...] = tuple(
    tuple(tuple(family.card(slot, third) for third in range(5)) for slot in range(5))
    for family in FAMILIES
)
TRIPOS: tuple[tuple[Card, ...], ...] = tuple(
    tuple(_card({0: i, 1: 4 - i if shape else i, 2: 4 - i if colour else i}) for i in range(5))
    for shape in (False, True)
    for colour in (False, True)
)
SLOTS_OF: tuple[tuple[int, ...], ...] = tuple(
    tuple(slots[card] for slots in FAMILY_SLOTS) for card in range(DECK_SIZE)
)
_SUBSETS_OF_SIZE: tuple[tuple[tuple[int, ...], ...], ...] = tuple(
    tuple(combinations(range(5), size)) for size in range(6)
)


def largest_distinct(first: Sequence[int], second: Sequence[int]) -> tuple[int, ...]:
    """The positions of a largest set of up to five whose values differ in both sequences."""
    count = len(first)
    seen_first = seen_second = 0
    for value in first:
        seen_first |= 1 << value
    for value in second:
        seen_second |= 1 << value
    bound = min(seen_first.bit_count(), seen_second.bit_count())
    if bound == count:
        return tuple(range(count))
    for size in range(bound, 0, -1):
        for subset in _SUBSETS_OF_SIZE[size]:
            if subset[-1] >= count:
                continue
            cover_first = cover_second = 0
            for position in subset:
                cover_first |= 1 << first[position]
                cover_second |= 1 << second[position]
            if cover_first.bit_count() == size and cover_second.bit_count() == size:
                return subset
    return ()
