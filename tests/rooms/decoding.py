"""A reader of the compact encoding written from docs/protocol.md alone: it turns compact patch
frames back into standard RFC 6902 ones, using only the tables the first state frame carries
and the deck's documented order."""

from __future__ import annotations

from typing import Any

from app.engine.cards import CARD_IDS

Tables = dict[str, Any]


def _member(path: str) -> str:
    tokens = path.split("/")
    last = tokens[-1]
    return tokens[-2] if last == "-" or last.isdigit() else last


def decode_value(value: Any, key: str, tables: Tables) -> Any:
    """A compact value, held by the member ``key``, as the standard view has it."""
    if key in tables["cards"]:
        if isinstance(value, int):
            return CARD_IDS[value]
        if isinstance(value, list):
            return [CARD_IDS[card] for card in value]
        return value
    if isinstance(value, dict):
        decoded = {}
        for short, item in value.items():
            name = tables["keys"].get(short, short)
            decoded[name] = decode_value(item, name, tables)
        return decoded
    if isinstance(value, list):
        return [decode_value(item, key, tables) for item in value]
    return value


def decode_op(op: Any, tables: Tables) -> dict[str, Any]:
    """One compact operation as an RFC 6902 one."""
    if isinstance(op, dict):
        if op["op"] == "remove":
            return op
        return {**op, "value": decode_value(op["value"], _member(op["path"]), tables)}
    entry = tables["paths"][op[0]]
    name, path = entry[0], entry[1]
    value = op[1]
    if len(entry) > 2 and isinstance(value, list):
        members = entry[2]
        assert len(value) <= len(members)
        value = {
            member: decode_value(item, member, tables)
            for member, item in zip(members, value, strict=False)
        }
    else:
        value = decode_value(value, _member(path), tables)
    return {"op": name, "path": path, "value": value}


def decode_patch(frame: list[Any], tables: Tables) -> dict[str, Any]:
    """A compact patch frame ``[version, ops]`` or ``[version, ops, ack]`` as a standard one."""
    assert 2 <= len(frame) <= 3, frame
    decoded: dict[str, Any] = {
        "type": "patch",
        "version": frame[0],
        "ops": [decode_op(op, tables) for op in frame[1]],
    }
    if len(frame) == 3:
        decoded["ack"] = frame[2]
    return decoded
