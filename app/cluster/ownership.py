"""The rooms this node owns: their leases claimed, renewed together, and given up when lost.

Whether this node may act for a room is answered locally, without Redis: a lease counts as held
until a safety margin before the moment it would expire if the last renewal was the last one
Redis saw. So an owner cut off from Redis stops acting for its rooms before anyone else can
claim them, and the hot path of a move touches no network.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from redis.exceptions import RedisError

from app.cluster.lease import Lease, Leases, Taken

log = logging.getLogger(__name__)

# Rooms claimed again at once after Redis forgot their leases (each a Redis read, a claim and a
# database transaction): one after another, a node of a thousand rooms would lose most of them
# before their turn came. Fewer than the database pool's connections (5, and 10 more opened
# when needed), which the rooms' writes and the requests share.
RECLAIMS_AT_ONCE = 8


@dataclass(slots=True)
class Held:
    """A lease and the last moment this node may act on it."""

    lease: Lease
    valid_until: float


class Ownership:
    """Claims rooms for this node and keeps their leases alive."""

    def __init__(
        self,
        leases: Leases,
        node: str,
        on_lost: Callable[[str], None],
        clock: Callable[[], float] = time.monotonic,
        reclaim: Callable[[str, Lease], Awaitable[str | None]] | None = None,
    ) -> None:
        self.leases = leases
        self.node = node
        self.on_lost = on_lost
        self.clock = clock
        ttl = leases.ttl_ms / 1000
        # Renew three times a lease's life; stop acting a fifth of it before it would lapse.
        self.renew_every = ttl / 3
        self.margin = ttl / 5
        self.held: dict[str, Held] = {}
        # Asked, when Redis answers that a lease is not ours, to claim the room again (Redis
        # restarted and forgot it): None when it did, else why the room is lost.
        self.reclaim = reclaim
        self.renewals_failed = 0
        # The rooms being claimed again, beside the renewals (which keep their time meanwhile:
        # a room claimed again is renewed as any other).
        self.reclaiming: set[str] = set()
        self._reclaims: set[asyncio.Task[None]] = set()
        self._gate = asyncio.Semaphore(RECLAIMS_AT_ONCE)

    def _valid_until(self, sent_at: float) -> float:
        return sent_at + self.leases.ttl_ms / 1000 - self.margin

    def owns(self, code: str) -> Lease | None:
        """The lease, while this node may still act for the room."""
        held = self.held.get(code)
        if held is None or self.clock() >= held.valid_until:
            return None
        return held.lease

    async def claim(
        self, code: str, floor: int = 0, again: bool = False, replacing: Held | None = None
    ) -> Lease | Taken:
        """Take the room with an epoch above ``floor``, unless another node holds it
        (``again``: this node held it at ``floor``, see ``Leases.claim``). ``replacing``: the
        hold this claim renews, if it is still held when Redis answers (else the lease is not
        kept here, and the caller lets it go)."""
        sent_at = self.clock()
        outcome = await self.leases.claim(code, self.node, floor, again)
        if isinstance(outcome, Lease) and (replacing is None or self.held.get(code) is replacing):
            self.held[code] = Held(outcome, self._valid_until(sent_at))
        return outcome

    async def release(self, code: str) -> None:
        """Give the room up (handed over, or gone from memory)."""
        held = self.held.pop(code, None)
        if held is not None:
            try:
                await self.leases.release(held.lease)
            except (RedisError, OSError) as error:  # it lapses by itself
                log.warning("lease of %s not released: %s", code, error)

    def lose(self, code: str, why: str) -> None:
        """Give the room up here at once (its lease lapses by itself)."""
        self._lose(code, why)

    def _lose(self, code: str, why: str) -> None:
        if self.held.pop(code, None) is not None:
            log.warning("room %s lost its lease: %s", code, why)
            self.on_lost(code)

    async def renew_all(self) -> None:
        """One round of renewals; rooms whose lease is gone or lapsed are lost."""
        codes = list(self.held)
        if not codes:
            return
        sent_at = self.clock()
        leases = [self.held[code].lease for code in codes]
        answers: list[bool | None]
        try:
            answers = list(await self.leases.renew_many(leases))
        except (RedisError, OSError) as error:
            log.warning("lease renewal failed: %s", error)
            self.renewals_failed += len(codes)
            answers = [None] * len(codes)
        refused: list[str] = []
        for code, lease, renewed in zip(codes, leases, answers, strict=True):
            held = self.held.get(code)
            if held is None or held.lease is not lease:
                continue  # lost, or claimed again meanwhile: the answer is not about its hold
            if renewed:
                held.valid_until = self._valid_until(sent_at)
            elif renewed is False:
                self.renewals_failed += 1
                if code not in self.reclaiming:
                    refused.append(code)
            elif self.clock() >= held.valid_until:
                self._lose(code, "Redis did not answer in time")
        if refused:
            self.reclaiming.update(refused)
            task = asyncio.create_task(self._claim_again(refused))
            self._reclaims.add(task)
            task.add_done_callback(self._reclaims.discard)

    async def settled(self) -> None:
        """Wait until the rooms being claimed again are, or are lost."""
        while self._reclaims:
            await asyncio.wait(list(self._reclaims))

    async def _claim_again(self, codes: list[str]) -> None:
        """Claim again, several at a time, the rooms whose leases Redis says are not ours; the
        rooms that cannot be are lost."""
        reclaim = self.reclaim

        async def again(code: str) -> None:
            try:
                async with self._gate:
                    held = self.held.get(code)
                    if held is None:
                        return  # lost meanwhile
                    why: str | None = "another node holds it"
                    if reclaim is not None:
                        why = await reclaim(code, held.lease)
                if why is not None:
                    self._lose(code, why)
            finally:
                self.reclaiming.discard(code)

        await asyncio.gather(*(again(code) for code in codes))

    async def run(self) -> None:
        """Renew every lease a few times per lease life, until cancelled (with the claims
        made again under way)."""
        try:
            while True:
                started = self.clock()
                await self.renew_all()
                await asyncio.sleep(max(0.0, self.renew_every - (self.clock() - started)))
        finally:
            for task in list(self._reclaims):
                task.cancel()
