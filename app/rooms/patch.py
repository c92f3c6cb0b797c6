"""RFC 6902 JSON Patch operations between two versions of a view.

The views are built so that unchanged parts are the very same objects from one version to the
next, and unchanged values compare equal in C before any Python walks them: the cost follows
what changed, not the document's size. Paths are only spelled out for what changed.
"""

from __future__ import annotations

from operator import is_
from typing import Any

import orjson

Op = dict[str, Any]


def _pointer(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1") if "~" in key or "/" in key else key


_MISSING = object()


def diff(old: Any, new: Any, path: str = "") -> list[Op]:
    """The operations that turn ``old`` into ``new``."""
    ops: list[Op] = []
    _diff_value(old, new, path, ops)
    return ops


def _diff_value(old: Any, new: Any, path: str, ops: list[Op]) -> None:
    """Append the operations that turn ``old`` into ``new`` (none if they are equal as JSON).

    Values of different types always differ: 1 and true, or 0 and 0.0, compare equal in Python
    but not in JSON.
    """
    if old is new:
        return
    kind = type(new)
    if kind is not type(old):
        ops.append({"op": "replace", "path": path, "value": new})
    elif kind is dict:
        _diff_dict(old, new, path, ops)
    elif kind is list:
        _diff_list(old, new, path, ops)
    elif old != new:
        ops.append({"op": "replace", "path": path, "value": new})


def _diff_dict(old: dict[str, Any], new: dict[str, Any], path: str, ops: list[Op]) -> None:
    before = len(ops)
    kept = 0
    for key, value in new.items():
        previous = old.get(key, _MISSING)
        if previous is _MISSING:
            ops.append({"op": "add", "path": f"{path}/{_pointer(key)}", "value": value})
            continue
        kept += 1
        if previous is value:
            continue
        kind = type(value)
        if kind is not type(previous):
            ops.append({"op": "replace", "path": f"{path}/{_pointer(key)}", "value": value})
        elif kind is dict:
            _diff_dict(previous, value, f"{path}/{_pointer(key)}", ops)
        elif kind is list:
            _diff_list(previous, value, f"{path}/{_pointer(key)}", ops)
        elif previous != value:
            ops.append({"op": "replace", "path": f"{path}/{_pointer(key)}", "value": value})
    if kept < len(old):
        for key in old:
            if key not in new:
                ops.append({"op": "remove", "path": f"{path}/{_pointer(key)}"})
    if path and len(ops) - before > 1:
        # A pile whose top and count both changed: one replace of it says it more briefly.
        whole = {"op": "replace", "path": path, "value": new}
        if len(orjson.dumps(whole)) < len(orjson.dumps(ops[before:])):
            del ops[before:]
            ops.append(whole)


def _diff_list(old: list[Any], new: list[Any], path: str, ops: list[Op]) -> None:
    common = min(len(old), len(new))
    changes: list[Op] = []
    if not all(map(is_, old, new)):  # else the same items, some added or removed at the end
        for index, (previous, value) in enumerate(zip(old, new, strict=False)):
            if previous is value:
                continue
            kind = type(value)
            if kind is type(previous) and kind is not dict and kind is not list:
                if previous != value:
                    changes.append({"op": "replace", "path": f"{path}/{index}", "value": value})
            else:
                _diff_value(previous, value, f"{path}/{index}", changes)
    for index in range(common, len(new)):
        changes.append({"op": "add", "path": f"{path}/{index}", "value": new[index]})
    for index in range(len(old) - 1, common - 1, -1):
        changes.append({"op": "remove", "path": f"{path}/{index}"})
    if len(changes) > 1 and all(type(item) in (str, int) for item in new):
        # A hand that lost a card in the middle: one replace says it more briefly.
        ops.append({"op": "replace", "path": path, "value": new})
    else:
        ops.extend(changes)
