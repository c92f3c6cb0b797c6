"""When the server closes a room socket, with which code and a reason."""

from __future__ import annotations

import asyncio
import fcntl
import json
import select
import socket
import sys
import termios
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

import orjson
import pytest
from websockets.client import ClientProtocol
from websockets.frames import Close, Opcode
from websockets.protocol import State
from websockets.uri import parse_uri

from tests import fetch
from tests.rooms.client import Client, api, closed_with, create_room, join_room, try_connect
from tests.server import FAST, Server, running_server

pytestmark = pytest.mark.usefixtures("closing_clients")


@pytest.mark.parametrize(
    "first",
    [
        {"type": "resync"},
        {"type": "start"},
        {"type": "hello"},
        {"type": "hello", "spectate": False},
        {"type": "hello", "spectate": "yes"},
        {"type": "hello", "token": 5},
        {"type": "hello", "token": ""},
        {"type": "hello", "spectate": True, "extra": 1},
        {"token": "abc"},
        "not json",
        "[]",
    ],
    ids=str,
)
async def test_first_message_not_a_hello_closes_4002(
    rooms_server: Server, first: dict[str, Any] | str
) -> None:
    room = create_room(rooms_server)
    code, reason = await closed_with(rooms_server, room["code"], first)
    assert code == 4002
    assert reason


async def test_a_hello_with_a_token_and_spectate_closes_4002(rooms_server: Server) -> None:
    room = create_room(rooms_server)
    hello = {"type": "hello", "token": room["token"], "spectate": True}
    code, reason = await closed_with(rooms_server, room["code"], hello)
    assert code == 4002
    assert reason == "hello needs a token, or spectate: true, not both"


async def test_wrong_token_closes_4001(rooms_server: Server) -> None:
    room = create_room(rooms_server)
    code, reason = await closed_with(
        rooms_server, room["code"], {"type": "hello", "token": room["token"][:-2] + "xx"}
    )
    assert (code, bool(reason)) == (4001, True)


async def test_token_of_another_room_closes_4001(rooms_server: Server) -> None:
    room = create_room(rooms_server)
    other = create_room(rooms_server)
    code, _ = await closed_with(
        rooms_server, room["code"], {"type": "hello", "token": other["token"]}
    )
    assert code == 4001


@pytest.mark.parametrize("code", ["2345-6789", "nonsense", "2345-678"])
async def test_unknown_room_closes_4004(rooms_server: Server, code: str) -> None:
    closed, reason = await closed_with(rooms_server, code, {"type": "hello", "spectate": True})
    assert closed == 4004
    assert reason


def handshake_status(server: Server, code: str, origin: str) -> int:
    """The HTTP status the server answers a WebSocket handshake from ``origin`` with."""
    headers = {"Host": f"127.0.0.1:{server.port}", "Origin": origin}
    return fetch.handshake_status(server.port, f"/ws/rooms/{code}", headers)


def foreign_origins(server: Server) -> list[str]:
    """Origins that are not the server's own: another host, scheme or port."""
    own = urlsplit(server.url)
    return [
        "http://evil.example",
        "https://127.0.0.1.evil.example",
        "null",
        "http://localhost:1",
        f"https://{own.netloc}",  # the same host and port over https: not this http server
        f"https://{own.hostname}",
        f"http://{own.hostname}",  # port 80
        f"http://{own.hostname}:{own.port + 1}",
        f"ws://{own.netloc}.evil.example",
    ]


async def test_foreign_origins_are_refused_403_before_the_handshake(rooms_server: Server) -> None:
    room = create_room(rooms_server)
    for origin in foreign_origins(rooms_server):
        assert handshake_status(rooms_server, room["code"], origin) == 403, origin
    # A script is told why, with the safety headers every answer has.
    status, headers, body = fetch.refused_handshake(
        rooms_server.port,
        f"/ws/rooms/{room['code']}",
        {"Host": f"127.0.0.1:{rooms_server.port}", "Origin": "http://evil.example"},
    )
    assert status == 403
    fetch.assert_safety_headers(headers)
    assert orjson.loads(body) == {
        "detail": "a page at this origin may not connect here",
        "code": "bad_origin",
    }
    for origin in (rooms_server.url, rooms_server.url + "/", rooms_server.url.upper()):
        assert handshake_status(rooms_server, room["code"], origin) == 101, origin


