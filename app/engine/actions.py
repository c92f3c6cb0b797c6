"""The three things a player can do on a turn, and their plain-data form for storage."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from app.engine.cards import CARD_IDS, Card, card_ids, parse_card
from app.engine.errors import IllegalAction

DISCARD_PILE = 4


@dataclass(frozen=True, slots=True)
class Take:
    """Take the top card of each listed pile: 0-3 the draw piles, 4 the discard pile."""

    seat: int
    piles: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Discard:
    """Discard cards face up; the last one becomes the top of the discard pile."""

    seat: int
    cards: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class Knock:
    """Knock instead of taking: every other player gets one more turn."""

    seat: int


Action = Take | Discard | Knock


def action_to_dict(action: Action) -> dict[str, Any]:
    """The action as JSON-ready data with public card ids."""
    if isinstance(action, Take):
        return {"type": "take", "seat": action.seat, "piles": list(action.piles)}
    if isinstance(action, Discard):
        return {
            "type": "discard",
            "seat": action.seat,
            "cards": [CARD_IDS[c] for c in action.cards],
        }
    return {"type": "knock", "seat": action.seat}


def action_from_dict(data: dict[str, Any]) -> Action:
    """The action described by ``action_to_dict``'s output."""
    kind, seat = data.get("type"), data.get("seat")
    if not isinstance(seat, int):
        raise IllegalAction("bad_action", "an action needs a seat number")
    if kind == "take":
        return Take(seat, tuple(data["piles"]))
    if kind == "discard":
        return Discard(seat, tuple(parse_card(card) for card in data["cards"]))
    if kind == "knock":
        return Knock(seat)
    raise IllegalAction("bad_action", f"unknown action {kind!r}")


def move_to_dict(action: Action, moved: Sequence[Card]) -> dict[str, Any]:
    """A move as a replay shows it: the action, and for a take the cards it took, top cards of
    the piles named, in order (every one was face up or became the taker's once the round is
    over: a finished round hides nothing)."""
    data = action_to_dict(action)
    if isinstance(action, Take):
        data["cards"] = card_ids(moved)
    return data
