"""The client's JSON Patch module (frontend/js/patch.js) against the server's real patches, in
both encodings."""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from typing import Any

import jsonpatch
import msgpack
import pytest

from tests.e2e.conftest import pages_on
from tests.e2e.matches import in_thread, record_room
from tests.patching import CASES, FAILURES
from tests.server import Server

# Replays frames as the browser client does: a state replaces, a patch must be the next version;
# a compact patch ([version, ops, ack]) is expanded by the tables of the first state, and a
# binary one (given as its bytes' numbers) is first unpacked.
REPLAY = """async (recordings) => {
  const { applyPatch, expandOps } = await import('/static/js/patch.js');
  const { unpack } = await import('/static/js/unpack.js');
  return recordings.map((frames) => {
    let doc = null;
    let version = 0;
    let tables = null;
    for (const text of frames) {
      let frame = Array.isArray(text) ? unpack(new Uint8Array(text)) : JSON.parse(text);
      if (Array.isArray(frame)) {
        frame = { type: 'patch', version: frame[0], ops: expandOps(frame[1], tables) };
      }
      if (frame.type === 'error') continue;
      if (frame.version !== version + 1) throw new Error(`gap after ${version}`);
      version = frame.version;
      if (frame.encoding) tables = frame.encoding;
      doc = frame.type === 'state' ? frame.state : applyPatch(doc, frame.ops);
    }
    return doc;
  });
}"""


@pytest.fixture(scope="module")
def page(browser: Any, e2e_server: Server) -> Iterator[Any]:
    """One page the client's modules run in, for every test here: they call its pure functions
    and leave the page as they found it."""
    for pages in pages_on(browser, e2e_server):
        yield pages.open("/rules")


def test_replaying_a_recorded_room_gives_the_servers_state(e2e_server: Server, page: Any) -> None:
    recorded = in_thread(record_room, e2e_server)
    kinds = {json.loads(frame)["type"] for frames in recorded.frames for frame in frames}
    assert kinds >= {"state", "patch"}
    ops = {
        op["op"]
        for frames in recorded.frames
        for frame in map(json.loads, frames)
        if frame["type"] == "patch"
        for op in frame["ops"]
    }
    assert ops == {"add", "remove", "replace"}, "the recording exercises every kind of op"
    replayed = page.evaluate(REPLAY, recorded.frames)
    assert len(replayed) == len(recorded.finals) == 6
    for index, (mine, theirs) in enumerate(zip(replayed, recorded.finals, strict=True)):
        assert mine == theirs, f"connection {index} differs from the server's fresh state"
    assert replayed[0]["status"] == "finished"


def test_replaying_a_compact_recording_gives_the_servers_state(
    e2e_server: Server, page: Any
) -> None:
    recorded = in_thread(record_room, e2e_server, 11, "compact")
    patches = [json.loads(frame) for frames in recorded.frames for frame in frames]
    assert sum(isinstance(frame, list) for frame in patches) > 100
    assert not any(isinstance(frame, dict) and frame["type"] == "patch" for frame in patches)
    replayed = page.evaluate(REPLAY, recorded.frames)
    assert len(replayed) == len(recorded.finals) == 6
    for index, (mine, theirs) in enumerate(zip(replayed, recorded.finals, strict=True)):
        assert mine == theirs, f"connection {index} differs from the server's fresh state"
    assert replayed[0]["status"] == "finished"


def test_replaying_a_binary_recording_gives_the_servers_state(
    e2e_server: Server, page: Any
) -> None:
    recorded = in_thread(record_room, e2e_server, 13, "binary")
    frames = [frame for frames in recorded.frames for frame in frames]
    packed = [frame for frame in frames if isinstance(frame, bytes)]
    assert len(packed) > 100
    # Every patch came as a binary frame; states, errors and the rest as JSON text.
    texts = [json.loads(frame) for frame in frames if isinstance(frame, str)]
    assert all(isinstance(frame, dict) and frame["type"] != "patch" for frame in texts)
    as_numbers = [
        [list(frame) if isinstance(frame, bytes) else frame for frame in frames]
        for frames in recorded.frames
    ]
    replayed = page.evaluate(REPLAY, as_numbers)
    assert len(replayed) == len(recorded.finals) == 6
    for index, (mine, theirs) in enumerate(zip(replayed, recorded.finals, strict=True)):
        assert mine == theirs, f"connection {index} differs from the server's fresh state"
    assert replayed[0]["status"] == "finished"


