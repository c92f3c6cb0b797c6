"""The journal's SQL, built from the tables in ``models.py`` and compiled once for a database.

A batch becomes a plan: (statement, rows) in order, consecutive rows of one statement merged so
that the driver runs them as one ``executemany``. Statements are compiled to the driver's own
SQL and parameter order at construction, and rows pass through the columns' own conversions
(JSON to text, timestamps as the database takes them), so the hot path never compiles anything.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from operator import call, itemgetter
from typing import TYPE_CHECKING, Any, cast

from sqlalchemy import (
    JSON,
    BigInteger,
    BindParameter,
    Column,
    Integer,
    Table,
    bindparam,
    delete,
    func,
    inspect,
    literal_column,
    select,
    text,
    update,
)
from sqlalchemy.engine import Dialect
from sqlalchemy.ext.asyncio import AsyncEngine
from sqlalchemy.sql.compiler import SQLCompiler
from sqlalchemy.sql.expression import ClauseElement
from sqlalchemy.types import TypeEngine

from app.engine.cards import card_ids
from app.rooms.store import FinishedRound
from app.storage.db import json_text
from app.storage.journal import (
    Events,
    Fence,
    Forget,
    JournalRoom,
    NewRoom,
    Op,
    Rewrite,
    Snapshot,
)
from app.storage.models import (
    Base,
    HandRecord,
    LiveEventRecord,
    LiveRoomRecord,
    LiveSnapshotRecord,
    MatchRecord,
    RoundRecord,
    SeatRecord,
)

ROOMS = Base.metadata.tables[LiveRoomRecord.__tablename__]
EVENTS = Base.metadata.tables[LiveEventRecord.__tablename__]
SNAPSHOTS = Base.metadata.tables[LiveSnapshotRecord.__tablename__]
MATCHES = Base.metadata.tables[MatchRecord.__tablename__]
SEATS = Base.metadata.tables[SeatRecord.__tablename__]
ROUNDS = Base.metadata.tables[RoundRecord.__tablename__]
HANDS = Base.metadata.tables[HandRecord.__tablename__]
if TYPE_CHECKING:
    from sqlalchemy.dialects import postgresql, sqlite


def insert_for(dialect: str) -> Callable[[Table], sqlite.Insert | postgresql.Insert]:
    """The dialect's INSERT, which can skip a taken key; only the dialect in use is imported."""
    if dialect == "sqlite":
        from sqlalchemy.dialects import sqlite

        return sqlite.insert
    if dialect == "postgresql":
        from sqlalchemy.dialects import postgresql

        return postgresql.insert
    raise KeyError(dialect)


Row = tuple[Any, ...]


class Statement:
    """A statement compiled for one database; ``rows`` give values in ``names``' order."""

    def __init__(self, statement: ClauseElement, names: Sequence[str], dialect: Dialect) -> None:
        compiled = cast(SQLCompiler, statement.compile(dialect=dialect))
        self.sql = str(compiled)
        order = compiled.positiontup or []
        positions = [names.index(name) for name in order]
        self._converters = [_converter(compiled.binds[name].type, dialect) for name in order]
        self._in_order = positions == list(range(len(names)))
        self._pick: Callable[[Row], Row] = (
            itemgetter(*positions) if len(positions) > 1 else lambda row: (row[positions[0]],)
        )
        self._as_given = self._in_order and all(
            convert is _unchanged for convert in self._converters
        )

    def parameters(self, rows: list[Row]) -> list[Row]:
        """The rows as the driver takes them: in the SQL's order, each value converted."""
        if self._as_given:
            return rows
        converters = self._converters
        if self._in_order:
            return [tuple(map(call, converters, row)) for row in rows]
        pick = self._pick
        return [tuple(map(call, converters, pick(row))) for row in rows]


