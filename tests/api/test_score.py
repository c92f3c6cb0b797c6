import httpx
import pytest

from tests import fetch
from tests.server import Server

TRIPO = ["1-circle-violet", "2-crescent-cyan", "3-triangle-yellow", "4-square-orange", "5-star-red"]
DUO = ["1-star-red", "2-square-orange", "4-crescent-cyan", "5-circle-violet", "3-star-yellow"]


def post(server: Server, body: object) -> httpx.Response:
    return fetch.post(f"{server.url}/api/score", json=body)


def test_five_cards(server: Server) -> None:
    response = post(server, {"cards": list(reversed(TRIPO))})
    assert response.status_code == 200
    assert response.json() == {
        "points": 25,
        "complete": ["number", "shape", "colour"],
        "sequenced": ["number", "shape", "colour"],
        "sequence": "Tripo",
        "order": TRIPO,
    }


def test_ten_cards(server: Server) -> None:
    response = post(server, {"cards": DUO + TRIPO})
    assert response.status_code == 200
    body = response.json()
    assert body["points"] == 35
    first, second = body["hands"]
    # Two splits reach 35 (either Tripo with the other five as a Duo); any best one will do.
    assert (first["points"], first["sequence"]) == (25, "Tripo")
    assert (second["points"], second["sequence"]) == (10, "Duo")
    assert sorted(first["cards"] + second["cards"]) == sorted(DUO + TRIPO)


@pytest.mark.parametrize(
    ("cards", "kind", "message"),
    [
        (TRIPO[:4], "wrong_count", "expected 5 or 10 cards, got 4"),
        (TRIPO + TRIPO[:1], "wrong_count", "expected 5 or 10 cards, got 6"),
        ([], "wrong_count", "expected 5 or 10 cards, got 0"),
        (TRIPO[:4] + TRIPO[:1], "duplicate_card", "card 1-circle-violet appears twice"),
        ([*TRIPO[:4], "5-star-pink"], "unknown_card", "colour must be one of"),
        ([*TRIPO[:4], "five"], "unknown_card", "number-shape-colour"),
    ],
)
def test_bad_cards_get_422_naming_the_problem(
    server: Server, cards: list[str], kind: str, message: str
) -> None:
    response = post(server, {"cards": cards})
    assert response.status_code == 422
    (error,) = response.json()["detail"]
    assert error["type"] == kind
    assert message in error["msg"]
    assert error["loc"] == ["body", "cards"]


@pytest.mark.parametrize("body", [{}, {"cards": "1-circle-violet"}, {"cards": [1, 2, 3, 4, 5]}, []])
def test_malformed_bodies_get_422(server: Server, body: object) -> None:
    assert post(server, body).status_code == 422


def test_a_field_the_calculator_does_not_take_is_refused_by_name(server: Server) -> None:
    """{"cards": [...], "variant": ...} was scored as if the variant had been read."""
    cards = [
        "1-circle-violet",
        "2-crescent-cyan",
        "3-triangle-yellow",
        "4-circle-red",
        "5-star-red",
    ]
    assert post(server, {"cards": cards}).status_code == 200
    response = post(server, {"cards": cards, "ten_card": True})
    assert response.status_code == 422
    (error,) = response.json()["detail"]
    assert (error["type"], error["loc"]) == ("extra_forbidden", ["body", "ten_card"])


def test_oversized_bodies_get_413(server: Server) -> None:
    response = post(server, {"cards": ["1-circle-violet"] * 10_000})
    assert response.status_code == 413
    # A refusal of the API like any other: its code, as a WebSocket's message too large.
    said = {"detail": "request body larger than 65536 bytes", "code": "too_large"}
    assert response.json() == said
    streamed = fetch.post(
        f"{server.url}/api/score",
        content=iter([b'{"cards": [' + b'"1-circle-violet",' * 5000 + b'"x"]}']),
        headers={"content-type": "application/json"},
    )
    assert streamed.status_code == 413
    assert streamed.json() == said
