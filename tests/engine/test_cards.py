import pytest

from app.engine.cards import (
    CARD_IDS,
    DECK_SIZE,
    card_id,
    card_name,
    card_values,
    make_card,
    parse_card,
    parse_cards,
)
from app.engine.errors import IllegalAction


def test_the_deck_has_one_card_of_each_combination() -> None:
    assert DECK_SIZE == 125
    assert len(set(CARD_IDS)) == 125
    assert {card_values(card) for card in range(125)} == {
        (n, s, c) for n in range(5) for s in range(5) for c in range(5)
    }


def test_ids_round_trip() -> None:
    for card in range(125):
        assert parse_card(card_id(card)) == card
    assert card_id(make_card(3, 4, 3)) == "3-star-orange"
    assert card_name(parse_card("3-star-orange")) == "3, star, orange"


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("6-star-orange", "number must be one of 1, 2, 3, 4, 5"),
        ("3-hexagon-orange", "shape must be one of circle"),
        ("3-star-green", "colour must be one of violet"),
        ("3-Star-orange", "shape must be one of"),
        ("star", "number-shape-colour"),
        ("", "number-shape-colour"),
        (3, "number-shape-colour"),
        (None, "number-shape-colour"),
    ],
)
def test_unknown_ids_name_the_problem(text: object, fragment: str) -> None:
    with pytest.raises(IllegalAction, match=fragment) as raised:
        parse_card(text)
    assert raised.value.code == "unknown_card"


def test_parse_cards_checks_count_and_duplicates() -> None:
    with pytest.raises(IllegalAction, match="expected 5 or 10 cards, got 4") as raised:
        parse_cards(["1-circle-red"] * 4, (5, 10))
    assert raised.value.code == "wrong_count"
    with pytest.raises(IllegalAction, match="1-circle-red appears twice") as raised:
        parse_cards(
            ["1-circle-red", "2-circle-red", "3-circle-red", "4-circle-red", "1-circle-red"], (5,)
        )
    assert raised.value.code == "duplicate_card"
