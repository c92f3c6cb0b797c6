"""A connection's messages taken at once, as the protocol reads them, or by the reading loop when
one has to wait: in order, each to its end, and the client's heartbeat still kept.

Every test here talks to a real server over a real socket. Several messages are written to the
socket in one piece, so that the server reads them in one go: the first ones are taken at once,
and a message whose handling waits (a hint worked out in a bot's process, a write to
PostgreSQL) holds the ones after it back until it is done.
"""

from __future__ import annotations

import asyncio
import json
import random
import tempfile
from pathlib import Path
from typing import Any, cast

import pytest
from starlette.applications import Starlette
from starlette.routing import WebSocketRoute
from starlette.websockets import WebSocket
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed
from websockets.frames import Frame, Opcode

from app.api.middleware import KeepRawSend, raw_send
from app.api.sockets import PING, PING_HIDDEN, _read
from app.config import Settings
from app.rooms import protocol
from app.rooms.connection import Connection
from app.rooms.inbound import FrameReadingProtocol
from app.rooms.live import LiveRoom
from tests.databases import BACKENDS, blocked_on_a_lock, fresh_database
from tests.databases import connect as connect_database
from tests.rooms.client import Client, close_all, open_table
from tests.rooms.inprocess import serving
from tests.server import FAST, Server, running_server

SILENCE_SECONDS = 6.0  # the least a server takes


def write_together(ws: ClientConnection, messages: list[dict[str, Any]]) -> None:
    """Write ``messages`` to the socket in one piece: one text frame each, masked as a client's."""
    frames = [
        Frame(Opcode.TEXT, json.dumps(message).encode()).serialize(mask=True)
        for message in messages
    ]
    ws.transport.write(b"".join(frames))


async def playing(server: Server) -> tuple[Client, Client]:
    """A two-player table with its round dealt: the player whose turn it is, and the other."""
    table = await open_table(server, 2, turn_seconds=0, rounds=1)
    ann, bob = table.players
    await ann.act("start")
    await ann.wait_for(lambda s: s["status"] == "playing")
    await bob.wait_for(lambda s: s["status"] == "playing")
    return (ann, bob) if ann.my_turn() else (bob, ann)


def position(client: Client, message_id: str) -> int:
    """Where, among the frames ``client`` received, the answer to ``message_id`` is."""
    for index, frame in enumerate(client.frames):
        decoded = json.loads(frame)
        if decoded.get("id") == message_id or decoded.get("ack") == message_id:
            return index
    raise AssertionError(f"no answer to {message_id}")


async def answered(client: Client, *message_ids: str) -> None:
    """Wait until every message has its answer (or the connection closed)."""
    await client.wait_for(lambda s: all(m in client.answers for m in message_ids))


async def test_a_message_that_waits_holds_back_the_ones_sent_with_it() -> None:
    with running_server(**FAST) as server:
        mover, other = await playing(server)
        move = mover.random_move(random.Random(1), knock_chance=0)
        # The hint is worked out in a bot's process: its handling waits. The move and the
        # second hint come in the same read, and wait for it.
        assert mover.ws is not None
        write_together(
            mover.ws,
            [
                {"type": "hint", "id": "h1"},
                {**move, "id": "m1"},
                {"type": "hint", "id": "h2"},
            ],
        )
        await answered(mover, "h1", "m1", "h2")
        # The first hint is for the position it was asked in, not "too late": the move was not
        # played while it was worked out.
        assert mover.answers["h1"]["type"] == "hint"
        assert mover.answers["m1"]["type"] == "patch"
        assert mover.answers["h2"]["type"] in ("hint", "error")
        assert position(mover, "h1") < position(mover, "m1") < position(mover, "h2")
        for client in (mover, other):
            before, fresh = await client.resync()
            assert before == fresh
        assert "Traceback" not in server.logs()
        await close_all()


