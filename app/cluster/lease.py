"""Room ownership: a lease in Redis with a TTL, and an epoch (fencing token) raised by each claim.

The standard single-instance recipe: a claim is SET-if-absent with an expiry, renewal and release
compare the holder before they touch the key, each in one Lua script so nothing comes between the
check and the change. Every claim raises the room's epoch, never below a floor the caller knows
(the newest epoch the database has accepted), so an epoch is never handed out twice even after
Redis forgot everything. The epoch is what fences: storage refuses a write whose epoch is older
than the one it last accepted for the room.

A room Redis has forgot (it restarted: no epoch for a room the database holds) may still be
held by a live node, which claims it again at its next renewal. So the first claim of such a
room by any other node only marks it waited for (the owner key holds ``?:<epoch>`` for a
lease's life, and the epoch is kept); its own node's claim again replaces the mark, and once
the mark lapses unclaimed (its node is gone too) any node claims the room as usual. A room
would otherwise change hands, its players' sockets closed, whenever a request reached another
node in the seconds after Redis came back.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

_CLAIM = """
local holder = redis.call('GET', KEYS[1])
local floor = tonumber(ARGV[3])
if holder then
    local node, epoch = string.match(holder, '^(.*):(%d+)$')
    if node ~= ARGV[1] and not (node == '?' and ARGV[4] == '1') then
        return {0, tonumber(epoch), node}
    end
elseif floor > 0 and ARGV[4] ~= '1' and redis.call('EXISTS', KEYS[2]) == 0 then
    redis.call('SET', KEYS[2], floor)
    redis.call('SET', KEYS[1], '?:' .. floor, 'PX', ARGV[2])
    return {0, floor, '?'}
end
local epoch = redis.call('INCR', KEYS[2])
if epoch <= floor then
    epoch = floor + 1
    redis.call('SET', KEYS[2], epoch)
end
redis.call('SET', KEYS[1], ARGV[1] .. ':' .. epoch, 'PX', ARGV[2])
return {1, epoch, ARGV[1]}
"""
_RENEW = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
    return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0
"""
_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
    return redis.call('DEL', KEYS[1])
end
return 0
"""


class Script(Protocol):
    """A registered Lua script of redis-py's asyncio client."""

    async def __call__(self, keys: list[str], args: list[Any], client: Any = None) -> Any: ...


class ScriptHost(Protocol):
    """What the leases need of a Redis client."""

    def register_script(self, script: str) -> Any: ...

    async def get(self, name: str) -> Any: ...

    def pipeline(self, transaction: bool = True) -> Any: ...

    async def mget(self, keys: list[str]) -> list[Any]: ...


@dataclass(frozen=True, slots=True)
class Lease:
    """A room held by a node at an epoch."""

    code: str
    node: str
    epoch: int

    @property
    def token(self) -> str:
        """The value kept in Redis while the lease is held."""
        return f"{self.node}:{self.epoch}"


# The holder of a room Redis forgot, waited for (see the module's text).
WAITED = "?"


@dataclass(frozen=True, slots=True)
class Taken:
    """The room is held by another node (``WAITED``: by none known yet, wait)."""

    code: str
    node: str
    epoch: int


class Leases:
    """Claims, renews and releases room leases under one key prefix."""

    def __init__(self, redis: ScriptHost, ttl_ms: int, prefix: str = "spectrum") -> None:
        self.redis = redis
        self.ttl_ms = ttl_ms
        self.prefix = prefix
        self._claim: Script = redis.register_script(_CLAIM)
        self._renew: Script = redis.register_script(_RENEW)
        self._release: Script = redis.register_script(_RELEASE)

    def owner_key(self, code: str) -> str:
        return f"{self.prefix}:room:{code}:owner"

    def epoch_key(self, code: str) -> str:
        return f"{self.prefix}:room:{code}:epoch"

    async def claim(
        self, code: str, node: str, floor: int = 0, again: bool = False
    ) -> Lease | Taken:
        """Take the room for ``node`` with a new epoch above ``floor``, unless another holds it
        or Redis forgot it (``Taken`` by ``WAITED``). ``again``: ``node`` held the room at
        ``floor`` and Redis forgot it."""
        if ":" in node or node == WAITED:
            raise ValueError("a node id may not contain ':' or be '?'")
        won, epoch, holder = await self._claim(
            keys=[self.owner_key(code), self.epoch_key(code)],
            args=[node, self.ttl_ms, floor, "1" if again else "0"],
        )
        holder = holder.decode() if isinstance(holder, bytes) else str(holder)
        if won:
            return Lease(code, node, int(epoch))
        return Taken(code, holder, int(epoch))

    async def renew(self, lease: Lease) -> bool:
        """Extend the lease; False when it is no longer this one (expired, taken over)."""
        return bool(
            await self._renew(keys=[self.owner_key(lease.code)], args=[lease.token, self.ttl_ms])
        )

    async def renew_many(self, leases: list[Lease]) -> list[bool]:
        """Extend many leases in one round trip; each answer as from ``renew``."""
        # As a context, the pipeline gives its connection back even when Redis fails it.
        async with self.redis.pipeline(transaction=False) as pipe:
            for lease in leases:
                await self._renew(
                    keys=[self.owner_key(lease.code)], args=[lease.token, self.ttl_ms], client=pipe
                )
            return [bool(answer) for answer in await pipe.execute()]

    async def release(self, lease: Lease) -> bool:
        """Give the room up, if the lease is still this one."""
        return bool(await self._release(keys=[self.owner_key(lease.code)], args=[lease.token]))

    async def unheld(self, codes: list[str]) -> list[str]:
        """Those of ``codes`` that no node holds (nor Redis forgot: those are waited for)."""
        if not codes:
            return []
        values = await self.redis.mget([self.owner_key(code) for code in codes])
        return [code for code, value in zip(codes, values, strict=True) if value is None]

    async def holder(self, code: str) -> Lease | None:
        """Who holds the room now, if anyone (``WAITED``: Redis forgot it, see ``claim``)."""
        value = await self.redis.get(self.owner_key(code))
        if value is None:
            return None
        text = value.decode() if isinstance(value, bytes) else str(value)
        node, _, epoch = text.rpartition(":")
        return Lease(code, node, int(epoch))
