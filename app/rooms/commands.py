"""What the players and the host may do to a room: each command checks that it is allowed
(raising IllegalAction, changing nothing), then records a typed event for the state to apply.
"""

from __future__ import annotations

from enum import StrEnum

from app.engine.actions import Action
from app.engine.errors import IllegalAction
from app.engine.match import Match, RoundResult
from app.rooms.chat import RoomChat, check_reaction, clean_text
from app.rooms.events import (
    BotAdded,
    BotRemoved,
    Chatted,
    Dealt,
    HostPassed,
    Joined,
    Kicked,
    Left,
    MarkedReady,
    MatchStarted,
    Muted,
    Played,
    Rejoined,
    RematchStarted,
    RoomEvent,
    SettingsChanged,
    SpectatorChat,
)
from app.rooms.seats import PATH_STEPS, Seat, bot_name, clean_name, name_taken
from app.rooms.settings import RoomSettings


class Status(StrEnum):
    """Where a room is in its life."""

    LOBBY = "lobby"
    PLAYING = "playing"
    ROUND_OVER = "round_over"
    FINISHED = "finished"


class RoomCommands:
    """The commands of a room (``RoomState``), over the state they check."""

    seats: list[Seat]
    host: int
    status: Status
    settings: RoomSettings
    chat: RoomChat
    match: Match | None

    def record(self, event: RoomEvent) -> None:
        """Apply an event and keep it for storage."""
        raise NotImplementedError

    def _keep(self, event: RoomEvent) -> None:
        raise NotImplementedError

    def _play(self, action: Action, auto: bool = False) -> RoundResult | None:
        raise NotImplementedError

    def is_bot(self, seat: int) -> bool:
        """Whether a computer player sits there."""
        return self.seats[seat].bot is not None

    def join(self, name: str, token_hash: str, at: int, key_hash: str = "") -> int:
        """Seat a new player in the lobby; returns the seat. A join with the player key of a
        person's seat and its name, however written (its first answer lost, or the name typed
        again another way in the same browser: "ann" for "Ann"), gives that seat a new token
        instead, whatever the room is doing; the seat keeps its name."""
        name = clean_name(name)
        if key_hash:
            for index, seat in enumerate(self.seats):
                mine = seat.bot is None and seat.key_hash == key_hash
                if mine and name_taken((seat,), name) is not None:
                    self.record(Rejoined(index, token_hash))
                    return index
        if name in PATH_STEPS:  # a new seat's; names of earlier seats stay as they were
            raise IllegalAction("bad_name", 'a name cannot be "." or ".."')
        if self.status is not Status.LOBBY:
            raise IllegalAction("already_started", "the match has started; you can watch")
        if len(self.seats) >= self.settings.max_players:
            raise IllegalAction("room_full", "every seat is taken; you can watch")
        taken = name_taken(self.seats, name)
        if taken is not None:  # the name as the room shows it, which this one looks like
            raise IllegalAction("name_taken", f"someone here is already called {taken}")
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

    def remove_bot(self, by: int | None, seat: object, name: str | None = None) -> None:
        """The host removes a computer player from the lobby (``name``'s, if given)."""
        self._check_host(by, "remove bots")
        self._check_lobby("remove bots")
        if type(seat) is not int or not 0 <= seat < len(self.seats) or not self.is_bot(seat):
            raise IllegalAction("no_such_bot", f"there is no bot in seat {seat!r}")
        self._check_named(seat, name)
        self.record(BotRemoved(seat))

    def leave(self, seat: int) -> None:
        """A player gives up their seat in the lobby."""
        self._check_lobby("leave")
        self.record(Left(seat))

    def kick(self, by: int | None, seat: object, name: str | None = None) -> None:
        """The host removes a player from the lobby (``name``, if given)."""
        self._check_host(by, "kick players")
        self._check_lobby("kick")
        seat = self._seat(seat)
        self._check_named(seat, name)
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

    def check_round_in_play(self) -> None:
        """Raise IllegalAction unless a round is being played: ``round_over`` between rounds,
        ``no_round`` in the lobby or once the match is finished."""
        if self.status is Status.ROUND_OVER:
            raise IllegalAction(
                "round_over", "the round is over; the next is dealt once all are ready"
            )
        if self.status is not Status.PLAYING:
            raise IllegalAction("no_round", "no round is being played")

    def play(self, seat: int | None, action: Action, at: int, auto: bool = False) -> None:
        """A turn action by the seat whose turn it is."""
        if seat is None:
            raise IllegalAction("not_a_player", "spectators cannot play")
        self.check_round_in_play()
        self._play(action, auto)  # raises, changing nothing, if the rules refuse it
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
        # The deal moves on from the last round's dealer, as from one round to the next.
        assert self.match is not None
        dealer = (self.match.results[-1].dealer + 1) % len(self.seats)
        self.record(RematchStarted(match_id, seed, at, dealer))

    def say(self, seat: int | None, text: str, at: int) -> None:
        """A chat message from a seat (None: a spectator)."""
        self.check_chat(seat)
        self.record(Chatted(seat, clean_text(text), None, at))

    def react(self, seat: int | None, reaction: str, at: int) -> None:
        """A quick reaction from a seat (None: a spectator)."""
        self.check_chat(seat)
        self.record(Chatted(seat, None, check_reaction(reaction), at))

    def mute(self, by: int | None, seat: object, muted: bool, name: str | None = None) -> None:
        """The host mutes or unmutes a player's chat (``name``'s, if given)."""
        self._check_host(by, "mute players")
        seat = self._seat(seat)
        self._check_named(seat, name)
        if seat == by:
            raise IllegalAction("bad_mute", "the host cannot mute themselves")
        if self.is_bot(seat):
            raise IllegalAction("bad_mute", "bots do not chat")
        if self.seats[seat].muted != muted:
            self.record(Muted(seat, muted))

    def allow_spectator_chat(self, by: int | None, allowed: bool) -> None:
        """The host lets spectators chat, or stops them."""
        self._check_host(by, "choose who may chat")
        if self.chat.spectators != allowed:
            self.record(SpectatorChat(allowed))

    def check_chat(self, seat: int | None) -> None:
        """Raise IllegalAction unless ``seat`` (None: a spectator) may chat now."""
        if seat is None:
            if not self.chat.spectators:
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

    def _check_named(self, seat: int, name: str | None) -> None:
        """Refuse a message about ``name`` if someone else holds ``seat`` by now: seats move
        down when a player leaves the lobby, and the message would fall on the wrong one."""
        held = self.seats[seat].name
        if name is not None and name != held:
            raise IllegalAction(
                "seat_changed", f"seat {seat} is {held}'s now, not {name}'s; nothing was done"
            )

    def _check_host(self, by: int | None, what: str) -> None:
        if by is None or by != self.host:
            raise IllegalAction("not_host", f"only the host can {what}")

    def _check_lobby(self, what: str) -> None:
        if self.status is not Status.LOBBY:
            raise IllegalAction("wrong_status", f"you can only {what} in the lobby")