@pytest.mark.parametrize("backend", BACKENDS)
async def test_a_take_and_its_discard_sent_together_are_played_in_order(backend: str) -> None:
    with (
        tempfile.TemporaryDirectory() as folder,
        fresh_database(backend, Path(folder)) as url,
        running_server(url, **FAST) as server,
    ):
        mover, other = await playing(server)
        assert mover.state is not None
        kept = mover.state["you"]["hand"][0]  # in the hand before the take: a legal discard
        take = mover.random_move(random.Random(2), knock_chance=0)
        assert take["type"] == "take"
        # With PostgreSQL each is written before it is shown, so the take's handling waits
        # for the database while the discard is already read.
        assert mover.ws is not None
        write_together(
            mover.ws,
            [
                {**take, "id": "t"},
                {"type": "discard", "cards": [kept], "id": "d"},
                {"type": "chat", "text": "played", "id": "c"},
            ],
        )
        await answered(mover, "t", "d", "c")
        assert [mover.answers[m]["type"] for m in ("t", "d", "c")] == ["patch"] * 3
        assert position(mover, "t") < position(mover, "d") < position(mover, "c")
        state = await other.wait_for(lambda s: s["chat"]["lines"])
        assert kept not in mover.view["you"]["hand"]
        assert state["round"]["turn"]["seat"] == other.seat
        for client in (mover, other):
            before, fresh = await client.resync()
            assert before == fresh
        assert "Traceback" not in server.logs()
        await close_all()


@pytest.mark.parametrize("ping", [PING, PING_HIDDEN])
async def test_the_clients_ping_is_answered_while_a_message_sent_before_it_waits(
    ping: str,
) -> None:
    """A move waits for PostgreSQL (another session holds the table it is written to): the
    client's ping sent after it, and after a chat line that waits its turn, is answered
    meanwhile, so that the client does not take its link for dead (its page in sight or not);
    the move and the chat line are answered, in order, once the write goes through."""
    with (
        tempfile.TemporaryDirectory() as folder,
        fresh_database("postgresql", Path(folder)) as url,
        running_server(url, **FAST, DATABASE_TIMEOUT_SECONDS="60") as server,
    ):
        mover, other = await playing(server)
        session = await connect_database(url)
        try:
            holding = session.transaction()
            await holding.start()
            await session.execute("LOCK TABLE live_room_events IN EXCLUSIVE MODE")
            move = mover.random_move(random.Random(3), knock_chance=0)
            await mover.send({**move, "id": "m"})
            await blocked_on_a_lock(session)  # the move's write waits in the database
            seen = len(mover.frames)
            # A chat line waits its turn behind the move; the ping after it does not.
            await mover.send({"type": "chat", "text": "meanwhile", "id": "r"})
            assert mover.ws is not None
            await mover.ws.send(ping)  # as the browser sends it
            await mover.wait_frames(seen + 1)
            assert json.loads(mover.frames[seen]) == {"type": "pong", "id": None}
            assert "m" not in mover.answers
            assert "r" not in mover.answers
            await holding.rollback()
            await answered(mover, "m", "r")
            assert mover.answers["m"]["type"] == "patch"
            assert seen < position(mover, "m") < position(mover, "r")
            for client in (mover, other):
                before, fresh = await client.resync()
                assert before == fresh
        finally:
            await session.close()
        assert "Traceback" not in server.logs()
        await close_all()


async def test_a_client_that_pings_is_kept_while_it_sends_and_closed_once_silent() -> None:
    with running_server(**FAST, CLIENT_SILENCE_SECONDS=str(SILENCE_SECONDS)) as server:
        table = await open_table(server, 2)
        ann, bob = table.players
        # Ann pings, then keeps sending (pings and chat, each taken at once) for twice as long
        # as she may be silent. The server's own pings, which her socket answers, do not count.
        sent = 0
        loop = asyncio.get_running_loop()
        last = loop.time()
        longest = 0.0  # the longest she was silent: on a machine loaded enough, too long
        until = last + 2 * SILENCE_SECONDS
        while loop.time() < until:
            await ann.send({"type": "ping"} if sent % 2 == 0 else {"type": "chat", "text": "hi"})
            now = loop.time()
            longest, last = max(longest, now - last), now
            sent += 1
            await asyncio.sleep(SILENCE_SECONDS / 20)
        if longest < SILENCE_SECONDS / 2:  # she kept her word: she stays
            assert ann.closed is None
        # Then she stops: closed as a dead link.
        code, reason = await ann.wait_closed()
        assert (code, reason) == (1011, "nothing from you, not even a ping: the link is dead")
        # Bob, who never pinged, is not held to it.
        assert bob.closed is None
        await bob.wait_for(lambda s: not s["players"][0]["connected"])
        assert "Traceback" not in server.logs()
        await close_all()


