"""A room's journal is compacted at each rematch: a snapshot of the room and the events of its
current match rebuild it exactly, and the events before the snapshot are no longer kept."""

from __future__ import annotations

from app.bots.greedy import greedy_turn
from app.rooms.settings import RoomSettings
from app.rooms.state import RoomState, Status
from app.storage.backends.sqlite import SqliteJournal
from app.storage.db import make_engine
from app.storage.store import DatabaseStore
from tests.server import migrate
from tests.storage.test_recorded_journal import summary


async def play_match(state: RoomState, store: DatabaseStore, at: int) -> None:
    """Greedy moves for whoever is on turn until the match is over, saving after each."""
    while state.status is not Status.FINISHED:
        if state.status is Status.ROUND_OVER:
            state.deal(at)
        else:
            assert state.match is not None
            assert state.match.round is not None
            current = state.match.round
            for action in greedy_turn(current, current.turn):
                state.play(current.turn, action, at)
        assert await store.save(state)


async def test_a_room_is_rebuilt_from_its_snapshot_and_its_current_match(
    database_url: str,
) -> None:
    migrate(database_url)
    store = DatabaseStore(make_engine(database_url), flush_seconds=0)
    store.start()
    try:
        state = RoomState("SNAP-SHOT", RoomSettings(rounds=2), 1)
        state.join("Ann", "a" * 64, 1)
        state.join("Bob", "b" * 64, 1)
        state.start(0, "m" * 32, "1" * 64, 2)
        await play_match(state, store, 3)
        state.rematch(0, "n" * 32, "2" * 64, 4)
        assert await store.save(state)
        rematch_at = state.event_count - 1
        await play_match(state, store, 5)
        state.rematch(0, "o" * 32, "3" * 64, 6)
        assert await store.save(state)
        last_start = state.event_count - 1
        state.pass_host(1)
        assert await store.save(state)

        (kept,) = await store.backend.restore()
        assert kept.snapshot is not None
        assert kept.snapshot.seq == last_start > rematch_at
        assert min(kept.events) == last_start  # the events of earlier matches are gone
        (restored,) = await store.restore()
        assert summary(restored) == summary(state)
        assert restored.series() == state.series()
        assert restored.matches == state.matches == 3

        if isinstance(store.backend, SqliteJournal):
            # Folded into the database, the event log keeps only what the snapshot did not cover.
            store.backend.log.close()
            store.backend.fold(store.backend.log.segments())
            assert store.backend.log.segments() == []
            (kept,) = await store.backend.restore()
            assert min(kept.events) == last_start
            (restored,) = await store.restore()
            assert summary(restored) == summary(state)
    finally:
        await store.stop()
        await store.engine.dispose()
