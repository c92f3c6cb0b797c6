"""The 125-card TIC deck: card values, public ids and their parsing."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from app.engine.errors import IllegalAction

NUMBERS: tuple[str, ...] = ("1", "2", "3", "4", "5")
SHAPES: tuple[str, ...] = ("circle", "crescent", "triangle", "square", "star")
COLOURS: tuple[str, ...] = ("violet", "cyan", "yellow", "orange", "red")
PROPERTIES: tuple[str, ...] = ("number", "shape", "colour")
PROPERTY_VALUES: tuple[tuple[str, ...], ...] = (NUMBERS, SHAPES, COLOURS)

DECK_SIZE = 125

# A card is an int from 0 to 124: (number - 1) * 25 + shape * 5 + colour.
Card = int


def make_card(number: int, shape: int, colour: int) -> Card:
    """The card with a number from 1 to 5 and shape and colour indexes from 0 to 4."""
    return (number - 1) * 25 + shape * 5 + colour


def card_values(card: Card) -> tuple[int, int, int]:
    """The card's (number, shape, colour) as indexes from 0 to 4 along each progression."""
    return card // 25, card // 5 % 5, card % 5


CARD_IDS: tuple[str, ...] = tuple(
    f"{NUMBERS[n]}-{SHAPES[s]}-{COLOURS[c]}" for n in range(5) for s in range(5) for c in range(5)
)
_CARD_BY_ID: dict[str, Card] = {card_id: index for index, card_id in enumerate(CARD_IDS)}
FULL_DECK: tuple[Card, ...] = tuple(range(DECK_SIZE))


def card_id(card: Card) -> str:
    """The public id of a card, e.g. ``3-star-orange``."""
    return CARD_IDS[card]


def card_ids(cards: Iterable[Card]) -> list[str]:
    """The public ids of several cards, in order."""
    return [CARD_IDS[card] for card in cards]


def card_name(card: Card) -> str:
    """A spoken name for a card, e.g. ``3, star, orange``."""
    number, shape, colour = card_values(card)
    return f"{NUMBERS[number]}, {SHAPES[shape]}, {COLOURS[colour]}"


def parse_card(text: object) -> Card:
    """The card with public id ``text``; raises IllegalAction ``unknown_card`` naming the fault."""
    if isinstance(text, str):
        card = _CARD_BY_ID.get(text)
        if card is not None:
            return card
        parts = text.split("-")
        if len(parts) == 3:
            for part, name, values in zip(parts, PROPERTIES, PROPERTY_VALUES, strict=True):
                if part not in values:
                    raise IllegalAction(
                        "unknown_card",
                        f"unknown card '{text}': {name} must be one of {', '.join(values)}",
                    )
    raise IllegalAction(
        "unknown_card",
        f"unknown card {text!r}: a card id is number-shape-colour, e.g. 3-star-orange",
    )


def parse_cards(texts: Sequence[object], counts: Iterable[int]) -> list[Card]:
    """Distinct cards from their ids; the number of ids must be one of ``counts``."""
    allowed = sorted(set(counts))
    if len(texts) not in allowed:
        expected = " or ".join(str(count) for count in allowed)
        raise IllegalAction("wrong_count", f"expected {expected} cards, got {len(texts)}")
    cards = [parse_card(text) for text in texts]
    check_distinct(cards)
    return cards


def check_distinct(cards: Sequence[Card]) -> None:
    """Raise IllegalAction ``duplicate_card`` if a card appears twice."""
    if len(set(cards)) != len(cards):
        seen: set[Card] = set()
        for card in cards:
            if card in seen:
                raise IllegalAction("duplicate_card", f"card {CARD_IDS[card]} appears twice")
            seen.add(card)
