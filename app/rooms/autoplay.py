"""The turns a room plays itself (a bot's, a stand-in's, the turn timer's) and its hints.

These are the jobs of the bot and turn timers and the answer to a hint request: each checks,
under the room's lock, that what it was set for still holds, and a bot thinks outside the lock.
"""

from __future__ import annotations

import logging
import random
import secrets
from collections.abc import Iterable
from typing import TYPE_CHECKING

from app.bots.greedy import greedy_turn
from app.bots.levels import Level
from app.bots.observation import observe
from app.engine.actions import Action
from app.engine.errors import IllegalAction
from app.engine.round import Round
from app.rooms import hints, protocol, standins
from app.rooms.connection import Connection
from app.rooms.standins import STANDIN_LEVEL, STANDIN_LEVEL_WITHOUT_HINTS
from app.rooms.thinking import Behind, Thinker
from app.rooms.timers import BotKey, TurnKey, millis

if TYPE_CHECKING:
    from app.rooms.live import LiveRoom

log = logging.getLogger(__name__)
HINT_LATE = "the position changed while the hint was worked out; ask again"
HINT_BUSY = "the server is too busy to work a hint out now; ask again shortly"
# How long a decision may wait for the bot workers: they take tens of milliseconds, and a few
# hundred at most (10-card Spectrum with multiple pickups), unless more rooms ask them than they
# can think for. A bot then plays the timer's move, and a hint is refused.
DECISION_SECONDS = 5.0


class Autoplay:
    """Plays the turns of a room's bots and stand-ins, the turns the timer runs out, and hints."""

    __slots__ = ("hints", "rng", "room", "thinker")

    def __init__(self, room: LiveRoom, thinker: Thinker) -> None:
        self.room = room
        self.thinker = thinker
        self.hints = hints.HintCache()
        self.rng = random.Random(secrets.randbits(64))

    def _on_turn(self) -> tuple[Round, int]:
        """The round being played and the seat on turn (for a timer that rings mid-round)."""
        match = self.room.state.match
        assert match is not None
        assert match.round is not None
        return match.round, match.round.turn

    def _play(self, seat: int, actions: Iterable[Action]) -> None:
        """Play ``actions`` for ``seat``, marked as played by the room, not the player."""
        room = self.room
        for action in actions:
            room.state.play(seat, action, millis(room.clock), auto=True)

    async def bot_plays(self, key: BotKey) -> None:
        """The bot timer's job: the bot of the seat on turn, or its stand-in, plays."""
        room = self.room
        async with room.lock:
            if not room.rings(room.timers.bot, key):
                return
            armed = room.timers.bot.armed
            current, seat = self._on_turn()
            standin = STANDIN_LEVEL if room.state.settings.hints else STANDIN_LEVEL_WITHOUT_HINTS
            level = room.state.seats[seat].bot or standin
            observation = observe(current, seat)
            seed = self.rng.getrandbits(64)
        # The bot thinks outside the lock; if the table moved on meanwhile, its move is dropped.
        try:
            actions: tuple[Action, ...] = (
                await self.thinker.decide(level, observation, seed, DECISION_SECONDS)
            ).actions
        except Behind:  # said by the thinker, once in a while: the greedy move stands in
            actions = ()
        except Exception:  # a bot must never stop the table: the greedy move stands in
            log.exception("bot of seat %d failed; playing the greedy move", seat)
            actions = ()
        async with room.lock:
            # Set again meanwhile, for the same turn (a player who came back and left again is
            # owed the whole grace again): that ring plays, not this one.
            if not room.rings(room.timers.bot, key) or room.timers.bot.armed != armed:
                return
            room.timers.bot.clear()
            self._play(seat, actions or tuple(greedy_turn(current, seat)))
            table = room.table
            table.stand_ins = standins.bot_played(table.stand_ins, room.state, seat, table.here())
            await room.announce()

    async def turn_expired(self, key: TurnKey) -> None:
        """The turn timer's job: the greedy move is played for the seat on turn."""
        room = self.room
        async with room.lock:
            if not room.rings(room.timers.turn, key):
                return
            room.timers.turn.clear()
            current, seat = self._on_turn()
            self._play(seat, greedy_turn(current, seat))
            table = room.table
            table.stand_ins = standins.turn_timed_out(table.stand_ins, room.state, seat)
            await room.announce()

    async def answer_hint(self, connection: Connection, message_id: object) -> None:
        """Send the asker the strong bot's suggestion, worked out once per position."""
        async with self.room.lock:
            if self.room.holding:
                # Its state holds a change nobody was shown yet: no advice is drawn from it.
                self.room.refuse_held(connection, message_id)
                return
            try:
                seat, key, current = hints.position(self.room.state, connection.seat)
            except IllegalAction as error:
                connection.push(protocol.error_frame(error.code, error.message, message_id))
                return
            cached = self.hints.get(seat, key)
            if cached is not None:
                connection.push(protocol.hint_frame(message_id, cached))
                return
            observation = observe(current, seat)
        try:
            # A person waits on it: worked out in the hints' workers, not behind the bots' turns.
            decision = await self.thinker.decide(
                Level.STRONG, observation, 0, DECISION_SECONDS, hint=True
            )
        except Exception as error:
            if not isinstance(error, Behind):  # said by the thinker, once in a while
                log.exception("the hint of seat %d could not be worked out", seat)
            connection.push(protocol.error_frame("hint_busy", HINT_BUSY, message_id))
            return
        advice = hints.advice(decision)
        self.hints.put(seat, key, advice)
        # Worked out outside the lock: the turn may have been played meanwhile (its timer).
        try:
            still = hints.position(self.room.state, connection.seat)[1] == key
        except IllegalAction:
            still = False
        if still and not self.room.closed:
            connection.push(protocol.hint_frame(message_id, advice))
        else:
            connection.push(protocol.error_frame("hint_late", HINT_LATE, message_id))
