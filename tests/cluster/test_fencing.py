"""Epoch fencing in PostgreSQL: once a newer owner claimed a room, an older owner writes nothing.

Two stores on one database stand for two nodes. Each assertion here fails if the journal's epoch
check is taken out (``test_without_the_check_the_older_write_lands`` shows the write it stops).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import orjson
import pytest

from app.cluster.epochs import claim_in_database, raise_epoch, stored_epoch
from app.cluster.lease import Lease
from app.cluster.node import ClusterNode
from app.config import Settings
from app.rooms.connection import Connection
from app.rooms.live import LiveRoom, RoomConfig, now_ms
from app.rooms.registry import RoomRegistry, hash_token, new_code
from app.rooms.settings import RoomSettings
from app.rooms.state import RoomState
from app.storage.backends import postgresql
from app.storage.db import make_engine
from app.storage.journal import Tenure
from app.storage.store import DatabaseStore
from tests.databases import connect, postgres_database
from tests.redis_server import TEST_REDIS_URL, redis_client
from tests.server import migrate

CLOSE_MOVED = 4012


@asynccontextmanager
async def two_nodes() -> AsyncIterator[tuple[DatabaseStore, DatabaseStore, str]]:
    """Two stores (nodes) on one fresh, migrated PostgreSQL database, and its URL."""
    with postgres_database() as url:
        await asyncio.to_thread(migrate, url)
        stores = [DatabaseStore(make_engine(url), 0.0) for _ in range(2)]
        for store in stores:
            store.start()
        try:
            yield stores[0], stores[1], url
        finally:
            for store in stores:
                await store.stop()
                await store.engine.dispose()


async def journal(url: str, code: str) -> list[dict[str, Any]]:
    connection = await connect(url)
    try:
        rows = await connection.fetch(
            "SELECT event FROM live_room_events WHERE code = $1 ORDER BY seq", code
        )
    finally:
        await connection.close()
    return [orjson.loads(row[0]) if isinstance(row[0], str) else row[0] for row in rows]


def refusals_of(store: DatabaseStore) -> list[str]:
    """The codes of rooms whose writes ``store`` is told were refused (it stops each)."""
    refused: list[str] = []

    def refuse(code: str, tenure: Tenure, epoch: int) -> bool:
        refused.append(code)
        return False

    store.on_fenced = refuse
    return refused


def new_room(name: str = "Ann") -> RoomState:
    state = RoomState(new_code(), RoomSettings(), now_ms())
    state.join(name, hash_token(name), now_ms())
    return state


async def test_an_older_owner_write_is_refused_after_a_newer_claim() -> None:
    async with two_nodes() as (old, new, url):
        refused = refusals_of(old)
        state = new_room()
        old.epochs[state.code] = Tenure(1)
        await old.save(state)
        assert await stored_epoch(new.engine, state.code) == 1

        claim = await claim_in_database(new.engine, state.code, 2)
        assert claim is not None
        taken, _ = claim
        assert [seat.name for seat in taken.seats] == ["Ann"]
        new.epochs[state.code] = Tenure(2)

        state.join("Bob", hash_token("Bob"), now_ms())
        await old.save(state)
        assert refused == [state.code]
        assert [event.get("name") for event in await journal(url, state.code)] == ["Ann"]

        taken.join("Cy", hash_token("Cy"), now_ms())
        await new.save(taken)
        names = [event.get("name") for event in await journal(url, state.code)]
        assert names == ["Ann", "Cy"]
        assert old.backlog == 0  # the refused write is dropped, not retried
        assert await stored_epoch(new.engine, state.code) == 2


async def test_a_room_claimed_with_a_gap_in_its_journal_is_written_again_then() -> None:
    async with two_nodes() as (old, new, url):
        state = new_room()
        old.epochs[state.code] = Tenure(1)
        for name in ("Bob", "Cy", "Di"):
            state.join(name, hash_token(name), now_ms())
            await old.save(state)
        connection = await connect(url)
        try:
            await connection.execute(
                "DELETE FROM live_room_events WHERE code = $1 AND seq = 2", state.code
            )
        finally:
            await connection.close()

        claim = await claim_in_database(new.engine, state.code, 2)
        assert claim is not None
        taken, rewrite = claim
        assert [seat.name for seat in taken.seats] == ["Ann", "Bob"]
        assert rewrite is not None
        new.epochs[state.code] = Tenure(2)
        assert new.rewrite(rewrite)
        taken.join("Eve", hash_token("Eve"), now_ms())
        await new.save(taken)
        assert [event.get("name") for event in await journal(url, state.code)] == [
            "Ann",
            "Bob",
            "Eve",
        ]
        claim = await claim_in_database(new.engine, state.code, 3)
        assert claim is not None
        again, none = claim
        assert none is None
        assert [seat.name for seat in again.seats] == ["Ann", "Bob", "Eve"]


async def test_an_older_owner_forgetting_the_room_deletes_nothing_after_a_newer_claim() -> None:
    async with two_nodes() as (old, new, url):
        refused = refusals_of(old)
        state = new_room()
        old.epochs[state.code] = Tenure(1)
        await old.save(state)
        claim = await claim_in_database(new.engine, state.code, 2)
        assert claim is not None
        taken, _ = claim
        new.epochs[state.code] = Tenure(2)
        taken.join("Cy", hash_token("Cy"), now_ms())
        await new.save(taken)

        # The old owner, stalled while the room was taken, finds it idle and forgets it.
        old.forget(state.code)
        await asyncio.wait_for(old.saved(), timeout=30)
        assert refused == [state.code]
        assert old.backlog == 0
        assert [e.get("name") for e in await journal(url, state.code)] == ["Ann", "Cy"]
        assert await stored_epoch(new.engine, state.code) == 2

        # Its owner forgets it for good.
        new.forget(state.code)
        await asyncio.wait_for(new.saved(), timeout=30)
        assert await stored_epoch(new.engine, state.code) is None
        assert await journal(url, state.code) == []


async def test_a_node_that_holds_no_epoch_for_a_room_deletes_nothing() -> None:
    async with two_nodes() as (old, new, url):
        state = new_room()
        new.epochs[state.code] = Tenure(1)
        await new.save(state)
        old.fencing = True  # a cluster's node, whose hold on the room is gone
        old.forget(state.code)
        await asyncio.wait_for(old.saved(), timeout=30)
        assert old.backlog == 0
        assert [e.get("name") for e in await journal(url, state.code)] == ["Ann"]


async def test_a_claim_below_the_stored_epoch_is_refused() -> None:
    async with two_nodes() as (first, second, _):
        state = new_room()
        first.epochs[state.code] = Tenure(5)
        await first.save(state)
        assert await stored_epoch(second.engine, state.code) == 5
        assert await claim_in_database(second.engine, state.code, 4) is None
        assert not await raise_epoch(second.engine, state.code, 4)
        assert await raise_epoch(second.engine, state.code, 6)
        assert await stored_epoch(second.engine, state.code) == 6
        assert await stored_epoch(second.engine, "NONE-SUCH") is None


async def test_other_rooms_in_a_refused_batch_are_written() -> None:
    async with two_nodes() as (old, new, url):
        refused = refusals_of(old)
        moved, staying = new_room("Ann"), new_room("Dee")
        old.epochs[moved.code] = old.epochs[staying.code] = Tenure(1)
        await asyncio.gather(old.save(moved), old.save(staying))
        assert await claim_in_database(new.engine, moved.code, 2) is not None
        moved.join("Bob", hash_token("Bob"), now_ms())
        staying.join("Eve", hash_token("Eve"), now_ms())
        await asyncio.gather(old.save(moved), old.save(staying))
        assert refused == [moved.code]
        assert [e.get("name") for e in await journal(url, moved.code)] == ["Ann"]
        assert [e.get("name") for e in await journal(url, staying.code)] == ["Dee", "Eve"]


class Received:
    """What a connection was sent, and how it was closed."""

    def __init__(self) -> None:
        self.frames: list[dict[str, Any]] = []
        self.closed: tuple[int, str] | None = None

    async def __call__(self, message: dict[str, Any]) -> None:
        if message["type"] == "websocket.close":
            self.closed = (message["code"], message["reason"])
        else:
            self.frames.append(orjson.loads(message["text"]))


async def test_a_refused_room_tells_its_players_nothing_and_closes_moved() -> None:
    async with two_nodes() as (old, new, url):
        state = new_room()
        room = LiveRoom(state, RoomConfig(), lambda _: None, old)

        def stop(code: str, tenure: Tenure, epoch: int) -> bool:
            room.close(CLOSE_MOVED, "")
            return False

        old.on_fenced = stop
        old.epochs[state.code] = Tenure(1)
        await old.save(state)
        seen = Received()
        connection = Connection(seen, 0, 64)
        await room.attach(connection)
        await connection.settle(2.0)
        sent_before = len(seen.frames)
        assert await claim_in_database(new.engine, state.code, 2) is not None

        with pytest.raises(Exception, match="the room moved"):
            await room.join("Bob", hash_token("Bob"))
        await connection.settle(2.0)
        assert seen.closed == (CLOSE_MOVED, "")
        assert len(seen.frames) == sent_before  # Bob's arrival, refused, was never shown
        assert [e.get("name") for e in await journal(url, state.code)] == ["Ann"]


async def test_without_the_check_the_older_write_lands(monkeypatch: pytest.MonkeyPatch) -> None:
    """What the check stops: with it taken out, the older owner's event joins the journal."""

    async def no_check(driver: Any, fences: dict[str, int]) -> None:
        return None

    monkeypatch.setattr(postgresql.PostgresJournal, "_check_fences", staticmethod(no_check))
    async with two_nodes() as (old, new, url):
        state = new_room()
        old.epochs[state.code] = Tenure(1)
        await old.save(state)
        assert await claim_in_database(new.engine, state.code, 2) is not None
        state.join("Bob", hash_token("Bob"), now_ms())
        await old.save(state)
        assert [e.get("name") for e in await journal(url, state.code)] == ["Ann", "Bob"]


