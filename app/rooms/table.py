"""Who is at a room's table: its open connections, the seats bots stand in for, and the host.

The room changes it under its lock; the rules of who stands in and who becomes host are the
pure functions of ``standins``.
"""

from __future__ import annotations

from app.rooms import standins
from app.rooms.connection import Connection
from app.rooms.standins import NOBODY, StandIns
from app.rooms.state import RoomState, Status

CLOSE_REPLACED = 4009


class Table:
    """A room's open connections and the seats a bot plays for."""

    __slots__ = ("away_since", "connections", "host_away", "stand_ins")

    def __init__(self, host: str, now: float, state: RoomState, steady: float) -> None:
        self.connections: list[Connection] = []
        self.stand_ins: StandIns = NOBODY
        # The host (their token's hash) and when their seat last lost its last connection (the
        # clock's seconds), or when the table was set up (a room restored after a restart: its
        # host has not come back yet).
        self.host_away = (host, now)
        # Players whose last connection closed, and when (the clock's steady seconds): between
        # rounds, one not ready is waited for a while (see ``back``). Everyone is away from a
        # table just set up (a room restored after a restart, or moved from another node).
        self.away_since = {
            seat: steady for seat, held in enumerate(state.seats) if held.bot is None
        }

    def here(self) -> set[int]:
        """The seats of players who have a connection open."""
        return standins.seated(connection.seat for connection in self.connections)

    def presence(self, state: RoomState) -> list[bool]:
        """Whether each seat is at the table: a connection open, or a bot."""
        return standins.presence(state, self.here())

    def standins(self) -> frozenset[int]:
        """Seats of players a bot plays for: away when their turn came, or idle twice running."""
        return self.stand_ins.seats()

    def spectators(self) -> int:
        """How many connections watch without a seat."""
        return sum(connection.seat is None for connection in self.connections)

    def arrive(self, connection: Connection, now: float) -> None:
        """Add a connection (at ``now``, the clock's steady seconds); an older one for the same
        seat is closed, and its player is back. The first player back at a table everyone had
        left (a blip of the server's own link) finds the others away from then, as at a table
        just set up."""
        seat = connection.seat
        if seat is not None:
            if not self.here():
                self.away_since = dict.fromkeys(self.away_since, now)
            self._replace(seat, "this seat was opened in another tab or device")
            self.came_back(seat)
            self.away_since.pop(seat, None)
        self.connections.append(connection)

    def retoken(self, seat: int, old: str, new: str) -> bool:
        """A seat was taken again with a new token: whatever holds it with the old one is
        closed, as when it is opened in another tab, and its player is away until the new
        token comes (``rejoined``). True if a connection was closed."""
        host, since = self.host_away
        if host == old:
            self.host_away = (new, since)
        return self._replace(seat, "this seat was taken again with a new token")

    def rejoined(self, seat: int, now: float) -> None:
        """A seat is being taken again with a new token: its player is away from ``now`` (the
        clock's steady seconds) until that token's connection comes."""
        self.away_since[seat] = now

    def _replace(self, seat: int, reason: str) -> bool:
        """Close and let go of the seat's connections (4009, with ``reason``); True if any."""
        held = [connection for connection in self.connections if connection.seat == seat]
        for connection in held:
            connection.close(CLOSE_REPLACED, reason)
        self.connections = [c for c in self.connections if c.seat != seat]
        return bool(held)

    def leave(self, connection: Connection, now: float) -> bool:
        """Remove a connection (at ``now``, the clock's steady seconds); False if it had already
        gone."""
        if connection not in self.connections:
            return False
        self.connections.remove(connection)
        seat = connection.seat
        if seat is not None and seat not in self.here():
            self.away_since[seat] = now
        return True

    def came_back(self, seat: int) -> bool:
        """A player acts or reconnects: no bot plays for them any more; True if one did."""
        stood_in = self.stand_ins.plays_for(seat)
        self.stand_ins = standins.came_back(self.stand_ins, seat)
        return stood_in

    def unseat(self, removed: int, code: int | None, reason: str) -> None:
        """Renumber connections after a seat left the lobby; the removed seat's are closed
        (with ``code``, if given) or stay to watch."""
        closed = []
        for connection in self.connections:
            if connection.seat == removed:
                if code is not None:
                    connection.close(code, reason)
                    closed.append(connection)
                connection.seat = None
            elif connection.seat is not None and connection.seat > removed:
                connection.seat -= 1
        # Only those closed here: another one closing (a client too far behind) leaves when
        # it ends, and its seat is away from then.
        self.connections = [c for c in self.connections if c not in closed]
        self.away_since = {
            seat - (seat > removed): since
            for seat, since in self.away_since.items()
            if seat != removed
        }

    def next_host(self, state: RoomState) -> int | None:
        """The seat the host's role passes to (once the host has been away for the grace) while
        the room needs a host who is not connected; None while it needs none, or has one here."""
        return standins.next_host(state, self.here())

    def all_ready(self, state: RoomState, now: float, grace: float) -> bool:
        """Between rounds, whether every connected player is ready (bots always are) and
        nobody who lost their link is still waited for (see ``back``); with nobody connected it
        is left to the timer."""
        here = self.here()
        seats = state.seats
        return (
            state.status is Status.ROUND_OVER
            and bool(here)
            and all(seats[seat].ready for seat in here)
            and self.back(state, now, grace) is None
        )

    def back(self, state: RoomState, now: float, grace: float) -> float | None:
        """Between rounds, until when (the clock's steady seconds) a player not ready whose
        link closed less than ``grace`` seconds before ``now`` is waited for: a reload, or a
        phone's blip, is not taken for leaving. None if nobody is."""
        if state.status is not Status.ROUND_OVER or not self.away_since:
            return None
        here = self.here()
        seats = state.seats
        waited = [
            since + grace
            for seat, since in self.away_since.items()
            if since + grace > now
            and seat not in here
            and seat < len(seats)
            and not seats[seat].ready
            and seats[seat].bot is None
        ]
        return max(waited, default=None)
