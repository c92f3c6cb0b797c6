"""Bytes per message in each encoding over whole matches, and what further cuts would save.

Plays whole matches in one process (as `bench.room --sizes` does: 5 rounds, turn timer 60 s,
rematches, the room's clock moving 1 to 8 s between actions, every message with an id), once
with every player on the standard encoding (RFC 6902 JSON Patch), then on the compact one and
on the binary one (the compact encoding in MessagePack),
and keeps every frame each player receives after the match's start (all of them patches). It
reports the bytes actually sent in each encoding, against Colyseus's for the same game, then
prices further reductions of the standard patches by rewriting them (docs/performance.md,
"Message size").

With ``--content`` it plays the matches the load generator plays against every server
(bench/peers/harness: 2 rounds, a knock chance of 0.1 at each take, no ids) on the compact
encoding and says what the bytes carry: the envelope and each kind of operation, and the mean
frame without what the Colyseus room of bench/peers sends none of (the move log, the round's
results, deadlines, the round's commitment and seed).

Run: .venv/bin/python -m bench.messages [--players 2,4,6] [--actions 6000] [--price] [--content]
"""

from __future__ import annotations

import argparse
import asyncio
import re
import statistics
from collections.abc import Callable
from typing import Any

import orjson

from app.engine.cards import CARD_IDS
from app.rooms import packed
from app.rooms.compact import PATHS
from bench.room import SteppedClock, played, started_room

Frame = dict[str, Any]
CARD_INDEX = {card: index for index, card in enumerate(CARD_IDS)}
CARD = re.compile(r'"(\d-[a-z]+-[a-z]+)"')
# Shorter names for what changes every turn (paths and the keys of the objects they replace).
SHORT_KEYS = {
    "round": "r",
    "turn": "t",
    "seat": "s",
    "pending": "p",
    "deadline": "d",
    "piles": "k",
    "discard": "x",
    "top": "c",
    "count": "n",
    "knocker": "kn",
    "final_turns": "f",
    "players": "pl",
    "ready": "rd",
    "connected": "on",
    "you": "y",
    "hand": "h",
    "evaluation": "e",
}


# Colyseus's bytes per frame for the same game, in the load generator's side-by-side runs
# (bench.compare, docs/performance.md "Against other servers", 2026-12-02): 500 x 2 and 1,000 x 4.
COLYSEUS = {2: 37, 4: 33}


async def play(players: int, actions: int) -> list[tuple[str, Frame]]:
    """Every patch every player received over ``actions`` actions, with the action's kind."""
    clock = SteppedClock()
    room, recorders, connections = await started_room(players, 60, clock)
    frames: list[tuple[str, Frame]] = []
    async for kind, index in played(room, recorders, connections, clock, actions):
        frame = orjson.loads(recorders[index].last)
        if frame["type"] == "patch":
            frames.append((kind, frame))
    return frames


async def sent(players: int, actions: int, encoding: str) -> list[tuple[str, int]]:
    """The size of every frame every player received over ``actions`` actions in ``encoding``,
    with the kind of action that sent it."""
    clock = SteppedClock()
    room, recorders, connections = await started_room(players, 60, clock, encoding)
    return [
        (kind, recorders[index].sizes[-1])
        async for kind, index in played(room, recorders, connections, clock, actions)
    ]


def measured(players: int, actions: int) -> None:
    """Bytes per message actually sent in each encoding."""
    means = {}
    for encoding in ("standard", "compact", "binary"):
        frames = asyncio.run(sent(players, actions, encoding))
        sizes = [size for _, size in frames]
        kinds: dict[str, list[int]] = {}
        for kind, value in frames:
            kinds.setdefault(kind, []).append(value)
        means[encoding] = statistics.mean(sizes)
        peer = COLYSEUS.get(players)
        against = f", {means[encoding] / peer:.2f}x Colyseus's {peer} B" if peer else ""
        print(
            f"{players} players, {encoding:8s}: {len(sizes)} messages, mean "
            f"{means[encoding]:.0f} B, median {statistics.median(sizes):.0f} B{against}; by "
            "action: "
            + ", ".join(
                f"{kind} {statistics.mean(values):.0f} B" for kind, values in sorted(kinds.items())
            )
        )
    print(
        f"  compact / standard: {means['compact'] / means['standard']:.2f}, binary / standard: "
        f"{means['binary'] / means['standard']:.2f}, binary / compact: "
        f"{means['binary'] / means['compact']:.2f}"
    )


