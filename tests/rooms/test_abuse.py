"""Abuse costs the abuser: floods, oversized frames and sockets that never say hello, on a real
server's sockets."""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
from collections.abc import Iterator

import pytest
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from tests.play import play_until
from tests.rooms.client import Client, close_all, closed_with, create_room, open_table
from tests.server import FAST, Server, running_server
from tests.sockets import masked, reading_little, upgrade, wait_until_let_go

SLOW = {
    **FAST,
    "MESSAGES_PER_SECOND": "5",
    "MESSAGE_BURST": "5",
    "RATE_LIMIT_GRACE": "5",
    "PENDING_CONNECTIONS": "3",
    "PENDING_CONNECTIONS_PER_ADDRESS": "2",
    "HELLO_SECONDS": "30",
}


pytestmark = pytest.mark.usefixtures("closing_clients")


@pytest.fixture(scope="module")
def strict_server() -> Iterator[Server]:
    """Low rates and few connections yet to say hello, so that a test reaches them at once."""
    with running_server(**SLOW) as server:
        yield server
        assert "Traceback" not in server.logs()


async def test_a_client_that_keeps_exceeding_its_rate_is_closed_1008(
    strict_server: Server,
) -> None:
    room = create_room(strict_server)
    flooder = Client(strict_server, room["code"], room["token"])
    await flooder.connect()
    for _ in range(200):
        try:
            await flooder.send({"type": "resync"})
        except ConnectionClosed:
            break
    code, reason = await flooder.wait_closed()
    assert code == 1008
    assert reason
    assert any(error["code"] == "rate_limited" for error in flooder.errors)


async def test_a_short_burst_past_the_rate_is_only_refused(strict_server: Server) -> None:
    room = create_room(strict_server)
    client = Client(strict_server, room["code"], room["token"])
    await client.connect()
    # The burst, then fewer refusals than the grace allows.
    for _ in range(5 + 4):
        await client.send({"type": "settings", "settings": {"rounds": 3}})
    await client.wait_for(lambda s: s["settings"]["rounds"] == 3)
    await asyncio.sleep(1.5)  # tokens come back; nothing is asserted about the time
    await client.act("settings", settings={"rounds": 4})
    assert client.closed is None


async def test_oversized_frames_take_tokens_too(strict_server: Server) -> None:
    room = create_room(strict_server)
    client = Client(strict_server, room["code"], room["token"])
    await client.connect()
    big = json.dumps({"type": "resync", "pad": "x" * 4200})
    for _ in range(40):
        try:
            await client.send(big)
        except ConnectionClosed:
            break
    code, _ = await client.wait_closed()
    assert code == 1008
    kinds = [error["code"] for error in client.errors]
    assert "too_large" in kinds
    assert "rate_limited" in kinds


async def test_a_frame_past_the_protocol_limit_ends_that_connection_only(
    strict_server: Server,
) -> None:
    room = create_room(strict_server)
    client = Client(strict_server, room["code"], room["token"])
    await client.connect()
    with contextlib.suppress(ConnectionClosed, ConnectionResetError):
        await client.send("x" * (3 * 4096))
    code, _ = await client.wait_closed()
    # 1009 (too big); 1006 when the client was still writing as the server hung up.
    assert code in (1009, 1006)
    again = Client(strict_server, room["code"], room["token"])
    await again.connect()
    assert again.seat == 0


async def silent(server: Server, code: str, source: str) -> ClientConnection:
    """A socket from ``source`` (a loopback address) that never says hello."""
    return await connect(
        f"{server.ws_url}/ws/rooms/{code}", compression=None, local_addr=(source, 0)
    )


async def test_connections_yet_to_say_hello_are_capped(strict_server: Server) -> None:
    code = create_room(strict_server)["code"]
    first = [await silent(strict_server, code, "127.0.0.1") for _ in range(2)]
    # A third from the same address: 4029.
    closed, reason = await closed_with(strict_server, code, None)
    assert closed == 4029
    assert reason
    # Another address still gets in, up to the global cap; past it, 1013.
    other = await silent(strict_server, code, "127.0.0.2")
    async with connect(
        f"{strict_server.ws_url}/ws/rooms/{code}", compression=None, local_addr=("127.0.0.3", 0)
    ) as refused:
        with pytest.raises(ConnectionClosed):
            await asyncio.wait_for(refused.recv(), 10)
        assert refused.protocol.close_rcvd is not None
        assert refused.protocol.close_rcvd.code == 1013
    # A hello frees the place it held.
    await first[0].send(json.dumps({"type": "hello", "spectate": True}))
    assert json.loads(await first[0].recv())["type"] == "state"
    watcher = Client(strict_server, code)
    await watcher.connect()
    for socket in [*first, other]:
        await socket.close()


async def test_a_flooder_is_closed_while_another_room_plays_on() -> None:
    """One seated client floods as fast as it can; the victim room in the same server keeps
    playing, and the flooder is closed with 1008 (how fast the victim is: bench/flood.py)."""
    with running_server(**{**FAST, "MESSAGES_PER_SECOND": "20", "MESSAGE_BURST": "40"}) as server:
        flooded = await open_table(server, 2, turn_seconds=0)
        victims = await open_table(server, 2, turn_seconds=0)
        await victims.host.act("start")
        await victims.settle()
        flooder = flooded.players[1]
        socket = flooder.ws
        assert socket is not None

        async def flood() -> int:
            sent = 0
            with contextlib.suppress(ConnectionClosed):
                while sent < 200_000:
                    await socket.send('{"type":"resync"}')
                    sent += 1
                    if sent % 100 == 0:
                        await asyncio.sleep(0)
            return sent

        flooding = asyncio.create_task(flood())
        await play_until(
            victims.players,
            random.Random(5),
            lambda s: s["round"] is not None and s["round"]["discard"]["count"] >= 12,
            knock_chance=0,
        )
        assert (await flooder.wait_closed(timeout=60))[0] == 1008
        sent = await flooding
        assert sent < 200_000
        await play_until(
            victims.players,
            random.Random(6),
            lambda s: s["round"] is not None and s["round"]["discard"]["count"] >= 16,
            knock_chance=0,
        )
        assert flooded.host.closed is None
        await close_all()
        assert "Traceback" not in server.logs()


async def test_a_client_that_reads_nothing_does_not_keep_its_socket_once_closed(
    rooms_server: Server,
) -> None:
    """A client asks for states and reads none of them, then says goodbye: what the server
    could not write is given up within a bounded time, and the socket with it (it was held
    as long as the client's system answered, counted against no limit)."""
    code = create_room(rooms_server)["code"]
    client = reading_little(rooms_server.port, 30)
    try:
        upgrade(client, f"/ws/rooms/{code}")
        client.sendall(masked(0x1, b'{"type":"hello","spectate":true}'))
        # Far more states than the buffers between the two hold: the server falls behind.
        client.sendall(masked(0x1, b'{"type":"resync"}') * 20_000)
        client.sendall(masked(0x8, (1000).to_bytes(2, "big")))
        await asyncio.to_thread(wait_until_let_go, client, 60)
    finally:
        client.close()
