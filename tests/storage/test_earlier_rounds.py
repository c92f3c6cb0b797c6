"""A finished round kept by an earlier version (in the outbox, at a stop before an upgrade) is
still written: without moves (no replay) and with its seats as people without keys."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path
from typing import Any, TypeVar

from app.engine.match import Match, MatchRules, RoundResult
from app.rooms.settings import RoomSettings
from app.rooms.store import FinishedRound
from app.storage.db import make_engine, make_sessions
from app.storage.history import get_match
from app.storage.store import DatabaseStore
from tests.server import migrate

T = TypeVar("T", bound=Any)


def earlier(value: T, fields: int) -> T:
    """``value`` as unpickled from an earlier version: only its first ``fields`` fields set."""
    made = type(value).__new__(type(value))
    made.__setstate__(value.__getstate__()[:fields])
    return made


async def save_and_read(url: str, finished: FinishedRound) -> tuple[list[object], list[object]]:
    engine = make_engine(url)
    store = DatabaseStore(engine, flush_seconds=0, outbox=Path(url.split("///")[1] + "-out"))
    store.start()
    try:
        assert await store.save(None, [finished])
    finally:
        await store.stop()
    async with make_sessions(engine)() as session:
        match = await get_match(session, finished.match_id)
        assert match is not None
        found = (
            [played.moves for played in match.rounds],
            [(seat.bot, seat.key_hash) for seat in match.seats],
        )
    await engine.dispose()
    return found


def test_a_round_without_moves_keys_or_bots_is_written_as_before(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path}/h.db"
    migrate(url)
    match = Match(2, MatchRules(rounds=1), "earlier")
    rng = random.Random(1)
    current = match.start_round()
    while not current.ended:
        match.apply(current.random_action(rng))
    result: RoundResult = earlier(match.results[0], 10)
    finished = FinishedRound(
        "e" * 32, "ABCD-EFGH", RoomSettings().model_dump(), 0, ("Ann", "Bob"), result, 1, True,
        (1, 2), bots=(None, "easy"), key_hashes=("k" * 64, ""),
    )  # fmt: skip
    moves, seats = asyncio.run(save_and_read(url, earlier(finished, 9)))
    assert moves == [None]
    assert seats == [(None, None), (None, None)]
