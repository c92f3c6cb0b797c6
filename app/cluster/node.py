"""This process as one node of a cluster: its entry in the directory, the rooms it owns, where
the others are.

A room is found through ``locate``: held here, held by another node (its path is answered), or
claimed here when nobody holds it, restored from the PostgreSQL journal exactly as a restart does.
A claim raises the room's epoch in Redis and then in PostgreSQL before the journal is read, so
any write of an older owner that comes later is refused by the database.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, cast

import orjson
from redis.exceptions import RedisError
from sqlalchemy.exc import SQLAlchemyError

from app.cluster.epochs import (
    claim_in_database,
    other_clusters,
    raise_epoch,
    stored_codes,
    stored_epoch,
)
from app.cluster.lease import WAITED, Lease, Leases, Taken
from app.cluster.moved import CLOSE_MOVED, DatabaseUnreachable, Elsewhere
from app.cluster.nodes import Directory, NodeInfo, connect
from app.cluster.ownership import Ownership
from app.config import Settings
from app.rooms.live import LiveRoom
from app.rooms.registry import RoomRegistry
from app.storage.journal import Tenure
from app.storage.store import DatabaseStore

log = logging.getLogger(__name__)

# How often at most a node looks for rooms no node holds (at most every ROOM_IDLE_SECONDS), how
# many it restores at a time, and how many leases it reads from Redis in one request.
ADOPT_EVERY_SECONDS = 60.0
ADOPT_AT_ONCE = 200
LEASES_READ_AT_ONCE = 500
# How long a room dropped when idle keeps its lease at most, while its journal is deleted.
FORGET_WAIT_SECONDS = 30.0


@dataclass(slots=True)
class Counts:
    """What /metrics tells of this node's part in the cluster."""

    claims: int = 0
    handovers: int = 0
    lost: int = 0
    fenced: int = 0


