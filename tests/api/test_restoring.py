"""While the rooms kept at the last stop are not held again yet, a code that may be one of
them is answered "restoring" (come back in a moment), but unknown codes still count against
the address: the wait is no way to probe for rooms."""

from app.api.deps import Miss, find_room
from app.rooms.live import RoomConfig
from app.rooms.registry import RoomRegistry, WindowLimiter


def test_codes_asked_while_restoring_still_count_against_the_address() -> None:
    registry = RoomRegistry(RoomConfig(), 10)
    misses = WindowLimiter(3, 60)
    registry.unrestored = "the outbox kept at the last stop is not written (TimeoutError)"
    found = [find_room(registry, misses, f"ABCD-EFG{n}", "192.0.2.1") for n in range(2, 7)]
    assert found == [Miss.RESTORING] * 3 + [Miss.TOO_MANY] * 2
    assert find_room(registry, misses, "ABCD-EFGH", "192.0.2.2") is Miss.RESTORING
    # What cannot be a room's code is no room's, restoring or not.
    assert find_room(registry, misses, "not-a-code", "192.0.2.2") is Miss.UNKNOWN
    registry.unrestored = None
    assert find_room(registry, misses, "ABCD-EFGH", "192.0.2.3") is Miss.UNKNOWN
