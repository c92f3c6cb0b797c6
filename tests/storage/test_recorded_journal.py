"""A journal recorded on SQLite by an earlier version of the server still restores every room.

The fixture holds the database (some events already folded into it) and its event log (the
newest events, a forgotten room's and an earlier room's under a reused code); ``rooms.json`` is
what each room looked like in memory when it was recorded.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import orjson

from app.rooms.state import RoomState
from app.storage.db import make_engine
from app.storage.store import DatabaseStore

RECORDED = Path(__file__).parent / "fixtures" / "recorded-journal"


def summary(state: RoomState) -> dict[str, Any]:
    """What a room holds, as ``rooms.json`` puts it."""
    return {
        "event_count": state.event_count,
        "seats": [[seat.name, seat.token_hash, seat.ready, seat.bot] for seat in state.seats],
        "host": state.host,
        "status": state.status.value,
        "settings": state.settings.model_dump(),
        "match_id": state.match_id,
        "totals": state.totals(),
        "match": state.match.record() if state.match else None,
    }


async def test_a_recorded_journal_restores_every_room(tmp_path: Path) -> None:
    path = tmp_path / "spectrum.db"
    shutil.copyfile(RECORDED / "spectrum.db", path)
    shutil.copytree(RECORDED / "spectrum.db-live", tmp_path / "spectrum.db-live")
    expected = orjson.loads((RECORDED / "rooms.json").read_bytes())
    store = DatabaseStore(make_engine(f"sqlite+aiosqlite:///{path}"), flush_seconds=0)
    try:
        restored = {state.code: summary(state) for state in await store.restore()}
    finally:
        await store.stop()
        await store.engine.dispose()
    assert set(restored) == {"GAME-ROOM", "LOBB-YONE", "REUS-EDCD"}
    assert restored == expected
    assert restored["GAME-ROOM"]["status"] == "playing"
    assert len(restored["GAME-ROOM"]["match"]["rounds"]) == 2
    assert [seat[0] for seat in restored["REUS-EDCD"]["seats"]] == ["Second"]
