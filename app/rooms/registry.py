"""Every live room of this process, by code; codes and seat tokens are made here."""

from __future__ import annotations

import hashlib
import logging
import math
import secrets
import time
from collections import Counter, deque
from collections.abc import Awaitable, Callable

from app.collection import Connections
from app.engine.errors import IllegalAction
from app.rooms.live import CLOSE_ROOM_GONE, NOT_SAVED, LiveRoom, RoomConfig, now_ms
from app.rooms.settings import RoomSettings
from app.rooms.state import RoomState
from app.rooms.store import NullStore, RoomStore
from app.rooms.thinking import Thinker

log = logging.getLogger(__name__)

# No 0/O, 1/I/L or U/V look-alikes: easy to read aloud and to type from a phone.
CODE_ALPHABET = "23456789ABCDEFGHJKMNPQRSTWXYZ"
CODE_LENGTH = 8


def new_code() -> str:
    """A fresh room code such as ``K7QM-2XPD`` (about 2^39 possibilities)."""
    raw = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
    return f"{raw[:4]}-{raw[4:]}"


def normalise_code(text: str) -> str | None:
    """A code as typed (any case, with or without the dash or spaces), or None if impossible."""
    raw = "".join(character for character in text.upper() if character.isalnum())
    if len(raw) != CODE_LENGTH or any(character not in CODE_ALPHABET for character in raw):
        return None
    return f"{raw[:4]}-{raw[4:]}"


def new_token() -> str:
    """A seat token: 192 random bits, URL-safe."""
    return secrets.token_urlsafe(24)


def hash_token(token: str) -> str:
    """What the server keeps of a token: its SHA-256."""
    return hashlib.sha256(token.encode()).hexdigest()


class WindowLimiter:
    """At most ``limit`` events per key in any ``window`` seconds."""

    # Past this many keys kept, those with no event in the window are dropped, at most once a
    # window (a sweep walks them all).
    KEPT = 10_000

    def __init__(self, limit: int, window: float) -> None:
        self.limit = limit
        self.window = window
        self.events: dict[str, deque[float]] = {}
        self.next_sweep = 0.0

    def full(self, key: str) -> bool:
        """Whether the key has had its ``limit`` events in the window (nothing is counted)."""
        stamps = self.events.get(key)
        if not stamps or len(stamps) < self.limit:
            return False
        self._drop_old(stamps, time.monotonic())
        return len(stamps) >= self.limit

    def hit(self, key: str) -> bool:
        """Count an event; False if the key is over its limit (the event is not counted)."""
        return self.counted(key) is not None

    def counted(self, key: str) -> float | None:
        """Count an event; when it was counted, or None if the key is over its limit (the
        event is not counted)."""
        now = time.monotonic()
        stamps = self.events.setdefault(key, deque())
        self._drop_old(stamps, now)
        if len(stamps) >= self.limit:
            return None
        stamps.append(now)
        if len(self.events) > self.KEPT and now >= self.next_sweep:
            self._forget_idle(now)
        return now

    def give_back(self, key: str, stamp: float) -> None:
        """Uncount the event counted at ``stamp``: what it was counted for did not happen."""
        stamps = self.events.get(key)
        if stamps and stamp in stamps:
            stamps.remove(stamp)

    def _drop_old(self, stamps: deque[float], now: float) -> None:
        while stamps and stamps[0] <= now - self.window:
            stamps.popleft()

    def _forget_idle(self, now: float) -> None:
        self.next_sweep = now + self.window
        self.events = {k: v for k, v in self.events.items() if v and v[-1] > now - self.window}

    def wait(self, key: str) -> int:
        """Whole seconds until the key may have an event again (at least 1)."""
        stamps = self.events.get(key)
        if not stamps or len(stamps) < self.limit:
            return 1
        return max(1, math.ceil(stamps[0] + self.window - time.monotonic()))


class RoomRegistry:
    """The rooms held in memory, and per-address limits on connections."""

    def __init__(
        self,
        config: RoomConfig,
        max_rooms: int,
        store: RoomStore | None = None,
        on_action: Callable[[float, bool], None] | None = None,
        thinker: Thinker | None = None,
    ) -> None:
        self.config = config
        self.max_rooms = max_rooms
        self.store: RoomStore = store or NullStore()
        self.on_action = on_action
        self.thinker = thinker or Thinker(workers=0)
        self.rooms: dict[str, LiveRoom] = {}
        self.connections_by_address: Counter[str] = Counter()
        # Accepted sockets open and ended, which the garbage-collection policy follows.
        self.sockets = Connections()
        # In a cluster: whether a fresh code may be taken (no other node holds or held it), and
        # what to tell when a room is gone from memory.
        self.claim_code: Callable[[str], Awaitable[bool]] | None = None
        self.on_dropped: Callable[[str], None] | None = None
        # Why the rooms kept at the last stop are not held again yet (None once they are).
        self.unrestored: str | None = None
        # Rooms the restore left out, the database refusing their last changes: not unknown.
        self.left_out: set[str] = set()

    async def create(
        self, host_name: str, settings: RoomSettings, key_hash: str = ""
    ) -> tuple[LiveRoom, str]:
        """A new room with its creator seated as host; returns the room and the host's token."""
        if len(self.rooms) >= self.max_rooms:
            raise IllegalAction("server_full", "this server holds as many rooms as it can")
        code = new_code()
        while code in self.rooms or (
            self.claim_code is not None and not await self.claim_code(code)
        ):
            code = new_code()
        state = RoomState(code, settings, now_ms())
        token = new_token()
        state.join(host_name, hash_token(token), now_ms(), key_hash)
        room = LiveRoom(state, self.config, self.drop, self.store, self.on_action, self.thinker)
        self.rooms[code] = room
        if not await self.store.save(state):
            # Nobody holds its token yet: drop it rather than hand out a room not kept.
            self.store.forget(code)
            self.drop(room)
            raise IllegalAction("not_saved", NOT_SAVED)
        return room, token

    async def restore(self, states: list[RoomState]) -> int:
        """Hold again the rooms rebuilt after a restart, and make sure their rounds are saved;
        how many were held again."""
        count = 0
        for state in states:
            if state.code in self.rooms:  # held already (a try cut short, or made meanwhile)
                log.warning("room %s is held already: not restored again", state.code)
                continue
            room = LiveRoom(state, self.config, self.drop, self.store, self.on_action, self.thinker)
            self.rooms[state.code] = room
            count += 1
            await room.resave_finished_rounds()
        return count

    def get(self, code: str) -> LiveRoom | None:
        """The room with this code, however it was typed."""
        normal = normalise_code(code)
        return self.rooms.get(normal) if normal else None

    def drop(self, room: LiveRoom) -> None:
        """Forget a room (nobody has been connected for the idle time)."""
        room.close(CLOSE_ROOM_GONE, "the room was closed")
        if self.rooms.get(room.code) is room:
            del self.rooms[room.code]
            if self.on_dropped is not None:
                self.on_dropped(room.code)

    def close_all(self, code: int, reason: str) -> None:
        """Close every connection of every room (the server is stopping)."""
        for room in self.rooms.values():
            room.close(code, reason)