def _converter(kind: TypeEngine[Any], dialect: Dialect) -> Callable[[Any], Any]:
    """How a value of the type is handed to the driver: JSON straight through orjson (the
    engine's own serializer, without SQLAlchemy's wrapping of it), the rest as SQLAlchemy does."""
    if isinstance(kind, JSON):
        return json_text
    return kind.dialect_impl(dialect).bind_processor(dialect) or _unchanged


def _unchanged(value: Any) -> Any:
    return value


def _bind(column: Column[Any]) -> BindParameter[Any]:
    return bindparam(column.key, type_=column.type)


Plan = list[tuple[Statement, list[Row]]]


class Statements:
    """Every statement a batch may need, compiled for one database."""

    def __init__(self, dialect: Dialect) -> None:
        insert = insert_for(dialect.name)

        def compiled(statement: ClauseElement, *names: str) -> Statement:
            return Statement(statement, names, dialect)

        def adding(table: Table, *names: str, **fixed: Any) -> Statement:
            """A row inserted, or nothing if its key is taken (so it can be written again)."""
            values = insert(table).inline().values(**{name: _bind(table.c[name]) for name in names})
            return compiled(values.values(**fixed).on_conflict_do_nothing(), *names)

        zero = literal_column("0", Integer())
        self.room = adding(ROOMS, "code", "settings", "created_at")
        self.event = adding(EVENTS, "code", "seq", "event")
        self.forget_events = compiled(
            delete(EVENTS).where(EVENTS.c.code == _bind(EVENTS.c.code)), "code"
        )
        self.forget_snapshot = compiled(
            delete(SNAPSHOTS).where(SNAPSHOTS.c.code == _bind(SNAPSHOTS.c.code)), "code"
        )
        # A newer snapshot replaces an older one (never the reverse, should a retry come late),
        # and the events it covers are deleted.
        kept = insert(SNAPSHOTS).values(
            code=_bind(SNAPSHOTS.c.code), seq=_bind(SNAPSHOTS.c.seq), state=_bind(SNAPSHOTS.c.state)
        )
        self.snapshot = compiled(
            kept.on_conflict_do_update(
                index_elements=[SNAPSHOTS.c.code],
                set_={"seq": kept.excluded.seq, "state": kept.excluded.state},
                where=SNAPSHOTS.c.seq < kept.excluded.seq,
            ),
            "code",
            "seq",
            "state",
        )
        self.compact = compiled(
            delete(EVENTS).where(
                EVENTS.c.code == _bind(EVENTS.c.code), EVENTS.c.seq < _bind(EVENTS.c.seq)
            ),
            "code",
            "seq",
        )
        self.forget_room = compiled(
            delete(ROOMS).where(ROOMS.c.code == _bind(ROOMS.c.code)), "code"
        )
        # A room's journal written again keeps its row (and its owner's epoch), under a new
        # creation time.
        self.recreate = compiled(
            update(ROOMS)
            .values(created_at=_bind(ROOMS.c.created_at))
            .where(ROOMS.c.code == _bind(ROOMS.c.code)),
            "created_at",
            "code",
        )
        match = ("id", "room_code", "settings", "rounds_planned", "started_at")
        # A number above any match listed before: the list only grows at its top. On
        # PostgreSQL, whose writes run side by side, the column's sequence gives it (the
        # column's default too), and a batch that may add a match first takes LISTING_LOCK, so
        # that matches commit in the order of their numbers; SQLite writes one batch at a time.
        # (Written out: a statement's only parameters are its rows' values.)
        next_listed: ClauseElement
        if dialect.name == "postgresql":
            next_listed = literal_column(f"nextval('{LISTED_SEQUENCE}')", BigInteger())
        else:
            most = func.coalesce(func.max(MATCHES.c.listed), zero)
            next_listed = select(most + literal_column("1", Integer())).scalar_subquery()
        self.match = adding(MATCHES, *match, rounds_played=zero, listed=next_listed)
        seated = ("match_id", "seat", "name", "name_key", "bot", "key_hash")
        self.seat = adding(SEATS, *seated, total=zero)
        played = ("match_id", "number", "dealer", "knocker", "ending", "seed", "commitment")
        self.round = adding(ROUNDS, *played, "ended_at", "moves")
        match_id, number = _bind(ROUNDS.c.match_id), _bind(ROUNDS.c.number)
        hand = ("seat", "cards", "points", "scoring", "total")
        of_round = select(ROUNDS.c.id, *(_bind(HANDS.c[name]) for name in hand)).where(
            ROUNDS.c.match_id == match_id, ROUNDS.c.number == number
        )
        hands = insert(HANDS).inline().from_select(["round_id", *hand], of_round)
        self.hand = compiled(hands.on_conflict_do_nothing(), *hand, "match_id", "number")
        this_match = MATCHES.c.id == match_id
        self.played = compiled(
            update(MATCHES)
            .values(rounds_played=number)
            .where(this_match, MATCHES.c.rounds_played < number),
            "number",
            "match_id",
        )
        # A match ends once: a final round written again (after a restart) keeps its end time.
        self.ended = compiled(
            update(MATCHES)
            .values(ended_at=_bind(MATCHES.c.ended_at))
            .where(this_match, MATCHES.c.ended_at.is_(None)),
            "ended_at",
            "match_id",
        )
        # Only the newest round sets the totals: a late retry of an older one changes nothing.
        newest = number >= select(MATCHES.c.rounds_played).where(this_match).scalar_subquery()
        seat = (SEATS.c.match_id == match_id, SEATS.c.seat == _bind(SEATS.c.seat))
        totals = update(SEATS).values(total=_bind(SEATS.c.total), place=_bind(SEATS.c.place))
        self.total = compiled(
            totals.where(*seat, newest), "total", "place", "match_id", "seat", "number"
        )

    def plan(self, ops: Sequence[Op]) -> Plan:
        """The operations as (statement, driver-ready rows) in order."""
        plan: list[tuple[Statement, list[Row]]] = []

        def add(statement: Statement, rows: list[Row]) -> None:
            if plan and plan[-1][0] is statement:
                plan[-1][1].extend(rows)
            else:
                plan.append((statement, rows))

        for op in ops:
            if isinstance(op, Events):
                add(
                    self.event,
                    [(op.code, op.first + n, event) for n, event in enumerate(op.events)],
                )
            elif isinstance(op, NewRoom):
                add(self.room, [(op.code, op.settings, op.created_at)])
            elif isinstance(op, Snapshot):
                add(self.snapshot, [(op.code, op.seq, op.state)])
                add(self.compact, [(op.code, op.seq)])
            elif isinstance(op, Forget):
                add(self.forget_events, [(op.code,)])
                add(self.forget_snapshot, [(op.code,)])
                add(self.forget_room, [(op.code,)])
            elif isinstance(op, Rewrite):
                add(self.recreate, [(op.created_at, op.code)])
                add(self.forget_events, [(op.code,)])
                add(self.forget_snapshot, [(op.code,)])
                if op.snapshot is not None:
                    add(self.snapshot, [(op.code, op.snapshot.seq, op.snapshot.state)])
                if op.events:
                    add(
                        self.event,
                        [(op.code, op.first + n, event) for n, event in enumerate(op.events)],
                    )
            elif isinstance(op, Fence):
                continue  # checked by the backend before the plan runs (PostgreSQL only)
            else:
                self._plan_round(op, add)
        return [(statement, statement.parameters(rows)) for statement, rows in plan]

    def _plan_round(self, finished: FinishedRound, add: Any) -> None:
        result, match_id, settings = finished.result, finished.match_id, finished.settings
        add(self.match, [(match_id, finished.room_code, settings, settings["rounds"],
                          _moment(finished.started_at))])  # fmt: skip
        # A round the outbox kept from an earlier version has no seats' bots and keys, nor moves.
        bots = getattr(finished, "bots", ()) or (None,) * len(finished.names)
        keys = getattr(finished, "key_hashes", ()) or ("",) * len(finished.names)
        moves = getattr(result, "moves", None)
        add(self.seat, [(match_id, seat, name, name.casefold(), bots[seat], keys[seat] or None)
                        for seat, name in enumerate(finished.names)])  # fmt: skip
        ended = _moment(finished.ended_at)
        add(self.round, [(match_id, result.number, result.dealer, result.knocker,
                          result.ending.value, result.seed, result.commitment, ended,
                          None if moves is None else list(moves))])  # fmt: skip
        add(self.hand, [(seat, card_ids(hand), score.points, score.as_dict(), result.totals[seat],
                         match_id, result.number)
                        for seat, (hand, score) in enumerate(zip(result.hands, result.scores,
                                                                 strict=True))])  # fmt: skip
        add(self.played, [(result.number, match_id)])
        places = finished.places if finished.final else (None,) * len(result.totals)
        add(self.total, [(total, places[seat], match_id, seat, result.number)
                         for seat, total in enumerate(result.totals)])  # fmt: skip
        if finished.final:
            add(self.ended, [(ended, match_id)])