async def test_own_origin_and_no_origin_are_accepted(rooms_server: Server) -> None:
    room = create_room(rooms_server)
    player = Client(rooms_server, room["code"], room["token"])
    await player.connect(origin=rooms_server.url)
    watcher = Client(rooms_server, room["code"])
    await watcher.connect()
    assert player.seat == 0
    assert watcher.seat is None
    await player.close()
    await watcher.close()


async def test_a_second_connection_of_a_seat_closes_the_first_4009(rooms_server: Server) -> None:
    room = create_room(rooms_server)
    first = Client(rooms_server, room["code"], room["token"])
    await first.connect()
    second = Client(rooms_server, room["code"], room["token"])
    await second.connect()
    code, reason = await first.wait_closed()
    assert code == 4009
    assert reason
    assert second.state is not None
    assert second.seat == 0
    assert second.state["players"][0]["connected"] is True
    await second.act("settings", settings={"rounds": 2})
    await second.close()


async def test_a_join_whose_answer_was_lost_takes_its_seat_again(rooms_server: Server) -> None:
    """A join that reached the room but whose answer (and token) was lost is asked again with
    the same name (however written) and player key: it gets that seat with a new token, in the
    lobby or once the match has started, rather than name_taken and a seat nobody can use. The
    old token holds no seat any more, and whatever held the seat with it is closed."""
    key = "b" * 64
    room = create_room(rooms_server, turn_seconds=0)
    lost = join_room(rooms_server, room["code"], "Bob", key=key)
    again = join_room(rooms_server, room["code"], "Bob", key=key)
    assert again["seat"] == lost["seat"] == 1
    assert again["token"] != lost["token"]
    assert await try_connect(Client(rooms_server, room["code"], lost["token"])) == (
        4001,
        "this token holds no seat in this room",
    )
    host = Client(rooms_server, room["code"], room["token"])
    await host.connect()
    bob = Client(rooms_server, room["code"], again["token"])
    await bob.connect()
    assert bob.seat == 1
    await host.act("start")
    await bob.wait_for(lambda s: s["status"] == "playing")
    # Once the match has started, too; the page that held the seat is closed.
    third = join_room(rooms_server, room["code"], "Bob", key=key)
    assert third["seat"] == 1
    assert await bob.wait_closed() == (4009, "this seat was taken again with a new token")
    back = Client(rooms_server, room["code"], third["token"])
    await back.connect()
    assert back.seat == 1
    assert back.state is not None
    assert len(back.state["you"]["hand"]) == 5
    # The name typed again another way (the same browser, its key) is that person's too.
    fourth = join_room(rooms_server, room["code"], "BOB", key=key)
    assert fourth["seat"] == 1
    assert await back.wait_closed() == (4009, "this seat was taken again with a new token")
    # Another key, or none, with the name is someone else: the name is taken.
    for other in ("c" * 64, None):
        response = api(
            rooms_server, "POST", f"/api/rooms/{room['code']}/join", {"name": "Bob", "key": other}
        )
        assert response.status_code == 409
    info = api(rooms_server, "GET", f"/api/rooms/{room['code']}").json()
    assert [player["name"] for player in info["players"]] == ["Ann", "Bob"]
    await host.close()
    await back.close()


# Dedicated servers.


