"""A journal written by an earlier version of the room still restores the same room."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from app.rooms.settings import RoomSettings
from app.rooms.state import RoomState
from app.rooms.views import ViewBuilder

FIXTURES = Path(__file__).parent / "fixtures"


def recorded() -> dict[str, Any]:
    """A whole room's journal: seats, bots, kicks, settings, two matches (a rematch)."""
    data: dict[str, Any] = json.loads((FIXTURES / "journal-v1.json").read_text())
    return data


def test_a_recorded_journal_replays_into_the_same_room() -> None:
    data = recorded()
    expected = data["expected"]
    state = RoomState.replay(
        data["code"],
        RoomSettings.model_validate(data["settings"]),
        data["created_at"],
        data["events"],
    )
    builder = ViewBuilder()
    assert builder.public(state, [True, True, True], set(), 0, None, None) == expected["public"]
    assert [builder.private(state, seat) for seat in range(3)] == expected["private"]
    assert state.totals() == expected["totals"]
    assert state.series() == expected["series"]
    assert state.host == expected["host"]
    assert state.status.value == expected["status"]
    assert state.matches == expected["matches"]
    assert state.match_id == expected["match_id"]
    assert state.event_count == expected["event_count"]
