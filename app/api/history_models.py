"""The history's answers as pydantic models, and how a stored match becomes one."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, Field, TypeAdapter

from app.api.score import HandScoreOut, SplitScoreOut
from app.storage.models import MatchRecord

Score = HandScoreOut | SplitScoreOut
SCORE: TypeAdapter[Score] = TypeAdapter(Score)
Ending = Literal["knock", "exhausted"]
ENDING: TypeAdapter[Ending] = TypeAdapter(Ending)


class HistorySettings(BaseModel):
    """The settings a match was played under."""

    rounds: int
    multi_pickup: bool
    ten_card: bool
    turn_seconds: int
    max_players: int
    hints: bool = True


class SeatOut(BaseModel):
    """A seat of a match: the player's name, total so far and final place."""

    seat: int
    name: str
    total: int
    place: int | None = Field(description="Null until the match is finished.")


class MatchSummary(BaseModel):
    """A match as listed."""

    id: str
    room_code: str
    status: Literal["finished", "unfinished"]
    settings: HistorySettings
    rounds_planned: int
    rounds_played: int
    started_at: datetime
    ended_at: datetime | None
    players: list[SeatOut]
    winners: list[str] = Field(description="Names in first place once the match is finished.")


class MatchPage(BaseModel):
    """A page of matches, newest first."""

    matches: list[MatchSummary]
    next_cursor: str | None = Field(description="Pass as `cursor` for the next page.")


class HandOut(BaseModel):
    """A seat's final cards in a round, scored, with the running total after the round."""

    seat: int
    name: str
    cards: list[str]
    points: int
    total: int
    score: Score


class RoundOut(BaseModel):
    """A finished round with every hand revealed and the seed that dealt it."""

    number: int
    dealer: int
    knocker: int | None
    ending: Ending
    seed: str
    commitment: str
    ended_at: datetime
    hands: list[HandOut]


class MatchDetail(MatchSummary):
    """A match with every round and hand."""

    rounds: list[RoundOut]


class BestHandOut(BaseModel):
    """A player's best round."""

    points: int
    cards: list[str]
    score: Score
    match_id: str
    round: int


class PlayerOut(BaseModel):
    """What a player's matches add up to."""

    name: str
    matches: int
    finished_matches: int
    wins: int
    rounds: int
    average_points: float | None = Field(description="Points per round; null before any round.")
    best_hand: BestHandOut | None


class LeaderboardEntry(BaseModel):
    """A line of the leaderboard."""

    name: str
    matches: int
    wins: int
    rounds: int
    average_points: float | None


class Leaderboard(BaseModel):
    """Players by wins, then points per round, then matches played."""

    players: list[LeaderboardEntry]


def average(points: int, rounds: int) -> float | None:
    """Points per round, to two places; None before any round."""
    return round(points / rounds, 2) if rounds else None


def summary_fields(match: MatchRecord) -> dict[str, Any]:
    """The fields of a match's summary, as stored."""
    finished = match.ended_at is not None
    return {
        "id": match.id,
        "room_code": match.room_code,
        "status": "finished" if finished else "unfinished",
        "settings": HistorySettings.model_validate(match.settings),
        "rounds_planned": match.rounds_planned,
        "rounds_played": match.rounds_played,
        "started_at": match.started_at,
        "ended_at": match.ended_at,
        "players": [
            SeatOut(seat=seat.seat, name=seat.name, total=seat.total, place=seat.place)
            for seat in match.seats
        ],
        "winners": [seat.name for seat in match.seats if finished and seat.place == 1],
    }


def match_detail(match: MatchRecord) -> MatchDetail:
    """A stored match with every round and hand, as the API gives it."""
    names = {seat.seat: seat.name for seat in match.seats}
    return MatchDetail(
        **summary_fields(match),
        rounds=[
            RoundOut(
                number=played.number,
                dealer=played.dealer,
                knocker=played.knocker,
                ending=ENDING.validate_python(played.ending),
                seed=played.seed,
                commitment=played.commitment,
                ended_at=played.ended_at,
                hands=[
                    HandOut(
                        seat=hand.seat,
                        name=names.get(hand.seat, ""),
                        cards=hand.cards,
                        points=hand.points,
                        total=hand.total,
                        score=SCORE.validate_python(hand.scoring),
                    )
                    for hand in played.hands
                ],
            )
            for played in match.rounds
        ],
    )