@pytest.fixture(scope="module")
def allowing_server() -> Iterator[Server]:
    """Two more origins allowed, little time to say hello and short send queues; pings far
    apart, so that a client that does not read for a while (on a loaded machine, for many
    seconds) is closed for falling behind, not for missing pongs."""
    settings = {
        "ALLOWED_ORIGINS": "https://friends.example, https://play.example/",
        "HELLO_SECONDS": "2",
        "SEND_QUEUE_FRAMES": "8",
        "HEARTBEAT_SECONDS": "60",
    }
    with running_server(**{**FAST, **settings}) as server:
        yield server


@pytest.mark.parametrize("origin", ["https://friends.example", "https://play.example"])
async def test_allowed_origins_are_admitted(allowing_server: Server, origin: str) -> None:
    room = create_room(allowing_server)
    client = Client(allowing_server, room["code"], room["token"])
    await client.connect(origin=origin)
    assert client.seat == 0
    await client.close()


async def test_allowed_origins_still_admit_the_servers_own(allowing_server: Server) -> None:
    room = create_room(allowing_server)
    client = Client(allowing_server, room["code"], room["token"])
    await client.connect(origin=allowing_server.url)
    await client.close()


@pytest.mark.parametrize(
    "origin", ["http://friends.example", "https://evil.example", "https://play.example:8443"]
)
async def test_unlisted_origins_are_refused(allowing_server: Server, origin: str) -> None:
    room = create_room(allowing_server)
    assert handshake_status(allowing_server, room["code"], origin) == 403


@pytest.fixture(scope="module")
def crowded_server() -> Iterator[Server]:
    with running_server(**{**FAST, "CONNECTIONS_PER_ADDRESS": "3"}) as server:
        yield server


async def test_too_many_connections_from_one_address_close_4029(crowded_server: Server) -> None:
    room = create_room(crowded_server)
    join_room(crowded_server, room["code"], "Bob")
    clients = [
        Client(crowded_server, room["code"], room["token"]),
        Client(crowded_server, room["code"]),
        Client(crowded_server, room["code"]),
    ]
    for client in clients:
        await client.connect()
    code, reason = await closed_with(
        crowded_server, room["code"], {"type": "hello", "spectate": True}
    )
    assert code == 4029
    assert reason
    await clients[0].wait_for(lambda state: state["spectators"] == 2)
    await clients[2].close()
    # A connection closed frees its place.
    for _ in range(600):  # as long as the server takes to see the close, up to 30 s
        late = Client(crowded_server, room["code"])
        if await try_connect(late) is None:
            break
        await asyncio.sleep(0.05)
    assert late.state is not None
    assert late.state["spectators"] == 2
    await late.close()
    for client in clients[:2]:
        await client.close()


async def test_no_hello_in_time_closes_4002(allowing_server: Server) -> None:
    room = create_room(allowing_server)
    code, reason = await closed_with(allowing_server, room["code"], None)
    assert code == 4002
    assert reason


RESYNCS = 40_000
RECEIVE_BUFFER = 64 << 10


def unsent_by_the_server(sock: socket.socket) -> int:
    """How many bytes the server's end of this loopback connection holds in its kernel send
    queue (sent, not yet acknowledged): they stay there only while this end's window is shut."""
    here_ip, here_port = sock.getsockname()[:2]
    there_ip, there_port = sock.getpeername()[:2]

    def address(ip: str, port: int) -> str:
        return f"{socket.inet_aton(ip)[::-1].hex().upper()}:{port:04X}"

    server_end, client_end = address(there_ip, there_port), address(here_ip, here_port)
    with open("/proc/net/tcp") as table:
        for line in table.readlines()[1:]:
            fields = line.split()
            if fields[1] == server_end and fields[2] == client_end:
                return int(fields[4].split(":")[0], 16)
    return 0


