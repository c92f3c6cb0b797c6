"""A live room: the authority for its state, which changes under its lock, one message at a time.

Each change is made durable, then sets the timers it calls for, then is published to every
connection (see ``frames``); nothing here awaits a socket while holding the lock.
"""

from __future__ import annotations

import asyncio
import logging
import random
import secrets
import time
import uuid
from collections.abc import Callable

from app.bots.greedy import greedy_turn
from app.bots.levels import Level
from app.bots.observation import observe
from app.engine.actions import Action, action_from_dict
from app.engine.errors import IllegalAction
from app.engine.round import Round
from app.rooms import hints, protocol, standins
from app.rooms.connection import Connection
from app.rooms.frames import Frames
from app.rooms.settings import changed
from app.rooms.standins import NOBODY, STANDIN_LEVEL, StandIns
from app.rooms.state import RoomState, Status
from app.rooms.store import NullStore, RoomStore, RoundLedger
from app.rooms.thinking import Thinker
from app.rooms.timers import (
    BotKey,
    Clock,
    IdleKey,
    LoopClock,
    ReadyKey,
    RoomConfig,
    RoomTimers,
    TurnKey,
    millis,
    ready_key,
)
from app.rooms.views import View, ViewBuilder

__all__ = ["CLOSE_KICKED", "CLOSE_REPLACED", "CLOSE_ROOM_GONE", "LiveRoom", "RoomConfig", "now_ms"]

log = logging.getLogger(__name__)

