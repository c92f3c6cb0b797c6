"""A live room: its state, its connections, its timers, and the patches it sends.

Every change happens under the room's lock, one message at a time, and ends with ``publish``:
the public view is rebuilt once, diffed once against what everyone holds and serialised once;
each connection then gets that plus its own ``you`` changes, queued without awaiting a socket.
"""

from __future__ import annotations

import asyncio
import logging
import random
import secrets
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import orjson

from app.bots.greedy import greedy_turn
from app.bots.levels import Level
from app.bots.observation import observe
from app.engine.actions import Action, Discard, Knock, Take, action_to_dict
from app.engine.cards import card_ids, parse_card
from app.engine.errors import IllegalAction
from app.engine.round import Round
from app.rooms import protocol
from app.rooms.connection import Connection
from app.rooms.patch import diff
from app.rooms.settings import RoomSettings
from app.rooms.state import RoomState, Status
from app.rooms.store import FinishedRound, NullStore, RoomStore
from app.rooms.thinking import Thinker
from app.rooms.views import View, ViewBuilder

log = logging.getLogger(__name__)

CLOSE_REPLACED = 4009
CLOSE_KICKED = 4010
CLOSE_ROOM_GONE = 4011


def now_ms() -> int:
    """Milliseconds since the epoch, as deadlines are given to clients."""
    return int(time.time() * 1000)


@dataclass(frozen=True, slots=True)
class RoomConfig:
    """Server-wide timings and limits that rooms follow."""

    ready_seconds: float = 30.0
    idle_seconds: float = 900.0
    max_queue: int = 256
    bot_delay_seconds: float = 1.0
    standin_seconds: float = 10.0


# The level of the bot that plays for a player who is away.
STANDIN_LEVEL = Level.STRONG


