"""Hints: when a player may ask for one, and the strong bot's advice kept once per position."""

from __future__ import annotations

from typing import Any, NamedTuple

from app.bots.decision import Decision
from app.engine.actions import action_to_dict
from app.engine.cards import card_ids
from app.engine.errors import IllegalAction
from app.engine.options import Step
from app.engine.round import Round
from app.rooms.state import RoomState, Status


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
    if state.status is not Status.PLAYING or match is None or match.round is None:
        raise IllegalAction("no_round", "no round is being played")
    current = match.round
    if current.turn != seat:
        raise IllegalAction("not_your_turn", "hints are for your own turn")
    key = Position(state.match_id, current.number, current.turns, current.step, current.pending)
    return seat, key, current


def advice(decision: Decision) -> dict[str, Any]:
    """A decision as the hint frame carries it."""
    return {
        "actions": [action_to_dict(action) for action in decision.actions],
        "aim": card_ids(decision.aim),
        "points": decision.points,
        "reason": decision.reason,
        "text": decision.hint,
    }


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
