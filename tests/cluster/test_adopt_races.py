"""The races of restoring rooms no node holds, on one node's own objects over real Redis and
PostgreSQL: a room dropped when idle and claimed again before its journal was deleted keeps
its new lease; a claim the database fails gives its lease back, so the room is not held by
nobody-in-memory forever; a room is adopted only once seen unheld for a lease's time."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from sqlalchemy.exc import OperationalError

from app.cluster import node as node_module
from app.cluster.epochs import application_name
from app.cluster.moved import DatabaseUnreachable
from app.cluster.node import ClusterNode
from app.config import Settings
from app.rooms.live import LiveRoom, RoomConfig
from app.rooms.registry import RoomRegistry
from app.rooms.settings import RoomSettings
from app.storage.db import make_engine
from app.storage.store import DatabaseStore
from tests.databases import postgres_database
from tests.redis_server import TEST_REDIS_URL, redis_client
from tests.server import migrate


class Node:
    """A node's registry, store and cluster part, as the server wires them."""

    def __init__(self, url: str, prefix: str, name: str, folder: Path, flush: float) -> None:
        engine = make_engine(url, name=application_name(prefix))  # as the server names it
        self.store = DatabaseStore(engine, flush, outbox=folder / f"outbox-{name}")
        settings = Settings(
            redis_url=TEST_REDIS_URL,
            database_url=url,
            node_id=name,
            cluster_name=prefix,
            lease_ms=1000,
        )
        self.registry = RoomRegistry(RoomConfig(), 10, self.store)
        self.cluster = ClusterNode(settings, self.registry, self.store)
        self.registry.claim_code = self.cluster.claim_new
        self.registry.on_dropped = self.cluster.dropped
        self.store.start()

    async def stop(self) -> None:
        await self.store.stop(grace=0.5)
        await self.cluster.stop()
        await self.store.engine.dispose()


@asynccontextmanager
async def nodes(folder: Path, *names: str, flush: float = 0.0) -> AsyncIterator[list[Node]]:
    with postgres_database() as url:
        await asyncio.to_thread(migrate, url)
        async with redis_client() as (_, prefix):
            made = [Node(url, prefix, name, folder, flush) for name in names]
            try:
                for node in made:
                    await node.cluster.start()  # its leases renewed, as a node's are
                yield made
            finally:
                for node in made:
                    await node.stop()


async def test_a_room_claimed_again_before_its_journal_was_deleted_keeps_its_lease(
    tmp_path: Path,
) -> None:
    # Writes wait 5 s: the room is asked for again long before its deletion is written.
    async with nodes(tmp_path, "node-a", flush=5.0) as [a]:
        room, _ = await a.registry.create("Ann", RoomSettings())
        code = room.code
        a.store.forget(code)  # gone idle
        a.registry.drop(room)
        again = await a.cluster.locate(code)
        assert isinstance(again, LiveRoom)
        # The deletion, written under the old hold, is refused by the new one's epoch; the
        # drop's release, due once it is settled, leaves the new hold alone.
        assert await a.store.settle({code}, 30) == set()
        for _ in range(20):
            await asyncio.sleep(0)
        assert a.cluster.owns(code)
        holder = await a.cluster.leases.holder(code)
        assert holder is not None
        assert holder.node == "node-a"
        assert a.registry.rooms[code] is again


async def test_a_claim_the_database_fails_gives_its_lease_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with nodes(tmp_path, "node-a", "node-b") as [a, b]:
        room, _ = await a.registry.create("Ann", RoomSettings())
        code = room.code
        # Node a dies: its lease is gone, the room in no node's memory.
        lease = a.cluster.ownership.held.pop(code).lease
        a.registry.rooms.pop(code)
        await a.cluster.leases.release(lease)

        async def refused(*args: object) -> None:
            raise OperationalError("UPDATE live_rooms", {}, Exception("connection refused"))

        with monkeypatch.context() as patch:
            patch.setattr(node_module, "claim_in_database", refused)
            with pytest.raises(DatabaseUnreachable):
                await b.cluster.locate(code)
        assert code not in b.cluster.ownership.held
        assert await b.cluster.leases.holder(code) is None
        # Held by nobody again: a node restores it, once seen so for a lease's time.
        assert await b.cluster.adopt() == 0
        await asyncio.sleep(1.1)
        assert await b.cluster.adopt() == 1
        assert code in b.registry.rooms
        assert b.cluster.owns(code)


async def test_no_room_is_adopted_while_another_clusters_nodes_use_the_database(
    tmp_path: Path,
) -> None:
    """Its leases kept under another name in Redis, a node of another cluster saw this one's
    rooms as held by nobody, and restored them from under their players."""
    with postgres_database() as url:
        await asyncio.to_thread(migrate, url)
        async with redis_client() as (_, prefix):
            ours = Node(url, prefix, "node-a", tmp_path, 0.0)
            theirs = Node(url, f"{prefix}-other", "node-b", tmp_path, 0.0)
            try:
                await ours.cluster.start()
                await theirs.cluster.start()
                room, _ = await ours.registry.create("Ann", RoomSettings())
                # Seen held by nobody, then marked waited for a lease's time (1 s), in case a
                # node of its cluster claims it again, then claimed: three rounds apart.
                for _ in range(3):
                    assert await theirs.cluster.adopt() == 0
                    await asyncio.sleep(1.5)
                assert theirs.cluster.others == [prefix]
                assert ours.cluster.owns(room.code)
                assert room.code not in theirs.registry.rooms
                # Once the other cluster's nodes are gone, rooms held by nobody are restored.
                await ours.stop()
                assert await theirs.cluster.alone()
            finally:
                await theirs.stop()
