"""Refusals the socket layer makes: messages too large, and clients sending too fast.

Each refusal must answer its sender alone with the right code, echo the message's id when it
can be read and change nothing for anyone; the room must play on afterwards.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from tests.rooms.client import (
    ANY_ID,
    Client,
    Table,
    create_room,
    open_table,
    plays_on,
    refused,
)
from tests.server import FAST, Server, running_server

pytestmark = pytest.mark.usefixtures("closing_clients")


@pytest.fixture
async def lobby(rooms_server: Server) -> AsyncIterator[Table[Client]]:
    """Three players and a spectator in a lobby."""
    table = await open_table(rooms_server, 3, spectators=1, turn_seconds=0)
    yield table
    await table.close()


async def test_too_large(lobby: Table) -> None:
    big = {"type": "start", "id": "big", "pad": "x" * 5000}
    await refused(lobby, lobby.host, big, "too_large", echo=ANY_ID)
    await plays_on(lobby)


async def test_too_large_echoes_the_id(lobby: Table) -> None:
    big = {"type": "start", "id": "big", "pad": "x" * 5000}
    await refused(lobby, lobby.host, big, "too_large", echo="big")


async def test_too_large_counts_bytes_not_characters(lobby: Table) -> None:
    """1,500 three-byte characters are 4,500 bytes: over the 4 KiB limit."""
    big = {"type": "start", "id": "wide", "pad": "\u20ac" * 1500}
    assert len(json.dumps(big, ensure_ascii=False)) < 4096
    await refused(lobby, lobby.host, json.dumps(big, ensure_ascii=False), "too_large", echo=ANY_ID)
    await plays_on(lobby)


async def test_just_under_the_size_limit_is_read(lobby: Table) -> None:
    message = {"type": "start", "id": "edge", "pad": ""}
    message["pad"] = "x" * (4096 - len(json.dumps(message, separators=(",", ":"))))
    text = json.dumps(message, separators=(",", ":"))
    assert len(text) == 4096
    await refused(lobby, lobby.host, text, "bad_message", echo="edge")


async def test_a_binary_frame_is_not_read(lobby: Table) -> None:
    """Messages are JSON text frames: a valid message sent in a binary frame is refused, not
    acted on (its id is not echoed: the frame is not read)."""
    state = lobby.host.state
    assert state is not None
    rounds = state["settings"]["rounds"] % 50 + 1
    message = {"type": "settings", "settings": {"rounds": rounds}, "id": "bin"}
    await refused(lobby, lobby.host, json.dumps(message).encode(), "bad_message", echo=None)
    await refused(lobby, lobby.players[1], b'{"type":"chat","text":"hi"}', "bad_message", echo=None)
    await plays_on(lobby)


async def test_a_hello_in_a_binary_frame_closes_4002(rooms_server: Server) -> None:
    room = create_room(rooms_server)
    hello = json.dumps({"type": "hello", "token": room["token"]}).encode()
    code, reason = await said_first(rooms_server, room["code"], hello)
    assert code == 4002
    assert "text frame" in reason


async def test_a_hello_over_the_size_limit_closes_4002(rooms_server: Server) -> None:
    """The first message is held to the same limit as every other."""
    room = create_room(rooms_server)
    padded = json.dumps({"type": "hello", "token": room["token"]}) + " " * 4096
    code, reason = await said_first(rooms_server, room["code"], padded)
    assert code == 4002
    assert "4096 bytes" in reason
    # Just under the limit, the same hello seats its player.
    hello = json.dumps({"type": "hello", "token": room["token"]})
    code, _ = await said_first(rooms_server, room["code"], hello + " " * (4096 - len(hello)))
    assert code == 0


async def said_first(server: Server, code: str, first: str | bytes) -> tuple[int, str]:
    """Open a socket and send ``first``: the close code and reason it brought, or (0, "") if the
    server answered with a state instead."""
    async with connect(f"{server.ws_url}/ws/rooms/{code}", compression=None) as ws:
        await ws.send(first)
        try:
            frame = json.loads(await asyncio.wait_for(ws.recv(), 30))
        except ConnectionClosed:
            assert ws.close_code is not None
            return ws.close_code, ws.close_reason or ""
        assert frame["type"] == "state", frame
        return 0, ""


# Rate limiting (a dedicated server with a tiny budget).


@pytest.fixture(scope="module")
def strict_server() -> Iterator[Server]:
    with running_server(**{**FAST, "MESSAGES_PER_SECOND": "2", "MESSAGE_BURST": "4"}) as server:
        yield server


# The burst's ids, far from those the client numbers its own messages with (which would find
# the burst's answers as theirs).
BURST = 1 << 40


async def burst(server: Server, count: int) -> tuple[Client, Client, list[dict[str, Any]], int]:
    """A host sends ``count`` settings changes at once; returns what came back to it."""
    room = create_room(server, turn_seconds=0)
    host = Client(server, room["code"], room["token"])
    watcher = Client(server, room["code"])
    await host.connect()
    await watcher.connect()
    await host.wait_for(lambda state: state["spectators"] == 1)
    marks = len(host.frames), len(watcher.frames)
    for number in range(count):
        message = {"type": "settings", "settings": {"rounds": number + 1}, "id": BURST + number}
        await host.send(message)
    await host.wait_frames(marks[0] + count)
    return host, watcher, [json.loads(text) for text in host.frames[marks[0] :]], marks[1]


async def test_rate_limited(strict_server: Server) -> None:
    host, watcher, frames, mark = await burst(strict_server, 6)
    accepted = [frame for frame in frames if frame["type"] == "patch"]
    errors = [frame for frame in frames if frame["type"] == "error"]
    assert [frame["ack"] - BURST for frame in accepted] == [0, 1, 2, 3]
    assert [frame["code"] for frame in errors] == ["rate_limited", "rate_limited"]
    await asyncio.sleep(1.1)  # the bucket refills
    await watcher.wait_for(lambda state: state["settings"]["rounds"] == 4)
    assert len(watcher.frames) == mark + 4, "a dropped message reached someone"
    before, fresh = await host.resync()
    assert before == fresh
    assert fresh["settings"]["rounds"] == 4
    await host.act("settings", settings={"rounds": 9})
    await watcher.wait_for(lambda state: state["settings"]["rounds"] == 9)
    await host.close()
    await watcher.close()


async def test_rate_limited_echoes_the_id(strict_server: Server) -> None:
    host, watcher, frames, _mark = await burst(strict_server, 6)
    errors = [frame for frame in frames if frame["type"] == "error"]
    await host.close()
    await watcher.close()
    assert [frame["id"] - BURST for frame in errors] == [4, 5]
