"""A live room: the authority for its state, which changes under its lock, one message at a time.

Each change is made durable, then sets the timers it calls for, then is published to every
connection; nothing here awaits a socket while holding the lock. Who is at the table is kept by
``table``, what each message does by ``dispatch``, frames are built by ``frames``, and the turns
the room plays itself by ``autoplay``.
A change the store cannot make durable within its bounded wait is held: the room tells its
players (``not_saved``), refuses further moves, and publishes once the store has written it.
"""

from __future__ import annotations

import asyncio
import logging
import math
import time
from collections.abc import Callable
from typing import TypeVar

from app.engine.errors import IllegalAction
from app.rooms import protocol
from app.rooms.autoplay import Autoplay
from app.rooms.chat import ChatLimit
from app.rooms.connection import Connection
from app.rooms.dispatch import CLOSE_KICKED, dispatch
from app.rooms.events import Rejoined
from app.rooms.frames import Frames, Scope
from app.rooms.replies import Replies
from app.rooms.state import RoomState, Status
from app.rooms.store import NullStore, RoomStore, RoundLedger
from app.rooms.table import CLOSE_REPLACED, Table
from app.rooms.thinking import Thinker
from app.rooms.timers import (
    BackKey,
    Clock,
    HostKey,
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

CLOSE_ROOM_GONE = 4011
CLOSE_BAD_TOKEN = 4001
NOT_SAVED = "the server can't save right now; your move is waiting"

log = logging.getLogger(__name__)
# A timer may ring a hair before its time as the room's clock reads it: within this, on time.
HOST_SLACK = 0.01

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
        self.table = Table(self.host_token(), self.clock.now(), state, self.clock.steady())
        self.lock = asyncio.Lock()
        # Once closed: how its connections were, for one that comes after (gone, or moved).
        self.closed_with: tuple[int, str] | None = None
        self.autoplay = Autoplay(self, thinker or Thinker(workers=0))
        self.timers = RoomTimers(
            self.clock,
            self.autoplay.turn_expired,
            self._ready_expired,
            self.autoplay.bot_plays,
            self._idle_expired,
            self._host_expired,
            self._back_expired,
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
    def closed(self) -> bool:
        """Whether the room was closed (dropped when idle, or moved to another node)."""
        return self.closed_with is not None

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

    async def attach(
        self, connection: Connection, token_hash: str | None = None
    ) -> tuple[int, str] | None:
        """Add a connection: it gets a full state; an older one for the same seat is closed.

        With ``token_hash`` the connection takes the seat that token holds, looked up under the
        lock: a change waiting for the lock may renumber the seats (a player leaving, a kick).
        Returns None, or the close code and reason it gets instead, with nothing changed: the
        token holds no seat, or the room was closed (gone idle, or moved) meanwhile.
        """
        async with self.lock:
            if self.closed_with is not None:
                return self.closed_with
            if token_hash is not None:
                seat = self.state.seat_of(token_hash)
                if seat is None:
                    return CLOSE_BAD_TOKEN, "this token holds no seat in this room"
                connection.seat = seat
            # Everyone else hears of the arrival by patch; the newcomer starts from a state.
            self.table.arrive(connection, self.clock.steady())
            self.timers.idle.clear()
            await self.announce()
            if self.holding:
                self.needs_state.append(connection)
                connection.push(protocol.error_frame("not_saved", NOT_SAVED))
            else:
                self.send_state(connection)
        return None

    async def detach(self, connection: Connection) -> None:
        """Remove a connection; the host's role passes on if the host stays gone while the
        room needs a host."""
        async with self.lock:
            if not self.table.leave(connection, self.clock.steady()) or self.closed:
                return
            host = self.state.host
            if connection.seat == host and host not in self.table.here():
                self.table.host_away = (self.host_token(), self.clock.now())
            await self.announce()  # deals, if the others were waiting only for them
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
                if self.closed:
                    return
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
            if self.closed or connection not in self.table.connections:
                return
            if self.holding:
                self.refuse_held(connection, message.id)
                return
            if self.replies.repeat(self.state, self.frames, connection, message):
                return
            match_id = self.state.match_id  # an action that starts a match keeps no id
            try:
                scope = dispatch(self, connection, message)
            except IllegalAction as error:
                refusal = protocol.error_frame(error.code, error.message, message.id)
                connection.push(refusal)
                self.replies.keep(self.state, match_id, connection, message.id, refusal)
                accepted = False
            else:
                await self.announce(connection, message.id, scope)
                self.replies.keep(self.state, match_id, connection, message.id, None)
                accepted = True
        if self.on_action is not None:
            self.on_action(time.perf_counter() - started, accepted)

    def refuse_held(self, connection: Connection, message_id: object) -> None:
        """Refuse a message while a change is held (``not_saved``): to be sent again after."""
        connection.push(protocol.error_frame("not_saved", NOT_SAVED, message_id))

    async def join(self, name: str, token_hash: str, key_hash: str = "") -> int:
        """Seat a new player (from the HTTP join); returns the seat."""
        async with self.lock:
            if self.closed:
                raise IllegalAction("room_moved", "the room was closed or moved; try again")
            if self.holding:
                raise IllegalAction("not_saved", NOT_SAVED)
            tokens = [seat.token_hash for seat in self.state.seats]
            seat = self.state.join(name, token_hash, millis(self.clock), key_hash)
            again = len(self.state.seats) == len(tokens)  # a seat taken again, new token
            if again:
                self.table.rejoined(seat, self.clock.steady())
            await self.announce()
            if self.closed:
                raise IllegalAction("room_moved", "the room moved while joining; try again")
            if self.holding:
                # Not durable: no token is given for it, so the seat is given up again (or
                # keeps its old token), to be written after the join (a seat whose token nobody
                # holds would stay empty).
                if again:
                    self.state.record(Rejoined(seat, tokens[seat]))
                else:
                    self.state.leave(seat)
                await self.announce()
                raise IllegalAction("not_saved", NOT_SAVED)
            if again:
                closed = self.table.retoken(seat, tokens[seat], token_hash)
                if closed and seat == self.state.host:
                    self.table.host_away = (token_hash, self.clock.now())
                await self.announce()
            if not self.table.connections:
                # The joiner is given the idle time to connect, as the room's maker is.
                self.timers.idle.clear()
                self._schedule_idle()
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
        if self._deal_when_all_ready():
            scope = "all"
        self.follow_host()  # the change may make the room need a host
        if self.state.host != host:
            scope = "all"  # the players changed too
        saved = await self._save()
        if self.closed:
            return  # stopped meanwhile (its write refused, or the room moved): nothing is told
        if not saved:
            self._hold(sender, ack)
            return
        self._follow()
        self.frames.publish(self.state, self.table, self.timers, sender, ack, scope)

    def _hold(self, sender: Connection | None, ack: object) -> None:
        """Keep the change from everyone until it is durable, and tell them why."""
        if self.holding:
            if sender is not None:
                sender.push(protocol.error_frame("not_saved", NOT_SAVED, ack))
            return
        self.holding = True
        self.held_ack = (sender, ack)
        self.timers.stand_still()
        for connection in self.table.connections:
            told = ack if connection is sender else None
            connection.push(protocol.error_frame("not_saved", NOT_SAVED, told))
        log.warning("room %s holds a change the database has not taken yet", self.code)
        self.release = asyncio.create_task(self._release_when_saved())

    async def _release_when_saved(self) -> None:
        """Once every held change is durable, publish them (the held move's ack with them)."""
        while True:
            saves = self.saves
            await self.store.saved(self.code)  # this room's: another's may be refused
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
                self._follow()
                self.timers.go_on()
                self.follow_host(passing=False)
                # Every connection was told not_saved: each gets a patch that ends it, an empty
                # one if the held changes came to nothing for it (a join withdrawn).
                self.frames.publish(self.state, table, self.timers, sender, ack, "all", True)
                for connection in waiting:
                    if connection in table.connections:
                        self.send_state(connection)
                log.info("room %s: held changes saved and shown", self.code)
                # A wait between rounds may have ended meanwhile, its ring dropped (``rings``).
                if self._deal_when_all_ready():
                    await self.announce()
                return

    async def resave_finished_rounds(self) -> None:
        """Write the current match's finished rounds again (after a restart; stored once)."""
        async with self.lock:
            self.ledger.rewrite(self.state)
            if not await self._save():
                self._hold(None, None)

    # Timers (a bot's turn and the turn timer's are in ``autoplay``).

    def rings(self, timer: Timer[K], key: K) -> bool:
        """Whether a timer's ring for ``key`` still stands: the room is open and the timer is
        still set for that key (a ring that lost a race is not), and no change is held. A timer
        that stands still while a change is held (``RoomTimers.stand_still``) rings again when
        it goes on; any other (a wait for a player, the host's) is set again once the held
        change is shown."""
        if self.holding and timer.holds(key):
            if timer.held is None:
                timer.clear()
            return False
        return not self.closed and timer.holds(key)

    def _deal_when_all_ready(self) -> bool:
        """Between rounds, deal when every connected player is ready and nobody who lost their
        link is waited for (for ``standin_seconds``: a reload, or a phone's blip, is not taken
        for leaving); True if it dealt. Every change is announced, so the last ready, a player
        gone, and a wait ended before its timer could ring (a change, a held change's release)
        all deal here."""
        state = self.state
        if state.status is not Status.ROUND_OVER:
            return False
        if not self.table.all_ready(state, self.clock.steady(), self.config.standin_seconds):
            return False
        state.deal(millis(self.clock))
        return True

    def _follow(self) -> None:
        """Set the timers for the state after a change."""
        table, state, config = self.table, self.state, self.config
        back = table.back(state, self.clock.steady(), config.standin_seconds)
        self.timers.follow(state, table.here(), table.standins(), config, back)

    async def _back_expired(self, key: BackKey) -> None:
        async with self.lock:
            if not self.rings(self.timers.back, key):
                return
            self.timers.back.clear()
            await self.announce()  # deals, if everyone is ready

    async def _ready_expired(self, key: ReadyKey) -> None:
        async with self.lock:
            if not self.rings(self.timers.ready, key) or ready_key(self.state) != key:
                return
            self.state.deal(millis(self.clock))
            await self.announce()

    def follow_host(self, passing: bool = True) -> None:
        """Pass the host's role to the next player connected if the room needs a host and the
        host has been away for the grace (``host_grace_seconds``: a host who reloads, or whose
        phone dropped the link while they shared it, is back first); else ring when the grace
        ends, while it would pass then. Not ``passing``: only set the ring.

        The grace is the host's own: a player who became host while away (the host left the
        lobby, and the role fell to their seat) has none.
        """
        seat = self.table.next_host(self.state)
        if seat is None:
            if self.timers.host.key is not None:
                self.timers.host.clear()
            return
        who, since = self.table.host_away
        if who != self.host_token():
            since = -math.inf
        wait = since + self.config.host_grace_seconds - self.clock.now()
        if wait <= HOST_SLACK and passing:
            self.timers.host.clear()
            self.state.pass_host(seat)
        else:
            self.timers.host.set(HostKey(self.state.host, since), max(wait, 0.0))

    def host_token(self) -> str:
        """The hash of the host's token ("" in a room with no seat)."""
        seats = self.state.seats
        return seats[self.state.host].token_hash if seats else ""

    async def _host_expired(self, key: HostKey) -> None:
        async with self.lock:
            if not self.rings(self.timers.host, key):
                return
            self.timers.host.clear()
            await self.announce()  # passes the role, if it still passes

    def _schedule_idle(self) -> None:
        idle = self.timers.idle
        if not self.closed and idle.key is None:
            idle.set(IdleKey(self.code, idle.armed), self.config.idle_seconds)

    async def _idle_expired(self, key: IdleKey) -> None:
        # Under the lock: a hello or a join waiting for it comes after, and finds the room closed.
        # A join or a connection that came first called the timer off, or set it again (for
        # another key): this ring no longer stands.
        async with self.lock:
            if not self.timers.idle.holds(key):
                return
            self.timers.idle.clear()
            if not self.table.connections and not self.closed:
                self.store.forget(self.code)
                self.on_idle(self)

    def close(self, code: int, reason: str) -> None:
        """Stop the room's timers and close every connection."""
        self.closed_with = (code, reason)
        self.timers.stop()
        for connection in self.table.connections:
            connection.close(code, reason)
