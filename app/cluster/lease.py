"""Room ownership: a lease in Redis with a TTL, and an epoch (fencing token) raised by each claim.

The standard single-instance recipe: a claim is SET-if-absent with an expiry, renewal and release
compare the holder before they touch the key, each in one Lua script so nothing comes between the
check and the change. Every claim raises the room's epoch, never below a floor the caller knows
(the newest epoch the database has accepted), so an epoch is never handed out twice even after
Redis forgot everything. The epoch is what fences: storage refuses a write whose epoch is older
than the one it last accepted for the room.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

_CLAIM = """
local holder = redis.call('GET', KEYS[1])
if holder and string.match(holder, '^(.*):%d+$') ~= ARGV[1] then
    local node, epoch = string.match(holder, '^(.*):(%d+)$')
    return {0, tonumber(epoch), node}
end
local epoch = redis.call('INCR', KEYS[2])
local floor = tonumber(ARGV[3])
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


@dataclass(frozen=True, slots=True)
class Taken:
    """The room is held by another node."""

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

    async def claim(self, code: str, node: str, floor: int = 0) -> Lease | Taken:
        """Take the room for ``node`` with a new epoch above ``floor``, unless another holds it."""
        if ":" in node:
            raise ValueError("a node id may not contain ':'")
        won, epoch, holder = await self._claim(
            keys=[self.owner_key(code), self.epoch_key(code)], args=[node, self.ttl_ms, floor]
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
        pipe = self.redis.pipeline(transaction=False)
        for lease in leases:
            await self._renew(
                keys=[self.owner_key(lease.code)], args=[lease.token, self.ttl_ms], client=pipe
            )
        return [bool(answer) for answer in await pipe.execute()]

    async def release(self, lease: Lease) -> bool:
        """Give the room up, if the lease is still this one."""
        return bool(await self._release(keys=[self.owner_key(lease.code)], args=[lease.token]))

    async def holder(self, code: str) -> Lease | None:
        """Who holds the room now, if anyone."""
        value = await self.redis.get(self.owner_key(code))
        if value is None:
            return None
        text = value.decode() if isinstance(value, bytes) else str(value)
        node, _, epoch = text.rpartition(":")
        return Lease(code, node, int(epoch))