# What a compact operation carries, by the start of its path (first match wins).
PARTS = (
    ("/round/log", "move log"),
    ("/results", "round results"),
    ("/ready_deadline", "deadlines"),
    ("/round/turn", "turn"),
    ("/round/piles", "piles"),
    ("/round/discard", "piles"),
    ("/round/", "round: knock, ending"),
    ("/round", "new round"),
    ("/you", "own hand and evaluation"),
    ("/players", "players' totals and flags"),
    ("", "status, match"),
)
# What the Colyseus room sends none of: whole operations, and members of a new round's object.
LEFT_OUT = ("move log", "round results", "deadlines")
LEFT_OUT_MEMBERS = ("cw", "sd", "l")  # the compact names of commitment, seed and log


def part_of(op: Any) -> tuple[str, Any]:
    """What a compact operation carries, and its value."""
    if isinstance(op, list):
        path, value = PATHS[op[0]][1], op[1]
    else:
        path, value = op["path"], op.get("value")
    return next(name for start, name in PARTS if path.startswith(start)), value


def without_left_out(op: Any, part: str, value: Any) -> Any:
    """The operation (carrying ``part``, of ``value``) without what the Colyseus room sends none
    of (None: nothing of it)."""
    if part in LEFT_OUT:
        return None
    if part == "turn" and isinstance(value, list) and len(value) == 3:
        return [op[0], value[:2]]  # seat and pending, no deadline
    if part == "new round" and isinstance(value, dict):
        return [op[0], {key: item for key, item in value.items() if key not in LEFT_OUT_MEMBERS}]
    return op


async def compact_frames(players: int, actions: int) -> list[str]:
    """Every frame every player received over ``actions`` actions of the load generator's
    matches, compact encoding."""
    clock = SteppedClock()
    room, recorders, connections = await started_room(
        players, 60, clock, "compact", rounds=2, keep=True
    )
    start = [len(recorder.texts or []) for recorder in recorders]
    async for _ in played(room, recorders, connections, clock, actions, 0.1, ids=False):
        pass
    return [
        text
        for recorder, first in zip(recorders, start, strict=True)
        for text in (recorder.texts or [])[first:]
        if isinstance(text, str)
    ]


# Further cuts to compact frames, priced by rewriting their text: each would need new tables
# that a client reads (and a client that asks for them at hello).
MOVE_TYPES = {'"take"': "0", '"discard"': "1", '"knock"': "2"}
WORDS = re.compile(r'"(colour|shape|number|playing|round_over|finished|lobby)"')
DEADLINE = re.compile(r"(?<![0-9])1[0-9]{12}(?![0-9])")
HEX = re.compile(r'"[0-9a-f]{64}"')


def priced_compact(text: str, cuts: tuple[str, ...], start_ms: int) -> int:
    """The bytes of a compact frame with ``cuts`` made."""
    if "types" in cuts:
        for word, number in MOVE_TYPES.items():
            text = text.replace(word, number)
    if "words" in cuts:
        text = WORDS.sub("0", text)
    if "deadlines" in cuts:  # a time in ms as ms since the room's start
        text = DEADLINE.sub(lambda match: str(int(match.group()) - start_ms), text)
    if "seeds" in cuts:  # 32 bytes in base64 instead of hex
        text = HEX.sub('"' + "A" * 43 + '"', text)
    return len(text.encode())


