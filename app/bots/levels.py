"""The three bot levels and the entry point that finishes a seat's turn from its observation.

``decide`` is the entry point; ``observe`` (in app.bots.observation) builds its observation.
"""

from __future__ import annotations

import random
from enum import StrEnum

from app.bots.decision import Decision
from app.bots.observation import Observation, observe
from app.bots.simple import easy_decision, normal_decision
from app.bots.strong import strong_decision
from app.engine.errors import IllegalAction
from app.engine.round import Round

__all__ = ["Decision", "Level", "bot_turn", "decide", "decide_seeded"]


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


def decide_seeded(level: Level | str, observation: Observation, seed: int) -> Decision:
    """A bot's decision with its randomness drawn from ``seed``: what rooms run for bots and hints.

    A hint is ``decide_seeded(Level.STRONG, observation, 0)``: the same for the same position.
    """
    return decide(level, observation, random.Random(seed))