async def test_a_room_this_node_does_not_hold_writes_nothing() -> None:
    """In cluster mode a room's changes go only with its fence: with no hold on the room (it
    was dropped, or moved), nothing is written that another node's epoch could not stop."""
    async with two_nodes() as (node, _, url):
        node.fencing = True
        state = new_room()
        assert not await node.save(state)
        assert await journal(url, state.code) == []
        node.fencing = False  # a single server's store: written as it is
        assert await node.save(state)
        assert [event.get("name") for event in await journal(url, state.code)] == ["Ann"]


async def test_a_write_refused_at_the_epoch_the_node_holds_stops_the_room_at_once() -> None:
    """Redis forgot the lease and another node claimed the room, but the node's own lease has
    not yet run out: the refusal itself says the room is another's, and the write is not tried
    again and again until the lease is found lost."""
    async with two_nodes() as (old, new, url), redis_client() as (_, prefix):
        settings = Settings(
            redis_url=TEST_REDIS_URL, database_url=url, node_id="old-node", cluster_name=prefix
        )
        registry = RoomRegistry(RoomConfig(), 10, old)
        node = ClusterNode(settings, registry, old)
        try:
            state = new_room()
            lease = await node.ownership.claim(state.code)
            assert isinstance(lease, Lease)
            old.epochs[state.code] = Tenure(lease.epoch)
            assert await old.save(state)
            await registry.restore([state])
            room = registry.rooms[state.code]
            assert await claim_in_database(new.engine, state.code, lease.epoch + 1) is not None

            assert node.owns(state.code)  # as far as this node knows
            state.join("Bob", hash_token("Bob"), now_ms())
            assert await old.save(state) is False
            assert node.counts.fenced == 1
            assert old.backlog == 0  # dropped, not queued again
            assert room.closed_with == (CLOSE_MOVED, "")
            assert state.code not in registry.rooms
            assert [e.get("name") for e in await journal(url, state.code)] == ["Ann"]

            # Held again since under a new tenure: a refused write of the earlier hold (its
            # forget, say) is dropped, and the room held now stays.
            again = new_room("Dee")
            first = Tenure(1)
            old.epochs[again.code] = Tenure(2)
            assert await node.ownership.claim(again.code) is not None
            await registry.restore([again])
            assert not node._fenced(again.code, first, 1)
            assert again.code in registry.rooms
            assert node.counts.fenced == 1
            await node.ownership.release(again.code)
        finally:
            await node.ownership.release(state.code)
            await node.redis.aclose()