def content(players: int, actions: int) -> None:
    """What the bytes of compact frames carry, and the mean without what Colyseus's room
    leaves out."""
    texts = asyncio.run(compact_frames(players, actions))
    parts: dict[str, int] = {}
    total = envelope = kept = binary = binary_kept = 0
    for text in texts:
        frame = orjson.loads(text)
        size = len(text.encode())
        total += size
        binary += len(packed.pack(frame))
        carried = 0
        trimmed = []
        for op in frame[1]:
            bytes_ = len(orjson.dumps(op)) + 1  # and its comma
            part, value = part_of(op)
            if part == "turn" and isinstance(value, list) and len(value) == 3:
                deadline = len(orjson.dumps(value[2])) + 1
                parts["deadlines"] = parts.get("deadlines", 0) + deadline
                bytes_ -= deadline
            parts[part] = parts.get(part, 0) + bytes_
            carried += bytes_
            if (left := without_left_out(op, part, value)) is not None:
                trimmed.append(left)
        envelope += size - carried
        kept += len(orjson.dumps([frame[0], trimmed, *frame[2:]]))
        binary_kept += len(packed.pack([frame[0], trimmed, *frame[2:]]))
    frames = len(texts)
    peer = COLYSEUS.get(players)

    def against(mean: float) -> str:
        return f" ({mean / peer:.2f}x Colyseus's {peer} B)" if peer else ""

    print(
        f"{players} players, compact, {frames} frames over {actions} actions (2 rounds a "
        f"match, knock chance 0.1): mean {total / frames:.1f} B{against(total / frames)}"
    )
    for name, value in sorted([("envelope", envelope), *parts.items()], key=lambda kv: -kv[1]):
        print(f"  {name:28s} {value / frames:6.1f} B a frame ({value / total:.0%})")
    print(
        f"  without the move log, results, deadlines, commitment and seed: mean "
        f"{kept / frames:.1f} B{against(kept / frames)}"
    )
    print(
        f"  the same frames in the binary encoding (MessagePack): mean {binary / frames:.1f} B"
        f"{against(binary / frames)}; without what Colyseus's room leaves out "
        f"{binary_kept / frames:.1f} B{against(binary_kept / frames)}"
    )
    start_ms = int(SteppedClock().now() * 1000)
    for name, cuts in (
        ("move types as numbers", ("types",)),
        ("deadlines from the room's start", ("deadlines",)),
        ("words as numbers (ending, status, evaluation)", ("words",)),
        ("commitment and seed in base64", ("seeds",)),
        ("all four", ("types", "deadlines", "words", "seeds")),
    ):
        mean = sum(priced_compact(text, cuts, start_ms) for text in texts) / frames
        print(f"  priced: {name:46s} mean {mean:6.1f} B{against(mean)}")


# The reductions: each takes a patch frame and gives the frame as it would be sent.


def _walk(value: Any, change: Callable[[Any], Any]) -> Any:
    value = change(value)
    if isinstance(value, dict):
        return {key: _walk(item, change) for key, item in value.items()}
    if isinstance(value, list):
        return [_walk(item, change) for item in value]
    return value


def card_numbers(frame: Frame) -> Frame:
    """Cards as their index in the deck (0 to 124) instead of "3-circle-yellow"."""
    return _walk(
        frame, lambda value: CARD_INDEX.get(value, value) if isinstance(value, str) else value
    )


def deadline_seconds_left(frame: Frame) -> Frame:
    """A turn's deadline as whole seconds left (60) instead of a Unix time in ms."""

    def change(value: Any) -> Any:
        if isinstance(value, dict) and isinstance(value.get("deadline"), int):
            return {**value, "deadline": 60}
        return value

    ops = [
        {**op, "value": 60} if op["path"].endswith("/deadline") and "value" in op else op
        for op in frame["ops"]
    ]
    return _walk({**frame, "ops": ops}, change)


def no_deadline(frame: Frame) -> Frame:
    """No deadline at all: the client starts the turn's clock when the turn's patch arrives."""

    def change(value: Any) -> Any:
        if isinstance(value, dict) and "deadline" in value and "pending" in value:
            return {key: item for key, item in value.items() if key != "deadline"}
        return value

    ops = [op for op in frame["ops"] if not op["path"].endswith("/deadline")]
    return _walk({**frame, "ops": ops}, change)


def pile_tops_only(frame: Frame) -> Frame:
    """A pile's count left out when only its top changes by a take or a discard: the client
    counts one less (or one more) itself, knowing which pile the path names."""
    ops = []
    for op in frame["ops"]:
        value = op.get("value")
        if (
            op["op"] == "replace"
            and re.fullmatch(r"/round/(piles/\d|discard)", op["path"])
            and isinstance(value, dict)
            and set(value) == {"top", "count"}
        ):
            op = {"op": "replace", "path": op["path"] + "/top", "value": value["top"]}
        ops.append(op)
    return {**frame, "ops": ops}


