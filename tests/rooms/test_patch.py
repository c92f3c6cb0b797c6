"""The differ: applying its operations (with the independent jsonpatch library) to the old
document always gives the new one."""

from __future__ import annotations

import copy
from typing import Any

import jsonpatch
from hypothesis import given, settings
from hypothesis import strategies as st

from app.rooms.patch import diff

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
