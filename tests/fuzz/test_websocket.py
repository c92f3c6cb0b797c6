"""Random frames of every kind at a real server's room socket: answered, never a traceback.

Hypothesis makes the frames: JSON of any shape and nesting, with the protocol's own field names
and values of the wrong types, invalid UTF-8, binary, empty and oversized frames (up to the
protocol layer's limit, and past it, where that connection ends with 1009), before and after
the hello. Each is sent on a socket of its own; the server must answer with a frame or a
documented close code, keep serving, and write no traceback.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from tests.rooms.client import create_room, join_room
from tests.server import Server, running_server

# Close codes a client may see: the protocol's own, too big, bad data, policy, restart.
DOCUMENTED = {1000, 1003, 1007, 1008, 1009, 1012, *range(4000, 4100)}
NAMES = ["type", "token", "id", "piles", "cards", "spectate", "settings", "seat", "level", "name"]
TYPES = ["hello", "take", "discard", "knock", "ready", "start", "resync", "hint", "settings"]


@dataclass(frozen=True)
class Big:
    """A frame of ``size`` bytes, made when sent (so Hypothesis reports its size, not itself)."""

    size: int

    def frame(self) -> str:
        return "x" * self.size


scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False),
    st.text(max_size=40),
    st.sampled_from(TYPES),
)
values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=6),
        st.dictionaries(st.one_of(st.sampled_from(NAMES), st.text(max_size=8)), inner, max_size=6),
    ),
    max_leaves=30,
)
messages = st.one_of(
    st.dictionaries(st.sampled_from(NAMES), values, max_size=5).map(json.dumps),
    st.fixed_dictionaries({"type": st.sampled_from(TYPES)}, optional={"id": values}).map(
        json.dumps
    ),
    values.map(json.dumps),
    st.text(max_size=200),
    st.binary(max_size=200),
    st.sampled_from([b"\xff\xfe\xfd", b"\xc3\x28", "", b"", "{" * 3000, "[" * 1500 + "]" * 1500]),
    # Around MAX_MESSAGE_BYTES (4096), short of the protocol layer's own limit (twice that).
    st.integers(min_value=4000, max_value=8192).map(lambda size: Big(size)),
)
# Past the protocol layer's limit: it ends the connection (1009) while the client may still be
# sending, so the client can see a reset instead (a race of TCP itself, not of the server).
oversized = st.integers(min_value=8193, max_value=200_000).map(lambda size: Big(size))


@pytest.fixture(scope="module")
def fuzzed() -> Iterator[tuple[Server, str, str]]:
    """A server with a room of two seats; rates out of the fuzzer's way."""
    fast = {"MESSAGES_PER_SECOND": "100000", "MESSAGE_BURST": "100000"}
    many = {"CONNECTIONS_PER_ADDRESS": "1000", "PENDING_CONNECTIONS_PER_ADDRESS": "1000"}
    with running_server(HELLO_SECONDS="2", **many, **fast) as server:
        room = create_room(server, "Ann")
        join_room(server, room["code"], "Bob")
        yield server, room["code"], room["token"]
        assert "Traceback" not in server.logs()
        assert "Exception in ASGI application" not in server.logs()


async def exchange(server: Server, code: str, frames: list[Any]) -> tuple[list[str], int | None]:
    """Send ``frames`` on a new socket; what came back, and the close code if it closed."""
    received: list[str] = []
    async with connect(f"{server.ws_url}/ws/rooms/{code}", compression=None, max_size=2**22) as ws:
        try:
            with contextlib.suppress(ConnectionResetError, BrokenPipeError):
                for frame in frames:
                    await ws.send(frame.frame() if isinstance(frame, Big) else frame)
            while True:
                received.append(str(await asyncio.wait_for(ws.recv(), 0.3)))
        except TimeoutError:
            return received, None
        except ConnectionClosed as closed:
            return received, closed.rcvd.code if closed.rcvd else 1006


def check(received: list[str], code: int | None) -> None:
    assert code is None or code in DOCUMENTED, code
    for frame in received:
        assert json.loads(frame)["type"] in ("state", "patch", "error", "hint")


@settings(max_examples=100, deadline=None, suppress_health_check=list(HealthCheck))
@given(first=messages)
def test_anything_as_the_first_message(fuzzed: tuple[Server, str, str], first: Any) -> None:
    server, code, _ = fuzzed
    received, closed = asyncio.run(exchange(server, code, [first]))
    check(received, closed)
    assert not any(json.loads(frame)["type"] == "state" for frame in received)


@settings(max_examples=100, deadline=None, suppress_health_check=list(HealthCheck))
@given(later=st.lists(messages, min_size=1, max_size=4))
def test_anything_after_the_hello(fuzzed: tuple[Server, str, str], later: list[Any]) -> None:
    server, code, token = fuzzed
    hello = json.dumps({"type": "hello", "token": token})
    received, closed = asyncio.run(exchange(server, code, [hello, *later]))
    check(received, closed)
    assert json.loads(received[0])["type"] == "state"


@settings(max_examples=20, deadline=None, suppress_health_check=list(HealthCheck))
@given(before=st.lists(messages, max_size=2), frame=oversized)
def test_a_frame_past_the_protocol_limit_ends_only_its_connection(
    fuzzed: tuple[Server, str, str], before: list[Any], frame: Big
) -> None:
    server, code, token = fuzzed
    hello = json.dumps({"type": "hello", "token": token})
    received, closed = asyncio.run(exchange(server, code, [hello, *before, frame]))
    assert closed in (1009, 1006), closed
    check(received, None)
    # The server goes on serving.
    received, _ = asyncio.run(exchange(server, code, [hello]))
    assert json.loads(received[0])["type"] == "state"