async def test_writes_of_two_holds_on_a_room_are_never_one_batch(tmp_path: Path) -> None:
    """Dropped when idle and claimed again by the same node before its forget was written:
    the forget is checked at the first hold's epoch (refused), the new hold's writes at theirs."""
    with postgres_database() as url:
        await asyncio.to_thread(migrate, url)
        # Writes at most every half second: what comes meanwhile goes into one batch.
        store = DatabaseStore(make_engine(url), 0.5, outbox=tmp_path / "outbox")
        told: list[tuple[str, int]] = []

        def earlier_hold(code: str, tenure: Tenure, epoch: int) -> bool:
            told.append((code, epoch))
            return False  # as a node does for a write of an earlier hold

        store.on_fenced = earlier_hold
        store.fencing = True
        store.start()
        try:
            state = new_room()
            code = state.code
            store.epochs[code] = Tenure(1)
            assert await store.save(state)
            store.forget(code)  # idle: forgotten under the first hold
            store.epochs.pop(code)
            claim = await claim_in_database(store.engine, code, 2)  # claimed again
            assert claim is not None
            taken, _ = claim
            store.epochs[code] = Tenure(2)
            taken.join("Bob", hash_token("Bob"), now_ms())
            await asyncio.wait_for(store.save(taken), timeout=30)
            await asyncio.wait_for(store.saved(code), timeout=30)
            assert told == [(code, 1)]
            assert [e.get("name") for e in await journal(url, code)] == ["Ann", "Bob"]
            assert await stored_epoch(store.engine, code) == 2
            assert not store.refused
        finally:
            await store.stop(grace=0.1)
            await store.engine.dispose()