async def answer_to(client: Client, message: dict[str, Any]) -> dict[str, Any]:
    """The answer (a pong or an error) to ``message``, past any patch that comes first."""
    seen = len(client.frames)
    await client.send(message)
    while True:
        await client.wait_frames(seen + 1)
        frame = client.frames[seen]
        seen += 1
        if isinstance(frame, str) and json.loads(frame)["type"] in ("pong", "error"):
            answer: dict[str, Any] = json.loads(frame)
            return answer


async def test_a_page_out_of_sight_may_ping_a_minute_apart() -> None:
    """A ping that says the page is hidden (where a browser wakes its timers once a minute)
    allows minutes of silence; the next ping without it, the usual limit again."""
    with running_server(**FAST, CLIENT_SILENCE_SECONDS=str(SILENCE_SECONDS)) as server:
        table = await open_table(server, 2)
        ann, bob = table.players
        for client, ping in ((ann, {"type": "ping", "hidden": True}), (bob, {"type": "ping"})):
            assert await answer_to(client, ping) == {"type": "pong", "id": None}
        # Bob's silence ends his link; Ann, as long silent, is kept.
        assert await bob.wait_closed() == (
            1011,
            "nothing from you, not even a ping: the link is dead",
        )
        assert ann.closed is None
        await ann.send({"type": "ping"})  # in sight again
        assert await ann.wait_closed() == (
            1011,
            "nothing from you, not even a ping: the link is dead",
        )
        assert "Traceback" not in server.logs()
        await close_all()


class FailingRoom:
    """What ``_read`` hands messages to, failing at the chat line "boom" as a bug would."""

    def __init__(self) -> None:
        self.handled: list[str] = []
        self.in_a_task: list[bool] = []  # for each message: handled in a task, or at once

    async def handle(self, connection: Connection, message: protocol.ClientMessage) -> None:
        assert isinstance(message, protocol.ChatMessage)
        self.in_a_task.append(asyncio.current_task() is not None)
        if message.text == "boom":
            raise RuntimeError("boom")
        self.handled.append(message.text)


async def test_a_failure_in_handling_a_message_taken_at_once_ends_that_connection() -> None:
    """As a failure in the reading loop does: the failure reaches the server (which logs it and
    drops the connection), the messages after it are not handled, and the server goes on."""
    room = FailingRoom()
    settings = Settings()
    failures: list[BaseException] = []

    async def endpoint(websocket: WebSocket) -> None:
        await websocket.accept()
        connection = Connection(raw_send(websocket), 0, settings.send_queue_frames)
        try:
            await _read(websocket, connection, cast(LiveRoom, room), settings)
        except RuntimeError as error:
            failures.append(error)
            raise

    application = KeepRawSend(Starlette(routes=[WebSocketRoute("/", endpoint)]))
    async with serving(application, FrameReadingProtocol) as port:
        for attempt in range(2):
            async with connect(f"ws://127.0.0.1:{port}/", compression=None) as ws:
                chats = [{"type": "chat", "text": text} for text in ("a", "boom", "c")]
                await ws.send(json.dumps(chats[0]))
                await ws.send(json.dumps({"type": "ping"}))
                assert json.loads(await ws.recv())["type"] == "pong"  # "a" is handled
                write_together(ws, chats[1:])
                with pytest.raises(ConnectionClosed) as closed:
                    await ws.recv()
                assert closed.value.rcvd is None  # dropped, as for any failure of the app
            assert room.handled == ["a"] * (attempt + 1)
            assert room.in_a_task == [False, False] * (attempt + 1)  # "a", "boom": at once
            assert [str(error) for error in failures] == ["boom"] * (attempt + 1)
