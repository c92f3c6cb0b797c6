"""When the server collects garbage: young objects on the clock; the middle generation after
requests came in; a full collection after enough connections ended, never too often, on a
schedule if any ended, never while the server only fills up."""

import asyncio
import gc
import weakref

from starlette.types import Message, Receive, Scope, Send

from app.api.middleware import CountScopes
from app.collection import (
    ENDED_SHARE,
    FULL_COLLECTION_SECONDS,
    LEAST_ENDED,
    LEAST_SECONDS_BETWEEN,
    MIDDLE_COLLECTION_THRESHOLD,
    SCOPES_PER_MIDDLE_COLLECTION,
    YOUNG_COLLECTION_SECONDS,
    YOUNG_COLLECTION_THRESHOLD,
    Collector,
    Connections,
    YoungCollections,
    start_collecting,
)


def _opened(connections: Connections, count: int) -> None:
    for _ in range(count):
        connections.opened()


def _closed(connections: Connections, count: int) -> None:
    for _ in range(count):
        connections.closed()


def test_a_server_filling_up_never_runs_one() -> None:
    connections = Connections()
    collector = Collector(connections)
    _opened(connections, 10_000)
    assert not collector.due(collector.last + LEAST_SECONDS_BETWEEN)
    assert not collector.due(collector.last + 10 * FULL_COLLECTION_SECONDS), "nothing ended"


def test_one_follows_a_quarter_of_the_connections_ending_but_not_too_soon() -> None:
    connections = Connections()
    _opened(connections, 4_000)
    collector = Collector(connections)
    start = collector.last = 1000.0  # so that the sums below are exact
    # 600 ended of 3,400 still open: short of a quarter.
    _closed(connections, 600)
    assert connections.open == 3_400
    assert not collector.due(start + LEAST_SECONDS_BETWEEN)
    _closed(connections, 200)  # 800 ended, 3,200 open: a quarter
    assert ENDED_SHARE * connections.open <= 800
    assert not collector.due(start + LEAST_SECONDS_BETWEEN / 2), "too soon after the last"
    assert collector.due(start + LEAST_SECONDS_BETWEEN)
    collector.collect()
    assert collector.ended_at_last == connections.ended
    assert not collector.due(collector.last + LEAST_SECONDS_BETWEEN), "counted from the last"


def test_a_few_connections_ending_wait_for_the_least_count() -> None:
    connections = Connections()
    _opened(connections, 20)
    collector = Collector(connections)
    collector.last = 1000.0  # so that the sums below are exact
    _closed(connections, 19)  # far more than a quarter of those open, but few
    assert LEAST_ENDED > 19
    assert not collector.due(collector.last + LEAST_SECONDS_BETWEEN)
    assert collector.due(collector.last + FULL_COLLECTION_SECONDS), "the schedule"


class _Node:
    def __init__(self) -> None:
        self.other: _Node | None = None


def _cycle() -> tuple[_Node, _Node, weakref.ref[_Node]]:
    """Two objects that refer to each other, and a weak reference to the first."""
    first, second = _Node(), _Node()
    first.other, second.other = second, first
    return first, second, weakref.ref(first)


def test_a_collection_frees_the_cycles_ended_connections_left() -> None:
    collector = Collector(Connections())
    first, second, gone = _cycle()
    gc.collect()  # old now, as a long-lived connection's objects are
    enabled = gc.isenabled()
    gc.disable()
    try:
        del first, second
        assert gone() is not None, "a cycle outlives its names"
        collector.collect()
        assert gone() is None
    finally:
        if enabled:
            gc.enable()


def _young_cycle() -> weakref.ref[_Node]:
    """A cycle in the young generation, with no name left on it."""
    return _cycle()[2]


async def test_young_cycles_are_collected_on_the_clock_until_it_stops() -> None:
    enabled = gc.isenabled()
    gc.disable()  # nothing but the clock collects
    young = YoungCollections(asyncio.get_running_loop())
    try:
        gone = _young_cycle()
        for _ in range(1000):
            if gone() is None:
                break
            await asyncio.sleep(YOUNG_COLLECTION_SECONDS)
        assert gone() is None
        young.stop()
        kept = _young_cycle()
        await asyncio.sleep(YOUNG_COLLECTION_SECONDS * 5)
        assert kept() is not None, "collected after the clock stopped"
    finally:
        young.stop()
        gc.collect()
        if enabled:
            gc.enable()


def test_cycles_left_by_requests_go_at_a_middle_collection_once_enough_came_in() -> None:
    connections = Connections()
    collector = Collector(connections)
    assert not collector.middle_due(), "nothing came in"
    enabled = gc.isenabled()
    gc.disable()
    try:
        first, second, gone = _cycle()
        gc.collect(0)  # alive at a young collection, as a request's objects are
        del first, second
        gc.collect(0)
        assert gone() is not None, "past the young generation"
        for _ in range(SCOPES_PER_MIDDLE_COLLECTION - 1):
            connections.scope()
        assert not collector.middle_due(), "a few requests, a health check's, wait"
        connections.scope()
        assert collector.middle_due()
        collector.collect_middle()
        assert gone() is None
        assert not collector.middle_due(), "counted from the last"
    finally:
        if enabled:
            gc.enable()


async def test_every_request_and_handshake_is_counted_and_nothing_else() -> None:
    seen: list[str] = []

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        seen.append(scope["type"])

    async def receive() -> Message:
        return {}

    async def send(message: Message) -> None:
        return None

    connections = Connections()
    counted = CountScopes(app, connections)
    for kind in ("http", "websocket", "lifespan", "http"):
        await counted({"type": kind}, receive, send)
    assert seen == ["http", "websocket", "lifespan", "http"]
    assert connections.scopes == 3


async def test_serving_takes_up_collecting_with_the_policy_whatever_the_start_left() -> None:
    before = gc.get_threshold()
    gc.disable()
    task = start_collecting(Connections())
    try:
        assert gc.isenabled()
        assert gc.get_threshold()[:2] == (YOUNG_COLLECTION_THRESHOLD, MIDDLE_COLLECTION_THRESHOLD)
    finally:
        task.cancel()
        gc.unfreeze()
        gc.set_threshold(*before)
        gc.enable()