def _join_ops(shared: bytes, private: list[dict[str, Any]]) -> bytes:
    if not private:
        return shared
    extra = orjson.dumps(private)
    if shared == b"[]":
        return extra
    return shared[:-1] + b"," + extra[1:]


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
    ) -> None:
        self.state = state
        self.config = config
        self.on_idle = on_idle
        self.store: RoomStore = store or NullStore()
        self.on_action = on_action
        self.thinker = thinker or Thinker(workers=0)
        self.views = ViewBuilder()
        self.connections: list[Connection] = []
        self.lock = asyncio.Lock()
        self.turn_deadline: int | None = None
        self.ready_deadline: int | None = None
        self._timed_turn: tuple[Any, ...] | None = None
        self._turn_timer: asyncio.TimerHandle | None = None
        self._ready_timer: asyncio.TimerHandle | None = None
        self._idle_timer: asyncio.TimerHandle | None = None
        self.closed = False
        # Seats a bot plays for: their player missed two turns in a row, or was away.
        self.idle: set[int] = set()
        self.stood_in: set[int] = set()
        self.missed: dict[int, int] = {}
        self._auto_timer: asyncio.TimerHandle | None = None
        self._auto_key: tuple[Any, ...] | None = None
        self._hints: dict[int, tuple[tuple[Any, ...], dict[str, Any]]] = {}
        self.rng = random.Random(secrets.randbits(64))
        # The match and number of rounds already written to the history and announced.
        self._announced = (state.match_id, len(state.match.results) if state.match else 0)
        self.public: View = self._build_public()
        self._schedule_idle()

    @property
    def code(self) -> str:
        """The room's code."""
        return self.state.code

    # Presence.

    def presence(self) -> list[bool]:
        """Whether each seat is at the table: a connection open, or a bot."""
        online = [seat.bot is not None for seat in self.state.seats]
        for connection in self.connections:
            if connection.seat is not None:
                online[connection.seat] = True
        return online

    def people_here(self) -> set[int]:
        """The seats of players who have a connection open."""
        return {c.seat for c in self.connections if c.seat is not None}

    def standins(self) -> set[int]:
        """Seats of players a bot plays for: away when their turn came, or idle twice running."""
        return self.idle | self.stood_in

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
                self._came_back(connection.seat)
            # Everyone else hears of the arrival by patch; the newcomer starts from a state.
            self.connections.append(connection)
            if self._idle_timer is not None:
                self._idle_timer.cancel()
                self._idle_timer = None
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
        here = self.people_here()
        seats = len(self.state.seats)
        if not seats or self.state.host in here:
            return
        for step in range(1, seats):
            candidate = (self.state.host + step) % seats
            if candidate in here:
                self.state.pass_host(candidate)
                return

    def _came_back(self, seat: int) -> None:
        """A player acts or reconnects: no bot plays for them any more."""
        self.idle.discard(seat)
        self.stood_in.discard(seat)
        self.missed.pop(seat, None)

    def send_state(self, connection: Connection) -> None:
        """Queue a full state for one connection."""
        you = self.views.private(self.state, connection.seat)
        connection.you = you
        connection.version += 1
        document = {**self.public, "you": you}
        connection.push(protocol.state_frame(connection.version, document, now_ms()))

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
            seat = self.state.join(name, token_hash, now_ms())
            await self._announce()
            return seat

    async def _save(self) -> None:
        """Make the new events and any newly finished rounds durable, before announcing."""
        await self.store.save(self.state, self._finished_rounds())

    async def _announce(
        self, sender: Connection | None = None, ack: object = None, within_round: bool = False
    ) -> None:
        """After a change: make it durable, set the timers it calls for, tell every connection.

        ``within_round``: the change was a move that left the round going and changed nothing
        else everyone sees (see ``publish``).
        """
        await self._save()
        self._after_change()
        self.publish(sender, ack, within_round)

    def _finished_rounds(self) -> list[FinishedRound]:
        """Rounds finished since the last save, as the history keeps them."""
        state, match = self.state, self.state.match
        if match is None:
            return []
        announced_match, announced = self._announced
        start = announced if announced_match == state.match_id else 0
        if len(match.results) == start:
            return []
        self._announced = (state.match_id, len(match.results))
        names = tuple(seat.name for seat in state.seats)
        places = tuple(match.places())
        return [
            FinishedRound(
                match_id=state.match_id or "",
                room_code=state.code,
                settings=state.settings.model_dump(),
                started_at=state.match_started_at or now_ms(),
                names=names,
                result=result,
                ended_at=now_ms(),
                final=match.finished and result is match.results[-1],
                places=places,
            )
            for result in match.results[start:]
        ]

    async def resave_finished_rounds(self) -> None:
        """Write the current match's finished rounds again (after a restart; stored once)."""
        async with self.lock:
            self._announced = (self.state.match_id, 0)
            await self._save()

    def _dispatch(self, connection: Connection, message: protocol.ClientMessage) -> bool:
        """Apply the message to the state; True if it was a move that changed only the round."""
        state, seat, at = self.state, connection.seat, now_ms()
        match message:
            case protocol.TakeMessage(piles=piles):
                return self._play(connection, Take(self._seat(seat), tuple(piles)))
            case protocol.DiscardMessage(cards=cards):
                discarded = tuple(map(parse_card, cards))
                return self._play(connection, Discard(self._seat(seat), discarded))
            case protocol.KnockMessage():
                return self._play(connection, Knock(self._seat(seat)))
            case protocol.Ready():
                state.mark_ready(seat)
                self._deal_when_all_ready()
            case protocol.Start():
                state.start(seat, uuid.uuid4().hex, secrets.token_hex(32), at)
            case protocol.Rematch():
                state.rematch(seat, uuid.uuid4().hex, secrets.token_hex(32), at)
            case protocol.ChangeSettings(settings=changes):
                state.change_settings(seat, self._settings(changes))
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
                self._came_back(self._seat(seat))
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

    def _play(self, connection: Connection, action: Action) -> bool:
        """Play a move; True if it left the round going and nobody's stand-in changed."""
        self.state.play(connection.seat, action, now_ms())
        stood_in = action.seat in self.idle or action.seat in self.stood_in
        self._came_back(action.seat)
        return self.state.status is Status.PLAYING and not stood_in

    async def _answer_hint(self, connection: Connection, message_id: object) -> None:
        """Send the asker the strong bot's suggestion, worked out once per position."""
        async with self.lock:
            try:
                seat, key, current = self._hint_position(connection.seat)
            except IllegalAction as error:
                connection.push(protocol.error_frame(error.code, error.message, message_id))
                return
            cached = self._hints.get(seat)
            if cached is not None and cached[0] == key:
                connection.push(protocol.hint_frame(message_id, cached[1]))
                return
            observation = observe(current, seat)
        decision = await self.thinker.decide(Level.STRONG, observation, 0)
        advice = {
            "actions": [action_to_dict(action) for action in decision.actions],
            "aim": card_ids(decision.aim),
            "points": decision.points,
            "reason": decision.reason,
            "text": decision.hint,
        }
        self._hints[seat] = (key, advice)
        connection.push(protocol.hint_frame(message_id, advice))

    def _hint_position(self, seat: int | None) -> tuple[int, tuple[Any, ...], Round]:
        """The asker's seat, a key for the position, and the round being played."""
        state, match = self.state, self.state.match
        if not state.settings.hints:
            raise IllegalAction("hints_off", "the host has switched hints off")
        seat = self._seat(seat)
        if state.status is not Status.PLAYING or match is None or match.round is None:
            raise IllegalAction("no_round", "no round is being played")
        current = match.round
        if current.turn != seat:
            raise IllegalAction("not_your_turn", "hints are for your own turn")
        key = (state.match_id, current.number, current.turns, current.step, current.pending)
        return seat, key, current

    def _settings(self, changes: dict[str, Any]) -> RoomSettings:
        try:
            return self.state.settings.updated(changes)
        except ValueError as error:
            raise IllegalAction("bad_settings", _first_error(error)) from None

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
        self.views.forget_private()
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
            self.state.deal(now_ms())

    # Timers.

    def _after_change(self) -> None:
        """Set or clear the turn and ready deadlines to match the new state."""
        state = self.state
        match = state.match
        here = self.people_here()
        anyone = bool(here)
        self._schedule_bot(here)
        if state.status is Status.PLAYING and match and match.round and state.settings.turn_seconds:
            key = (state.match_id, match.round.number, match.round.turns)
            if not anyone:
                self._clear_turn_timer()
            elif key != self._timed_turn or self.turn_deadline is None:
                self._clear_turn_timer()
                self._timed_turn = key
                delay = state.settings.turn_seconds
                self.turn_deadline = now_ms() + delay * 1000
                self._turn_timer = asyncio.get_running_loop().call_later(
                    delay, self._spawn, self._turn_expired, key
                )
        else:
            self._clear_turn_timer()
        if state.status is Status.ROUND_OVER and match is not None:
            if self.ready_deadline is None:
                wait = self.config.ready_seconds
                self.ready_deadline = now_ms() + int(wait * 1000)
                self._ready_timer = asyncio.get_running_loop().call_later(
                    wait, self._spawn, self._ready_expired, len(match.results)
                )
        elif self.ready_deadline is not None:
            self.ready_deadline = None
            if self._ready_timer is not None:
                self._ready_timer.cancel()
                self._ready_timer = None

    def _schedule_bot(self, here: set[int]) -> None:
        """When a bot is to play this turn (its own seat, or for an absent player), let it;
        ``here`` holds the seats of the people connected."""
        state, match = self.state, self.state.match
        current = match.round if match else None
        key: tuple[Any, ...] | None = None
        delay = self.config.bot_delay_seconds
        if here and state.status is Status.PLAYING and current is not None:
            seat = current.turn
            if state.is_bot(seat) or seat in self.standins():
                key = (state.match_id, current.number, current.turns, current.step)
            elif seat not in here:
                # Away on their turn: a short grace first, for a dropped connection to return.
                key = (state.match_id, current.number, current.turns, current.step, "away")
                delay = max(delay, self.config.standin_seconds)
        if key == self._auto_key:
            return
        if self._auto_timer is not None:
            self._auto_timer.cancel()
            self._auto_timer = None
        self._auto_key = key
        if key is not None:
            self._auto_timer = asyncio.get_running_loop().call_later(
                delay, self._spawn, self._bot_plays, key
            )

    async def _bot_plays(self, key: tuple[Any, ...]) -> None:
        async with self.lock:
            if self.closed or key != self._auto_key:
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
            if self.closed or key != self._auto_key:
                return
            self._auto_timer = self._auto_key = None
            for action in actions or tuple(greedy_turn(current, seat)):
                self.state.play(seat, action, now_ms(), auto=True)
            if not self.state.is_bot(seat) and seat not in self.people_here():
                self.stood_in.add(seat)
            await self._announce()

    def _clear_turn_timer(self) -> None:
        if self._turn_timer is not None:
            self._turn_timer.cancel()
            self._turn_timer = None
        self.turn_deadline = None
        self._timed_turn = None

    def _on_turn(self) -> tuple[Round, int]:
        """The round being played and the seat on turn (for a timer that rings mid-round)."""
        match = self.state.match
        assert match is not None
        assert match.round is not None
        return match.round, match.round.turn

    def _spawn(self, job: Callable[[Any], Any], key: Any) -> None:
        task = asyncio.get_running_loop().create_task(job(key))
        task.add_done_callback(_log_failure)

    async def _turn_expired(self, key: tuple[Any, ...]) -> None:
        async with self.lock:
            if self.closed or key != self._timed_turn:
                return
            current, seat = self._on_turn()
            for action in greedy_turn(current, seat):
                self.state.play(seat, action, now_ms(), auto=True)
            if not self.state.is_bot(seat) and seat not in self.standins():
                self.missed[seat] = self.missed.get(seat, 0) + 1
                if self.missed[seat] >= 2:
                    self.idle.add(seat)
            self.turn_deadline = None
            await self._announce()

    async def _ready_expired(self, number: int) -> None:
        async with self.lock:
            match = self.state.match
            if self.closed or self.state.status is not Status.ROUND_OVER or match is None:
                return
            if len(match.results) != number:
                return
            self.state.deal(now_ms())
            await self._announce()

    def _schedule_idle(self) -> None:
        if self._idle_timer is None and not self.closed:
            self._idle_timer = asyncio.get_running_loop().call_later(
                self.config.idle_seconds, self._idle_expired
            )

    def _idle_expired(self) -> None:
        self._idle_timer = None
        if not self.connections and not self.closed:
            self.store.forget(self.code)
            self.on_idle(self)

    def close(self, code: int, reason: str) -> None:
        """Stop the room's timers and close every connection."""
        self.closed = True
        for timer in (self._turn_timer, self._ready_timer, self._idle_timer, self._auto_timer):
            if timer is not None:
                timer.cancel()
        for connection in self.connections:
            connection.close(code, reason)

    # Views.

    def _build_public(self) -> View:
        return self.views.public(
            self.state,
            self.presence(),
            self.standins(),
            self.spectators(),
            self.turn_deadline,
            self.ready_deadline,
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
            before, after = self.public["round"], self.views.round(self.state, self.turn_deadline)
            ops = diff(before, after, "/round")
            self.public["round"] = after
        else:
            public = self._build_public()
            ops = diff(self.public, public)
            self.public = public
        shared = orjson.dumps(ops) if ops else b"[]"
        for connection in self.connections:
            if connection.you is None:
                continue  # its first state is on the way and already holds this change
            you = self.views.private(self.state, connection.seat)
            private = diff(connection.you, you, "/you") if connection.you is not you else []
            connection.you = you
            acknowledged = connection is sender and ack is not None
            if not ops and not private and not acknowledged:
                continue
            connection.version += 1
            connection.push(
                protocol.patch_frame(
                    connection.version, _join_ops(shared, private), ack if acknowledged else None
                )
            )


def _first_error(error: ValueError) -> str:
    errors = getattr(error, "errors", None)
    if callable(errors):
        first = errors(include_url=False)[0]
        where = ".".join(str(part) for part in first["loc"])
        message = str(first["msg"]).removeprefix("Value error, ")
        return f"{where}: {message}" if where else message
    return str(error)


def _log_failure(task: asyncio.Task[Any]) -> None:
    if not task.cancelled() and task.exception() is not None:
        log.error("room timer failed", exc_info=task.exception())
