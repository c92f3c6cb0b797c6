"""The real Redis for cluster tests, at TEST_REDIS_URL (default redis://127.0.0.1:6379/0).

Without it those tests skip, unless REQUIRE_REDIS=1, when they fail. Each test works under a
key prefix of its own, so tests never see each other's keys.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import pytest
import redis.asyncio as aioredis
from redis.exceptions import RedisError

TEST_REDIS_URL = os.environ.get("TEST_REDIS_URL", "redis://127.0.0.1:6379/0")


async def need_redis() -> None:
    """Skip (or fail, with REQUIRE_REDIS=1) when Redis does not answer."""
    client = aioredis.Redis.from_url(TEST_REDIS_URL, socket_timeout=2, socket_connect_timeout=2)
    try:
        await client.ping()
        return
    except (RedisError, OSError) as error:
        problem = f"Redis at {TEST_REDIS_URL} is not reachable: {error}"
    finally:
        await client.aclose()
    if os.environ.get("REQUIRE_REDIS") == "1":
        pytest.fail(f"REQUIRE_REDIS=1 but {problem}")
    pytest.skip(problem)


@asynccontextmanager
async def redis_client() -> AsyncIterator[tuple[aioredis.Redis, str]]:
    """A client and a key prefix of this test's own; its keys are deleted afterwards."""
    await need_redis()
    prefix = f"spectrum-test-{secrets.token_hex(4)}"
    client = aioredis.Redis.from_url(TEST_REDIS_URL, socket_timeout=2, socket_connect_timeout=2)
    try:
        yield client, prefix
    finally:
        keys = [key async for key in client.scan_iter(match=f"{prefix}:*")]
        if keys:
            await client.delete(*keys)
        await client.aclose()
