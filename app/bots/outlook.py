"""What a 5-card hand may still become: the chance of each scoring pattern before the round ends.

A scoring hand follows a pattern made of slots, each filled by any card of a small set: one
complete property needs each missing value (25 cards each), two complete properties need a card
for each missing pair of values, a Duo needs the cards where two properties agree (5 cards per
slot), a Tripo needs five exact cards. The outlook knows how often each card should be offered to
the seat on its coming turns, and so the chance to fill each slot in time; a hand's worth is its
points now plus the chance of reaching each better score times the points it would add.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from app.bots.shapes import (
    FAMILIES,
    FAMILY_CARDS,
    FAMILY_SLOTS,
    PAIRS,
    SLOTS_OF,
    TRIPOS,
    VALUES,
    largest_distinct,
)
from app.engine.cards import DECK_SIZE, Card
from app.engine.scoring import hand_points

LADDER: tuple[int, ...] = (-5, 2, 5, 10, 15, 25)
# A Duo's third property is worth checking only when the Duo itself is this likely.
THIRD_WORTH_CHECKING = 0.02
# A Tripo still missing this many exact cards is left out of a hand's worth.
TRIPO_TOO_FAR = 4


def fill_chance(chances: float) -> float:
    """The chance of at least one success when ``chances`` are expected."""
    return 1.0 - math.exp(-chances) if chances > 0 else 0.0


def _all_filled(held: int, rates: Sequence[tuple[float, float]], turns: float) -> float:
    """The chance that each of five slots not in the bit mask ``held`` is filled in ``turns``,
    given each slot's (rate per turn, chance at once)."""
    chance = 1.0
    for slot in range(5):
        if not held >> slot & 1:
            rate, lump = rates[slot]
            chance *= fill_chance(rate * turns + lump)
    return chance


def _grid_chance(total: float, missing: int) -> float:
    """The chance to fill ``missing`` slots from a missing-by-missing grid worth ``total``."""
    chance = 1.0
    for left in range(missing, 0, -1):
        chance *= fill_chance(total * left * left / (missing * missing))
    return chance


def _mask(values: Iterable[int]) -> int:
    mask = 0
    for value in values:
        mask |= 1 << value
    return mask


@dataclass(frozen=True, slots=True)
class Pattern:
    """A way to score: the cards of a hand it uses, the cards it still needs, the chance."""

    used: tuple[Card, ...]
    needed: tuple[tuple[Card, ...], ...]
    chance: float
    complete: tuple[int, ...] = ()