CLOSE_REPLACED = 4009
CLOSE_KICKED = 4010
CLOSE_ROOM_GONE = 4011


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
        self.thinker = thinker or Thinker(workers=0)
        self.clock: Clock = clock or LoopClock()
        self.connections: list[Connection] = []
        self.lock = asyncio.Lock()
        self.closed = False
        self.timers = RoomTimers(
            self.clock, self._turn_expired, self._ready_expired, self._bot_plays, self._idle_expired
        )
        self.stand_ins: StandIns = NOBODY
        self.hints = hints.HintCache()
        self.rng = random.Random(secrets.randbits(64))
        self.ledger = RoundLedger(state)
        views = ViewBuilder()
        self.frames = Frames(views, {})
        self.frames.public = self._build_public()
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
        return standins.presence(self.state, self.people_here())

    def people_here(self) -> set[int]:
        """The seats of players who have a connection open."""
        return standins.seated(connection.seat for connection in self.connections)

    def standins(self) -> frozenset[int]:
        """Seats of players a bot plays for: away when their turn came, or idle twice running."""
        return self.stand_ins.seats()

    def spectators(self) -> int:
        """How many connections watch without a seat."""
        return sum(connection.seat is None for connection in self.connections)

    async def attach(self, connection: Connection) -> None:
        """Add a connection: it gets a full state; an older one for the same seat is closed."""
        async with self.lock:
            if connection.seat is not None:
                for older in self.connections:
                    if older.seat == connection.seat:
                        older.close(CLOSE_REPLACED, "this seat was opened in another tab or device")
                self.connections = [c for c in self.connections if c.seat != connection.seat]
                self.stand_ins = standins.came_back(self.stand_ins, connection.seat)
            # Everyone else hears of the arrival by patch; the newcomer starts from a state.
            self.connections.append(connection)
            self.timers.idle.clear()
            self._pass_host_if_away()
            await self._announce()
            self.send_state(connection)

    async def detach(self, connection: Connection) -> None:
        """Remove a connection; the host's role passes on if the host is gone."""
        async with self.lock:
            if connection not in self.connections:
                return
            self.connections.remove(connection)
            self._pass_host_if_away()
            self._deal_when_all_ready()
            await self._announce()
            if not self.connections:
                self._schedule_idle()

    def _pass_host_if_away(self) -> None:
        host = standins.next_host(self.state, self.people_here())
        if host is not None:
            self.state.pass_host(host)

    def send_state(self, connection: Connection) -> None:
        """Queue a full state for one connection."""
        self.frames.send_state(self.state, connection, millis(self.clock))

    # Messages.

    async def handle(self, connection: Connection, message: protocol.ClientMessage) -> None:
        """Act on one client message; a refusal answers the sender alone and changes nothing."""
        if isinstance(message, protocol.Resync):
            async with self.lock:
                self.send_state(connection)
            return
        if isinstance(message, protocol.HintRequest):
            await self._answer_hint(connection, message.id)
            return
        started = time.perf_counter()
        async with self.lock:
            if connection not in self.connections:
                return
            try:
                within_round = self._dispatch(connection, message)
            except IllegalAction as error:
                connection.push(protocol.error_frame(error.code, error.message, message.id))
                accepted = False
            else:
                await self._announce(connection, message.id, within_round)
                accepted = True
        if self.on_action is not None:
            self.on_action(time.perf_counter() - started, accepted)

    async def join(self, name: str, token_hash: str) -> int:
        """Seat a new player (from the HTTP join); returns the seat."""
        async with self.lock:
            seat = self.state.join(name, token_hash, millis(self.clock))
            await self._announce()
            if self.closed:
                raise IllegalAction("room_moved", "the room moved while joining; try again")
            return seat

    async def _save(self) -> None:
        """Make the new events and any newly finished rounds durable, before announcing."""
        await self.store.save(self.state, self.ledger.take(self.state, millis(self.clock)))

    async def _announce(
        self, sender: Connection | None = None, ack: object = None, within_round: bool = False
    ) -> None:
        """After a change: make it durable, set the timers it calls for, tell every connection.

        ``within_round``: the change was a move that left the round going and changed nothing
        else everyone sees (see ``publish``).
        """
        await self._save()
        if self.closed:
            return  # stopped meanwhile (its write refused, or the room moved): nothing is told
        self._after_change()
        self.publish(sender, ack, within_round)

    async def resave_finished_rounds(self) -> None:
        """Write the current match's finished rounds again (after a restart; stored once)."""
        async with self.lock:
            self.ledger.rewrite()
            await self._save()

    def _dispatch(self, connection: Connection, message: protocol.ClientMessage) -> bool:
        """Apply the message to the state; True if it was a move that changed only the round."""
        state, seat, at = self.state, connection.seat, millis(self.clock)
        match message:
            case protocol.TakeMessage() | protocol.DiscardMessage() | protocol.KnockMessage():
                return self._play(connection, self._move(message, seat))
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
                self.stand_ins = standins.came_back(self.stand_ins, self._seat(seat))
            case protocol.Hello():
                raise IllegalAction("bad_message", "hello is only the first message")
            case _:
                raise IllegalAction("bad_message", f"{message.type} is not handled here")
        return False

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
        stood_in = self.stand_ins.plays_for(action.seat)
        self.stand_ins = standins.came_back(self.stand_ins, action.seat)
        return self.state.status is Status.PLAYING and not stood_in

    async def _answer_hint(self, connection: Connection, message_id: object) -> None:
        """Send the asker the strong bot's suggestion, worked out once per position."""
        async with self.lock:
            try:
                seat, key, current = hints.position(self.state, connection.seat)
            except IllegalAction as error:
                connection.push(protocol.error_frame(error.code, error.message, message_id))
                return
            cached = self.hints.get(seat, key)
            if cached is not None:
                connection.push(protocol.hint_frame(message_id, cached))
                return
            observation = observe(current, seat)
        advice = hints.advice(await self.thinker.decide(Level.STRONG, observation, 0))
        self.hints.put(seat, key, advice)
        connection.push(protocol.hint_frame(message_id, advice))

    def _unseat(self, removed: int, code: int | None, reason: str) -> None:
        """Renumber connections after a seat left the lobby; the removed seat's are closed."""
        for connection in self.connections:
            if connection.seat == removed:
                if code is not None:
                    connection.close(code, reason)
                connection.seat = None
            elif connection.seat is not None and connection.seat > removed:
                connection.seat -= 1
        self.connections = [c for c in self.connections if c.closing is None]
        self.frames.views.forget_private()
        self._pass_host_if_away()

    def _deal_when_all_ready(self) -> None:
        """Deal when every connected player is ready; bots always are, and nobody connected
        leaves it to the timer."""
        here = self.people_here()
        seats = self.state.seats
        if (
            self.state.status is Status.ROUND_OVER
            and here
            and all(seats[seat].ready for seat in here)
        ):
            self.state.deal(millis(self.clock))

    # Timers.

    def _after_change(self) -> None:
        """Set or clear the turn, ready and bot timers to match the new state."""
        self.timers.follow(self.state, self.people_here(), self.standins(), self.config)

    async def _bot_plays(self, key: BotKey) -> None:
        async with self.lock:
            if self.closed or not self.timers.bot.holds(key):
                return
            current, seat = self._on_turn()
            level = self.state.seats[seat].bot or STANDIN_LEVEL
            observation = observe(current, seat)
            seed = self.rng.getrandbits(64)
        # The bot thinks outside the lock; if the table moved on meanwhile, its move is dropped.
        try:
            actions: tuple[Action, ...] = (
                await self.thinker.decide(level, observation, seed)
            ).actions
        except Exception:  # a bot must never stop the table: the greedy move stands in
            log.exception("bot of seat %d failed; playing the greedy move", seat)
            actions = ()
        async with self.lock:
            if self.closed or not self.timers.bot.holds(key):
                return
            self.timers.bot.clear()
            for action in actions or tuple(greedy_turn(current, seat)):
                self.state.play(seat, action, millis(self.clock), auto=True)
            self.stand_ins = standins.bot_played(
                self.stand_ins, self.state, seat, self.people_here()
            )
            await self._announce()

    def _on_turn(self) -> tuple[Round, int]:
        """The round being played and the seat on turn (for a timer that rings mid-round)."""
        match = self.state.match
        assert match is not None
        assert match.round is not None
        return match.round, match.round.turn

    async def _turn_expired(self, key: TurnKey) -> None:
        async with self.lock:
            if self.closed or not self.timers.turn.holds(key):
                return
            current, seat = self._on_turn()
            for action in greedy_turn(current, seat):
                self.state.play(seat, action, millis(self.clock), auto=True)
            self.stand_ins = standins.turn_timed_out(self.stand_ins, self.state, seat)
            self.timers.turn.clear()
            await self._announce()

    async def _ready_expired(self, key: ReadyKey) -> None:
        async with self.lock:
            if self.closed or not self.timers.ready.holds(key) or ready_key(self.state) != key:
                return
            self.state.deal(millis(self.clock))
            await self._announce()

    def _schedule_idle(self) -> None:
        if not self.closed:
            self.timers.idle.set(IdleKey(self.code), self.config.idle_seconds)

    async def _idle_expired(self, key: IdleKey) -> None:
        self.timers.idle.clear()
        if not self.connections and not self.closed:
            self.store.forget(self.code)
            self.on_idle(self)

    def close(self, code: int, reason: str) -> None:
        """Stop the room's timers and close every connection."""
        self.closed = True
        self.timers.stop()
        for connection in self.connections:
            connection.close(code, reason)

    # Views.

    def _build_public(self) -> View:
        return self.frames.views.public(
            self.state,
            self.presence(),
            self.standins(),
            self.spectators(),
            self.timers.turn.deadline,
            self.timers.ready.deadline,
        )

    def publish(
        self, sender: Connection | None = None, ack: object = None, within_round: bool = False
    ) -> None:
        """Send every connection what changed since the last publish.

        ``within_round``: only the round's public face can have changed (a move that left the
        round going), so only it is rebuilt and compared: the most frequent change, at a
        fraction of the cost of the whole view.
        """
        if within_round:
            ops = self.frames.round_changed(self.state, self.timers.turn.deadline)
        else:
            ops = self.frames.public_changed(self._build_public())
        self.frames.send_patches(self.state, self.connections, ops, sender, ack)