# MessagePack's forms of each kind of value (fixed, 8, 16, 32 and 64 bits), in and past the
# ranges a patch uses, as the Python package writes them.
PACKED_VALUES: list[Any] = [
    0, 1, 127, 128, 255, 256, 65535, 65536, 2**32 - 1, 2**32, 1_780_000_000_000, 2**53 - 1,
    -1, -32, -33, -128, -129, -32768, -32769, -(2**31), -(2**31) - 1, -(2**53) + 1,
    0.5, -1.25, 1e300, True, False, None,
    "", "a", "x" * 31, "x" * 32, "y" * 255, "y" * 256, "z" * 70000, "Zoë, Ли, 日本 🎉",
    [], [1, [2, [3]]], list(range(15)), list(range(16)), list(range(70000)),
    {}, {"a": 1, "b": [None, {"c": "d"}]}, {f"k{n}": n for n in range(15)},
    {f"k{n}": n for n in range(16)}, {"__proto__": {"polluted": True}, "constructor": 1},
]  # fmt: skip


def test_the_browsers_unpacker_reads_every_form_the_server_may_write(page: Any) -> None:
    answers = page.evaluate(
        """async (packed) => {
          const { unpack } = await import('/static/js/unpack.js');
          return packed.map((numbers) => {
            const value = unpack(new Uint8Array(numbers));
            // As JSON text: an own member named __proto__ survives that, as JSON.parse keeps it.
            const object = value !== null && typeof value === 'object' && !Array.isArray(value);
            return {
              value: JSON.stringify(value),
              proto: object && Object.getPrototypeOf(value) !== Object.prototype,
            };
          });
        }""",
        [list(msgpack.packb(value)) for value in PACKED_VALUES],
    )
    for value, answer in zip(PACKED_VALUES, answers, strict=True):
        assert answer["proto"] is False
        assert json.loads(answer["value"]) == value, str(value)[:80]


# Bytes the unpacker refuses: cut short, left over, a binary string, an extension, a non-string
# key, an integer too large to be exact, invalid UTF-8.
BAD_PACKED = [
    b"", b"\x92\x01", b"\xcd\x01", b"\x01\x02", b"\xc4\x01a", b"\xd4\x01\x00",
    b"\x81\x01\x02", b"\xcf" + (2**53).to_bytes(8, "big"), b"\xa2\xc3\x28", b"\xc1",
]  # fmt: skip


def test_the_browsers_unpacker_refuses_what_is_not_a_value_it_knows(page: Any) -> None:
    answers = page.evaluate(
        """async (cases) => {
          const { unpack, UnpackError } = await import('/static/js/unpack.js');
          return cases.map((numbers) => {
            try {
              return { value: unpack(new Uint8Array(numbers)) };
            } catch (error) {
              return { error: error instanceof UnpackError ? 'UnpackError' : error.name };
            }
          });
        }""",
        [list(case) for case in BAD_PACKED],
    )
    assert answers == [{"error": "UnpackError"}] * len(BAD_PACKED)


@pytest.mark.parametrize("failing", [False, True], ids=["applies", "refuses"])
def test_pointers_and_indexes_follow_the_rfcs(page: Any, failing: bool) -> None:
    cases = FAILURES if failing else CASES
    answers = page.evaluate(
        """async (cases) => {
          const { applyPatch, PatchError } = await import('/static/js/patch.js');
          return cases.map(([doc, ops]) => {
            try {
              return { doc: applyPatch(doc, ops) };
            } catch (error) {
              return { error: error instanceof PatchError ? 'PatchError' : String(error) };
            }
          });
        }""",
        cases,
    )
    for (doc, ops), answer in zip(cases, answers, strict=True):
        if failing:
            with pytest.raises((jsonpatch.JsonPatchException, jsonpatch.JsonPointerException)):
                jsonpatch.apply_patch(copy.deepcopy(doc), ops)
            assert answer == {"error": "PatchError"}, ops
        else:
            assert answer == {"doc": jsonpatch.apply_patch(copy.deepcopy(doc), ops)}, ops