class Outlook:
    """How likely each card is to be offered to one seat before the round ends."""

    def __init__(
        self, rate: Sequence[float], lump: Sequence[float], turns: float, one_per_turn: bool
    ) -> None:
        """``rate``: chance per turn that a card is offered; ``lump``: a one-off chance.

        ``turns`` is the expected number of turns left; ``one_per_turn`` says whether a turn
        takes a single card (then the first of n missing cards must come n - 1 turns early).
        """
        self.rate = tuple(rate)
        self.lump = tuple(lump)
        self.turns = turns
        self.one_per_turn = one_per_turn
        by_value = [[[0.0, 0.0] for _ in range(5)] for _ in range(3)]
        by_pair = [[[0.0, 0.0] for _ in range(25)] for _ in PAIRS]
        for card in range(DECK_SIZE):
            values = VALUES[card]
            for prop in range(3):
                entry = by_value[prop][values[prop]]
                entry[0] += rate[card]
                entry[1] += lump[card]
            for index, (first, second, _) in enumerate(PAIRS):
                entry = by_pair[index][values[first] * 5 + values[second]]
                entry[0] += rate[card]
                entry[1] += lump[card]
        self.by_value = tuple(tuple((r, s) for r, s in prop) for prop in by_value)
        self.by_pair = tuple(tuple((r, s) for r, s in pair) for pair in by_pair)
        self.by_slot = tuple(
            tuple(
                (sum(rate[card] for card in cards), sum(lump[card] for card in cards))
                for cards in family
            )
            for family in FAMILY_CARDS
        )
        self.turns_for = tuple(
            max(0.0, turns - (missing - 1)) if one_per_turn else turns for missing in range(6)
        )

    def chance_of(self, card: Card, missing: int) -> float:
        """Expected offers of ``card`` while ``missing`` cards are still needed."""
        return self.rate[card] * self.turns_for[missing] + self.lump[card]

    def worth(self, hand: Sequence[Card]) -> float:
        """Expected points of five cards at the end of the round, kept and improved."""
        points = hand_points(hand)
        if self.turns <= 0 or points >= LADDER[-1]:
            return float(points)
        reach = self.reach(hand)
        worth = float(LADDER[0])
        for index in range(1, len(LADDER)):
            chance = 1.0 if points >= LADDER[index] else reach[index]
            worth += (LADDER[index] - LADDER[index - 1]) * chance
        return worth

    def reach(self, hand: Sequence[Card]) -> list[float]:
        """For each step of the ladder, the chance of a pattern worth at least that much."""
        values = [VALUES[card] for card in hand]
        columns = [[v[prop] for v in values] for prop in range(3)]
        turns_for = self.turns_for
        reach = [1.0, 0.0, 0.0, 0.0, 0.0, 0.0]
        # One complete property.
        for prop in range(3):
            seen = _mask(columns[prop])
            chance = _all_filled(seen, self.by_value[prop], turns_for[5 - seen.bit_count()])
            reach[1] = max(reach[1], chance)
        # Two complete properties.
        for index, (first, second, _) in enumerate(PAIRS):
            kept = largest_distinct(columns[first], columns[second])
            missing = 5 - len(kept)
            if missing == 0:
                reach[2] = 1.0
                break
            seen_first = _mask(columns[first][position] for position in kept)
            seen_second = _mask(columns[second][position] for position in kept)
            grid = self.by_pair[index]
            turns = turns_for[missing]
            total = 0.0
            for a in range(5):
                if not seen_first >> a & 1:
                    for b in range(5):
                        if not seen_second >> b & 1:
                            rate, lump = grid[a * 5 + b]
                            total += rate * turns + lump
            reach[2] = max(reach[2], _grid_chance(total, missing))
        # Duos, and Duos with the third property complete too.
        covers = [0] * len(FAMILIES)
        for card in hand:
            for family, slot in enumerate(SLOTS_OF[card]):
                if slot >= 0:
                    covers[family] |= 1 << slot
        for family, covered in enumerate(covers):
            chance = _all_filled(covered, self.by_slot[family], turns_for[5 - covered.bit_count()])
            reach[3] = max(reach[3], chance)
            if chance > THIRD_WORTH_CHECKING:
                reach[4] = max(reach[4], self._third_chance(family, hand))
        # Tripos; one that needs four or five exact cards is too unlikely to count.
        rates, lumps = self.rate, self.lump
        for tripo in TRIPOS:
            missing_cards = [card for card in tripo if card not in hand]
            if len(missing_cards) >= TRIPO_TOO_FAR:
                continue
            turns = turns_for[len(missing_cards)]
            chance = 1.0
            for card in missing_cards:
                chance *= fill_chance(rates[card] * turns + lumps[card])
            reach[5] = max(reach[5], chance)
        for index in range(len(reach) - 2, 0, -1):
            reach[index] = max(reach[index], reach[index + 1])
        return reach

    def _third_chance(self, family: int, hand: Sequence[Card]) -> float:
        """``third(family, hand).chance``, without building the pattern."""
        slot_of = FAMILY_SLOTS[family]
        third = FAMILIES[family].third
        slots: list[int] = []
        thirds: list[int] = []
        for card in hand:
            slot = slot_of[card]
            if slot >= 0:
                slots.append(slot)
                thirds.append(VALUES[card][third])
        kept = largest_distinct(slots, thirds)
        missing = 5 - len(kept)
        if missing == 0:
            return 1.0
        seen_slots = _mask(slots[position] for position in kept)
        seen_third = _mask(thirds[position] for position in kept)
        cards = FAMILY_CARDS[family]
        turns = self.turns_for[missing]
        rate, lump = self.rate, self.lump
        total = 0.0
        for slot in range(5):
            if not seen_slots >> slot & 1:
                row = cards[slot]
                for value in range(5):
                    if not seen_third >> value & 1:
                        card = row[value]
                        total += rate[card] * turns + lump[card]
        return _grid_chance(total, missing)

    def third(self, family: int, hand: Sequence[Card]) -> Pattern:
        """The Duo of ``family`` with its third property complete too (15 points or more)."""
        third = FAMILIES[family].third
        fitting = [card for card in hand if FAMILY_SLOTS[family][card] >= 0]
        slots = [FAMILY_SLOTS[family][card] for card in fitting]
        thirds = [VALUES[card][third] for card in fitting]
        kept = largest_distinct(slots, thirds)
        missing = 5 - len(kept)
        used = tuple(fitting[position] for position in kept)
        seen_slots = _mask(slots[position] for position in kept)
        seen_third = _mask(thirds[position] for position in kept)
        cards = FAMILY_CARDS[family]
        grid = tuple(
            cards[slot][value]
            for slot in range(5)
            if not seen_slots >> slot & 1
            for value in range(5)
            if not seen_third >> value & 1
        )
        complete = (FAMILIES[family].first, FAMILIES[family].second, third)
        if missing == 0:
            return Pattern(used, (), 1.0, complete)
        total = sum(self.chance_of(card, missing) for card in grid)
        return Pattern(used, (grid,) * missing, _grid_chance(total, missing), complete)

    def tripo(self, tripo: Sequence[Card], hand: Sequence[Card]) -> Pattern:
        """The Tripo made of the five cards ``tripo``."""
        used = tuple(card for card in tripo if card in hand)
        needed = tuple((card,) for card in tripo if card not in hand)
        chance = 1.0
        for (card,) in needed:
            chance *= fill_chance(self.chance_of(card, len(needed)))
        return Pattern(used, needed, chance, (0, 1, 2))