def turn_counter(frame: Frame) -> Frame:
    """A new turn sent as the turn's number (here a 3-digit stand-in) instead of the object
    {seat, pending, deadline}: whose turn it is follows from the number and the seats, pending is
    0 at a turn's start, the deadline starts with the turn."""
    ops = []
    for op in frame["ops"]:
        value = op.get("value")
        if op["path"] == "/round/turn" and isinstance(value, dict):
            op = {"op": op["op"], "path": "/round/turn_number", "value": 100}
        ops.append(op)
    return {**frame, "ops": ops}


def short_names(frame: Frame) -> Frame:
    """One- or two-letter names for what changes every turn, in paths and in values."""

    def path(text: str) -> str:
        return "/".join(SHORT_KEYS.get(part, part) for part in text.split("/"))

    def change(value: Any) -> Any:
        if isinstance(value, dict):
            return {SHORT_KEYS.get(key, key): item for key, item in value.items()}
        return value

    ops = []
    for op in frame["ops"]:
        op = {**op, "path": path(op["path"])}
        if "value" in op:
            op["value"] = _walk(op["value"], change)
        ops.append(op)
    return {**frame, "ops": ops}


def short_envelope(frame: Frame) -> Frame:
    """The envelope as {"p": version, "o": ops} (one key names the kind and carries the version)."""
    return {"p": frame["version"], "o": frame["ops"]}


def op_arrays(frame: Frame) -> Frame:
    """Each operation as [op, path, value] with op one letter (not RFC 6902: an encoding a client
    would ask for at hello)."""
    letters = {"replace": "r", "add": "a", "remove": "d"}
    ops = [
        [letters[op["op"]], op["path"], *([op["value"]] if "value" in op else [])]
        for op in frame["ops"]
    ]
    return {**frame, "ops": ops}


STANDARD: list[tuple[str, Callable[[Frame], Frame]]] = [
    ("cards as numbers", card_numbers),
    ("deadline as seconds left", deadline_seconds_left),
    ("no deadline", no_deadline),
    ("pile tops only", pile_tops_only),
    ("turn as its number", turn_counter),
    ("short names", short_names),
    ("short envelope", short_envelope),
]
ALL_STANDARD = [
    card_numbers,
    no_deadline,
    pile_tops_only,
    turn_counter,
    short_names,
    short_envelope,
]


def size(frame: Frame) -> int:
    return len(orjson.dumps(frame))


def report(players: int, frames: list[tuple[str, Frame]]) -> None:
    sizes = [size(frame) for _, frame in frames]
    base = statistics.mean(sizes)
    kinds: dict[str, list[int]] = {}
    for (kind, _), value in zip(frames, sizes, strict=True):
        kinds.setdefault(kind, []).append(value)
    print(
        f"{players} players: {len(frames)} patches, mean {base:.0f} B, median "
        f"{statistics.median(sizes):.0f} B; by action: "
        + ", ".join(
            f"{kind} {statistics.mean(values):.0f} B x{len(values)}"
            for kind, values in sorted(kinds.items())
        )
    )

    def priced(name: str, rewrite: Callable[[Frame], Frame]) -> None:
        mean = statistics.mean(size(rewrite(frame)) for _, frame in frames)
        print(
            f"  {name:32s} mean {mean:5.0f} B  saves {base - mean:4.0f} B ({1 - mean / base:.0%})"
        )

    for name, rewrite in STANDARD:
        priced(name, rewrite)

    def together(frame: Frame, arrays: bool = False) -> Frame:
        for rewrite in ALL_STANDARD[:-1]:
            frame = rewrite(frame)
        return short_envelope(op_arrays(frame) if arrays else frame)

    priced("all but 'deadline as seconds'", together)
    priced("… and ops as arrays (not 6902)", lambda frame: together(frame, arrays=True))


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--players", type=lambda text: [int(x) for x in text.split(",")], default=[2, 4, 6]
    )
    parser.add_argument("--actions", type=int, default=6000)
    parser.add_argument(
        "--price", action="store_true", help="also price further cuts to the standard patches"
    )
    parser.add_argument(
        "--content",
        action="store_true",
        help="only what compact frames carry, in the load generator's matches",
    )
    arguments = parser.parse_args()
    if arguments.content:
        for players in arguments.players:
            content(players, arguments.actions)
        return
    for players in arguments.players:
        measured(players, arguments.actions)
    if arguments.price:
        for players in arguments.players:
            report(players, asyncio.run(play(players, arguments.actions)))


if __name__ == "__main__":
    main()
