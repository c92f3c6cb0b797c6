"""Reading the match history: matches, players and the leaderboard."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import time
from dataclasses import dataclass

from sqlalchemy import ColumnElement, Select, and_, case, func, select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker
from sqlalchemy.orm import selectinload

from app.storage.models import HandRecord, LiveRoomRecord, MatchRecord, RoundRecord, SeatRecord


@dataclass(frozen=True, slots=True)
class Cursor:
    """Where a page of matches ends: the last match's place in the list."""

    listed: int


async def list_matches(
    session: AsyncSession,
    limit: int,
    player: str | None,
    after: Cursor | None,
    tag: str | None = None,
) -> tuple[list[MatchRecord], Cursor | None]:
    """Matches newest first (the last listed first: a match is listed when its first round is
    stored, so the list only grows at its top and a page's cursor stays good), with their seats;
    and the cursor of the next page, if any. With a ``player``, only their matches: of everyone
    of that name, or with a ``tag`` of one of them ("" for those who played without a player
    key)."""
    query: Select[MatchRecord] = select(MatchRecord).options(selectinload(MatchRecord.seats))
    if player is not None:
        seats = select(SeatRecord.match_id).where(
            SeatRecord.name_key == player.casefold(), SeatRecord.bot.is_(None)
        )
        if tag is not None:
            found = await _person(session, player.casefold(), tag)
            if found is None:
                return [], None
            seats = seats.where(_keyed(found.key_hash))
        query = query.where(MatchRecord.id.in_(seats))
    query = query.where(MatchRecord.listed.is_not(None))  # none is without its place
    if after is not None:
        query = query.where(MatchRecord.listed < after.listed)
    query = query.order_by(MatchRecord.listed.desc()).limit(limit + 1)
    matches = list((await session.scalars(query)).all())
    if len(matches) <= limit:
        return matches, None
    last = matches[limit - 1].listed
    assert last is not None  # every match stored has its place
    return matches[:limit], Cursor(last)


async def open_rooms(session: AsyncSession, codes: set[str]) -> set[str]:
    """Those of ``codes`` that are codes of rooms open now (on any node)."""
    if not codes:
        return set()
    found = await session.scalars(
        select(LiveRoomRecord.code).where(LiveRoomRecord.code.in_(sorted(codes)))
    )
    return set(found.all())


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


def tag_of(name_key: str, key_hash: str | None) -> str | None:
    """The public tag of one person of a name: 12 hex characters derived from the name and
    their key's hash (so one key used under two names is not linked by it); None without a key."""
    if not key_hash:
        return None
    return hashlib.sha256(f"{name_key}\n{key_hash}".encode()).hexdigest()[:12]


@dataclass(frozen=True, slots=True)
class Person:
    """One person of a name, as far as the history can tell: the name and a player key's hash
    (None for everyone who played under that name without a key)."""

    name_key: str
    key_hash: str | None

    @property
    def tag(self) -> str | None:
        return tag_of(self.name_key, self.key_hash)


def _keyed(key_hash: str | None) -> ColumnElement[bool]:
    if key_hash is None:
        return SeatRecord.key_hash.is_(None)
    return SeatRecord.key_hash == key_hash


async def people_named(session: AsyncSession, name: str) -> list[tuple[Person, int]]:
    """Everyone who played under ``name`` (people only), with their number of matches, most
    matches first."""
    key = name.casefold()
    rows = await session.execute(
        select(SeatRecord.key_hash, func.count())
        .where(SeatRecord.name_key == key, SeatRecord.bot.is_(None))
        .group_by(SeatRecord.key_hash)
    )
    people = [(Person(key, key_hash), count) for key_hash, count in rows.all()]
    people.sort(key=lambda entry: (-entry[1], entry[0].key_hash is not None, entry[0].tag or ""))
    return people


async def _person(session: AsyncSession, name_key: str, tag: str) -> Person | None:
    for person, _ in await people_named(session, name_key):
        if (person.tag or "") == tag:
            return person
    return None


async def find_person(session: AsyncSession, name: str, tag: str | None) -> Person | None:
    """The person of ``name`` with ``tag`` ("" for those without a key); without a tag, the one
    of that name with the most matches. None if there is none."""
    if tag is not None:
        return await _person(session, name.casefold(), tag)
    people = await people_named(session, name)
    return people[0][0] if people else None


@dataclass(frozen=True, slots=True)
class PlayerTotals:
    """What a person's matches add up to."""

    name: str
    tag: str | None
    matches: int
    finished: int
    wins: int
    rounds: int
    points: int
    hands: int  # 5-card hands: a 10-card round's two hands count as two


@dataclass(frozen=True, slots=True)
class BestHand:
    """A player's best round."""

    points: int
    cards: list[str]
    scoring: dict[str, object]
    match_id: str
    round: int


def _player_rows() -> Select[str, str | None, int, int, int]:
    """Per person (people only): matches, finished matches and wins."""
    return (
        select(
            SeatRecord.name_key,
            SeatRecord.key_hash,
            func.count(),
            func.count(MatchRecord.ended_at),
            func.sum(case((SeatRecord.place == 1, 1), else_=0)),
        )
        .join(MatchRecord, MatchRecord.id == SeatRecord.match_id)
        .where(SeatRecord.bot.is_(None))
        .group_by(SeatRecord.name_key, SeatRecord.key_hash)
    )