def _moment(milliseconds: int) -> datetime:
    return datetime.fromtimestamp(milliseconds / 1000, tz=UTC)


# A batch's rooms are fenced after its rows are written, in the same transaction: first each
# room's stored epoch is raised to its writer's (a new room's, or after a claim), then the rooms
# whose stored epoch is newer than their writer's are read, their rows locked (shared) until the
# write commits, so that a claim raising the epoch waits for the write, or refuses it.
FENCE_RAISE = """
UPDATE live_rooms AS r SET epoch = f.epoch
FROM unnest($1::varchar[], $2::bigint[]) AS f(code, epoch)
WHERE r.code = f.code AND r.epoch < f.epoch
"""
FENCED_ROOMS = """
SELECT r.code FROM live_rooms AS r
JOIN unnest($1::varchar[], $2::bigint[]) AS f(code, epoch) ON r.code = f.code
WHERE r.epoch > f.epoch
FOR SHARE OF r
"""
FENCE_LOCK = "SELECT 1 FROM live_rooms WHERE code = ANY($1::varchar[]) FOR SHARE"
# The sequence that numbers matches in the history's list on PostgreSQL (migration 0006).
LISTED_SEQUENCE = "matches_listed_seq"
# Held by a PostgreSQL transaction that may add a match, until it ends: matches are numbered in
# the history's list one after another, and committed in that order (the key is arbitrary, the
# same on every node).
LISTING_LOCK = "SELECT pg_advisory_xact_lock(5337000000000001)"


