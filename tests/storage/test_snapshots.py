"""A room's journal is compacted at each rematch: a snapshot of the room and the events of its
current match rebuild it exactly, and the events before the snapshot are no longer kept."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from app.bots.greedy import greedy_turn
from app.rooms.settings import RoomSettings
from app.rooms.state import RoomState, Status
from app.storage.backends.sqlite import SqliteJournal
from app.storage.db import make_engine
from app.storage.store import DatabaseStore
from tests.server import migrate
from tests.storage.test_recorded_journal import summary


@asynccontextmanager
async def started_store(database_url: str) -> AsyncIterator[DatabaseStore]:
    """A store on a freshly migrated database, stopped and let go of afterwards."""
    migrate(database_url)
    store = DatabaseStore(make_engine(database_url), flush_seconds=0)
    store.start()
    try:
        yield store
    finally:
        await store.stop()
        await store.engine.dispose()


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
    async with started_store(database_url) as store:
        state = RoomState("SNAP-SHOT", RoomSettings(rounds=2), 1)
        state.join("Ann", "a" * 64, 1)
        state.join("Bob", "b" * 64, 1)
        state.join("Cid", "c" * 64, 1)
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
        # Dealt 0, 1 in the first match and 2, 0 in the second: the third begins at seat 1.
        assert restored.match is not None
        assert restored.match.rounds[0].dealer == restored.match.first_dealer == 1

        if isinstance(store.backend, SqliteJournal):
            # Folded into the database, the event log keeps only what the snapshot did not cover.
            store.backend.log.close()
            store.backend.fold(store.backend.log.segments())
            assert store.backend.log.segments() == []
            (kept,) = await store.backend.restore()
            assert min(kept.events) == last_start
            (restored,) = await store.restore()
            assert summary(restored) == summary(state)


def chat_of(state: RoomState) -> tuple[object, ...]:
    chat = state.chat
    lines = [(line.n, line.seat, line.name, line.text, line.reaction) for line in chat.lines]
    return chat.count, chat.spectators, lines, [seat.muted for seat in state.seats]


async def test_the_chat_and_its_mutes_outlive_the_events_a_rematch_compacts(
    database_url: str,
) -> None:
    """The chat belongs to the room, not to a match: rebuilt from a rematch's snapshot, the
    room has its lines (numbered on from where they were), its mutes and its spectators'
    switch, as they were."""
    async with started_store(database_url) as store:
        state = RoomState("CHAT-SNAP", RoomSettings(rounds=1), 1)
        state.join("Ann", "a" * 64, 1)
        state.join("Bob", "b" * 64, 1)
        state.say(0, "hello from Ann", 2)
        state.react(1, "🎉", 2)
        state.allow_spectator_chat(0, True)
        state.say(None, "good luck", 2)
        state.mute(0, 1, True)
        assert await store.save(state)
        state.start(0, "m" * 32, "1" * 64, 2)
        await play_match(state, store, 3)
        state.rematch(0, "n" * 32, "2" * 64, 4)
        assert await store.save(state)
        state.say(0, "again?", 5)
        assert await store.save(state)

        (kept,) = await store.backend.restore()
        assert kept.snapshot is not None
        assert "chat" in kept.snapshot.state
        (restored,) = await store.restore()
        assert chat_of(restored) == chat_of(state)
        assert [line.text for line in restored.chat.lines][-1] == "again?"
        assert restored.chat.count == 4
        assert restored.seats[1].muted
        assert summary(restored) == summary(state)
