"""RFC 6902 JSON Patch operations between two versions of a view.

The views are built so that unchanged parts are the very same objects from one version to the
next, and unchanged values compare equal in C before any Python walks them: the cost follows
what changed, not the document's size. Paths are only spelled out for what changed.
"""

from __future__ import annotations

from typing import Any

import orjson

Op = dict[str, Any]
_CONTAINERS = (dict, list)


def _pointer(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1") if "~" in key or "/" in key else key


def _same(old: Any, new: Any) -> bool:
    """Equal as JSON: equal, and no 1 standing for true or 1.0 anywhere inside."""
    return type(old) is type(new) and old == new and orjson.dumps(old) == orjson.dumps(new)


def diff(old: Any, new: Any, path: str = "") -> list[Op]:
    """The operations that turn ``old`` into ``new``."""
    ops: list[Op] = []
    if not _same(old, new):
        _diff(old, new, path, ops)
    return ops


def _diff(old: Any, new: Any, path: str, ops: list[Op]) -> None:
    """Append the operations that turn ``old`` into ``new``, which differ."""
    kind = type(new)
    if kind is not type(old) or kind not in _CONTAINERS:
        ops.append({"op": "replace", "path": path, "value": new})
    elif kind is dict:
        _diff_dict(old, new, path, ops)
    else:
        _diff_list(old, new, path, ops)


def _diff_value(old: Any, new: Any, path: str, ops: list[Op]) -> None:
    """Append operations for one member, if it changed (containers: member by member)."""
    if old is new:
        return
    kind = type(new)
    if kind in _CONTAINERS:
        _diff(old, new, path, ops)
    elif type(old) is not kind or old != new:
        ops.append({"op": "replace", "path": path, "value": new})


def _diff_dict(old: dict[str, Any], new: dict[str, Any], path: str, ops: list[Op]) -> None:
    before = len(ops)
    for key in old:
        if key not in new:
            ops.append({"op": "remove", "path": f"{path}/{_pointer(key)}"})
    for key, value in new.items():
        if key in old:
            previous = old[key]
            if previous is value or (
                type(value) not in _CONTAINERS
                and type(previous) is type(value)
                and previous == value
            ):
                continue
            _diff_value(previous, value, f"{path}/{_pointer(key)}", ops)
        else:
            ops.append({"op": "add", "path": f"{path}/{_pointer(key)}", "value": value})
    if path and len(ops) - before > 1:
        # A pile whose top and count both changed: one replace of it says it more briefly.
        whole = {"op": "replace", "path": path, "value": new}
        if len(orjson.dumps(whole)) < len(orjson.dumps(ops[before:])):
            del ops[before:]
            ops.append(whole)


def _diff_list(old: list[Any], new: list[Any], path: str, ops: list[Op]) -> None:
    common = min(len(old), len(new))
    changes: list[Op] = []
    for index in range(common):
        _diff_value(old[index], new[index], f"{path}/{index}", changes)
    for index in range(common, len(new)):
        changes.append({"op": "add", "path": f"{path}/{index}", "value": new[index]})
    for index in range(len(old) - 1, common - 1, -1):
        changes.append({"op": "remove", "path": f"{path}/{index}"})
    if len(changes) > 1 and all(type(item) in (str, int) for item in new):
        # A hand that lost a card in the middle: one replace says it more briefly.
        ops.append({"op": "replace", "path": path, "value": new})
    else:
        ops.extend(changes)
