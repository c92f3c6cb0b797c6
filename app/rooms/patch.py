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


def _flat_dict(old: dict[str, Any], new: dict[str, Any], path: str, ops: list[Op]) -> None:
    """A turn or a pile (at most three plain values, the same keys before and after): one
    replace of the value that changed, or of the whole when two or more did, which leaves out
    at most one short value and is shorter than two operations."""
    changed = None
    count = 0
    for key, value in new.items():
        previous = old[key]
        if previous is not value and (type(previous) is not type(value) or previous != value):
            changed = key
            count += 1
    if count == 1:
        assert changed is not None
        ops.append({"op": "replace", "path": f"{path}/{changed}", "value": new[changed]})
    elif count:
        ops.append({"op": "replace", "path": path, "value": new})


_NESTED = frozenset((dict, list))


def _flat(old: Any, new: Any) -> bool:
    """Both dicts of at most three plain values, with the same keys."""
    return (
        type(old) is dict
        and type(new) is dict
        and len(new) <= 3
        and old.keys() == new.keys()
        and _NESTED.isdisjoint(map(type, new.values()))
    )


def _field_ops(old: Any, new: Any, path: str, ops: list[Op]) -> None:
    """A turn or a pile by ``_flat_dict``, anything else by the differ."""
    if _flat(old, new):
        _flat_dict(old, new, path, ops)
    else:
        _diff_value(old, new, path, ops)


def round_ops(old: dict[str, Any], new: dict[str, Any], path: str) -> list[Op]:
    """The operations for a move that left its round going, read off what a move changes.

    The round's public face has the same fields before and after; the moves log only grows,
    its earlier entries the same objects; the piles are the same objects while unchanged. So
    a move is a few replaces (the turn, a pile or two, the knock) and an add per new move,
    the same operations ``diff`` finds, without walking the rest. One replace of the whole
    round is sent instead when it is shorter, as ``diff`` does; it carries every move so far,
    so its size is only worked out when the number of moves leaves that open. Anything else
    falls back to ``diff``.
    """
    if old.keys() != new.keys():
        return diff(old, new, path)
    ops: list[Op] = []
    for key, value in new.items():
        previous = old[key]
        if previous is value:
            continue
        where = f"{path}/{key}"
        if type(value) is list and type(previous) is list:
            if key == "log" and len(previous) <= len(value) and all(map(is_, previous, value)):
                ops.extend(
                    {"op": "add", "path": f"{where}/{index}", "value": value[index]}
                    for index in range(len(previous), len(value))
                )
            elif key == "piles" and len(previous) == len(value):
                for index, (before, after) in enumerate(zip(previous, value, strict=True)):
                    if before is not after:
                        _field_ops(before, after, f"{where}/{index}", ops)
            else:
                _diff_value(previous, value, where, ops)
        else:
            _field_ops(previous, value, where, ops)
    if len(ops) > 1 and _whole_is_shorter(new, path, len(orjson.dumps(ops))):
        return [{"op": "replace", "path": path, "value": new}]
    return ops


# The shortest a move can be as JSON: {"seat":0,"type":"knock"}.
_SHORTEST_MOVE = 25


def _whole_is_shorter(new: dict[str, Any], path: str, size: int) -> bool:
    """Whether one replace of the whole round is shorter than ``size`` bytes of operations:
    serialised only when the number of its moves leaves that open, early in a round."""
    moves = new.get("log")
    count = len(moves) if type(moves) is list else 0
    if size <= len('{"op":"replace","path":"","value":}') + len(path) + _SHORTEST_MOVE * count:
        return False
    return len(orjson.dumps({"op": "replace", "path": path, "value": new})) < size
