"""The hand a seat aims for, to explain a decision: clarity matters more than speed here."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from app.bots.outlook import Outlook, Pattern, fill_chance
from app.bots.shapes import (
    FAMILIES,
    FAMILY_CARDS,
    FAMILY_SLOTS,
    PAIRS,
    TRIPOS,
    VALUES,
    largest_distinct,
)
from app.engine.cards import DECK_SIZE, Card
from app.engine.scoring import POINTS_TABLE, hand_points

MOST_POINTS = max(POINTS_TABLE.values())


def patterns(outlook: Outlook, hand: Sequence[Card]) -> Iterator[Pattern]:
    """Every pattern five cards could follow, with the cards it uses and still needs."""
    for prop in range(3):
        used = tuple({VALUES[card][prop]: card for card in reversed(hand)}.values())
        present = {VALUES[card][prop] for card in used}
        needed = tuple(
            tuple(card for card in range(DECK_SIZE) if VALUES[card][prop] == value)
            for value in range(5)
            if value not in present
        )
        yield _pattern(outlook, used, needed, (prop,))
    for first, second, _ in PAIRS:
        kept = largest_distinct(
            [VALUES[card][first] for card in hand], [VALUES[card][second] for card in hand]
        )
        used = tuple(hand[position] for position in kept)
        seen_first = {VALUES[card][first] for card in used}
        seen_second = {VALUES[card][second] for card in used}
        grid = tuple(
            card
            for card in range(DECK_SIZE)
            if VALUES[card][first] not in seen_first and VALUES[card][second] not in seen_second
        )
        yield _pattern(outlook, used, (grid,) * (5 - len(used)), (first, second))
    for family in range(len(FAMILIES)):
        by_slot = {FAMILY_SLOTS[family][card]: card for card in reversed(hand)}
        by_slot.pop(-1, None)
        needed = tuple(FAMILY_CARDS[family][slot] for slot in range(5) if slot not in by_slot)
        pair = (FAMILIES[family].first, FAMILIES[family].second)
        yield _pattern(outlook, tuple(by_slot.values()), needed, pair)
        yield outlook.third(family, hand)
    for tripo in TRIPOS:
        yield outlook.tripo(tripo, hand)


def _pattern(
    outlook: Outlook,
    used: tuple[Card, ...],
    needed: tuple[tuple[Card, ...], ...],
    complete: tuple[int, ...],
) -> Pattern:
    chance = 1.0
    for cards in needed:
        chance *= fill_chance(sum(outlook.chance_of(card, len(needed)) for card in cards))
    return Pattern(used, needed, chance, complete)


def aim(
    outlook: Outlook, hand: Sequence[Card], exclude: Sequence[Card] = ()
) -> tuple[tuple[Card, ...], float]:
    """The hand worth aiming for from five cards, and the chance of completing it in time.

    It is the pattern that adds the most points times its chance; its missing cards are the
    likeliest to come that fit, none of ``exclude``. The hand itself (chance 1) when nothing
    is worth more.
    """
    points = hand_points(hand)
    best: tuple[float, tuple[Card, ...], float] = (0.0, tuple(hand), 1.0)
    for pattern in patterns(outlook, hand):
        if pattern.chance * (MOST_POINTS - points) <= best[0] or not pattern.needed:
            continue
        target = _complete(outlook, pattern, [*hand, *exclude])
        if target is None:
            continue
        gain = (hand_points(target) - points) * pattern.chance
        if gain > best[0]:
            best = (gain, target, pattern.chance)
    return best[1], best[2]


def _complete(outlook: Outlook, pattern: Pattern, taken: Sequence[Card]) -> tuple[Card, ...] | None:
    """The pattern's cards plus, for each slot it needs, the likeliest card that fits.

    Fitting cards repeat no value of the properties the pattern completes.
    """
    chosen = list(pattern.used)
    for cards in pattern.needed:
        fitting = [
            card
            for card in cards
            if card not in taken
            and card not in chosen
            and all(
                VALUES[card][prop] != VALUES[other][prop]
                for prop in pattern.complete
                for other in chosen
            )
        ]
        if not fitting:
            return None
        chosen.append(max(fitting, key=lambda card: (outlook.chance_of(card, 1), -card)))
    return tuple(chosen) if len(chosen) == 5 else None
