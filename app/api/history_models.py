"""The history's answers as pydantic models, and how a stored match becomes one."""

from __future__ import annotations

from collections.abc import Set
from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from app.api.score import HandScoreOut, SplitScoreOut
from app.storage.history import tag_of
from app.storage.models import MatchRecord, RoundRecord

Score = HandScoreOut | SplitScoreOut
SCORE: TypeAdapter[Score] = TypeAdapter(Score)
Ending = Literal["knock", "exhausted"]
ENDING: TypeAdapter[Ending] = TypeAdapter(Ending)
# The answers hold every field, those with a default too: the schema says they are required,
# so that a client made from it does not take them for fields that may be missing.
EVERY_FIELD_SENT = ConfigDict(json_schema_serialization_defaults_required=True)


class HistorySettings(BaseModel):
    """The settings a match was played under."""

    model_config = EVERY_FIELD_SENT

    rounds: int
    multi_pickup: bool
    ten_card: bool
    turn_seconds: int
    max_players: int
    hints: bool = True


class SeatOut(BaseModel):
    """A seat of a match: the player's name, total so far and final place."""

    model_config = EVERY_FIELD_SENT

    seat: int
    name: str
    total: int
    place: int | None = Field(description="Null until the match is finished.")
    bot: str | None = Field(
        default=None, description="The level of a computer player; null for a person."
    )
    tag: str | None = Field(
        default=None,
        description="Tells apart people of one name (see `/api/players/{name}`); null for a "
        "computer player or a person who joined without a player key.",
    )


class MatchSummary(BaseModel):
    """A match as listed."""

    id: str
    room_code: str | None = Field(
        description="The room the match was played in; null while that room is open, since its "
        "code lets anyone in to watch, or to join its next match."
    )
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


class MoveOut(BaseModel):
    """A move of a round: a take (the piles named, 0-3 the draw piles and 4 the discard pile,
    and the cards taken from their tops, in order), a discard (the cards, the last one left on
    top) or a knock."""

    model_config = EVERY_FIELD_SENT

    type: Literal["take", "discard", "knock"]
    seat: int
    piles: list[int] = Field(default_factory=list, description="Empty but for a take.")
    cards: list[str] = Field(default_factory=list, description="Empty for a knock.")


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
    moves: list[MoveOut] | None = Field(
        description="Every move of the round in order, for a replay; null for a round stored "
        "before moves were kept."
    )


class RoundMoves(BaseModel):
    """What a replay of one round needs besides the match: who dealt, the seed that dealt the
    deck (see docs/rules.md for rebuilding the deal from it) and every move."""

    match_id: str
    number: int
    players: int
    hand_size: int
    dealer: int
    seed: str
    commitment: str
    deck: list[str] = Field(
        description="The deck order the seed gives, top card first: the deal, for a client that "
        "cannot work it out (a browser offers SHA-256 on https pages only)."
    )
    moves: list[MoveOut]
    hands: list[HandOut] = Field(description="The hands as the round ended, for checking.")


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


class OtherPerson(BaseModel):
    """Someone else who played under the same name (with another player key, or none)."""

    tag: str | None
    matches: int


AveragePoints = Annotated[
    float | None,
    Field(
        description="Points per 5-card hand, to two places (a 10-card round scores two hands "
        "together and counts as two); null before any round."
    ),
]


class PlayerOut(BaseModel):
    """What one person's matches add up to: a name and a player key (names are not accounts,
    and a key is only what one browser kept; see docs/history.md)."""

    name: str
    tag: str | None = Field(
        description="Tells this person from others of the same name; null for the results "
        "of everyone who played under the name without a player key."
    )
    others: list[OtherPerson] = Field(description="Other people who played under this name.")
    matches: int
    finished_matches: int
    wins: int
    rounds: int
    average_points: AveragePoints
    best_hand: BestHandOut | None = Field(
        description="The highest-scoring round of 5-card hands; null before any."
    )
    best_ten_card_hand: BestHandOut | None = Field(
        description="The highest-scoring round of the 10-card variation (two 5-card hands, "
        "scored together, up to 50 points); null before any. Kept apart from `best_hand` "
        "(up to 25): two middling hands together would outscore a perfect one."
    )


class LeaderboardEntry(BaseModel):
    """A line of the leaderboard."""

    name: str
    tag: str | None = Field(description="As in `/api/players/{name}`.")
    matches: int
    wins: int
    rounds: int
    average_points: AveragePoints


class Leaderboard(BaseModel):
    """People (computer players are never ranked) by wins, then points per hand, then
    matches played: one line per name and player key."""

    players: list[LeaderboardEntry]
    total: int = Field(description="How many people the whole leaderboard ranks.")


def average(points: int, hands: int) -> float | None:
    """Points per hand, to two places; None before any hand."""
    return round(points / hands, 2) if hands else None


def summary_fields(match: MatchRecord, open_rooms: Set[str]) -> dict[str, Any]:
    """The fields of a match's summary, as stored; its room's code only if that room is not
    among ``open_rooms``."""
    finished = match.ended_at is not None
    return {
        "id": match.id,
        "room_code": None if match.room_code in open_rooms else match.room_code,
        "status": "finished" if finished else "unfinished",
        "settings": HistorySettings.model_validate(match.settings),
        "rounds_planned": match.rounds_planned,
        "rounds_played": match.rounds_played,
        "started_at": match.started_at,
        "ended_at": match.ended_at,
        "players": [
            SeatOut(
                seat=seat.seat,
                name=seat.name,
                total=seat.total,
                place=seat.place,
                bot=seat.bot,
                tag=tag_of(seat.name_key, seat.key_hash) if seat.bot is None else None,
            )
            for seat in match.seats
        ],
        "winners": [seat.name for seat in match.seats if finished and seat.place == 1],
    }


def hands_out(match: MatchRecord, played: RoundRecord) -> list[HandOut]:
    """A stored round's final hands, scored."""
    names = {seat.seat: seat.name for seat in match.seats}
    return [
        HandOut(
            seat=hand.seat,
            name=names.get(hand.seat, ""),
            cards=hand.cards,
            points=hand.points,
            total=hand.total,
            score=SCORE.validate_python(hand.scoring),
        )
        for hand in played.hands
    ]


def moves_out(played: RoundRecord) -> list[MoveOut] | None:
    """A stored round's moves; None if it was stored before moves were kept."""
    if played.moves is None:
        return None
    return [MoveOut.model_validate(move) for move in played.moves]


def match_detail(match: MatchRecord, open_rooms: Set[str]) -> MatchDetail:
    """A stored match with every round and hand, as the API gives it."""
    return MatchDetail(
        **summary_fields(match, open_rooms),
        rounds=[
            RoundOut(
                number=played.number,
                dealer=played.dealer,
                knocker=played.knocker,
                ending=ENDING.validate_python(played.ending),
                seed=played.seed,
                commitment=played.commitment,
                ended_at=played.ended_at,
                hands=hands_out(match, played),
                moves=moves_out(played),
            )
            for played in match.rounds
        ],
    )
