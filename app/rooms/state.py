"""A room's durable state, changed only by events, so it can be rebuilt by replaying them.

Commands check that they are allowed (raising IllegalAction, changing nothing), then record a
typed event (see ``events``). ``apply`` is the one place an event changes the state; replaying a
room's events through it rebuilds the room exactly, which is how rooms survive a restart.
"""

from __future__ import annotations

from collections import deque
from enum import StrEnum

from app.engine.actions import Action
from app.engine.errors import IllegalAction
from app.engine.match import Match, RoundResult
from app.rooms.chat import CHAT_KEPT, ChatLine, check_reaction, clean_text, renumbered
from app.rooms.events import (
    BotAdded,
    BotRemoved,
    Chatted,
    Dealt,
    HostPassed,
    Joined,
    JournalEvent,
    Kicked,
    Left,
    MarkedReady,
    MatchStarted,
    Muted,
    Played,
    RematchStarted,
    RoomEvent,
    SettingsChanged,
    SpectatorChat,
    decode,
    encode,
)
from app.rooms.seats import Seat, bot_name, clean_name, name_taken
from app.rooms.settings import RoomSettings

# What storage keeps of an event: its journal dict (see ``events``).
Event = JournalEvent


class Status(StrEnum):
    """Where a room is in its life."""

    LOBBY = "lobby"
    PLAYING = "playing"
    ROUND_OVER = "round_over"
    FINISHED = "finished"


