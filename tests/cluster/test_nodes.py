"""The node directory on the real Redis: entries, load, duplicates and expiry."""

import asyncio

import pytest

from app.cluster.nodes import Directory, DuplicateNode, NodeInfo, connect
from app.config import Settings
from tests.cluster.harness import private_redis
from tests.redis_server import redis_client


async def test_nodes_register_report_load_and_the_least_loaded_is_chosen() -> None:
    async with redis_client() as (redis, prefix):
        one = Directory(redis, "n1", "p1", ttl_ms=5000, prefix=prefix)
        two = Directory(redis, "n2", "p2", ttl_ms=5000, prefix=prefix)
        await one.register("127.0.0.1:9001")
        await two.register("127.0.0.1:9002")
        assert await one.beat("127.0.0.1:9001", rooms=3, connections=12)
        assert await two.beat("127.0.0.1:9002", rooms=5, connections=4)
        assert await one.nodes() == [
            NodeInfo("n1", "127.0.0.1:9001", 3, 12, False),
            NodeInfo("n2", "127.0.0.1:9002", 5, 4, False),
        ]
        assert await one.least_loaded() == NodeInfo("n2", "127.0.0.1:9002", 5, 4, False)
        assert await two.beat("127.0.0.1:9002", rooms=5, connections=4, draining=True)
        assert await one.least_loaded() == NodeInfo("n1", "127.0.0.1:9001", 3, 12, False)
        await one.leave()
        assert [info.node for info in await two.nodes()] == ["n2"]


async def test_a_second_process_with_a_live_nodes_id_is_refused() -> None:
    async with redis_client() as (redis, prefix):
        first = Directory(redis, "n1", "p1", ttl_ms=5000, prefix=prefix)
        await first.register("127.0.0.1:9001")
        impostor = Directory(redis, "n1", "p2", ttl_ms=5000, prefix=prefix)
        with pytest.raises(DuplicateNode, match="give every node its own NODE_ID"):
            await impostor.register("127.0.0.1:9009", patience=0.3)
        assert not await impostor.beat("127.0.0.1:9009")
        assert await first.beat("127.0.0.1:9001")


async def test_a_restarted_node_waits_out_its_dead_predecessor() -> None:
    async with redis_client() as (redis, prefix):
        dead = Directory(redis, "n1", "p1", ttl_ms=300, prefix=prefix)
        await dead.register("127.0.0.1:9001")
        reborn = Directory(redis, "n1", "p2", ttl_ms=300, prefix=prefix)
        await reborn.register("127.0.0.1:9001", patience=30)
        assert not await dead.beat("127.0.0.1:9001")


async def test_an_entry_expires_without_heartbeats_and_comes_back_after_redis_forgot() -> None:
    async with redis_client() as (redis, prefix):
        node = Directory(redis, "n1", "p1", ttl_ms=60_000, prefix=prefix)
        await node.register("127.0.0.1:9001")
        assert 0 < await redis.pttl(node.key("n1")) <= 60_000
        await redis.delete(node.key("n1"))  # expired, or Redis restarted without its data
        assert await node.nodes() == []
        assert await node.beat("127.0.0.1:9001")
        assert [info.node for info in await node.nodes()] == ["n1"]


async def test_a_client_kept_across_a_redis_restart_fails_no_command_once_it_is_back() -> None:
    """Each connection the pool kept from before the restart failed one command ("Connection
    closed by server"): a room's creation answered 503 well after the node said it was
    ready again."""
    with private_redis() as server:
        settings = Settings(
            redis_url=server.url,
            database_url="postgresql+asyncpg://spectrum@127.0.0.1:5432/spectrum",
            node_id="n1",
        )
        client = connect(settings)
        try:
            # Several connections in the pool, as a busy node has.
            await asyncio.gather(*(client.set(f"key{n}", n) for n in range(8)))
            await asyncio.to_thread(server.stop)
            await asyncio.to_thread(server.start)
            answers = await asyncio.gather(*(client.get(f"key{n}") for n in range(8)))
            assert answers == [None] * 8  # a Redis that kept nothing, asked without an error
        finally:
            await client.aclose()
