"""Computer players: three levels that finish a seat's turn from its observation alone.

``decide`` is the entry point; ``observe`` (in app.engine.observation) builds its observation.
"""

from __future__ import annotations

import random
from enum import StrEnum

from app.engine.decision import Decision
from app.engine.errors import IllegalAction
from app.engine.observation import Observation, observe
from app.engine.round import Round
from app.engine.simple_bots import easy_decision, normal_decision
from app.engine.strong import strong_decision

__all__ = ["Decision", "Level", "bot_turn", "decide", "hint"]


class Level(StrEnum):
    """How well a bot plays."""

    EASY = "easy"
    NORMAL = "normal"
    STRONG = "strong"


def decide(level: Level | str, observation: Observation, rng: random.Random) -> Decision:
    """The decision of a bot of ``level`` for the observing seat, whose turn it must be."""
    if observation.ended:
        raise IllegalAction("round_over", "the round is over")
    if observation.turn != observation.seat:
        raise IllegalAction("not_your_turn", f"it is seat {observation.turn}'s turn")
    chosen = Level(level)
    if chosen is Level.EASY:
        return easy_decision(observation, rng)
    if chosen is Level.NORMAL:
        return normal_decision(observation, rng)
    return strong_decision(observation, rng)


def bot_turn(current: Round, seat: int, level: Level | str, rng: random.Random) -> Decision:
    """The decision of a bot of ``level`` sitting at ``seat`` in ``current``."""
    return decide(level, observe(current, seat), rng)


def hint(current: Round, seat: int) -> Decision:
    """The strong bot's advice for ``seat``; the same for the same position."""
    return decide(Level.STRONG, observe(current, seat), random.Random(0))
