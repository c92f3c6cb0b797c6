"""A live room: the authority for its state, which changes under its lock, one message at a time.

Each change is made durable, then sets the timers it calls for, then is published to every
connection; nothing here awaits a socket while holding the lock. Who is at the table is kept by
``table``, frames are built by ``frames``, and the turns the room plays itself by ``autoplay``.
A change the store cannot make durable within its bounded wait is held: the room tells its
players (``not_saved``), refuses further moves, and publishes once the store has written it.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
import uuid
from collections.abc import Callable
from typing import TypeVar

from app.engine.actions import Action, action_from_dict
from app.engine.errors import IllegalAction
from app.rooms import protocol
from app.rooms.autoplay import Autoplay
from app.rooms.chat import ChatLimit
from app.rooms.connection import Connection
from app.rooms.frames import Frames, Scope
from app.rooms.replies import Replies
from app.rooms.settings import changed
from app.rooms.state import RoomState, Status
from app.rooms.store import NullStore, RoomStore, RoundLedger
from app.rooms.table import CLOSE_REPLACED, Table
from app.rooms.thinking import Thinker
from app.rooms.timers import (
    Clock,
    IdleKey,
    LoopClock,
    ReadyKey,
    RoomConfig,
    RoomTimers,
    Timer,
    millis,
    ready_key,
)
from app.rooms.views import View, ViewBuilder

__all__ = ["CLOSE_KICKED", "CLOSE_REPLACED", "CLOSE_ROOM_GONE", "LiveRoom", "RoomConfig", "now_ms"]

CLOSE_KICKED = 4010
CLOSE_ROOM_GONE = 4011
NOT_SAVED = "the server can't save right now; your move is waiting"

log = logging.getLogger(__name__)

K = TypeVar("K")


def now_ms() -> int:
    """Milliseconds since the epoch, as deadlines are given to clients."""
    return int(time.time() * 1000)


class LiveRoom:
    """A room being played: the authority for its state and what its clients see."""

    def __init__(
        self,
        state: RoomState,
        config: RoomConfig,
        on_idle: Callable[[LiveRoom], None],
        store: RoomStore | None = None,
        on_action: Callable[[float, bool], None] | None = None,
        thinker: Thinker | None = None,
        clock: Clock | None = None,
    ) -> None:
        self.state = state
        self.config = config
        self.on_idle = on_idle
        self.store: RoomStore = store or NullStore()
        self.on_action = on_action
        self.clock: Clock = clock or LoopClock()
        self.table = Table()
        self.lock = asyncio.Lock()
        self.closed = False
        self.autoplay = Autoplay(self, thinker or Thinker(workers=0))
        self.timers = RoomTimers(
            self.clock,
            self.autoplay.turn_expired,
            self._ready_expired,
            self.autoplay.bot_plays,
            self._idle_expired,
        )
        self.replies = Replies()
        self.chat_limit = ChatLimit()
        self.ledger = RoundLedger(state)
        # A change not yet durable: shown to nobody until the store has written it.
        self.holding = False
        self.saves = 0
        self.held_ack: tuple[Connection | None, object] = (None, None)
        self.needs_state: list[Connection] = []
        self.release: asyncio.Task[None] | None = None
        self.frames = Frames(ViewBuilder(), {})
        self.frames.public = self.frames.public_view(state, self.table, self.timers)
        self._schedule_idle()

    @property
    def code(self) -> str:
        """The room's code."""
        return self.state.code

    @property
    def public(self) -> View:
        """The public view every connection holds."""
        return self.frames.public

    @property
    def turn_deadline(self) -> int | None:
        """When the turn timer plays for the seat on turn (ms since the epoch), if it runs."""
        return self.timers.turn.deadline

    @property
    def ready_deadline(self) -> int | None:
        """When the next round is dealt without waiting for everyone to be ready."""
        return self.timers.ready.deadline

    # Presence.

    def presence(self) -> list[bool]:
        """Whether each seat is at the table: a connection open, or a bot."""
        return self.table.presence(self.state)

    def standins(self) -> frozenset[int]:
        """Seats of players a bot plays for: away when their turn came, or idle twice running."""
        return self.table.standins()

    def spectators(self) -> int:
        """How many connections watch without a seat."""
        return self.table.spectators()

    async def attach(self, connection: Connection) -> None:
        """Add a connection: it gets a full state; an older one for the same seat is closed."""
        async with self.lock:
            # Everyone else hears of the arrival by patch; the newcomer starts from a state.
            self.table.arrive(connection)
            self.timers.idle.clear()
            self.table.pass_host_if_away(self.state)
            await self.announce()
            if self.holding:
                self.needs_state.append(connection)
                connection.push(protocol.error_frame("not_saved", NOT_SAVED))
            else:
                self.send_state(connection)

    async def detach(self, connection: Connection) -> None:
        """Remove a connection; the host's role passes on if the host is gone."""
        async with self.lock:
            if not self.table.leave(connection):
                return
            self.table.pass_host_if_away(self.state)
            self._deal_when_all_ready()
            await self.announce()
            if not self.table.connections:
                self._schedule_idle()

    def send_state(self, connection: Connection) -> None:
        """Queue a full state for one connection."""
        self.frames.send_state(self.state, connection, millis(self.clock))

    # Messages.

    async def handle(self, connection: Connection, message: protocol.ClientMessage) -> None:
        """Act on one client message; a refusal answers the sender alone and changes nothing."""
        if isinstance(message, protocol.Resync):
            async with self.lock:
                if self.holding:
                    self.needs_state.append(connection)
                else:
                    self.send_state(connection)
            return
        if isinstance(message, protocol.HintRequest):
            await self.autoplay.answer_hint(connection, message.id)
            return
        started = time.perf_counter()
        async with self.lock:
            if connection not in self.table.connections:
                return
            if self.holding:
                connection.push(protocol.error_frame("not_saved", NOT_SAVED, message.id))
                return
            if self.replies.repeat(self.state, self.frames, connection, message):
                return
            try:
                scope = self._dispatch(connection, message)
            except IllegalAction as error:
                refusal = protocol.error_frame(error.code, error.message, message.id)
                connection.push(refusal)
                self.replies.keep(self.state, connection, message.id, refusal)
                accepted = False
            else:
                await self.announce(connection, message.id, scope)
                self.replies.keep(self.state, connection, message.id, None)
                accepted = True
        if self.on_action is not None:
            self.on_action(time.perf_counter() - started, accepted)

    async def join(self, name: str, token_hash: str, key_hash: str = "") -> int:
        """Seat a new player (from the HTTP join); returns the seat."""
        async with self.lock:
            if self.holding:
                raise IllegalAction("not_saved", NOT_SAVED)
            seat = self.state.join(name, token_hash, millis(self.clock), key_hash)
            await self.announce()
            if self.closed:
                raise IllegalAction("room_moved", "the room moved while joining; try again")
            return seat

    async def _save(self) -> bool:
        """Make the new events and any newly finished rounds durable, before announcing; False
        if they are not within the store's bounded wait, or earlier changes are still held."""
        self.saves += 1
        rounds = self.ledger.take(self.state, millis(self.clock))
        return await self.store.save(self.state, rounds) and not self.holding

    async def announce(
        self, sender: Connection | None = None, ack: object = None, scope: Scope = "all"
    ) -> None:
        """After a change, under the lock: make it durable, set or clear the turn, ready and bot
        timers to match, then tell every connection (``sender``'s patch carries ``ack``).

        ``scope`` "round": the change was a move that left the round going and changed nothing
        else everyone sees; "chat": it changed only the chat (see ``Frames.publish``).
        """
        host = self.state.host
        self.table.pass_host_if_away(self.state)  # the change may make the room need a host
        if self.state.host != host:
            scope = "all"  # the players changed too
        saved = await self._save()
        if self.closed:
            return  # stopped meanwhile (its write refused, or the room moved): nothing is told
        if not saved:
            self._hold(sender, ack)
            return
        table = self.table
        self.timers.follow(self.state, table.here(), table.standins(), self.config)
        self.frames.publish(self.state, table, self.timers, sender, ack, scope)

    def _hold(self, sender: Connection | None, ack: object) -> None:
        """Keep the change from everyone until it is durable, and tell them why."""
        if self.holding:
            if sender is not None:
                sender.push(protocol.error_frame("not_saved", NOT_SAVED, ack))
            return
        self.holding = True
        self.held_ack = (sender, ack)
        for connection in self.table.connections:
            told = ack if connection is sender else None
            connection.push(protocol.error_frame("not_saved", NOT_SAVED, told))
        log.warning("room %s holds a change the database has not taken yet", self.code)
        self.release = asyncio.create_task(self._release_when_saved())

    async def _release_when_saved(self) -> None:
        """Once every held change is durable, publish them (the held move's ack with them)."""
        while True:
            saves = self.saves
            await self.store.saved()
            async with self.lock:
                if self.saves != saves:
                    continue  # changed again meanwhile: wait for that write too
                self.holding = False
                sender, ack = self.held_ack
                self.held_ack = (None, None)
                waiting, self.needs_state = self.needs_state, []
                if self.closed:
                    return
                table = self.table
                self.timers.follow(self.state, table.here(), table.standins(), self.config)
                self.frames.publish(self.state, table, self.timers, sender, ack, "all")
                for connection in waiting:
                    if connection in table.connections:
                        self.send_state(connection)
                log.info("room %s: held changes saved and shown", self.code)
                return

    async def resave_finished_rounds(self) -> None:
        """Write the current match's finished rounds again (after a restart; stored once)."""
        async with self.lock:
            self.ledger.rewrite(self.state)
            if not await self._save():
                self._hold(None, None)

    def _dispatch(self, connection: Connection, message: protocol.ClientMessage) -> Scope:
        """Apply the message to the state; what of the public view it can have changed."""
        state, seat, at = self.state, connection.seat, millis(self.clock)
        match message:
            case protocol.TakeMessage() | protocol.DiscardMessage() | protocol.KnockMessage():
                return "round" if self._play(connection, self._move(message, seat)) else "all"
            case protocol.ChatMessage() | protocol.React():
                self._chat(connection, message, at)
                return "chat"
            case protocol.Mute(seat=target, muted=muted):
                state.mute(seat, target, muted)
                return "chat"
            case protocol.SpectatorChatMessage(allowed=allowed):
                state.allow_spectator_chat(seat, allowed)
                return "chat"
            case protocol.Ready():
                state.mark_ready(seat)
                self._deal_when_all_ready()
            case protocol.Start():
                state.start(seat, uuid.uuid4().hex, secrets.token_hex(32), at)
            case protocol.Rematch():
                state.rematch(seat, uuid.uuid4().hex, secrets.token_hex(32), at)
            case protocol.ChangeSettings(settings=changes):
                state.change_settings(seat, changed(state.settings, changes))
            case protocol.Kick(seat=target):
                state.kick(seat, target)
                self._unseat(target, CLOSE_KICKED, "the host removed you from the room")
            case protocol.Leave():
                state.leave(self._seat(seat))
                self._unseat(self._seat(seat), None, "")
            case protocol.AddBot(level=level):
                state.add_bot(seat, level)
            case protocol.RemoveBot(seat=target):
                state.remove_bot(seat, target)
                self._unseat(target, None, "")
            case protocol.Back():
                self.table.came_back(self._seat(seat))
            case protocol.Hello():
                raise IllegalAction("bad_message", "hello is only the first message")
            case _:
                raise IllegalAction("bad_message", f"{message.type} is not handled here")
        return "all"

    def _chat(
        self, connection: Connection, message: protocol.ChatMessage | protocol.React, at: int
    ) -> None:
        """Say or react, within the sender's chat limit (a seat's, or a spectator's own)."""
        seat = connection.seat
        sender = ("seat", seat) if seat is not None else ("watcher", connection.serial)
        now = self.clock.now()
        self.state.check_chat(seat)
        self.chat_limit.check(sender, now)
        if isinstance(message, protocol.ChatMessage):
            self.state.say(seat, message.text, at)
        else:
            self.state.react(seat, message.reaction, at)
        self.chat_limit.sent(sender, now)

    @staticmethod
    def _seat(seat: int | None) -> int:
        if seat is None:
            raise IllegalAction("not_a_player", "spectators cannot do that; join a seat first")
        return seat

    def _move(self, message: protocol.MoveMessage, seat: int | None) -> Action:
        """The engine action a move asks for: its wire form is the journal's without the seat.
        Its cards are read before the sender's seat is checked."""
        action = action_from_dict({**vars(message), "seat": -1 if seat is None else seat})
        self._seat(seat)
        return action

    def _play(self, connection: Connection, action: Action) -> bool:
        """Play a move; True if it left the round going and nobody's stand-in changed."""
        self.state.play(connection.seat, action, millis(self.clock))
        stood_in = self.table.came_back(action.seat)
        return self.state.status is Status.PLAYING and not stood_in

    def _unseat(self, removed: int, code: int | None, reason: str) -> None:
        """A seat left the lobby: renumber the connections and pass the host on if need be."""
        self.table.unseat(removed, code, reason)
        self.frames.views.forget_private()
        self.chat_limit.clear()
        self.table.pass_host_if_away(self.state)

    def _deal_when_all_ready(self) -> None:
        """Deal when every connected player is ready."""
        if self.table.all_ready(self.state):
            self.state.deal(millis(self.clock))

    # Timers (a bot's turn and the turn timer's are in ``autoplay``).

    def rings(self, timer: Timer[K], key: K) -> bool:
        """Whether a timer's ring for ``key`` still stands: the room is open and the timer is
        still set for that key (a ring that lost a race is not), and no change is held (the
        timer is then set again once the held change is shown)."""
        if self.holding and timer.holds(key):
            timer.clear()
            return False
        return not self.closed and timer.holds(key)

    async def _ready_expired(self, key: ReadyKey) -> None:
        async with self.lock:
            if not self.rings(self.timers.ready, key) or ready_key(self.state) != key:
                return
            self.state.deal(millis(self.clock))
            await self.announce()

    def _schedule_idle(self) -> None:
        if not self.closed:
            self.timers.idle.set(IdleKey(self.code), self.config.idle_seconds)

    async def _idle_expired(self, key: IdleKey) -> None:
        self.timers.idle.clear()
        if not self.table.connections and not self.closed:
            self.store.forget(self.code)
            self.on_idle(self)

    def close(self, code: int, reason: str) -> None:
        """Stop the room's timers and close every connection."""
        self.closed = True
        self.timers.stop()
        for connection in self.table.connections:
            connection.close(code, reason)