async def read_rooms(engine: AsyncEngine) -> dict[str, JournalRoom]:
    """The rooms in the database's tables, with their events."""
    async with engine.connect() as connection:
        rooms = {
            code: JournalRoom(code, settings, created_at)
            for code, settings, created_at in await connection.execute(
                select(ROOMS.c.code, ROOMS.c.settings, ROOMS.c.created_at)
            )
        }
        # A database not yet migrated to snapshots (an earlier version's) has none.
        if await connection.run_sync(lambda sync: inspect(sync).has_table(SNAPSHOTS.name)):
            for code, seq, state in await connection.execute(
                select(SNAPSHOTS.c.code, SNAPSHOTS.c.seq, SNAPSHOTS.c.state)
            ):
                if code in rooms:
                    rooms[code].snapshot = Snapshot(code, seq, state)
        for code, seq, event in await connection.execute(
            select(EVENTS.c.code, EVENTS.c.seq, EVENTS.c.event)
        ):
            room = rooms.get(code)
            if room is not None and (room.snapshot is None or seq >= room.snapshot.seq):
                room.events[seq] = event
    return rooms


async def ping(engine: AsyncEngine) -> None:
    """Raise if the database cannot be reached."""
    async with engine.connect() as connection:
        await connection.execute(text("SELECT 1"))
