"""Reading the match history: matches, players and the leaderboard."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import Select, and_, case, func, or_, select
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import selectinload

from app.storage.models import HandRecord, MatchRecord, RoundRecord, SeatRecord


@dataclass(frozen=True, slots=True)
class Cursor:
    """Where a page of matches ends: the last match's start and id."""

    started_at: datetime
    match_id: str


async def list_matches(
    session: AsyncSession, limit: int, player: str | None, after: Cursor | None
) -> tuple[list[MatchRecord], Cursor | None]:
    """Matches newest first, with their seats; and the cursor of the next page, if any."""
    query: Select[MatchRecord] = select(MatchRecord).options(selectinload(MatchRecord.seats))
    if player is not None:
        query = query.where(
            MatchRecord.id.in_(
                select(SeatRecord.match_id).where(SeatRecord.name_key == player.casefold())
            )
        )
    if after is not None:
        query = query.where(
            or_(
                MatchRecord.started_at < after.started_at,
                and_(MatchRecord.started_at == after.started_at, MatchRecord.id < after.match_id),
            )
        )
    query = query.order_by(MatchRecord.started_at.desc(), MatchRecord.id.desc()).limit(limit + 1)
    matches = list((await session.scalars(query)).all())
    if len(matches) <= limit:
        return matches, None
    last = matches[limit - 1]
    return matches[:limit], Cursor(last.started_at, last.id)


async def get_match(session: AsyncSession, match_id: str) -> MatchRecord | None:
    """One match with its seats, rounds and hands."""
    query = (
        select(MatchRecord)
        .where(MatchRecord.id == match_id)
        .options(
            selectinload(MatchRecord.seats),
            selectinload(MatchRecord.rounds).selectinload(RoundRecord.hands),
        )
    )
    return (await session.scalars(query)).first()


@dataclass(frozen=True, slots=True)
class PlayerTotals:
    """What a player's matches add up to."""

    name: str
    matches: int
    finished: int
    wins: int
    rounds: int
    points: int


@dataclass(frozen=True, slots=True)
class BestHand:
    """A player's best round."""

    points: int
    cards: list[str]
    scoring: dict[str, object]
    match_id: str
    round: int


def _player_rows() -> Select[str, str, int, int, int]:
    """Per name: a spelling, matches, finished matches and wins."""
    return select(
        SeatRecord.name_key,
        func.min(SeatRecord.name),
        func.count(),
        func.count(MatchRecord.ended_at),
        func.sum(case((SeatRecord.place == 1, 1), else_=0)),
    ).join(MatchRecord, MatchRecord.id == SeatRecord.match_id)


def _round_rows() -> Select[str, int, int]:
    """Per name: rounds played and points scored."""
    return (
        select(SeatRecord.name_key, func.count(), func.coalesce(func.sum(HandRecord.points), 0))
        .join(RoundRecord, RoundRecord.id == HandRecord.round_id)
        .join(
            SeatRecord,
            and_(SeatRecord.match_id == RoundRecord.match_id, SeatRecord.seat == HandRecord.seat),
        )
    )


async def player_totals(session: AsyncSession, name: str) -> PlayerTotals | None:
    """A player's matches, wins, rounds and points; None if the name never played."""
    key = name.casefold()
    row = (
        await session.execute(
            _player_rows().where(SeatRecord.name_key == key).group_by(SeatRecord.name_key)
        )
    ).first()
    if row is None:
        return None
    rounds = (
        await session.execute(
            _round_rows().where(SeatRecord.name_key == key).group_by(SeatRecord.name_key)
        )
    ).first()
    played, points = (rounds[1], rounds[2]) if rounds else (0, 0)
    return PlayerTotals(row[1], row[2], row[3], int(row[4] or 0), played, int(points))


async def best_hand(session: AsyncSession, name: str) -> BestHand | None:
    """A player's highest-scoring round (the earliest of equals)."""
    query = (
        select(
            HandRecord.points,
            HandRecord.cards,
            HandRecord.scoring,
            RoundRecord.match_id,
            RoundRecord.number,
        )
        .join(RoundRecord, RoundRecord.id == HandRecord.round_id)
        .join(
            SeatRecord,
            and_(SeatRecord.match_id == RoundRecord.match_id, SeatRecord.seat == HandRecord.seat),
        )
        .where(SeatRecord.name_key == name.casefold())
        .order_by(HandRecord.points.desc(), RoundRecord.ended_at, RoundRecord.id)
        .limit(1)
    )
    row = (await session.execute(query)).first()
    if row is None:
        return None
    return BestHand(row[0], list(row[1]), dict(row[2]), row[3], row[4])


async def leaderboard(session: AsyncSession, limit: int) -> list[PlayerTotals]:
    """Players by wins, then points per round, then matches played."""
    players = {
        row[0]: row
        for row in (await session.execute(_player_rows().group_by(SeatRecord.name_key))).all()
    }
    rounds = {
        row[0]: (row[1], int(row[2]))
        for row in (await session.execute(_round_rows().group_by(SeatRecord.name_key))).all()
    }
    totals = [
        PlayerTotals(row[1], row[2], row[3], int(row[4] or 0), *rounds.get(key, (0, 0)))
        for key, row in players.items()
    ]
    totals.sort(
        key=lambda player: (
            -player.wins,
            -(player.points / player.rounds if player.rounds else -1000),
            -player.matches,
            player.name,
        )
    )
    return totals[:limit]
