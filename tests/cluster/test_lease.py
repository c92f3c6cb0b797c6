"""Room leases on the real Redis: one holder at a time, epochs that only rise, fenced renewals."""

from app.cluster.lease import WAITED, Lease, Leases, Taken
from tests.redis_server import redis_client


async def test_one_holder_at_a_time_and_every_claim_raises_the_epoch() -> None:
    async with redis_client() as (redis, prefix):
        leases = Leases(redis, ttl_ms=5000, prefix=prefix)
        first = await leases.claim("ABCD", "n1")
        assert first == Lease("ABCD", "n1", 1)
        assert await leases.claim("ABCD", "n2") == Taken("ABCD", "n1", 1)
        assert await leases.holder("ABCD") == first
        assert await leases.release(first)
        second = await leases.claim("ABCD", "n2")
        assert second == Lease("ABCD", "n2", 2)
        assert await leases.claim("WXYZ", "n1") == Lease("WXYZ", "n1", 1)


async def test_a_lapsed_lease_cannot_be_renewed_or_released_once_taken() -> None:
    async with redis_client() as (redis, prefix):
        leases = Leases(redis, ttl_ms=5000, prefix=prefix)
        old = await leases.claim("ABCD", "n1")
        assert isinstance(old, Lease)
        await redis.delete(leases.owner_key("ABCD"))  # its TTL ran out
        new = await Leases(redis, ttl_ms=5000, prefix=prefix).claim("ABCD", "n2")
        assert isinstance(new, Lease)
        assert new.epoch == old.epoch + 1
        assert not await leases.renew(old)
        assert not await leases.release(old)
        assert await leases.holder("ABCD") == new


async def test_renewal_keeps_the_lease_alive() -> None:
    async with redis_client() as (redis, prefix):
        leases = Leases(redis, ttl_ms=60_000, prefix=prefix)
        lease = await leases.claim("ABCD", "n1")
        assert isinstance(lease, Lease)
        await redis.pexpire(leases.owner_key("ABCD"), 5000)
        assert await leases.renew(lease)
        assert await redis.pttl(leases.owner_key("ABCD")) > 30_000
        assert await leases.claim("ABCD", "n2") == Taken("ABCD", "n1", 1)


async def test_epochs_never_fall_below_what_storage_has_seen() -> None:
    """After Redis lost its keys (a restart without persistence) the floor keeps epochs rising."""
    async with redis_client() as (redis, prefix):
        leases = Leases(redis, ttl_ms=5000, prefix=prefix)
        for _ in range(3):
            lease = await leases.claim("ABCD", "n1")
            assert isinstance(lease, Lease)
            await leases.release(lease)
        await redis.delete(leases.owner_key("ABCD"), leases.epoch_key("ABCD"))
        again = await leases.claim("ABCD", "n1", floor=3, again=True)
        assert again == Lease("ABCD", "n1", 4)
        await leases.release(again)
        assert await leases.claim("ABCD", "n2", floor=1) == Lease("ABCD", "n2", 5)


async def test_the_same_node_claiming_again_gets_a_new_epoch() -> None:
    """A node that restarted under the same id must not write with its old process's epoch."""
    async with redis_client() as (redis, prefix):
        leases = Leases(redis, ttl_ms=5000, prefix=prefix)
        first = await leases.claim("ABCD", "n1")
        again = await leases.claim("ABCD", "n1")
        assert isinstance(first, Lease)
        assert again == Lease("ABCD", "n1", first.epoch + 1)
        assert not await leases.renew(first)


async def test_a_room_redis_forgot_waits_a_lease_for_its_node_before_any_other_takes_it() -> None:
    """Redis restarted: the room's node may still hold it and claim it again at its next
    renewal. Another node's claim only marks the room waited for, for a lease's life; once the
    mark lapses with nobody claiming, any node takes the room above the epoch it had."""
    async with redis_client() as (redis, prefix):
        leases = Leases(redis, ttl_ms=5000, prefix=prefix)
        held = await leases.claim("ABCD", "n1")
        assert held == Lease("ABCD", "n1", 1)
        await redis.delete(leases.owner_key("ABCD"), leases.epoch_key("ABCD"))  # the restart
        assert await leases.claim("ABCD", "n2", floor=1) == Taken("ABCD", WAITED, 1)
        assert 0 < await redis.pttl(leases.owner_key("ABCD")) <= 5000
        assert await leases.holder("ABCD") == Lease("ABCD", WAITED, 1)
        assert await leases.claim("ABCD", "n3", floor=1) == Taken("ABCD", WAITED, 1)
        assert not await leases.renew(held)
        assert await leases.claim("ABCD", "n1", floor=1, again=True) == Lease("ABCD", "n1", 2)
        assert await leases.claim("ABCD", "n2", floor=2) == Taken("ABCD", "n1", 2)

        await redis.delete(leases.owner_key("ABCD"), leases.epoch_key("ABCD"))  # and again
        assert await leases.claim("ABCD", "n2", floor=2) == Taken("ABCD", WAITED, 2)
        await redis.delete(leases.owner_key("ABCD"))  # the mark lapsed: n1 is gone too
        assert await leases.claim("ABCD", "n2", floor=2) == Lease("ABCD", "n2", 3)


async def test_a_new_room_is_never_waited_for() -> None:
    async with redis_client() as (redis, prefix):
        leases = Leases(redis, ttl_ms=5000, prefix=prefix)
        assert await leases.claim("NEW1", "n1", floor=0) == Lease("NEW1", "n1", 1)
