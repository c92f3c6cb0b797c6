"""The node directory: each live node's address and load in Redis, kept by its heartbeat.

A node's entry expires unless its heartbeat renews it, so a node that died drops out within a
TTL. An entry carries the id of the process that wrote it, so a second process started with the
same NODE_ID is told apart from the first coming back, and refused while the first still beats.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from typing import Any

import orjson
import redis.asyncio as aioredis
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import ResponseError

from app.cluster.lease import Script
from app.config import Settings

# Seconds a Redis command may take before it counts as failed.
REDIS_TIMEOUT = 2.0

_BEAT = """
local current = redis.call('GET', KEYS[1])
if current and cjson.decode(current)['instance'] ~= ARGV[2] then
    return 0
end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[3])
return 1
"""
_LEAVE = """
local current = redis.call('GET', KEYS[1])
if current and cjson.decode(current)['instance'] == ARGV[1] then
    return redis.call('DEL', KEYS[1])
end
return 0
"""


def connect(settings: Settings) -> aioredis.Redis:
    """A client of the cluster's Redis whose commands fail rather than hang. A command whose
    connection was closed (a pooled connection from before Redis restarted) is sent once more
    on a new one at once; without it, each connection the pool kept failed one command after
    Redis came back, a room's creation or a lease's renewal among them."""
    return aioredis.Redis.from_url(
        settings.redis_url,
        socket_timeout=REDIS_TIMEOUT,
        socket_connect_timeout=REDIS_TIMEOUT,
        retry=Retry(NoBackoff(), 1, supported_errors=(RedisConnectionError,)),
    )


async def eviction_policy(settings: Settings) -> str | None:
    """The policy by which Redis drops keys when its memory is full, if it may drop any: a
    room's lease dropped so lets another node take the room. None with ``noeviction``, no
    memory limit, or INFO refused (some hosted Redis rename it)."""
    client = connect(settings)
    try:
        memory = await client.info("memory")
    except ResponseError:
        return None
    finally:
        await client.aclose()
    policy = str(memory.get("maxmemory_policy", "noeviction"))
    if policy == "noeviction" or not int(memory.get("maxmemory", 0) or 0):
        return None
    return policy


async def node_id_holder(settings: Settings, patience: float) -> str | None:
    """The address of another running node with this NODE_ID, if one still beats after
    ``patience`` seconds (a node of ours that died leaves its entry for up to a lease)."""
    client = connect(settings)
    try:
        key = f"{settings.cluster_name}:node:{settings.node_id}"
        deadline = time.monotonic() + patience
        while True:
            raw = await client.get(key)
            if raw is None:
                return None
            if time.monotonic() >= deadline:
                return _address(raw)
            await asyncio.sleep(0.2)
    finally:
        await client.aclose()


def _address(raw: bytes | str) -> str:
    """Where a node entry says its node is; "?" for a value no node of ours wrote."""
    try:
        entry = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return "?"
    address = entry.get("address") if isinstance(entry, dict) else None
    return address if isinstance(address, str) and address else "?"


class DuplicateNode(Exception):
    """Another live process holds this node id."""


@dataclass(frozen=True, slots=True)
class NodeInfo:
    """A live node as the directory has it."""

    node: str
    address: str
    rooms: int
    connections: int
    draining: bool

    @property
    def load(self) -> tuple[int, int]:
        """What placing a new room compares: connections first, then rooms."""
        return (self.connections, self.rooms)


class Directory:
    """This node's entry in the directory, and a view of every other."""

    def __init__(
        self, redis: Any, node: str, instance: str, ttl_ms: int, prefix: str = "spectrum"
    ) -> None:
        self.redis = redis
        self.node = node
        self.instance = instance
        self.ttl_ms = ttl_ms
        self.prefix = prefix
        self._beat: Script = redis.register_script(_BEAT)
        self._leave: Script = redis.register_script(_LEAVE)

    def key(self, node: str) -> str:
        return f"{self.prefix}:node:{node}"

    async def beat(
        self, address: str, rooms: int = 0, connections: int = 0, draining: bool = False
    ) -> bool:
        """Write this node's entry; False when another process holds the id."""
        entry = {
            "node": self.node,
            "instance": self.instance,
            "address": address,
            "rooms": rooms,
            "connections": connections,
            "draining": draining,
        }
        written = await self._beat(
            keys=[self.key(self.node)], args=[orjson.dumps(entry), self.instance, self.ttl_ms]
        )
        return bool(written)

    async def register(self, address: str, patience: float | None = None) -> None:
        """Join the directory, waiting out the entry of a process of ours that died.

        A process that crashed leaves its entry for up to a TTL; one still beating renews it.
        Past ``patience`` seconds (two TTLs by default) the id is taken: DuplicateNode.
        """
        patience = 2 * self.ttl_ms / 1000 if patience is None else patience
        deadline = time.monotonic() + patience
        while not await self.beat(address):
            if time.monotonic() >= deadline:
                raise DuplicateNode(
                    f"node id {self.node!r} is in use by another running process; "
                    "give every node its own NODE_ID"
                )
            await asyncio.sleep(min(0.2, self.ttl_ms / 4000))

    async def leave(self) -> None:
        """Remove this node's entry (a drained node leaving)."""
        await self._leave(keys=[self.key(self.node)], args=[self.instance])

    async def nodes(self) -> list[NodeInfo]:
        """Every live node, by id."""
        keys = [key async for key in self.redis.scan_iter(match=self.key("*"), count=100)]
        if not keys:
            return []
        found = []
        for raw in await self.redis.mget(keys):
            if raw is None:  # expired between the scan and the read
                continue
            entry = orjson.loads(raw)
            found.append(
                NodeInfo(
                    entry["node"],
                    entry["address"],
                    entry["rooms"],
                    entry["connections"],
                    entry["draining"],
                )
            )
        return sorted(found, key=lambda info: info.node)

    async def least_loaded(self) -> NodeInfo | None:
        """The live node that is not draining with the least load, if any."""
        candidates = [info for info in await self.nodes() if not info.draining]
        return min(candidates, key=lambda info: (info.load, info.node), default=None)