async def until_full(sock: socket.socket) -> None:
    """Wait, without reading, until the server has filled this socket's receive buffer.

    From then on the server's sends wait, its queue fills with the states still asked for, and
    it closes the connection. Full is when the bytes waiting here stay the same while the
    server's end holds bytes it cannot send (this end's window is shut): on loopback nothing
    else keeps them there, however slowly a loaded machine runs the server.
    """
    held = sock.getsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF) // 4
    hung_up = select.poll()
    hung_up.register(sock, select.POLLRDHUP)
    waiting, unchanged = -1, 0
    while unchanged < 10 and not hung_up.poll(0):  # (closed early: the reading will say how)
        now = int.from_bytes(fcntl.ioctl(sock, termios.FIONREAD, b"\0\0\0\0"), sys.byteorder)
        stuck = now == waiting and now >= held and unsent_by_the_server(sock) > 0
        unchanged = unchanged + 1 if stuck else 0
        waiting = now
        await asyncio.sleep(0.05)


async def _stalled_socket(server: Server, code: str) -> tuple[socket.socket, ClientProtocol]:
    """A WebSocket over a plain socket that reads only when told, handshake done."""
    sock = socket.socket()
    # A fixed receive buffer (no autotuning): how much it holds when full is known.
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, RECEIVE_BUFFER)
    sock.connect(("127.0.0.1", server.port))
    client = ClientProtocol(parse_uri(f"{server.ws_url}/ws/rooms/{code}"))
    client.send_request(client.connect())
    sock.sendall(b"".join(client.data_to_send()))
    while client.state is State.CONNECTING and client.handshake_exc is None:
        client.receive_data(await asyncio.to_thread(sock.recv, 65536))
    assert client.state is State.OPEN, client.handshake_exc
    client.events_received()  # the handshake's response
    return sock, client


@pytest.fixture(scope="module")
def byte_bound_server() -> Iterator[Server]:
    """Send queues bounded by their bytes alone (a frame bound no client reaches)."""
    settings = {"SEND_QUEUE_FRAMES": "1000000", "SEND_QUEUE_KB": "64", "HEARTBEAT_SECONDS": "60"}
    with running_server(**{**FAST, **settings}) as server:
        yield server


async def test_a_client_that_falls_behind_is_closed_4008(allowing_server: Server) -> None:
    """A client that asks for states and never reads them is closed, then can resync."""
    await falls_behind(allowing_server)


async def test_a_client_whose_queue_outgrows_its_bytes_is_closed_4008(
    byte_bound_server: Server,
) -> None:
    """However few frames are queued, what a client that reads nothing holds in the server is
    bounded in bytes (SEND_QUEUE_KB): whole states asked for again and again are not kept."""
    await falls_behind(byte_bound_server)


async def falls_behind(server: Server) -> None:
    """A client asks for states and never reads them: it is closed (4008) before every state
    went out, then can resync."""
    room = create_room(server)
    sock, client = await _stalled_socket(server, room["code"])
    try:
        client.send_text(json.dumps({"type": "hello", "token": room["token"]}).encode())
        sock.sendall(b"".join(client.data_to_send()))  # at once: the server waits little for it
        for _ in range(RESYNCS):  # each answered by a whole state: far more than buffers hold
            client.send_text(b'{"type":"resync"}')
        sock.settimeout(120)  # a server that stopped reading fails the test, not hangs it
        await asyncio.to_thread(sock.sendall, b"".join(client.data_to_send()))
        await until_full(sock)  # not reading: the server's sends back up
        close: Close | None = None
        texts = 0
        sock.settimeout(30)
        while close is None:
            data = await asyncio.to_thread(sock.recv, 1 << 20)
            if not data:
                break
            client.receive_data(data)
            await asyncio.to_thread(sock.sendall, b"".join(client.data_to_send()))  # pongs
            for event in client.events_received():
                if event.opcode is Opcode.TEXT:
                    texts += 1
                elif event.opcode is Opcode.CLOSE:
                    close = Close.parse(event.data)
    finally:
        sock.close()
    assert close is not None, f"no close frame after {texts} frames"
    assert close.code == 4008
    assert close.reason
    assert 1 <= texts < RESYNCS + 1  # cut off before every state went out
    again = Client(server, room["code"], room["token"])
    await again.connect()
    assert again.seat == 0
    assert again.version == 1
    await again.close()