class RoomState:
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
        # The recent chat, whether spectators may chat, and a number that changes with either.
        self.chat: deque[ChatLine] = deque(maxlen=CHAT_KEPT)
        self.chat_lines = 0
        self.spectator_chat = False
        self.chat_version = 0
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

    def is_bot(self, seat: int) -> bool:
        """Whether a computer player sits there."""
        return self.seats[seat].bot is not None

    def totals(self) -> list[int]:
        """Each seat's total in the current match (zeros before one starts)."""
        return list(self.match.totals) if self.match else [0] * len(self.seats)

    def series(self) -> list[int]:
        """Each seat's total across every match of the room."""
        totals = self.totals()
        base = self.series_base or [0] * len(self.seats)
        return [earlier + now for earlier, now in zip(base, totals, strict=True)]

    # Commands: check, then record.

    def join(self, name: str, token_hash: str, at: int, key_hash: str = "") -> int:
        """Seat a new player in the lobby; returns the seat."""
        name = clean_name(name)
        if self.status is not Status.LOBBY:
            raise IllegalAction("already_started", "the match has started; you can watch")
        if len(self.seats) >= self.settings.max_players:
            raise IllegalAction("room_full", "every seat is taken; you can watch")
        if name_taken(self.seats, name):
            raise IllegalAction("name_taken", f"someone here is already called {name}")
        self.record(Joined(name, token_hash, at, key_hash))
        return len(self.seats) - 1

    def add_bot(self, by: int | None, level: str) -> int:
        """The host seats a computer player of ``level`` in the lobby; returns its seat."""
        self._check_host(by, "add bots")
        self._check_lobby("add bots")
        if len(self.seats) >= self.settings.max_players:
            raise IllegalAction("room_full", "every seat is taken")
        self.record(BotAdded(bot_name(self.seats, level), level))
        return len(self.seats) - 1

    def remove_bot(self, by: int | None, seat: object) -> None:
        """The host removes a computer player from the lobby."""
        self._check_host(by, "remove bots")
        self._check_lobby("remove bots")
        if type(seat) is not int or not 0 <= seat < len(self.seats) or not self.is_bot(seat):
            raise IllegalAction("no_such_bot", f"there is no bot in seat {seat!r}")
        self.record(BotRemoved(seat))

    def leave(self, seat: int) -> None:
        """A player gives up their seat in the lobby."""
        self._check_lobby("leave")
        self.record(Left(seat))

    def kick(self, by: int | None, seat: object) -> None:
        """The host removes a player from the lobby."""
        self._check_host(by, "kick players")
        self._check_lobby("kick")
        seat = self._seat(seat)
        if seat == by:
            raise IllegalAction("bad_kick", "the host cannot kick themselves; leave instead")
        if self.is_bot(seat):
            raise IllegalAction("bad_kick", "that is a bot; remove it instead")
        self.record(Kicked(seat))

    def change_settings(self, by: int | None, settings: RoomSettings) -> None:
        """The host changes the settings in the lobby."""
        self._check_host(by, "change the settings")
        self._check_lobby("change settings")
        if len(self.seats) > settings.max_players:
            raise IllegalAction(
                "bad_settings",
                f"{len(self.seats)} players are seated, more than {settings.max_players}",
            )
        self.record(SettingsChanged(settings))

    def start(self, by: int | None, match_id: str, seed: str, at: int) -> None:
        """The host starts the match; the first round is dealt at once."""
        self._check_host(by, "start the match")
        self._check_lobby("start")
        if len(self.seats) < 2:
            raise IllegalAction("not_enough_players", "a match needs at least 2 players")
        self.record(MatchStarted(match_id, seed, at))

    def play(self, seat: int | None, action: Action, at: int, auto: bool = False) -> None:
        """A turn action by the seat whose turn it is."""
        if seat is None:
            raise IllegalAction("not_a_player", "spectators cannot play")
        if self.status is not Status.PLAYING:
            raise IllegalAction("no_round", "no round is being played")
        self._play(action)  # raises, changing nothing, if the rules refuse it
        self._keep(Played(action, auto, at))

    def mark_ready(self, seat: int | None) -> None:
        """A player is ready for the next round."""
        if seat is None:
            raise IllegalAction("not_a_player", "spectators do not take part")
        if self.status is not Status.ROUND_OVER:
            raise IllegalAction("wrong_status", "ready is for between rounds")
        if not self.seats[seat].ready:
            self.record(MarkedReady(seat))

    def deal(self, at: int) -> None:
        """Deal the next round of the match."""
        if self.status is not Status.ROUND_OVER:
            raise IllegalAction("wrong_status", "a round is dealt between rounds")
        self.record(Dealt(at))

    def rematch(self, by: int | None, match_id: str, seed: str, at: int) -> None:
        """The host starts a new match with the same seats; series totals carry on."""
        self._check_host(by, "start a rematch")
        if self.status is not Status.FINISHED:
            raise IllegalAction("wrong_status", "a rematch starts once the match is over")
        self.record(RematchStarted(match_id, seed, at))

    def say(self, seat: int | None, text: str, at: int) -> None:
        """A chat message from a seat (None: a spectator)."""
        self.check_chat(seat)
        self.record(Chatted(seat, clean_text(text), None, at))

    def react(self, seat: int | None, reaction: str, at: int) -> None:
        """A quick reaction from a seat (None: a spectator)."""
        self.check_chat(seat)
        self.record(Chatted(seat, None, check_reaction(reaction), at))

    def mute(self, by: int | None, seat: object, muted: bool) -> None:
        """The host mutes or unmutes a player's chat."""
        self._check_host(by, "mute players")
        seat = self._seat(seat)
        if seat == by:
            raise IllegalAction("bad_mute", "the host cannot mute themselves")
        if self.is_bot(seat):
            raise IllegalAction("bad_mute", "bots do not chat")
        if self.seats[seat].muted != muted:
            self.record(Muted(seat, muted))

    def allow_spectator_chat(self, by: int | None, allowed: bool) -> None:
        """The host lets spectators chat, or stops them."""
        self._check_host(by, "choose who may chat")
        if self.spectator_chat != allowed:
            self.record(SpectatorChat(allowed))

    def check_chat(self, seat: int | None) -> None:
        """Raise IllegalAction unless ``seat`` (None: a spectator) may chat now."""
        if seat is None:
            if not self.spectator_chat:
                raise IllegalAction("spectator_chat_off", "the host has not let spectators chat")
        elif self.seats[seat].muted:
            raise IllegalAction("muted", "the host has muted you")

    def pass_host(self, seat: int) -> None:
        """Make ``seat`` the host."""
        if seat != self.host:
            self.record(HostPassed(seat))

    def _seat(self, seat: object) -> int:
        """``seat`` if it is the number of a seat (from a message: anything), else refused."""
        if type(seat) is not int or not 0 <= seat < len(self.seats):
            raise IllegalAction("no_such_seat", f"there is no seat {seat!r}")
        return seat

    def _check_host(self, by: int | None, what: str) -> None:
        if by is None or by != self.host:
            raise IllegalAction("not_host", f"only the host can {what}")

    def _check_lobby(self, what: str) -> None:
        if self.status is not Status.LOBBY:
            raise IllegalAction("wrong_status", f"you can only {what} in the lobby")

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
            case Played(action=action):
                self._play(action)
            case Joined(name=name, token_hash=token_hash, key_hash=key_hash):
                self.seats.append(Seat(name, token_hash, key_hash=key_hash))
            case BotAdded(name=name, level=level):
                self.seats.append(Seat(name, "", bot=level))
            case Left(seat=seat):  # and Kicked, BotRemoved
                del self.seats[seat]
                self.chat = renumbered(self.chat, seat)
                self.chat_version += 1
                if seat < self.host:
                    self.host -= 1
                elif self.host >= len(self.seats):
                    self.host = 0
            case HostPassed(seat=seat):
                self.host = seat
            case SettingsChanged(settings=settings):
                self.settings = settings
            case MatchStarted(match_id=match_id, seed=seed, at=at):  # and RematchStarted
                self._start_match(match_id, seed, at)
            case MarkedReady(seat=seat):
                self.seats[seat].ready = True
            case Dealt():
                assert self.match is not None
                self.match.start_round()
                self._set_status(Status.PLAYING)
            case Chatted(seat=seat, text=text, reaction=reaction, at=at):
                said = None if seat is None else self.seats[seat].name
                self.chat.append(ChatLine(self.chat_lines, seat, said, text, reaction, at))
                self.chat_lines += 1
                self.chat_version += 1
            case Muted(seat=seat, muted=muted):
                self.seats[seat].muted = muted
                self.chat_version += 1
            case SpectatorChat(allowed=allowed):
                self.spectator_chat = allowed
                self.chat_version += 1

    def _start_match(self, match_id: str, seed: str, at: int) -> None:
        if self.match is not None:
            self.series_base = self.series()
        self.match = Match(len(self.seats), self.settings.rules, seed)
        self.match_id = match_id
        self.match_started_at = at
        self.matches += 1
        self.match.start_round()
        self._set_status(Status.PLAYING)

    def _play(self, action: Action) -> RoundResult | None:
        assert self.match is not None
        result = self.match.apply(action)
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
