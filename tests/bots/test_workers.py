"""Bots think in worker processes. A worker that ends (killed for memory, say) breaks its pool
for good; the next decision makes the pool anew instead of failing for as long as the server
runs."""

from __future__ import annotations

import asyncio
import os
import signal

from app.bots.levels import Level, decide_seeded
from app.bots.observation import observe
from app.engine.round import Round
from app.engine.variant import Variant
from app.rooms.thinking import Thinker


def test_a_worker_killed_is_replaced_and_the_decision_still_made() -> None:
    current = Round(Variant(), 3, dealer=0, seed="7" * 64)
    observation = observe(current, current.turn)
    expected = decide_seeded(Level.STRONG, observation, 5)

    async def check() -> None:
        thinker = Thinker(workers=1)
        try:
            assert await thinker.decide(Level.STRONG, observation, 5) == expected
            first = thinker.pool
            assert first is not None
            [worker] = list(first._processes.values())
            os.kill(worker.pid, signal.SIGKILL)
            await asyncio.to_thread(worker.join)
            # The pool learns of its dead worker at its own pace: before the next decision is
            # asked for or while it waits; either way the decision is made.
            for _ in range(3):
                assert await thinker.decide(Level.STRONG, observation, 5) == expected
            assert thinker.pool is not first
            assert thinker.pool is not None
            [replacement] = list(thinker.pool._processes.values())
            assert replacement.pid != worker.pid
        finally:
            thinker.close()

    asyncio.run(check())
