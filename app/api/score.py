"""The score calculator: the best score of 5 or 10 cards, also for physical TIC cards."""

from __future__ import annotations

from typing import Any, Literal

from fastapi import APIRouter
from pydantic import BaseModel, ConfigDict, Field

from app.api.errors import RATE_LIMITED, TOO_LARGE, invalid
from app.engine.cards import parse_cards
from app.engine.errors import IllegalAction
from app.engine.scoring import score_cards

router = APIRouter(prefix="/api", tags=["score"], responses=RATE_LIMITED)

Property = Literal["number", "shape", "colour"]


class ScoreRequest(BaseModel):
    """Five cards, or ten for the 10-card variant, by public id."""

    model_config = ConfigDict(extra="forbid")  # a field mistyped is said, not passed over

    cards: list[str] = Field(
        examples=[
            [
                "1-circle-violet",
                "2-crescent-cyan",
                "3-triangle-yellow",
                "4-square-orange",
                "5-star-red",
            ]
        ]
    )


class HandScoreOut(BaseModel):
    """The score of one 5-card hand."""

    points: int
    complete: list[Property] = Field(description="Properties showing all five values.")
    sequenced: list[Property] = Field(description="Properties that sequence together in `order`.")
    sequence: Literal["Mono", "Duo", "Tripo"] | None
    order: list[str] = Field(description="One card order that reaches the score.")


class SplitHandOut(HandScoreOut):
    """One of the two hands of a 10-card split, with its cards."""

    cards: list[str]


class SplitScoreOut(BaseModel):
    """The best split of ten cards into two scored hands."""

    points: int
    hands: list[SplitHandOut] = Field(min_length=2, max_length=2)


@router.post("/score", response_model=HandScoreOut | SplitScoreOut, responses=TOO_LARGE)
def score(request: ScoreRequest) -> dict[str, Any]:
    """Score 5 cards, or find the best split of 10."""
    try:
        cards = parse_cards(request.cards, (5, 10))
    except IllegalAction as error:
        raise invalid(("body", "cards"), error) from None
    return score_cards(cards).as_dict()
