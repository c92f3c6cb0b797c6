"""When the server runs a full garbage collection: after growth, never too often, on a schedule."""

from app.collection import (
    FULL_COLLECTION_SECONDS,
    GROWTH_BYTES,
    GROWTH_SHARE,
    LEAST_SECONDS_BETWEEN,
    Collector,
)

MIB = 1024 * 1024


def test_a_full_collection_follows_growth_but_not_too_soon() -> None:
    size = [100 * MIB]
    collector = Collector(lambda: size[0])
    start = collector.last
    assert not collector.due(start + LEAST_SECONDS_BETWEEN)
    size[0] += int(max(GROWTH_BYTES, GROWTH_SHARE * size[0])) - 1
    assert not collector.due(start + LEAST_SECONDS_BETWEEN), "not grown enough"
    size[0] += 1
    assert not collector.due(start + LEAST_SECONDS_BETWEEN / 2), "too soon after the last"
    assert collector.due(start + LEAST_SECONDS_BETWEEN)
    collector.collect()
    assert collector.after_last == size[0]
    assert not collector.due(collector.last + LEAST_SECONDS_BETWEEN)


def test_a_full_collection_comes_on_schedule_without_growth() -> None:
    collector = Collector(lambda: 100 * MIB)
    assert not collector.due(collector.last + FULL_COLLECTION_SECONDS - 1)
    assert collector.due(collector.last + FULL_COLLECTION_SECONDS + 0.001)