class ClusterNode:
    """This node: its directory entry, its leases, and how rooms are found and claimed."""

    def __init__(self, settings: Settings, registry: RoomRegistry, store: DatabaseStore) -> None:
        self.settings = settings
        self.node = settings.node_id
        self.path = settings.node_prefix
        self.registry = registry
        self.store = store
        self.redis = connect(settings)
        self.leases = Leases(cast(Any, self.redis), settings.lease_ms, settings.cluster_name)
        self.ownership = Ownership(self.leases, self.node, self._lost, reclaim=self._reclaim)
        self.directory = Directory(
            self.redis, self.node, uuid.uuid4().hex, settings.lease_ms, settings.cluster_name
        )
        self.draining = False
        # Another process took this node's id (this one was paused past its entry's life):
        # this one takes no room again, and ``on_evicted`` stops it.
        self.evicted = False
        self.on_evicted: Callable[[], None] = lambda: None
        # Nodes of another cluster use the database (said once while they do).
        self.others: list[str] = []
        # Rooms whose lease a drain kept because their journal was not complete.
        self.kept: set[str] = set()
        self.counts = Counts()
        self.redis_ok = True
        # One claim at a time per room: its lock, and how many wait on it.
        self._claiming: dict[str, tuple[asyncio.Lock, int]] = {}
        # The rooms no node held at the last look for them (``adopt``), since when.
        self._unheld: dict[str, float] = {}
        self._tasks: list[asyncio.Task[None]] = []
        store.on_fenced = self._fenced
        store.fencing = True

    # Life.

    async def start(self) -> None:
        """Join the directory (DuplicateNode if another process holds the id), start beating."""
        await self.directory.register(self.path)
        # Also leaves a connection named for this cluster, by which other clusters' nodes see it.
        with contextlib.suppress(OSError, SQLAlchemyError):
            await self.alone()
        self._tasks = [
            asyncio.create_task(self.ownership.run()),
            asyncio.create_task(self._beat_forever()),
            asyncio.create_task(self._watch_leases()),
            asyncio.create_task(self._adopt_forever()),
        ]
        log.info("node %s joined the cluster at %s", self.node, self.path)

    async def drain(self) -> None:
        """Stop taking rooms, and hand every room over: sockets closed "moved", journal
        written, lease released.

        A room whose journal the database has not completely taken within half the shutdown
        grace is not handed over: its lease is kept (and renewed) while the stop writes what is
        left to the outbox, and lapses by itself after this process ends, so that no node
        restores the room while a write of it may still reach the database. What another
        node restores then is what the database holds: every acknowledged move, not the held
        ones the outbox keeps (those are refused by the epoch if written later).
        """
        self.draining = True
        with contextlib.suppress(RedisError, OSError):
            await self._beat()
        for code, room in list(self.registry.rooms.items()):
            async with room.lock:  # an action under way queues its writes first
                room.close(CLOSE_MOVED, "")
            self.registry.rooms.pop(code, None)
        wait = self.settings.shutdown_grace_seconds / 2
        incomplete = await self.store.settle(set(self.ownership.held), wait)
        for code in list(self.ownership.held):
            if code in incomplete:
                continue
            await self.ownership.release(code)
            self.store.epochs.pop(code, None)
            self.counts.handovers += 1
        if incomplete:
            self.kept = incomplete
            log.error(
                "node %s drained, but rooms whose journal is not complete are not handed "
                "over (%d; %s): their leases are kept, and lapse once this node has stopped: %s",
                self.node,
                len(incomplete),
                self.store.last_error or "the database did not answer in time",
                ", ".join(sorted(incomplete)),
            )
        else:
            log.info("node %s drained: its rooms are handed over", self.node)

    async def stop(self) -> None:
        """Stop renewing and beating, leave the directory, let go of Redis. (Called after the
        store's stop: a room the drain kept whose journal the stop did write is released.)"""
        for code in sorted(self.kept - self.store.kept_rooms):
            if code in self.ownership.held:
                await self.ownership.release(code)
                self.counts.handovers += 1
                log.info("room %s handed over: its journal was written at the stop", code)
        # A cancel that lands as a Redis read times out can be taken for the timeout (Python
        # 3.11's asyncio.timeout), and a loop that catches timeouts then goes on: it is
        # cancelled again until it ends, or the stop would wait for it forever.
        pending = list(self._tasks)
        while pending:
            for task in pending:
                task.cancel()
            await asyncio.wait(pending, timeout=1)
            pending = [task for task in pending if not task.done()]
            if pending:
                log.warning("%d of the node's loops went on when cancelled; again", len(pending))
        for task in self._tasks:
            if not task.cancelled() and task.exception() is not None:
                log.error("a loop of the node had failed", exc_info=task.exception())
        with contextlib.suppress(RedisError, OSError):
            await self.directory.leave()
        await self.redis.aclose()

    async def _beat(self) -> None:
        connections = sum(len(room.table.connections) for room in self.registry.rooms.values())
        if self.evicted or await self.directory.beat(
            self.path, len(self.registry.rooms), connections, self.draining
        ):
            return
        # Its rooms' leases name the id, not the process: this one would take them as its own.
        stopping = self.draining  # a drain under way (SIGTERM) goes on: no second stop
        self.evicted = self.draining = True
        log.error(
            "node id %s was taken by another process (this one was paused or cut off past "
            "its entry's life); giving up every room and stopping",
            self.node,
        )
        for code in list(self.ownership.held):
            self.ownership.lose(code, "the node id is held by another process")
        if not stopping:
            self.on_evicted()

    async def _beat_forever(self) -> None:
        # Also re-registers after Redis restarted and forgot the entry.
        while True:
            try:
                await self._beat()
                self.redis_ok = True
            except (RedisError, OSError) as error:
                if self.redis_ok:
                    log.warning("Redis unreachable: %s", error)
                self.redis_ok = False
            await asyncio.sleep(self.ownership.renew_every)

    async def _watch_leases(self) -> None:
        """Give each room up the moment its lease may lapse, renewal answered or not."""
        ownership = self.ownership
        while True:
            now = ownership.clock()
            for code, held in list(ownership.held.items()):
                if now >= held.valid_until:
                    ownership.lose(code, "its lease could not be renewed in time")
            nearest = min((held.valid_until for held in ownership.held.values()), default=now)
            await asyncio.sleep(min(max(0.05, nearest - now), ownership.renew_every))

    async def _adopt_forever(self) -> None:
        """Now and then, restore here the rooms that no node holds. A room whose node died, or
        stopped, with nobody in it is asked for by nobody: unclaimed, it would never close
        (nor would its finished matches ever name it). Restored, it closes when idle, as
        every room does, unless someone comes back to it."""
        while True:
            every = min(ADOPT_EVERY_SECONDS, self.settings.room_idle_seconds)
            await asyncio.sleep(every * random.uniform(0.5, 1.0))
            if self.draining:
                continue
            try:
                await self.adopt()
            except (RedisError, OSError, SQLAlchemyError, DatabaseUnreachable) as error:
                log.warning("rooms held by no node could not be sought: %s", error)

    async def alone(self) -> bool:
        """Whether no node of another cluster uses the database: one would claim this
        cluster's rooms as held by nobody, and this one its. Said in the log when it changes."""
        others = await other_clusters(self.store.engine, self.settings.cluster_name)
        if others and others != self.others:
            log.error(
                "nodes of another cluster (CLUSTER_NAME %s) use this database: no room held by "
                "no node is restored here while they do. Give every node of a cluster the same "
                "CLUSTER_NAME, and each cluster a database of its own",
                ", ".join(others),
            )
        elif self.others and not others:
            log.info("no node of another cluster uses this database any more")
        self.others = others
        return not others

    async def adopt(self, most: int = ADOPT_AT_ONCE) -> int:
        """Try to restore here up to ``most`` rooms the database holds and no node does, seen
        so for a lease's time at least (a live node whose lease Redis lost claims its room
        again meanwhile; after Redis restarted, every room looks so until then, and such a
        claim is refused), while this node holds fewer than ``MAX_ROOMS``; how many were."""
        if not await self.alone():
            return 0
        codes = [
            code
            for code in await stored_codes(self.store.engine)
            if code not in self.registry.rooms
        ]
        now = self.ownership.clock()
        unheld: dict[str, float] = {}
        for start in range(0, len(codes), LEASES_READ_AT_ONCE):
            for code in await self.leases.unheld(codes[start : start + LEASES_READ_AT_ONCE]):
                unheld[code] = self._unheld.get(code, now)
        self._unheld = unheld
        tried = adopted = 0
        for code, since in unheld.items():
            if now - since < self.settings.lease_ms / 1000:
                continue
            if (
                tried >= most
                or self.draining
                or len(self.registry.rooms) >= self.registry.max_rooms
            ):
                break
            tried += 1
            if isinstance(await self.locate(code), LiveRoom):
                adopted += 1
                log.info("room %s was held by no node: restored here", code)
        return adopted

    def dropped(self, code: str) -> None:
        """A room left memory (idle): let its lease go once its journal is deleted, so that no
        node restores it meanwhile (a room no node holds is restored by one, see ``adopt``)."""
        self.store.epochs.pop(code, None)

        async def release() -> None:
            await self.store.settle({code}, FORGET_WAIT_SECONDS)
            # Claimed again meanwhile (restored here, or being restored): that hold stays.
            if code not in self.registry.rooms and code not in self._claiming:
                await self.ownership.release(code)

        task = asyncio.create_task(release())
        task.add_done_callback(lambda done: done.cancelled() or done.exception())

    def beat_soon(self) -> None:
        """Tell the directory of a change of load without waiting for the next beat."""
        task = asyncio.create_task(self._beat())
        task.add_done_callback(lambda done: done.cancelled() or done.exception())

    # Leases.

    async def _reclaim(self, code: str, lease: Lease) -> str | None:
        """Claim again a room whose lease Redis no longer has, above the epoch held: None when
        it was, else why the room is lost."""
        held = self.ownership.held.get(code)
        if held is None or self.ownership.clock() >= held.valid_until:
            return "its lease lapsed before it could be claimed again"
        try:
            holder = await self.leases.holder(code)
            if holder is not None and holder.node != WAITED:
                return "another node holds it"  # not a lease Redis forgot
            outcome = await self.ownership.claim(code, lease.epoch, again=True, replacing=held)
            if isinstance(outcome, Taken):
                return "another node holds it"
            kept = self.ownership.held.get(code)
            if kept is None or kept.lease is not outcome:  # lost (and dropped) meanwhile
                await self.leases.release(outcome)
                return "it was lost meanwhile"
            tenure = self.store.epochs.get(code)
            if tenure is not None:
                tenure.epoch = outcome.epoch  # before the database's: writes under way retry
            if not await raise_epoch(self.store.engine, code, outcome.epoch):
                await self.leases.release(outcome)
                return "another node claimed it in the database"
        except Exception as error:  # Redis or the database away: the lease lapses by itself
            log.warning("room %s could not be claimed again", code, exc_info=True)
            return f"it could not be claimed again ({error or type(error).__name__})"
        log.info("room %s claimed again at epoch %d after Redis forgot it", code, outcome.epoch)
        return None

    def _lost(self, code: str) -> None:
        """The lease is gone: stop the room, its sockets told the room moved."""
        self.counts.lost += 1
        self._drop(code)

    def _fenced(self, code: str, tenure: Tenure, epoch: int) -> bool:
        """The database refused a write made under ``tenure``, carrying ``epoch``: True to write
        it again when it is this node's hold on the room now and its own claim raised the epoch
        past the write's. A write of an earlier hold (the room was dropped and claimed again
        since) is dropped, and the room held now stays. Otherwise another node raised the
        epoch, and the room stops here (at once: written again, the write would be refused
        again until the lease is found lost)."""
        held = self.store.epochs.get(code)
        if held is not None and held is not tenure:
            log.info("room %s: a write of an earlier hold on it was refused and dropped", code)
            return False
        if self.owns(code) and held is not None and held.epoch > epoch:
            return True
        self.counts.fenced += 1
        log.warning("room %s: a write was refused, another node owns the room now", code)
        self.ownership.held.pop(code, None)
        self._drop(code)
        return False

    def _drop(self, code: str) -> None:
        self.store.epochs.pop(code, None)
        room = self.registry.rooms.pop(code, None)
        if room is not None:
            room.close(CLOSE_MOVED, "")

    # Finding rooms.

    def owns(self, code: str) -> bool:
        """Whether this node may act for the room now (answered without Redis)."""
        return self.ownership.owns(code) is not None

    async def locate(self, code: str) -> LiveRoom | Elsewhere | None:
        """The room held here, where it is held, or None: no such room (or none can take it)."""
        room = self.registry.rooms.get(code)
        if room is not None and self.owns(code):
            return room
        lock, users = self._claiming.get(code, (asyncio.Lock(), 0))
        self._claiming[code] = (lock, users + 1)
        try:
            async with lock:
                return await self._locate(code)
        finally:
            lock, users = self._claiming[code]
            if users == 1:
                del self._claiming[code]
            else:
                self._claiming[code] = (lock, users - 1)

    async def _locate(self, code: str) -> LiveRoom | Elsewhere | None:
        room = self.registry.rooms.get(code)
        if room is not None and self.owns(code):
            return room
        if room is not None:
            self._drop(code)
        holder = await self.leases.holder(code)
        if holder is not None and holder.node == WAITED:
            return Elsewhere("", "")  # its node may still claim it again
        if holder is not None and holder.node != self.node:
            return Elsewhere(holder.node, await self.path_of(holder.node))
        if self.draining:
            return Elsewhere("", "")
        try:
            floor = await stored_epoch(self.store.engine, code)
        except (OSError, SQLAlchemyError) as error:
            raise DatabaseUnreachable(error) from error
        if floor is None:
            return None
        outcome = await self.ownership.claim(code, floor)
        if isinstance(outcome, Taken):
            if outcome.node == WAITED:
                return Elsewhere("", "")
            return Elsewhere(outcome.node, await self.path_of(outcome.node))
        try:
            claimed = await claim_in_database(self.store.engine, code, outcome.epoch)
        except (OSError, SQLAlchemyError) as error:
            # Not restored: held by nobody again, for whoever asks next (or ``adopt``).
            with contextlib.suppress(RedisError, OSError):
                await self.ownership.release(code)
            raise DatabaseUnreachable(error) from error
        if claimed is None:
            await self.ownership.release(code)
            return None
        state, rewrite = claimed
        self.store.epochs[code] = Tenure(outcome.epoch)
        if rewrite is not None:
            self.store.rewrite(rewrite)
        await self.registry.restore([state])
        self.counts.claims += 1
        log.info(
            "room %s claimed by node %s at epoch %d, restored from the journal",
            code,
            self.node,
            outcome.epoch,
        )
        self.beat_soon()
        return self.registry.rooms.get(code)

    async def claim_new(self, code: str) -> bool:
        """Take a code for a new room: False when the code is held or was ever used."""
        if await stored_epoch(self.store.engine, code) is not None:
            return False
        outcome = await self.ownership.claim(code, 0)
        if isinstance(outcome, Taken):
            return False
        self.store.epochs[code] = Tenure(outcome.epoch)
        self.counts.claims += 1
        return True

    async def path_of(self, node: str) -> str:
        """The path prefix of a live node, or "" when it is not in the directory."""
        raw = await self.redis.get(self.directory.key(node))
        return str(orjson.loads(raw)["address"]) if raw is not None else ""

    async def placement(self) -> NodeInfo | None:
        """The live node a new room should go to: the least loaded, ties drawn by lot."""
        nodes = [info for info in await self.directory.nodes() if not info.draining]
        if not nodes:
            return None
        least = min(info.load for info in nodes)
        return random.choice([info for info in nodes if info.load == least])

    def socket_path(self, code: str) -> str:
        """Where a room held here is reached by WebSocket."""
        return f"{self.path}/ws/rooms/{code}"
