"""Who is at the table and who plays for whom: presence, the host's hand-over and stand-ins.

Pure functions over values: a bot stands in for a player who was away when their turn came, or
whose turn the timer played twice running, until that player acts or reconnects.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field

from app.bots.levels import Level
from app.rooms.state import RoomState, Status

# The level of the bot that plays for a player who is away; with hints off, the normal one, so
# that letting one's turns go is no way to have the strong bot play one's hand, while a player
# who lost their link is not played by the easy bot, which knocks now and then on any hand.
STANDIN_LEVEL = Level.STRONG
STANDIN_LEVEL_WITHOUT_HINTS = Level.NORMAL
# Where the room needs a host: the lobby (to start) and a finished match (for a rematch).
HOST_NEEDED = frozenset({Status.LOBBY, Status.FINISHED})
# Turns the timer plays in a row for a player before a bot stands in for them.
MISSED_TURNS_BEFORE_STANDIN = 2


@dataclass(frozen=True, slots=True)
class StandIns:
    """Seats a bot plays for: ``idle`` (missed turns running) or ``away`` (gone on their turn)."""

    idle: frozenset[int] = frozenset()
    away: frozenset[int] = frozenset()
    missed: Mapping[int, int] = field(default_factory=dict)

    def seats(self) -> frozenset[int]:
        """Every seat a bot plays for."""
        return self.idle | self.away

    def plays_for(self, seat: int) -> bool:
        """Whether a bot plays for ``seat``."""
        return seat in self.idle or seat in self.away


NOBODY = StandIns()


def came_back(standins: StandIns, seat: int) -> StandIns:
    """A player acts or reconnects: no bot plays for them any more."""
    if not standins.plays_for(seat) and seat not in standins.missed:
        return standins
    missed = {other: count for other, count in standins.missed.items() if other != seat}
    return StandIns(standins.idle - {seat}, standins.away - {seat}, missed)


def turn_timed_out(standins: StandIns, state: RoomState, seat: int) -> StandIns:
    """The timer played ``seat``'s turn: a player misses one more; two running, a bot stands in."""
    if state.is_bot(seat) or standins.plays_for(seat):
        return standins
    count = standins.missed.get(seat, 0) + 1
    missed = {**standins.missed, seat: count}
    idle = standins.idle | {seat} if count >= MISSED_TURNS_BEFORE_STANDIN else standins.idle
    return StandIns(idle, standins.away, missed)


def bot_played(standins: StandIns, state: RoomState, seat: int, here: AbstractSet[int]) -> StandIns:
    """A bot played ``seat``'s turn: if it was for a player who is away, it stands in for them."""
    if state.is_bot(seat) or seat in here or seat in standins.away:
        return standins
    return StandIns(standins.idle, standins.away | {seat}, standins.missed)


def seated(seats: Iterable[int | None]) -> set[int]:
    """The seats among these connections' (None: a spectator)."""
    return {seat for seat in seats if seat is not None}


def presence(state: RoomState, here: AbstractSet[int]) -> list[bool]:
    """Whether each seat is at the table: a connection open (``here``), or a bot."""
    return [seat.bot is not None or index in here for index, seat in enumerate(state.seats)]


def next_host(state: RoomState, here: AbstractSet[int]) -> int | None:
    """The seat the host's role passes to when the room needs a host who is not connected: the
    next one round the table that is; None to keep it.

    The room needs a host in the lobby (to start) and once the match is finished (for a
    rematch); during a match the role stays with a host who is away, so that a player who
    reloads, or a server restart, does not hand it to whoever is back first.
    """
    seats = len(state.seats)
    if state.status not in HOST_NEEDED or not seats or state.host in here:
        return None
    for step in range(1, seats):
        candidate = (state.host + step) % seats
        if candidate in here:
            return candidate
    return None
