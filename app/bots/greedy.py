"""The greedy move: whatever makes the best hand right now, without looking further ahead."""

from __future__ import annotations

from app.bots.observation import Observation, observe
from app.bots.plans import kept_cards, plan_actions, plan_for_keep
from app.engine.actions import Action
from app.engine.cards import Card
from app.engine.options import Step
from app.engine.round import Round


def greedy_keep(observation: Observation) -> tuple[int, tuple[Card, ...]]:
    """The best immediate points and a hand reaching them, over every way to end the turn."""
    options = observation.options
    variant = observation.variant
    if options.step is Step.DISCARD:
        points, mask = variant.best_keep(options.hand)
        return points, kept_cards(options.hand, mask)
    best: tuple[int, tuple[Card, ...]] | None = None
    for piles in options.takes():
        cards = [*options.hand, *observation.tops_of(piles)]
        points, mask = variant.best_keep(cards)
        if best is None or points > best[0]:
            best = (points, kept_cards(cards, mask))
    assert best is not None, "a turn always has a pile to take from"
    return best


def greedy_turn(current: Round, seat: int) -> list[Action]:
    """The actions that finish ``seat``'s turn with the best immediate hand (never a knock)."""
    observation = observe(current, seat)
    _, keep = greedy_keep(observation)
    return list(plan_actions(observation, plan_for_keep(observation, keep)))
