"""The database tables, as typed SQLAlchemy models."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, ClassVar

from sqlalchemy import (
    JSON,
    BigInteger,
    DateTime,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    UniqueConstraint,
)
from sqlalchemy.engine import Dialect
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship
from sqlalchemy.types import TypeDecorator

NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


class UTCDateTime(TypeDecorator[datetime]):
    """A timestamp stored in UTC and always read back as an aware UTC datetime."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("naive datetimes are not stored")
        return value.astimezone(UTC)

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


class Base(DeclarativeBase):
    """Base of every model, with constraint names that migrations can rely on."""

    metadata = MetaData(naming_convention=NAMING_CONVENTION)
    type_annotation_map: ClassVar[dict[Any, Any]] = {
        dict[str, Any]: JSON,
        list[Any]: JSON,
        datetime: UTCDateTime,
    }


class MatchRecord(Base):
    """A match: where it was played, under which settings, when, and how it ended."""

    __tablename__ = "matches"
    __table_args__ = (
        Index("ix_matches_started_at_id", "started_at", "id"),
        Index("ix_matches_listed", "listed", unique=True),
    )

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    room_code: Mapped[str] = mapped_column(String(9), index=True)
    settings: Mapped[dict[str, Any]]
    rounds_planned: Mapped[int]
    rounds_played: Mapped[int] = mapped_column(default=0)
    started_at: Mapped[datetime]
    ended_at: Mapped[datetime | None]
    # Its place in the history's list, given when it is first stored: one more than any before.
    listed: Mapped[int | None] = mapped_column(BigInteger)

    seats: Mapped[list[SeatRecord]] = relationship(
        back_populates="match", order_by="SeatRecord.seat", cascade="all, delete-orphan"
    )
    rounds: Mapped[list[RoundRecord]] = relationship(
        back_populates="match", order_by="RoundRecord.number", cascade="all, delete-orphan"
    )


class SeatRecord(Base):
    """A player's seat in a match, with their total so far and final place."""

    __tablename__ = "match_seats"

    match_id: Mapped[str] = mapped_column(
        ForeignKey("matches.id", ondelete="CASCADE"), primary_key=True
    )
    seat: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(24))
    name_key: Mapped[str] = mapped_column(String(96), index=True)
    total: Mapped[int] = mapped_column(default=0)
    place: Mapped[int | None]
    # The level of a computer player; None for a person.
    bot: Mapped[str | None] = mapped_column(String(16))
    # The SHA-256 of the person's player key; None without one (and before keys were kept).
    key_hash: Mapped[str | None] = mapped_column(String(64))

    match: Mapped[MatchRecord] = relationship(back_populates="seats")


class RoundRecord(Base):
    """A finished round: who dealt, who knocked, how it ended, and the fair-deal seed."""

    __tablename__ = "rounds"
    __table_args__ = (UniqueConstraint("match_id", "number"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    match_id: Mapped[str] = mapped_column(ForeignKey("matches.id", ondelete="CASCADE"), index=True)
    number: Mapped[int]
    dealer: Mapped[int]
    knocker: Mapped[int | None]
    ending: Mapped[str] = mapped_column(String(16))
    seed: Mapped[str] = mapped_column(String(64))
    commitment: Mapped[str] = mapped_column(String(64))
    ended_at: Mapped[datetime]
    # Every take, discard and knock in order, for a replay; None for rounds stored before moves
    # were kept.
    moves: Mapped[list[Any] | None]

    match: Mapped[MatchRecord] = relationship(back_populates="rounds")
    hands: Mapped[list[HandRecord]] = relationship(
        back_populates="round", order_by="HandRecord.seat", cascade="all, delete-orphan"
    )


class HandRecord(Base):
    """A seat's final cards in a round, their points and scoring, and the running total."""

    __tablename__ = "round_hands"

    round_id: Mapped[int] = mapped_column(
        ForeignKey("rounds.id", ondelete="CASCADE"), primary_key=True
    )
    seat: Mapped[int] = mapped_column(primary_key=True)
    cards: Mapped[list[Any]]
    points: Mapped[int] = mapped_column(index=True)
    scoring: Mapped[dict[str, Any]]
    total: Mapped[int]

    round: Mapped[RoundRecord] = relationship(back_populates="hands")


class LiveRoomRecord(Base):
    """A room held in memory, kept here so that it survives a restart."""

    __tablename__ = "live_rooms"

    code: Mapped[str] = mapped_column(String(9), primary_key=True)
    settings: Mapped[dict[str, Any]]
    created_at: Mapped[int] = mapped_column(BigInteger)
    # The epoch of the newest node to own the room (cluster mode): older owners' writes are
    # refused. 0 for one node.
    epoch: Mapped[int] = mapped_column(BigInteger, server_default="0")


class LiveEventRecord(Base):
    """One event of a live room, in order; replaying them rebuilds the room."""

    __tablename__ = "live_room_events"

    code: Mapped[str] = mapped_column(
        ForeignKey("live_rooms.code", ondelete="CASCADE"), primary_key=True
    )
    seq: Mapped[int] = mapped_column(primary_key=True)
    event: Mapped[dict[str, Any]]


class LiveSnapshotRecord(Base):
    """A live room as it stood before its current match began: with the events from ``seq``
    on, it rebuilds the room, and the events before ``seq`` are no longer kept."""

    __tablename__ = "live_room_snapshots"

    code: Mapped[str] = mapped_column(
        ForeignKey("live_rooms.code", ondelete="CASCADE"), primary_key=True
    )
    seq: Mapped[int]
    state: Mapped[dict[str, Any]]
