"""A room's durable state, changed only by events, so it can be rebuilt by replaying them.

Commands (``commands``) check that they are allowed, then record a typed event (see
``events``). ``apply`` is the one place an event changes the state; replaying a room's events
through it rebuilds the room exactly, which is how rooms survive a restart.
"""

from __future__ import annotations

from app.engine.actions import Action
from app.engine.match import Match, RoundResult
from app.engine.round import Round
from app.rooms.chat import RoomChat
from app.rooms.commands import RoomCommands, Status
from app.rooms.events import (
    BotAdded,
    Chatted,
    Dealt,
    HostPassed,
    Joined,
    JournalEvent,
    Left,
    MarkedReady,
    MatchStarted,
    Muted,
    Played,
    Rejoined,
    RoomEvent,
    SettingsChanged,
    SpectatorChat,
    decode,
    encode,
)
from app.rooms.seats import Seat
from app.rooms.settings import RoomSettings

__all__ = ["Event", "RoomState", "Status"]

# What storage keeps of an event: its journal dict (see ``events``).
Event = JournalEvent
# A round's moves the room played, while it has played none (never changed in place).
NONE_PLAYED: list[int] = []


class RoomState(RoomCommands):
    """Seats, host, settings and the current match of one room."""

    def __init__(self, code: str, settings: RoomSettings, created_at: int) -> None:
        self.code = code
        self.initial_settings = settings
        self.settings = settings
        self.created_at = created_at
        self.seats: list[Seat] = []
        self.host = 0
        self.status = Status.LOBBY
        self.match: Match | None = None
        self.match_id: str | None = None
        self.match_started_at: int | None = None
        self.matches = 0
        self.series_base: list[int] = []
        self.chat = RoomChat()
        # The round whose moves these are, and the moves of it (by their number in the round)
        # the room played for a seat: the turn timer's, a stand-in's, a bot's own. A new list
        # at each one, so that a view holding the last is told the change by its identity.
        self._autoplayed: tuple[Round | None, list[int]] = (None, NONE_PLAYED)
        # Events not yet handed to storage, and how many events the room has had in all.
        self.unsaved: list[RoomEvent] = []
        self.event_count = 0

    # Reading.

    def seat_of(self, token_hash: str) -> int | None:
        """The seat holding a token, if any (bots hold none)."""
        for index, seat in enumerate(self.seats):
            if seat.bot is None and seat.token_hash == token_hash:
                return index
        return None

    def autoplayed(self, current: Round) -> list[int]:
        """The numbers of ``current``'s moves the room played for a seat (none: the same
        empty list each time)."""
        played, moves = self._autoplayed
        return moves if played is current else NONE_PLAYED

    def totals(self) -> list[int]:
        """Each seat's total in the current match (zeros before one starts)."""
        return list(self.match.totals) if self.match else [0] * len(self.seats)

    def series(self) -> list[int]:
        """Each seat's total across every match of the room."""
        totals = self.totals()
        base = self.series_base or [0] * len(self.seats)
        return [earlier + now for earlier, now in zip(base, totals, strict=True)]

    # Events.

    def record(self, event: RoomEvent) -> None:
        """Apply an event and keep it for storage."""
        self.apply(event)
        self._keep(event)

    def _keep(self, event: RoomEvent) -> None:
        self.unsaved.append(event)
        self.event_count += 1

    def take_unsaved(self) -> tuple[int, list[Event]]:
        """The events not yet stored, in the journal's form, with the sequence number of the
        first; forgets them."""
        events, self.unsaved = self.unsaved, []
        return self.event_count - len(events), [encode(event) for event in events]

    def apply(self, event: RoomEvent) -> None:
        """Change the state as ``event`` says; events are applied in the order recorded."""
        match event:
            case Played(action=action, auto=auto):
                self._play(action, auto)
            case Joined(name=name, token_hash=token_hash, key_hash=key_hash):
                self.seats.append(Seat(name, token_hash, key_hash=key_hash))
            case Rejoined(seat=seat, token_hash=token_hash):
                self.seats[seat].token_hash = token_hash
            case BotAdded(name=name, level=level):
                self.seats.append(Seat(name, "", bot=level))
            case Left(seat=seat):  # and Kicked, BotRemoved
                del self.seats[seat]
                self.chat.seat_left(seat)
                if seat < self.host:
                    self.host -= 1
                elif self.host >= len(self.seats):
                    self.host = 0
                self._unmute_host()
            case HostPassed(seat=seat):
                self.host = seat
                self._unmute_host()
            case SettingsChanged(settings=settings):
                self.settings = settings
            case MatchStarted(match_id=match_id, seed=seed, at=at, dealer=dealer):  # and Rematch…
                self._start_match(match_id, seed, at, dealer)
            case MarkedReady(seat=seat):
                self.seats[seat].ready = True
            case Dealt():
                assert self.match is not None
                self.match.start_round()
                self._set_status(Status.PLAYING)
            case Chatted(seat=seat, text=text, reaction=reaction, at=at):
                said = None if seat is None else self.seats[seat].name
                self.chat.add(seat, said, text, reaction, at)
            case Muted(seat=seat, muted=muted):
                self.seats[seat].muted = muted
                self.chat.mutes_changed()
            case SpectatorChat(allowed=allowed):
                self.chat.let_spectators(allowed)

    def _unmute_host(self) -> None:
        """The host is never muted: a muted player who becomes host (the host left, or was
        away) speaks again, as nobody else could unmute them."""
        if self.seats and self.seats[self.host].muted:
            self.seats[self.host].muted = False
            self.chat.mutes_changed()

    def _start_match(self, match_id: str, seed: str, at: int, dealer: int) -> None:
        if self.match is not None:
            self.series_base = self.series()
        self.match = Match(len(self.seats), self.settings.rules, seed, dealer)
        self.match_id = match_id
        self.match_started_at = at
        self.matches += 1
        self.match.start_round()
        self._set_status(Status.PLAYING)

    def _play(self, action: Action, auto: bool = False) -> RoundResult | None:
        assert self.match is not None
        current = self.match.round
        result = self.match.apply(action)
        if auto and current is not None:
            move = len(current.actions) - 1
            self._autoplayed = (current, [*self.autoplayed(current), move])
        if result is not None:
            self._set_status(Status.FINISHED if self.match.finished else Status.ROUND_OVER)
        return result

    def _set_status(self, status: Status) -> None:
        self.status = status
        for seat in self.seats:
            seat.ready = False

    @classmethod
    def replay(
        cls, code: str, settings: RoomSettings, created_at: int, events: list[Event]
    ) -> RoomState:
        """The room rebuilt from its first settings and its events (as the journal keeps them)."""
        state = cls(code, settings, created_at)
        for event in events:
            state.apply(decode(event))
        state.event_count = len(events)
        return state
