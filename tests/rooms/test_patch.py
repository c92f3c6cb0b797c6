"""The differ: applying its operations (with the independent jsonpatch library) to the old
document always gives the new one; a move's ops read off what it changed are the differ's."""

from __future__ import annotations

import copy
import random
from typing import Any

import jsonpatch
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.engine.actions import Knock
from app.rooms.patch import diff, round_ops
from app.rooms.registry import hash_token
from app.rooms.settings import RoomSettings
from app.rooms.state import RoomState, Status
from app.rooms.views import ViewBuilder

scalars = st.none() | st.booleans() | st.integers(-5, 5) | st.sampled_from(["a", "b", "3-star-red"])
keys = st.sampled_from(["top", "count", "a/b", "til~de", "hand", "seat"])
documents = st.recursive(
    scalars,
    lambda children: st.lists(children, max_size=6) | st.dictionaries(keys, children, max_size=5),
    max_leaves=30,
)


@given(documents, documents)
@settings(max_examples=400)
def test_applying_the_diff_gives_the_new_document(old: Any, new: Any) -> None:
    document = {"root": copy.deepcopy(old)}
    ops = diff(document, {"root": new})
    assert jsonpatch.apply_patch(document, ops) == {"root": new}


@given(documents)
def test_no_change_means_no_operations(document: Any) -> None:
    assert diff(document, copy.deepcopy(document)) == []


def test_unchanged_parts_are_skipped_by_identity() -> None:
    shared = {"hands": [{"cards": ["1-star-red"] * 5}] * 4}
    assert diff({"results": shared, "turn": 1}, {"results": shared, "turn": 2}) == [
        {"op": "replace", "path": "/turn", "value": 2}
    ]


def test_a_pile_that_changed_whole_is_replaced_whole() -> None:
    old = {"round": {"discard": {"top": "1-star-red", "count": 3}, "turn": 0}}
    new = {"round": {"discard": {"top": "2-star-red", "count": 4}, "turn": 0}}
    assert diff(old, new) == [
        {"op": "replace", "path": "/round/discard", "value": {"top": "2-star-red", "count": 4}}
    ]


def test_types_that_compare_equal_still_differ() -> None:
    assert diff({"x": 1}, {"x": True}) == [{"op": "replace", "path": "/x", "value": True}]
    assert diff({"x": 0}, {"x": 0.0}) == [{"op": "replace", "path": "/x", "value": 0.0}]


@pytest.mark.parametrize(
    ("players", "multi_pickup", "ten_card"),
    [(2, False, False), (4, True, False), (3, False, True), (4, True, True), (6, True, False)],
)
def test_a_move_s_round_ops_are_the_differ_s(
    players: int, multi_pickup: bool, ten_card: bool
) -> None:
    """After every move that leaves the round going, the ops read off the move equal the
    differ's over the whole round, and bring the round's public face up to date."""
    settings = RoomSettings(rounds=4, multi_pickup=multi_pickup, ten_card=ten_card)
    state = RoomState("ABCD-EFGH", settings, 0)
    for seat in range(players):
        state.join(f"P{seat}", hash_token(f"t{seat}"), 0)
    state.start(0, "m1", "seed", 0)
    views = ViewBuilder()
    rng = random.Random(players)
    before = views.round(state, 1000)
    compared = knocks = 0
    while state.status is not Status.FINISHED:
        if state.status is Status.ROUND_OVER:
            for seat in range(players):
                state.mark_ready(seat)
            state.deal(0)
            before = views.round(state, 1000)
            continue
        assert state.match is not None
        assert state.match.round is not None
        current = state.match.round
        action = current.random_action(rng, knock_chance=0.05)
        state.play(current.turn, action, 0)
        after = views.round(state, 2000 + compared)
        if state.status is Status.PLAYING:
            assert before is not None
            assert after is not None
            ops = round_ops(before, after, "/round")
            assert ops == diff(before, after, "/round")
            document = {"round": copy.deepcopy(before)}
            assert jsonpatch.apply_patch(document, ops) == {"round": after}
            compared += 1
            knocks += isinstance(action, Knock)
        before = after
    assert compared > 50
    assert knocks > 0
