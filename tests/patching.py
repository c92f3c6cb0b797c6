"""RFC 6902 patches applied quickly, for tests that apply every frame of whole matches.

The jsonpatch library, the independent reference, copies every value it inserts and builds an
object for each operation and each pointer: over the room tests that was a sizeable part of
the test processes' own work. This applier takes what the server sends (``add``, ``remove``,
``replace``) in place as jsonpatch does, and refuses other operations, and any pointer the
RFCs do not resolve, with :class:`PatchError`. tests/test_patching.py holds it to jsonpatch
on the cases below and on random documents; tests/rooms/test_patch.py holds the server's
differ to jsonpatch itself; and tests/e2e/test_patch.py holds the browser's applier to it on
the same cases.
"""

from __future__ import annotations

import re
from typing import Any

# Array indexes as RFC 6901 writes them: no sign, no leading zero.
_INDEX = re.compile(r"0|[1-9][0-9]*")
# "~" escapes only "~0" and "~1".
_BAD_ESCAPE = re.compile(r"~(?![01])")

# Patches that apply, and (below) patches that must be refused, with what they test.
CASES: list[tuple[Any, list[dict[str, Any]]]] = [
    ({"a/b": 1, "m~n": 2}, [{"op": "replace", "path": "/a~1b", "value": 3}]),
    ({"a/b": 1, "m~n": 2}, [{"op": "remove", "path": "/m~0n"}]),
    ({"~1": 0}, [{"op": "replace", "path": "/~01", "value": "tilde-one, not slash"}]),
    ({"list": [1, 2, 3]}, [{"op": "add", "path": "/list/-", "value": 4}]),
    ({"list": [1, 2, 3]}, [{"op": "add", "path": "/list/1", "value": 9}]),
    ({"list": [1, 2, 3]}, [{"op": "add", "path": "/list/3", "value": 9}]),
    (
        {"list": [1, 2, 3]},
        [{"op": "remove", "path": "/list/0"}, {"op": "remove", "path": "/list/1"}],
    ),
    ({"list": [[0, {"x": 1}]]}, [{"op": "replace", "path": "/list/0/1/x", "value": None}]),
    (
        {"a": 1},
        [
            {"op": "add", "path": "/b", "value": {"c": [1]}},
            {"op": "add", "path": "/b/c/0", "value": 0},
        ],
    ),
    ({"a": 1}, [{"op": "add", "path": "/a", "value": 2}]),
    ({"a": 1}, [{"op": "replace", "path": "", "value": [1, 2]}]),
    ({"": {"": 5}}, [{"op": "replace", "path": "//", "value": 6}]),
]
FAILURES: list[tuple[Any, list[dict[str, Any]]]] = [
    ({"a": 1}, [{"op": "replace", "path": "/b", "value": 2}]),
    ({"a": 1}, [{"op": "remove", "path": "/b"}]),
    ({"list": [1]}, [{"op": "add", "path": "/list/3", "value": 2}]),
    ({"list": [1]}, [{"op": "replace", "path": "/list/-", "value": 2}]),
    ({"list": [1]}, [{"op": "remove", "path": "/list/01"}]),
    ({"a": 1}, [{"op": "add", "path": "/x/y", "value": 2}]),
    ({"a": 1}, [{"op": "add", "path": "a", "value": 2}]),
    ({"~2": 1}, [{"op": "replace", "path": "/~2", "value": 2}]),
    ({"a~": 1}, [{"op": "remove", "path": "/a~"}]),
]


class PatchError(Exception):
    """A patch that does not apply to the document."""


def apply_patch(document: Any, ops: list[dict[str, Any]]) -> Any:
    """``document`` with ``ops`` applied, changed in place (a patch that replaces the whole
    document returns the new one, as jsonpatch does). Inserted values are copied, so that the
    document never shares a container with the patch."""
    for op in ops:
        kind, path = op.get("op"), op.get("path")
        if kind not in ("add", "remove", "replace"):
            raise PatchError(f"unsupported operation {kind!r}")
        if not isinstance(path, str):
            raise PatchError(f"{kind} without a path")
        if kind != "remove" and "value" not in op:
            raise PatchError(f"{kind} without a value")
        if _BAD_ESCAPE.search(path):
            raise PatchError(f"'~' is not followed by 0 or 1 in {path!r}")
        if path == "":
            if kind == "remove":
                raise PatchError("the whole document cannot be removed")
            document = _copy(op["value"])
            continue
        if not path.startswith("/"):
            raise PatchError(f"a pointer must start with '/': {path!r}")
        *steps, last = [_unescape(token) for token in path[1:].split("/")]
        parent = document
        for token in steps:
            parent = _child(parent, token, path)
        if isinstance(parent, dict):
            if kind == "add":
                parent[last] = _copy(op["value"])
            elif last not in parent:
                raise PatchError(f"no member at {path!r}")
            elif kind == "replace":
                parent[last] = _copy(op["value"])
            else:
                del parent[last]
        elif isinstance(parent, list):
            if kind == "add" and last == "-":
                parent.append(_copy(op["value"]))
                continue
            index = _index(last, path)
            if kind == "add":
                if index > len(parent):
                    raise PatchError(f"index out of range at {path!r}")
                parent.insert(index, _copy(op["value"]))
            elif index >= len(parent):
                raise PatchError(f"index out of range at {path!r}")
            elif kind == "replace":
                parent[index] = _copy(op["value"])
            else:
                del parent[index]
        else:
            raise PatchError(f"{path!r} goes into a value that is not a container")
    return document


def _unescape(token: str) -> str:
    return token.replace("~1", "/").replace("~0", "~") if "~" in token else token


def _index(token: str, path: str) -> int:
    if not _INDEX.fullmatch(token):
        raise PatchError(f"not an array index at {path!r}: {token!r}")
    return int(token)


def _child(parent: Any, token: str, path: str) -> Any:
    if isinstance(parent, dict):
        if token not in parent:
            raise PatchError(f"no member {token!r} on the way to {path!r}")
        return parent[token]
    if isinstance(parent, list):
        index = _index(token, path)
        if index >= len(parent):
            raise PatchError(f"index out of range on the way to {path!r}")
        return parent[index]
    raise PatchError(f"{path!r} goes into a value that is not a container")


def _copy(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _copy(inner) for key, inner in value.items()}
    if isinstance(value, list):
        return [_copy(inner) for inner in value]
    return value
