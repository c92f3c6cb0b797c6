"""This node's leases on the real Redis, with a hand-moved clock for when they would lapse."""

import asyncio
from collections.abc import Awaitable, Callable

import redis.asyncio as aioredis

from app.cluster.lease import Lease, Leases, Taken
from app.cluster.ownership import RECLAIMS_AT_ONCE, Ownership
from tests.redis_server import redis_client
from tests.server import free_port


class Clock:
    """Monotonic time that moves only when told."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def ownership(
    redis: aioredis.Redis,
    prefix: str,
    node: str,
    clock: Clock,
    reclaim: Callable[[str, Lease], Awaitable[str | None]] | None = None,
) -> tuple[Ownership, list[str]]:
    lost: list[str] = []
    leases = Leases(redis, ttl_ms=3000, prefix=prefix)
    owned = Ownership(leases, node, lost.append, clock, reclaim)
    return owned, lost


async def test_a_claimed_room_is_owned_until_just_before_its_lease_would_lapse() -> None:
    async with redis_client() as (redis, prefix):
        clock = Clock()
        owned, lost = ownership(redis, prefix, "n1", clock)
        lease = await owned.claim("ABCD")
        assert isinstance(lease, Lease)
        assert owned.owns("ABCD") == lease
        clock.now += 3.0 - owned.margin - 0.001
        assert owned.owns("ABCD") == lease
        clock.now += 0.002
        assert owned.owns("ABCD") is None  # not acting: another node may claim it soon
        assert lost == []


async def test_renewals_keep_every_room_and_a_taken_room_is_lost() -> None:
    async with redis_client() as (redis, prefix):
        clock = Clock()
        owned, lost = ownership(redis, prefix, "n1", clock)
        for code in ("AAAA", "BBBB", "CCCC"):
            assert isinstance(await owned.claim(code), Lease)
        clock.now += 2.0
        await owned.renew_all()
        assert {code for code in ("AAAA", "BBBB", "CCCC") if owned.owns(code)} == {
            "AAAA",
            "BBBB",
            "CCCC",
        }
        # BBBB's lease lapsed in Redis (a long pause here) and another node took the room.
        await redis.delete(owned.leases.owner_key("BBBB"))
        other, _ = ownership(redis, prefix, "n2", clock)
        taken = await other.claim("BBBB")
        assert isinstance(taken, Lease)
        await owned.renew_all()
        await owned.settled()
        assert lost == ["BBBB"]
        assert owned.owns("BBBB") is None
        assert owned.owns("AAAA") is not None
        assert await owned.claim("BBBB") == Taken("BBBB", "n2", taken.epoch)


async def test_cut_off_from_redis_the_node_stops_acting_before_anyone_can_claim() -> None:
    async with redis_client() as (redis, prefix):
        clock = Clock()
        owned, lost = ownership(redis, prefix, "n1", clock)
        assert isinstance(await owned.claim("ABCD"), Lease)
        nowhere = aioredis.Redis(port=free_port(), socket_connect_timeout=1, socket_timeout=1)
        owned.leases.redis = nowhere
        try:
            await owned.renew_all()
            assert lost == []  # no answer is not a refusal: still within the lease
            assert owned.owns("ABCD") is not None
            clock.now += 3.0 - owned.margin
            await owned.renew_all()
            assert lost == ["ABCD"]
        finally:
            await nowhere.aclose()


async def test_release_frees_the_room_for_another_node() -> None:
    async with redis_client() as (redis, prefix):
        clock = Clock()
        owned, _ = ownership(redis, prefix, "n1", clock)
        first = await owned.claim("ABCD")
        assert isinstance(first, Lease)
        await owned.release("ABCD")
        assert owned.owns("ABCD") is None
        other, _ = ownership(redis, prefix, "n2", clock)
        assert await other.claim("ABCD") == Lease("ABCD", "n2", first.epoch + 1)


async def test_rooms_redis_forgot_are_claimed_again_together_and_the_refused_lost() -> None:
    """Claimed again one after another, a node of a thousand rooms lost most of them before
    their turn came: here each claim waits until as many as may run at once have begun, which
    claims made one at a time never do."""
    async with redis_client() as (redis, prefix):
        clock = Clock()
        began: list[str] = []
        together = asyncio.Event()
        codes = [f"R{number:03d}" for number in range(RECLAIMS_AT_ONCE * 2 + 3)]

        async def reclaim(code: str, lease: Lease) -> str | None:
            began.append(code)
            if len(began) == RECLAIMS_AT_ONCE:
                together.set()
            await together.wait()
            return "another node holds it" if code == codes[-1] else None

        owned, lost = ownership(redis, prefix, "n1", clock, reclaim)
        for code in codes:
            assert isinstance(await owned.claim(code), Lease)
        await redis.delete(*[owned.leases.owner_key(code) for code in codes])  # Redis restarted
        await owned.renew_all()  # the claims made again go on beside the renewals
        await asyncio.wait_for(owned.settled(), timeout=60)
        assert sorted(began) == codes
        assert lost == [codes[-1]]
        assert owned.owns(codes[-1]) is None
        assert all(owned.owns(code) is not None for code in codes[:-1])


async def test_claims_made_again_go_on_beside_the_renewals_and_once_per_room() -> None:
    """The renewals waited for every claim made again: rooms claimed again early lapsed before
    the last was done. A room being claimed again is not claimed a second time meanwhile."""
    async with redis_client() as (redis, prefix):
        clock = Clock()
        asked: list[str] = []
        begun = asyncio.Event()
        done = asyncio.Event()

        async def reclaim(code: str, lease: Lease) -> str | None:
            asked.append(code)
            begun.set()
            await done.wait()
            return None

        owned, lost = ownership(redis, prefix, "n1", clock, reclaim)
        for code in ("AAAA", "BBBB"):
            assert isinstance(await owned.claim(code), Lease)
        await redis.delete(owned.leases.owner_key("AAAA"))  # forgotten by Redis
        await asyncio.wait_for(owned.renew_all(), timeout=60)  # not waiting for AAAA's claim
        await asyncio.wait_for(begun.wait(), timeout=60)
        clock.now += 2.0
        await asyncio.wait_for(owned.renew_all(), timeout=60)
        assert owned.owns("BBBB") is not None  # renewed meanwhile
        assert owned.reclaiming == {"AAAA"}
        done.set()
        await asyncio.wait_for(owned.settled(), timeout=60)
        assert asked == ["AAAA"]  # once
        assert owned.reclaiming == set()
        assert lost == []


async def test_a_claim_made_again_for_a_room_lost_meanwhile_is_not_kept() -> None:
    async with redis_client() as (redis, prefix):
        clock = Clock()
        owned, lost = ownership(redis, prefix, "n1", clock)
        first = await owned.claim("ABCD")
        assert isinstance(first, Lease)
        held = owned.held["ABCD"]
        await redis.delete(owned.leases.owner_key("ABCD"))  # forgotten by Redis
        owned.lose("ABCD", "its lease could not be renewed in time")  # while claiming again
        again = await owned.claim("ABCD", first.epoch, again=True, replacing=held)
        assert isinstance(again, Lease)
        assert owned.owns("ABCD") is None
        assert "ABCD" not in owned.held
        assert lost == ["ABCD"]


async def test_a_renewal_answered_for_a_hold_since_claimed_again_starts_no_second_claim() -> None:
    """A renewal sent with the forgotten lease, answered after the room was claimed again: the
    answer was taken for the new hold's, and the room claimed again a second time (a node
    then found it held, by itself, and lost it)."""
    async with redis_client() as (redis, prefix):
        clock = Clock()
        asked: list[str] = []
        go = asyncio.Event()

        async def reclaim(code: str, lease: Lease) -> str | None:
            asked.append(code)
            held = owned.held[code]
            await go.wait()
            again = await owned.claim(code, lease.epoch, again=True, replacing=held)
            return None if isinstance(again, Lease) else "another node holds it"

        owned, lost = ownership(redis, prefix, "n1", clock, reclaim)
        first = await owned.claim("AAAA")
        assert isinstance(first, Lease)
        await redis.delete(owned.leases.owner_key("AAAA"))  # forgotten by Redis
        await owned.renew_all()  # the claim made again waits for ``go``
        renew_many = owned.leases.renew_many

        async def answered_after_the_claim(leases: list[Lease]) -> list[bool | None]:
            answers = list(await renew_many(leases))  # the forgotten lease: refused
            go.set()
            await owned.settled()  # the room is claimed again before the answer is read
            return answers

        owned.leases.renew_many = answered_after_the_claim  # type: ignore[method-assign]
        await asyncio.wait_for(owned.renew_all(), timeout=60)
        await asyncio.wait_for(owned.settled(), timeout=60)
        assert asked == ["AAAA"]
        assert lost == []
        now = owned.owns("AAAA")
        assert now is not None
        assert now.epoch > first.epoch
