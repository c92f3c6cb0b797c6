"""The tests' quick patch applier (tests/patching.py) gives what the jsonpatch library gives,
and refuses what it refuses."""

from __future__ import annotations

import copy
from typing import Any

import jsonpatch
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.patching import CASES, FAILURES, PatchError, apply_patch

REFUSED_BY_JSONPATCH = (jsonpatch.JsonPatchException, jsonpatch.JsonPointerException)


def reference(document: Any, ops: list[dict[str, Any]]) -> Any:
    return jsonpatch.apply_patch(copy.deepcopy(document), copy.deepcopy(ops))


@pytest.mark.parametrize(("document", "ops"), CASES)
def test_what_applies_gives_what_jsonpatch_gives(document: Any, ops: list[dict[str, Any]]) -> None:
    assert apply_patch(copy.deepcopy(document), copy.deepcopy(ops)) == reference(document, ops)


@pytest.mark.parametrize(("document", "ops"), FAILURES)
def test_what_jsonpatch_refuses_is_refused(document: Any, ops: list[dict[str, Any]]) -> None:
    with pytest.raises(REFUSED_BY_JSONPATCH):
        reference(document, ops)
    with pytest.raises(PatchError):
        apply_patch(copy.deepcopy(document), copy.deepcopy(ops))


def test_operations_the_server_never_sends_and_incomplete_ones_are_refused() -> None:
    for op in (
        {"op": "move", "from": "/a", "path": "/b"},
        {"op": "copy", "from": "/a", "path": "/b"},
        {"op": "test", "path": "/a", "value": 1},
        {"op": "remove", "path": ""},
        {"op": "add", "path": "/b"},
        {"op": "replace", "value": 1},
        {"path": "/a"},
    ):
        with pytest.raises(PatchError):
            apply_patch({"a": 1}, [op])


def test_the_document_shares_nothing_with_the_patch() -> None:
    value = {"cards": ["1-star-red"]}
    document = apply_patch({"hands": []}, [{"op": "add", "path": "/hands/-", "value": value}])
    value["cards"].append("2-star-red")
    assert document == {"hands": [{"cards": ["1-star-red"]}]}


scalars = st.none() | st.booleans() | st.integers(-3, 3) | st.sampled_from(["a", "~", "/"])
keys = st.sampled_from(["a", "b", "a/b", "m~n", "~1", "0", ""])
documents = st.recursive(
    scalars,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(keys, children, max_size=4),
    max_leaves=20,
)
tokens = keys | st.sampled_from(["-", "1", "2", "01", "5", "x"])
pointers = st.lists(tokens, max_size=3).map(
    lambda parts: "".join("/" + part.replace("~", "~0").replace("/", "~1") for part in parts)
)
operations = st.fixed_dictionaries(
    {"op": st.sampled_from(["add", "remove", "replace"]), "path": pointers, "value": documents}
)


@given(documents, st.lists(operations, min_size=1, max_size=4))
@settings(max_examples=300)
def test_random_patches_apply_or_fail_as_with_jsonpatch(
    document: Any, ops: list[dict[str, Any]]
) -> None:
    try:
        expected = reference(document, ops)
    except REFUSED_BY_JSONPATCH:
        with pytest.raises(PatchError):
            apply_patch(copy.deepcopy(document), copy.deepcopy(ops))
        return
    assert apply_patch(copy.deepcopy(document), copy.deepcopy(ops)) == expected
