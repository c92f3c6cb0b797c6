"""Bots think in worker processes. A worker that ends (killed for memory, say) breaks its pool
for good; the next decision makes the pool anew instead of failing for as long as the server
runs."""

from __future__ import annotations

import asyncio
import os
import signal
import time
from concurrent.futures import ProcessPoolExecutor
from multiprocessing.process import BaseProcess
from pathlib import Path

from app.bots.decision import Decision
from app.bots.levels import Level, decide_seeded
from app.bots.observation import Observation, observe
from app.engine.round import Round
from app.engine.variant import Variant
from app.rooms.thinking import Behind, Thinker


def a_position() -> tuple[Observation, Decision]:
    """A seat's view of a round of three, and the strong bot's decision there (seed 5)."""
    current = Round(Variant(), 3, dealer=0, seed="7" * 64)
    observation = observe(current, current.turn)
    return observation, decide_seeded(Level.STRONG, observation, 5)


def only_worker(pool: ProcessPoolExecutor | None) -> BaseProcess:
    """The one worker process a pool has started."""
    assert pool is not None
    [worker] = list(pool._processes.values())
    return worker


def test_a_worker_killed_is_replaced_and_the_decision_still_made() -> None:
    observation, expected = a_position()

    async def check() -> None:
        thinker = Thinker(workers=1)
        try:
            assert await thinker.decide(Level.STRONG, observation, 5) == expected
            first = thinker.bot_workers.pool
            worker = only_worker(first)
            os.kill(worker.pid, signal.SIGKILL)
            await asyncio.to_thread(worker.join)
            # The pool learns of its dead worker at its own pace: before the next decision is
            # asked for or while it waits; either way the decision is made.
            for _ in range(3):
                assert await thinker.decide(Level.STRONG, observation, 5) == expected
            assert thinker.bot_workers.pool is not first
            assert only_worker(thinker.bot_workers.pool).pid != worker.pid
        finally:
            thinker.close()

    asyncio.run(check())


def test_decisions_the_workers_do_not_get_to_in_time_are_dropped_not_left_queued() -> None:
    """With the worker held up (stopped here; in use, more rooms asking than it can think for),
    decisions not made within their time are refused, and skipped when a worker comes to them:
    those asked for next do not wait for decisions nobody waits for any more to be made."""
    observation, expected = a_position()

    async def check() -> None:
        thinker = Thinker(workers=1)
        try:
            assert await thinker.decide(Level.STRONG, observation, 5) == expected
            worker = only_worker(thinker.bot_workers.pool)
            os.kill(worker.pid, signal.SIGSTOP)
            try:
                late = await asyncio.gather(
                    *(thinker.decide(Level.STRONG, observation, n, 0.05) for n in range(20)),
                    return_exceptions=True,
                )
            finally:
                os.kill(worker.pid, signal.SIGCONT)
            assert all(isinstance(answer, Behind) for answer in late), late
            assert thinker.bot_workers.late == 20
            # The worker, going on, skips each of them, and then makes the one asked for next.
            assert await thinker.decide(Level.STRONG, observation, 5) == expected
            assert thinker.dropped == 20
        finally:
            thinker.close()

    asyncio.run(check())


def test_a_worker_that_ends_holding_decisions_past_their_time_leaves_no_process_behind() -> None:
    """Decisions given up on are never cancelled in the pool: a pool of Python 3.11 whose worker
    ends while it holds a cancelled one loses the thread that tends it, the decisions waiting are
    never answered, and its other workers live on after the close."""
    observation, expected = a_position()

    async def check() -> None:
        thinker = Thinker(workers=2)
        try:
            await asyncio.gather(*(thinker.decide(Level.STRONG, observation, n) for n in range(4)))
            assert thinker.bot_workers.pool is not None
            first = thinker.bot_workers.pool
            workers = list(first._processes.values())
            assert len(workers) == 2
            for worker in workers:
                os.kill(worker.pid, signal.SIGSTOP)
            late = await asyncio.gather(
                *(thinker.decide(Level.STRONG, observation, n, 0.05) for n in range(6)),
                return_exceptions=True,
            )
            assert all(isinstance(answer, Behind) for answer in late), late
            waiting = asyncio.ensure_future(thinker.decide(Level.STRONG, observation, 5))
            os.kill(workers[0].pid, signal.SIGKILL)
            os.kill(workers[1].pid, signal.SIGCONT)
            # The decision waiting is made: by the worker still alive, or, once the pool knows
            # its other worker ended, by a new pool.
            assert await waiting == expected
            deadline = time.monotonic() + 60
            while not first._broken:
                assert time.monotonic() < deadline, "the pool never found its worker ended"
                await asyncio.sleep(0.01)
            # The next decision is asked of a new pool, and made.
            assert await thinker.decide(Level.STRONG, observation, 5) == expected
            assert thinker.bot_workers.pool is not first
        finally:
            thinker.close()
        # The broken pool's other worker is ended with it.
        await asyncio.to_thread(workers[1].join, 60)
        assert not workers[1].is_alive()

    asyncio.run(check())


