"""Hints: when a player may ask for one, the strong bot's advice in a player's words, kept once
per position."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

from app.bots.decision import Decision
from app.engine.actions import DISCARD_PILE, Discard, Knock, Take, action_to_dict
from app.engine.cards import CARD_IDS, Card, card_ids
from app.engine.errors import IllegalAction
from app.engine.options import Step
from app.engine.round import Round
from app.engine.scoring import HandScore, SplitScore, score_cards
from app.rooms.state import RoomState


class Position(NamedTuple):
    """A moment of a round at which one piece of advice holds."""

    match_id: str | None
    round: int
    turns: int
    step: Step
    pending: int


def position(state: RoomState, seat: int | None) -> tuple[int, Position, Round]:
    """The asker's seat, the position, and the round; raises IllegalAction if no hint is due."""
    match = state.match
    if not state.settings.hints:
        raise IllegalAction("hints_off", "the host has switched hints off")
    if seat is None:
        raise IllegalAction("not_a_player", "spectators cannot do that; join a seat first")
    state.check_round_in_play()
    if match is None or match.round is None:
        raise IllegalAction("no_round", "no round is being played")
    current = match.round
    if current.turn != seat:
        raise IllegalAction("not_your_turn", "hints are for your own turn")
    key = Position(state.match_id, current.number, current.turns, current.step, current.pending)
    return seat, key, current


def advice(decision: Decision) -> dict[str, Any]:
    """A decision as the hint frame carries it: the moves, the hand aimed for, and the advice
    in the words a player would use."""
    return {
        "actions": [action_to_dict(action) for action in decision.actions],
        "aim": card_ids(decision.aim),
        "points": decision.points,
        "text": advice_text(decision),
    }


ORDINALS = ("first", "second", "third", "fourth")
PROPERTY_WORDS = {"number": "numbers", "shape": "shapes", "colour": "colours"}
LOOK_OUT_FOR = 3  # cards named at most; the rest are counted


def card_words(card: Card) -> str:
    """A card as a player says it: ``the 3 orange star``."""
    number, shape, colour = CARD_IDS[card].split("-")
    return f"the {number} {colour} {shape}"


def pile_words(pile: int) -> str:
    """``the second pile``, or ``the discard pile``."""
    return "the discard pile" if pile == DISCARD_PILE else f"the {ORDINALS[pile]} pile"


def points_words(points: int) -> str:
    """``10 points``, ``1 point``, ``-5 points`` (with a real minus sign)."""
    shown = f"\N{MINUS SIGN}{-points}" if points < 0 else str(points)
    return f"{shown} point" if abs(points) == 1 else f"{shown} points"


def _and(words: Sequence[str]) -> str:
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} and {words[-1]}"


def hand_words(score: HandScore) -> str:
    """What a 5-card hand makes: ``all five numbers and colours, both in order (a Duo)``."""
    if not score.complete:
        return "nothing complete yet"
    what = f"all five {_and([PROPERTY_WORDS[prop] for prop in score.complete])}"
    runs, complete = len(score.sequenced), len(score.complete)
    if runs == 1:
        return f"{what} (a Mono)"
    order = (
        "all in order"
        if runs == complete == 3
        else "both in order"
        if runs == complete
        else "two of them in order"
    )
    return f"{what}, {order} (a {score.sequence})"


def score_words(cards: Sequence[Card]) -> str:
    """What a hand (5 cards, or the best split of 10) makes, with its points."""
    score = score_cards(cards)
    if isinstance(score, SplitScore):
        first, second = score.hands
        return (
            f"{points_words(score.points)}: {hand_words(first)} in one hand, "
            f"{points_words(first.points)}; {hand_words(second)} in the other, "
            f"{points_words(second.points)}"
        )
    return f"{hand_words(score)}, {points_words(score.points)}"


def move_words(decision: Decision) -> str:
    """The moves of a decision in words: ``Take the 3 orange star from the second pile, then
    discard the 5 red circle``."""
    parts: list[str] = []
    taken: tuple[Card, ...] = ()
    for action in decision.actions:
        if isinstance(action, Knock):
            parts.append("knock now")
        elif isinstance(action, Take):
            taken = decision.took
            parts.append(
                "take "
                + _and(
                    [
                        f"{card_words(card)} from {pile_words(pile)}"
                        for card, pile in zip(decision.took, action.piles, strict=True)
                    ]
                )
            )
        elif isinstance(action, Discard):
            if taken and tuple(action.cards) == taken:
                parts.append("discard it again" if len(taken) == 1 else "discard them again")
            else:
                parts.append("discard " + _and([card_words(card) for card in action.cards]))
    text = ", then ".join(parts)
    return text[:1].upper() + text[1:]


def advice_text(decision: Decision) -> str:
    """The whole advice: what to do, what it gives, and what to look out for next."""
    move = move_words(decision)
    if any(isinstance(action, Knock) for action in decision.actions):
        return (
            f"{move}: your hand makes {score_words(decision.keep)}, and the others get only"
            " one more turn each to beat it."
        )
    kept = score_cards(decision.keep).points
    gives = "that gives you" if kept >= 0 else "for now that leaves you with"
    text = f"{move}: {gives} {score_words(decision.keep)}."
    needed = [card for card in decision.aim if card not in decision.keep]
    if needed and decision.points > kept:
        named = [card_words(card) for card in needed[:LOOK_OUT_FOR]]
        if len(needed) > LOOK_OUT_FOR:
            named.append(f"{len(needed) - LOOK_OUT_FOR} more")
        looks = _and(named)
        alike = "a card like it" if len(needed) == 1 else "cards like them"
        text += (
            f" Then look out for {looks} (or {alike}): that would make"
            f" {points_words(decision.points)}."
        )
    return text


class HintCache:
    """The last advice given to each seat, with the position it holds for."""

    __slots__ = ("_given",)

    def __init__(self) -> None:
        self._given: dict[int, tuple[Position, dict[str, Any]]] = {}

    def get(self, seat: int, key: Position) -> dict[str, Any] | None:
        """The advice for ``seat`` at ``key``, if already worked out."""
        cached = self._given.get(seat)
        return cached[1] if cached is not None and cached[0] == key else None

    def put(self, seat: int, key: Position, given: dict[str, Any]) -> None:
        """Keep the advice for ``seat`` at ``key``."""
        self._given[seat] = (key, given)
