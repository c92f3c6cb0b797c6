"""A journal written by an earlier version of the room still restores the same room."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from app.engine.actions import action_from_dict, action_to_dict
from app.rooms.events import MatchStarted, decode, encode
from app.rooms.registry import hash_token
from app.rooms.settings import RoomSettings
from app.rooms.state import RoomState
from app.rooms.views import ViewBuilder
from app.storage.journal import Snapshot
from app.storage.snapshots import rebuild, snapshot_of

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
    public = builder.public(state, [True, True, True], set(), 0, None, None)
    # The round's move log came later than the recording: it is the replayed round's moves, and
    # those the room played for a seat are the plays journaled as auto.
    log, auto = public["round"]["log"], public["round"]["auto"]
    public = {
        **public,
        "round": {k: v for k, v in public["round"].items() if k not in ("log", "auto")},
    }
    begun = max(n for n, event in enumerate(data["events"]) if event["type"] in ("start", "deal"))
    plays = [event for event in data["events"][begun:] if event["type"] == "play"]
    assert auto == [n for n, play in enumerate(plays) if play["auto"]]
    # So did the chat: a journal from before it restores with none, nobody muted.
    assert public.pop("chat") == {"lines": [], "muted": [], "spectators": False}
    assert public == expected["public"]
    assert state.match is not None
    assert state.match.round is not None
    actions = [action_to_dict(action) for action in state.match.round.actions]
    assert [(move["seat"], move["type"]) for move in log] == [
        (action["seat"], action["type"]) for action in actions
    ]
    assert [builder.private(state, seat) for seat in range(3)] == expected["private"]
    assert state.totals() == expected["totals"]
    assert state.series() == expected["series"]
    assert state.host == expected["host"]
    assert state.status.value == expected["status"]
    assert state.matches == expected["matches"]
    assert state.match_id == expected["match_id"]
    assert state.event_count == expected["event_count"]


def test_the_journal_keeps_its_form_both_ways() -> None:
    """Every recorded dict decodes to an event that encodes to that same dict."""
    for raw in recorded()["events"]:
        assert encode(decode(raw)) == raw


def test_a_dict_of_a_version_not_known_is_refused() -> None:
    raw = {**recorded()["events"][0], "version": 2}
    with pytest.raises(ValueError, match="version"):
        decode(raw)
    start = next(event for event in recorded()["events"] if event["type"] == "start")
    with pytest.raises(ValueError, match="version"):
        decode({**start, "version": 3, "dealer": 1})
    # Version 2 is a start's with a first dealer; version 1 deals from seat 0.
    assert decode({**start, "version": 2, "dealer": 1}) == MatchStarted(
        start["match_id"], start["seed"], start["at"], 1
    )
    assert decode(start) == MatchStarted(start["match_id"], start["seed"], start["at"], 0)
    assert encode(MatchStarted(start["match_id"], start["seed"], start["at"], 0)) == start


def test_the_same_commands_record_the_same_journal() -> None:
    """The recorded room's commands, given again, hand storage exactly the recorded dicts."""
    data = recorded()
    state = RoomState(
        data["code"], RoomSettings.model_validate(data["settings"]), data["created_at"]
    )
    lobby = [
        lambda: state.join("Ann", hash_token("ann"), 1_700_000_000_000),
        lambda: state.join("Bob", hash_token("bob"), 1_700_000_000_001),
        lambda: state.join("Cid", hash_token("cid"), 1_700_000_000_002),
        lambda: state.join("Dan", hash_token("dan"), 1_700_000_000_003),
        lambda: state.add_bot(0, "easy"),
        lambda: state.add_bot(0, "strong"),
        lambda: state.change_settings(0, state.settings.updated({"rounds": 2, "turn_seconds": 45})),
        lambda: state.kick(0, 3),
        lambda: state.remove_bot(0, 3),
        lambda: state.pass_host(1),
        lambda: state.leave(2),
        lambda: state.pass_host(0),
        lambda: state.change_settings(0, state.settings.updated({"hints": False})),
    ]
    for command in lobby:
        command()
    for raw in data["events"][len(lobby) :]:
        match raw["type"]:
            case "play":
                action = action_from_dict(raw["action"])
                state.play(action.seat, action, raw["at"], auto=raw["auto"])
            case "ready":
                state.mark_ready(raw["seat"])
            case "deal":
                state.deal(raw["at"])
            case "start" if state.match is None:
                state.start(0, raw["match_id"], raw["seed"], raw["at"])
            case "start":
                state.rematch(0, raw["match_id"], raw["seed"], raw["at"])
                break
    first, events = state.take_unsaved()
    assert first == 0
    # The recording's rematch was dealt by seat 0. The deal now moves on from the last round's
    # dealer (seat 1 of 3), and the start says so, in a form an older server refuses.
    rematch = len(events) - 1
    assert events[:rematch] == data["events"][:rematch]
    assert events[rematch] == {**data["events"][rematch], "version": 2, "dealer": 2}


def test_a_join_with_a_player_key_keeps_its_hash_through_the_journal_and_snapshots() -> None:
    state = RoomState("ABCD-EFGH", RoomSettings.model_validate({"rounds": 1}), 0)
    state.join("Ann", hash_token("a"), 1, key_hash="k" * 64)
    state.join("Bob", hash_token("b"), 2)
    _, events = state.take_unsaved()
    assert events[0]["key_hash"] == "k" * 64
    assert "key_hash" not in events[1]  # a join without a key is written as before keys
    again = RoomState.replay(state.code, state.initial_settings, 0, events)
    assert [seat.key_hash for seat in again.seats] == ["k" * 64, ""]
    # A snapshot keeps the hashes; one written before keys (three fields a seat) still reads.
    again.matches = 2  # as when a rematch starts: what a snapshot is taken at
    snapshot = snapshot_of(again, 10, [{"type": "start"}])
    assert snapshot is not None
    assert [seat[3] for seat in snapshot.state["seats"]] == ["k" * 64, ""]
    restored = rebuild(state.code, state.initial_settings, 0, snapshot, [])
    assert [seat.key_hash for seat in restored.seats] == ["k" * 64, ""]
    old = {**snapshot.state, "seats": [seat[:3] for seat in snapshot.state["seats"]]}
    older = rebuild(state.code, state.initial_settings, 0, Snapshot(state.code, 10, old), [])
    assert [(seat.name, seat.key_hash) for seat in older.seats] == [("Ann", ""), ("Bob", "")]


def test_a_seat_taken_again_keeps_its_new_token_through_the_journal() -> None:
    state = RoomState("ABCD-EFGH", RoomSettings.model_validate({"rounds": 1}), 0)
    state.join("Ann", hash_token("a"), 1)
    state.join("Bob", hash_token("b"), 2, key_hash="k" * 64)
    assert state.join("Bob", hash_token("b2"), 3, key_hash="k" * 64) == 1
    _, events = state.take_unsaved()
    assert events[-1] == {"type": "rejoin", "seat": 1, "token_hash": hash_token("b2")}
    assert [encode(decode(event)) for event in events] == events
    again = RoomState.replay(state.code, state.initial_settings, 0, events)
    assert [seat.token_hash for seat in again.seats] == [hash_token("a"), hash_token("b2")]
    assert again.seat_of(hash_token("b")) is None