def test_a_hint_is_made_while_the_bots_worker_is_held_up() -> None:
    """A person waits on a hint: it is worked out in workers of its own, not behind the bots'
    turns waiting for theirs (held up here; in use, more rooms asking than it can think for).
    That worker, killed, is replaced as the bots' are, and the bots' pool is left alone."""
    observation, expected = a_position()

    async def check() -> None:
        thinker = Thinker(workers=1)
        try:
            assert await thinker.decide(Level.STRONG, observation, 5) == expected
            bots = thinker.bot_workers.pool
            worker = only_worker(bots)
            os.kill(worker.pid, signal.SIGSTOP)
            try:
                turns = [
                    asyncio.ensure_future(thinker.decide(Level.STRONG, observation, 5))
                    for _ in range(3)
                ]
                hint = thinker.decide(Level.STRONG, observation, 5, hint=True)
                assert await asyncio.wait_for(hint, 120) == expected
                assert not any(turn.done() for turn in turns)
                helper = thinker.hint_workers.pool
                hinting = only_worker(helper)
                os.kill(hinting.pid, signal.SIGKILL)
                await asyncio.to_thread(hinting.join)
                for _ in range(2):
                    again = thinker.decide(Level.STRONG, observation, 5, hint=True)
                    assert await asyncio.wait_for(again, 120) == expected
                assert thinker.hint_workers.pool is not helper
                assert thinker.bot_workers.pool is bots
            finally:
                os.kill(worker.pid, signal.SIGCONT)
            assert await asyncio.wait_for(asyncio.gather(*turns), 120) == [expected] * 3
        finally:
            thinker.close()

    asyncio.run(check())


def wait_for_file(path: str) -> None:
    """A long piece of work in a worker: it ends when ``path`` exists."""
    while not os.path.exists(path):
        time.sleep(0.01)


def test_hints_asked_at_once_are_worked_out_side_by_side_as_the_bots_are(tmp_path: Path) -> None:
    """The hints' pool is as large as the bots': with two workers each, hints asked while one
    is busy are worked out in a second instead of queueing behind it."""
    observation, expected = a_position()
    done = tmp_path / "done"

    async def check() -> None:
        thinker = Thinker(workers=2)
        try:
            for _ in range(2):
                assert await thinker.decide(Level.STRONG, observation, 5, hint=True) == expected
            hints = thinker.hint_workers.pool
            assert hints is not None
            busy = hints.submit(wait_for_file, str(done))  # as a long hint would keep it
            try:
                together = [
                    thinker.decide(Level.STRONG, observation, 5, hint=True) for _ in range(3)
                ]
                made = await asyncio.wait_for(asyncio.gather(*together), 120)
            finally:
                done.touch()
            assert made == [expected] * 3
            await asyncio.wrap_future(busy)
            assert thinker.hint_workers.pool is hints
            assert len(hints._processes) == 2
            assert thinker.bot_workers.pool is None
        finally:
            thinker.close()

    asyncio.run(check())


def test_the_workers_yield_the_processor_to_the_server_and_the_bots_to_hints() -> None:
    """With every core busy, the server's own work goes first, then hints, then bots' turns:
    each pool's workers run at a lower priority (a higher niceness) than the server's."""
    observation, expected = a_position()

    async def check() -> None:
        thinker = Thinker(workers=1)
        try:
            assert await thinker.decide(Level.STRONG, observation, 5) == expected
            assert await thinker.decide(Level.STRONG, observation, 5, hint=True) == expected
            mine = os.getpriority(os.PRIO_PROCESS, 0)
            niceness = {}
            for kind, workers in (("bots", thinker.bot_workers), ("hints", thinker.hint_workers)):
                worker = only_worker(workers.pool)
                niceness[kind] = os.getpriority(os.PRIO_PROCESS, worker.pid) - mine
            assert niceness == {"bots": min(5, 19 - mine), "hints": min(2, 19 - mine)}
        finally:
            thinker.close()

    asyncio.run(check())
