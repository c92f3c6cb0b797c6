"""The compact encoding of patches, for clients that ask for it at hello.

The same operations as the standard RFC 6902 patches, written shorter (docs/protocol.md,
"The compact encoding"): a patch is ``[version, ops]`` or ``[version, ops, ack]``; an operation
whose op and path are in ``PATHS`` is ``[index, value]``; any other is the RFC 6902 object; in
values, object keys are shortened by ``KEYS`` and cards are their index in the deck's fixed
order. It is derived from the standard operations where they are made: the shared ones are
encoded and serialised once per change, only the ``you`` ones per connection.
"""

from __future__ import annotations

from typing import Any

import orjson

from app.engine.cards import CARD_IDS
from app.engine.round import DRAW_PILES
from app.rooms.connection import Connection

MAX_SEATS = 6
TURN = ("seat", "pending", "deadline")
PILE = ("top", "count")
MOVE = ("seat", "type", "cards", "piles")  # a knock has the first two, a discard three
EVALUATION = ("points", "complete", "sequenced", "sequence", "order")  # of five cards
# The operations a match sends most, most frequent first: [op, path] or, when the value is an
# object always of these members, [op, path, members], its value then sent as the array of
# those members' values (as many as it has). An add at "-" appends to the list.
_LATER = (
    "/you/hand",
    "/you/evaluation/order",
    "/you/evaluation/points",
    "/round/final_turns",
    "/round/knocker",
    "/round/ending",
    "/round/turn/seat",
    "/round/turn/deadline",
    "/round/discard/top",
    "/round/discard/count",
    *(f"/round/piles/{pile}/{key}" for pile in range(DRAW_PILES) for key in PILE),
    "/round",
    "/you",
    "/status",
    "/ready_deadline",
    "/results",
    "/match_id",
    "/match_number",
    *(
        f"/players/{seat}/{key}"
        for seat in range(MAX_SEATS)
        for key in ("ready", "total", "series", "place", "connected", "standin")
    ),
)
PATHS: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("replace", "/round/turn/pending", ()),
    ("replace", "/round/turn", TURN),
    ("replace", "/round/discard", PILE),
    *(("replace", f"/round/piles/{pile}", PILE) for pile in range(DRAW_PILES)),
    ("add", "/round/log/-", MOVE),
    ("add", "/you/hand/-", ()),
    ("replace", "/you/evaluation", EVALUATION),
    *(("replace", path, ()) for path in _LATER),
    ("add", "/results/-", ()),
)
# Short names for the keys of the values patches carry (none is a key of the view itself).
KEYS: dict[str, str] = {
    "seat": "s",
    "pending": "p",
    "deadline": "d",
    "top": "c",
    "count": "cn",
    "type": "y",
    "piles": "k",
    "cards": "x",
    "hand": "h",
    "evaluation": "e",
    "points": "pt",
    "complete": "cm",
    "sequenced": "sq",
    "sequence": "se",
    "order": "o",
    "hands": "hs",
    "number": "nu",
    "dealer": "dl",
    "turn": "t",
    "discard": "ds",
    "knocker": "kn",
    "final_turns": "f",
    "commitment": "cw",
    "ending": "en",
    "log": "l",
    "auto": "a",
    "seed": "sd",
    "totals": "ts",
    "name": "na",
    "connected": "on",
    "host": "ho",
    "total": "to",
    "series": "sr",
    "place": "pl",
    "ready": "rd",
    "bot": "bo",
    "standin": "sb",
}
# The members whose values are cards (a card, null, or a list of cards), by their long name.
CARD_KEYS = frozenset({"top", "hand", "cards", "order"})

_CARD_INDEX = {card: index for index, card in enumerate(CARD_IDS)}
_REPLACES = {path: index for index, (op, path, _) in enumerate(PATHS) if op == "replace"}
# The table's adds are all appends ("/-"): by the path of their list.
_APPENDS = {path[:-2]: index for index, (op, path, _) in enumerate(PATHS) if op == "add"}
assert all(path.endswith("/-") for op, path, _ in PATHS if op == "add")


def _member(path: str) -> str:
    """The member a path's value is held by: its last token, or the list's name for an index."""
    head, _, last = path.rpartition("/")
    if last == "-" or last.isdigit():
        return head.rpartition("/")[2]
    return last


