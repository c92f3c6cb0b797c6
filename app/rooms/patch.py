"""RFC 6902 JSON Patch operations between two versions of a view.

The views are built so that unchanged parts are the very same objects from one version to the
next; the walk skips those at once, so its cost follows what changed, not the document's size.
"""

from __future__ import annotations

from typing import Any

import orjson

Op = dict[str, Any]


def _pointer(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1")


def diff(old: Any, new: Any, path: str = "") -> list[Op]:
    """The operations that turn ``old`` into ``new``."""
    ops: list[Op] = []
    _diff(old, new, path, ops)
    return ops


def _diff(old: Any, new: Any, path: str, ops: list[Op]) -> None:
    if old is new:
        return
    old_type, new_type = type(old), type(new)
    if old_type is dict and new_type is dict:
        before = len(ops)
        for key in old:
            if key not in new:
                ops.append({"op": "remove", "path": f"{path}/{_pointer(key)}"})
        for key, value in new.items():
            child = f"{path}/{_pointer(key)}"
            if key in old:
                _diff(old[key], value, child, ops)
            else:
                ops.append({"op": "add", "path": child, "value": value})
        if path and len(ops) - before > 1:
            # A pile whose top and count both changed: one replace of it says it more briefly.
            whole = {"op": "replace", "path": path, "value": new}
            if len(orjson.dumps(whole)) < len(orjson.dumps(ops[before:])):
                del ops[before:]
                ops.append(whole)
    elif old_type is list and new_type is list:
        _diff_list(old, new, path, ops)
    elif old_type is not new_type or old != new:
        ops.append({"op": "replace", "path": path, "value": new})


def _diff_list(old: list[Any], new: list[Any], path: str, ops: list[Op]) -> None:
    common = min(len(old), len(new))
    scalars = all(type(item) in (str, int) for item in new)
    changes: list[Op] = []
    for index in range(common):
        _diff(old[index], new[index], f"{path}/{index}", changes)
    for index in range(common, len(new)):
        changes.append({"op": "add", "path": f"{path}/{index}", "value": new[index]})
    for index in range(len(old) - 1, common - 1, -1):
        changes.append({"op": "remove", "path": f"{path}/{index}"})
    if scalars and len(changes) > 1:
        # A hand that lost a card in the middle: one replace says it more briefly.
        ops.append({"op": "replace", "path": path, "value": new})
    else:
        ops.extend(changes)
