"""A bot's decision: the actions that finish a turn, and the hand they aim for, in words."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from app.bots.observation import Observation
from app.bots.plans import Plan, plan_actions, points_of
from app.engine.actions import Action, Knock, Take
from app.engine.cards import CARD_IDS, Card
from app.engine.options import pile_name
from app.engine.scoring import best_split, score_hand


@dataclass(frozen=True, slots=True)
class Decision:
    """The actions that finish a seat's turn, and why: the hand it aims for and its points."""

    actions: tuple[Action, ...]
    took: tuple[Card, ...]
    keep: tuple[Card, ...]
    aim: tuple[Card, ...]
    points: int
    reason: str

    @property
    def hint(self) -> str:
        """The decision in one line, e.g. ``take 3-star-orange from draw pile 2, discard ...``."""
        return f"{self.move}: aiming for {describe_hand(self.aim)}; {self.reason}"

    @property
    def move(self) -> str:
        """The actions in words."""
        parts: list[str] = []
        for action in self.actions:
            if isinstance(action, Knock):
                parts.append("knock")
            elif isinstance(action, Take):
                taken = ", ".join(
                    f"{CARD_IDS[card]} from {pile_name(pile)}"
                    for card, pile in zip(self.took, action.piles, strict=True)
                )
                parts.append(f"take {taken}")
            else:
                parts.append(f"discard {', '.join(CARD_IDS[card] for card in action.cards)}")
        return ", ".join(parts)


def describe_hand(cards: Sequence[Card]) -> str:
    """A hand's scoring in words, e.g. ``2 complete · Duo · 10 points``."""
    if len(cards) == 10:
        split = best_split(cards)
        halves = " + ".join(_describe_five(hand.order) for hand in split.hands)
        return f"{halves} = {split.points} points"
    return _describe_five(cards)


def _describe_five(cards: Sequence[Card]) -> str:
    score = score_hand(cards)
    if score.sequence is None:
        return f"nothing complete · {score.points} points"
    return f"{len(score.complete)} complete · {score.sequence} · {score.points} points"


def plan_decision(
    observation: Observation, plan: Plan, aim: Sequence[Card], reason: str
) -> Decision:
    """A decision that carries out ``plan``, aiming for the hand ``aim``."""
    return Decision(
        actions=plan_actions(observation, plan),
        took=tuple(observation.tops_of(plan.piles)),
        keep=plan.keep,
        aim=tuple(aim),
        points=points_of(aim),
        reason=reason,
    )


def knock_decision(observation: Observation, aim: Sequence[Card], reason: str) -> Decision:
    """A knock, keeping the hand."""
    return Decision(
        actions=(Knock(observation.seat),),
        took=(),
        keep=observation.hand,
        aim=tuple(aim),
        points=points_of(aim),
        reason=reason,
    )