_ENTRY_KEYS = tuple(_member(path) for _, path, _ in PATHS)
TABLES = {
    "encoding": "compact",
    "paths": [[op, path, list(members)] if members else [op, path] for op, path, members in PATHS],
    "keys": {short: key for key, short in KEYS.items()},
    "cards": sorted(CARD_KEYS),
}


def _cards(value: Any) -> Any:
    if type(value) is str:
        return _CARD_INDEX[value]
    if type(value) is list:
        return [_CARD_INDEX[card] for card in value]
    return value  # null: an empty pile


_SCALARS = frozenset({int, str, bool, float, type(None)})


def encode_value(value: Any, key: str) -> Any:
    """``value``, held by the member ``key``, in the compact encoding."""
    if key in CARD_KEYS:
        return _cards(value)
    kind = type(value)
    if kind is dict:
        return {
            KEYS.get(name, name): item
            if type(item) in _SCALARS and name not in CARD_KEYS
            else encode_value(item, name)
            for name, item in value.items()
        }
    if kind is list:
        return [item if type(item) in _SCALARS else encode_value(item, key) for item in value]
    return value


# The objects sent as arrays, each by a function of its own (None: not of that shape, so sent
# as an object). Each checks the object has exactly those members: nothing is ever dropped.


def _turn(value: dict[str, Any]) -> list[Any] | None:
    if len(value) != 3:
        return None
    return [value["seat"], value["pending"], value["deadline"]]


def _pile(value: dict[str, Any]) -> list[Any] | None:
    if len(value) != 2:
        return None
    top = value["top"]
    return [None if top is None else _CARD_INDEX[top], value["count"]]


def _move(value: dict[str, Any]) -> list[Any] | None:
    cards, piles = value.get("cards"), value.get("piles")
    if len(value) != 2 + (cards is not None) + (piles is not None) or (piles and not cards):
        return None
    if cards is None:
        return [value["seat"], value["type"]]
    shown = [_CARD_INDEX[card] for card in cards]
    if piles is None:
        return [value["seat"], value["type"], shown]
    return [value["seat"], value["type"], shown, piles]


def _evaluation(value: dict[str, Any]) -> list[Any] | None:
    if len(value) != 5:
        return None  # ten cards: two hands
    order = [_CARD_INDEX[card] for card in value["order"]]
    return [value["points"], value["complete"], value["sequenced"], value["sequence"], order]


_AS_ARRAY = {TURN: _turn, PILE: _pile, MOVE: _move, EVALUATION: _evaluation}
_ARRAYS = tuple(_AS_ARRAY.get(members) for _, _, members in PATHS)


def encode(ops: list[dict[str, Any]]) -> list[Any]:
    """Standard operations in the compact encoding."""
    encoded: list[Any] = []
    for op in ops:
        kind, path = op["op"], op["path"]
        if kind == "replace":
            index = _REPLACES.get(path)
        elif kind == "add":
            # The differ adds to a list only at its end, in order: an append.
            head, _, last = path.rpartition("/")
            index = _APPENDS.get(head) if last.isdigit() else None
        else:
            encoded.append(op)
            continue
        value = op["value"]
        if index is None:
            encoded.append({**op, "value": encode_value(value, _member(path))})
            continue
        as_array = _ARRAYS[index]
        if as_array is not None and type(value) is dict:
            try:
                members = as_array(value)
            except KeyError:
                members = None
            if members is not None:
                encoded.append([index, members])
                continue
        encoded.append([index, encode_value(value, _ENTRY_KEYS[index])])
    return encoded


def patch_frame(version: int, ops: bytes, ack: object = None) -> bytes:
    """A compact patch whose operations are already serialised."""
    if ack is None:
        return b"[%d,%b]" % (version, ops)
    return b"[%d,%b,%b]" % (version, ops, orjson.dumps(ack))


def state_frame(version: int, state: dict[str, Any], server_time: int, tables: bool) -> bytes:
    """A full state (the standard view), with the tables that decode the patches after it when
    ``tables`` (the connection's first state)."""
    frame = {"type": "state", "version": version, "server_time": server_time, "state": state}
    if tables:
        frame["encoding"] = TABLES
    return orjson.dumps(frame)


class CompactConnection(Connection):
    """A connection whose client asked for the compact encoding at hello."""

    __slots__ = ()