async def _spellings(
    session: AsyncSession, *where: ColumnElement[bool]
) -> dict[tuple[str, str | None], str]:
    """Per person (people only), the spelling of their name they played under most often (of
    equals, the first in code point order): chosen here, not by the database, whose collation
    would order "Ann" and "ANN" its own way."""
    rows = await session.execute(
        select(SeatRecord.name_key, SeatRecord.key_hash, SeatRecord.name, func.count())
        .where(SeatRecord.bot.is_(None), *where)
        .group_by(SeatRecord.name_key, SeatRecord.key_hash, SeatRecord.name)
    )
    chosen: dict[tuple[str, str | None], tuple[int, str]] = {}
    for name_key, key_hash, name, count in rows.all():
        best = chosen.get((name_key, key_hash))
        if best is None or (-count, name) < (-best[0], best[1]):
            chosen[(name_key, key_hash)] = (count, name)
    return {person: name for person, (_, name) in chosen.items()}


def _round_rows() -> Select[str, str | None, int, int, int]:
    """Per person (people only): rounds played, points scored and 5-card hands scored (a
    10-card round scores two hands together)."""
    return (
        select(
            SeatRecord.name_key,
            SeatRecord.key_hash,
            func.count(),
            func.coalesce(func.sum(HandRecord.points), 0),
            func.coalesce(
                func.sum(case((func.json_array_length(HandRecord.cards) >= 10, 2), else_=1)), 0
            ),
        )
        .join(RoundRecord, RoundRecord.id == HandRecord.round_id)
        .join(
            SeatRecord,
            and_(SeatRecord.match_id == RoundRecord.match_id, SeatRecord.seat == HandRecord.seat),
        )
        .where(SeatRecord.bot.is_(None))
        .group_by(SeatRecord.name_key, SeatRecord.key_hash)
    )


def _of(person: Person) -> tuple[ColumnElement[bool], ...]:
    """A person's own seats: of their name and key, and never a computer player's, which may
    bear a name a person without a key played under too."""
    return SeatRecord.name_key == person.name_key, _keyed(person.key_hash), SeatRecord.bot.is_(None)


async def player_totals(session: AsyncSession, person: Person) -> PlayerTotals | None:
    """A person's matches, wins, rounds and points; None if they never played."""
    row = (await session.execute(_player_rows().where(*_of(person)))).first()
    if row is None:
        return None
    rounds = (await session.execute(_round_rows().where(*_of(person)))).first()
    played, points, hands = (rounds[2], rounds[3], rounds[4]) if rounds else (0, 0, 0)
    [name] = (await _spellings(session, *_of(person))).values()
    return PlayerTotals(
        name, person.tag, row[2], row[3], int(row[4] or 0), played, int(points), int(hands)
    )


async def best_hand(session: AsyncSession, person: Person, cards: int) -> BestHand | None:
    """A person's highest-scoring round of ``cards``-card hands (the earliest of equals). A
    10-card round scores two hands together, so it is never weighed against a 5-card one."""
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
        .where(*_of(person), func.json_array_length(HandRecord.cards) == cards)
        .order_by(HandRecord.points.desc(), RoundRecord.ended_at, RoundRecord.id)
        .limit(1)
    )
    row = (await session.execute(query)).first()
    if row is None:
        return None
    return BestHand(row[0], list(row[1]), dict(row[2]), row[3], row[4])


async def leaderboard(session: AsyncSession, limit: int | None = None) -> list[PlayerTotals]:
    """People (never computer players) by wins, then points per hand, then matches played;
    one line per name and player key, so two people of one name are two lines. The first
    ``limit``, or everyone."""
    players = {(row[0], row[1]): row for row in (await session.execute(_player_rows())).all()}
    names = await _spellings(session)
    rounds = {
        (row[0], row[1]): (row[2], int(row[3]), int(row[4]))
        for row in (await session.execute(_round_rows())).all()
    }
    totals = [
        PlayerTotals(
            names[key], tag_of(*key), row[2], row[3], int(row[4] or 0), *rounds.get(key, (0, 0, 0))
        )
        for key, row in players.items()
    ]
    totals.sort(
        key=lambda player: (
            -player.wins,
            -(player.points / player.hands if player.hands else -1000),
            -player.matches,
            player.name,
            player.tag or "",
        )
    )
    return totals[:limit]


class Leaderboards:
    """The whole leaderboard, worked out at most once for every finished round this server
    saves, and at most every ``seconds`` (what other nodes of a cluster save is seen by then).

    It reads every seat and hand ever stored: 0.4 s for 10,000 matches. Worked out for each
    request, a page everyone opens, and anyone can ask for twenty times a second, would let one
    client keep the server busy. Requests that come while it is being worked out wait for that
    one reading."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.board: list[PlayerTotals] | None = None
        self.read_at = 0.0
        self.version = -1
        self.reading: asyncio.Future[list[PlayerTotals]] | None = None
        self.reading_version = -1

    async def get(
        self, sessions: async_sessionmaker[AsyncSession], version: int
    ) -> list[PlayerTotals]:
        """The leaderboard; ``version`` counts the finished rounds saved here (a new one means
        the board may have changed). A reading begun before the last of them was saved may
        have missed it: it is waited for, then the board read again."""
        while True:
            fresh = time.monotonic() - self.read_at < self.seconds
            if self.board is not None and self.version >= version and fresh:
                return self.board
            reading = self.reading
            if reading is None:
                self.reading = asyncio.ensure_future(self._read(sessions, version))
                self.reading_version = version
                return await asyncio.shield(self.reading)
            if self.reading_version >= version:
                return await asyncio.shield(reading)
            with contextlib.suppress(Exception):  # its failure is its own requests'
                await asyncio.shield(reading)

    async def _read(
        self, sessions: async_sessionmaker[AsyncSession], version: int
    ) -> list[PlayerTotals]:
        try:
            read_at = time.monotonic()
            async with sessions() as session:
                board = await leaderboard(session)
            self.board, self.read_at, self.version = board, read_at, version
            return board
        finally:
            self.reading = None
