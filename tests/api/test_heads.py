"""A request's head (its request line and headers) is limited in size and in time: past the
limit the server answers 431 (or 408) and closes the connection, however the head arrives;
within them every request, body and all, is served as before."""

from __future__ import annotations

import asyncio
import contextlib
import re
import socket
import time
from collections.abc import Iterator

import orjson
import pytest
from starlette.types import Receive, Scope, Send

from app.api.heads import MAX_HEAD_BYTES, HeadLimitedProtocol
from tests import fetch
from tests.rooms.client import Client, close_all, create_room
from tests.rooms.inprocess import serving
from tests.server import FAST, Server, running_server
from tests.sockets import masked, upgrade, wait_until_let_go

GUARD_SECONDS = 30.0
CARDS = ["1-circle-violet", "2-crescent-cyan", "3-triangle-yellow", "4-square-orange", "5-star-red"]


def head(path: str, pad: int, method: str = "GET", extra: str = "") -> bytes:
    """A request head with a header ``X-Pad`` of ``pad`` bytes."""
    return (
        f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Pad: {'p' * pad}\r\n{extra}\r\n"
    ).encode()


def exchange(server: Server, *pieces: bytes) -> bytes:
    """Send ``pieces`` one write each (as many as the server takes before it closes), then
    read until the server closes the connection."""
    with socket.create_connection(("127.0.0.1", server.port), timeout=GUARD_SECONDS) as client:
        for piece in pieces:
            try:
                client.sendall(piece)
            except OSError:  # closed by the server: what it answered is still to be read
                break
        answer = b""
        with contextlib.suppress(ConnectionResetError):
            while chunk := client.recv(65536):
                answer += chunk
        return answer


def statuses(answer: bytes) -> list[int]:
    """The status of each response in ``answer`` (bodies here never hold a status line)."""
    return [int(status) for status in re.findall(rb"HTTP/1\.1 (\d{3}) ", answer)]


def test_a_head_over_the_limit_is_answered_431_and_closed(server: Server) -> None:
    answer = exchange(server, head("/healthz", MAX_HEAD_BYTES))
    assert statuses(answer) == [431]
    assert answer.endswith(f"request line and headers over {MAX_HEAD_BYTES} bytes".encode())
    # With the safety headers of every answer (it had none of them).
    fetch.assert_safety_headers(fetch.header_fields(answer.split(b"\r\n\r\n")[0]))


def test_a_request_that_cannot_be_read_is_answered_400_with_the_safety_headers(
    server: Server,
) -> None:
    answer = exchange(server, b"GET / HTTP/1.1\r\nHost: a b\r\nX: \x01\r\n\r\n")
    assert statuses(answer) == [400]
    assert answer.endswith(b"Invalid HTTP request received.")
    fetch.assert_safety_headers(fetch.header_fields(answer.split(b"\r\n\r\n")[0]))


def test_a_header_of_megabytes_sent_in_pieces_is_refused_at_the_limit(server: Server) -> None:
    start = b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Pad: "
    pieces = [start] + [b"p" * 65536] * 64  # 4 MB, never ended
    answer = exchange(server, *pieces)
    assert statuses(answer) == [431]


def test_trailers_of_megabytes_after_a_chunked_body_are_refused_at_the_limit(
    server: Server,
) -> None:
    start = (
        b"POST /api/score HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        b'Transfer-Encoding: chunked\r\n\r\n4\r\n{"ca\r\n0\r\nX-Pad: '
    )
    answer = exchange(server, start, *[b"p" * 65536] * 64)  # 4 MB of trailer, never ended
    assert statuses(answer) == [431]


def test_a_chunked_body_in_many_chunks_with_its_trailer_is_served(server: Server) -> None:
    body = orjson.dumps({"cards": CARDS}) + b" " * 60_000
    chunks = [body[i : i + 1000] for i in range(0, len(body), 1000)]
    encoded = b"".join(b"%x\r\n%s\r\n" % (len(chunk), chunk) for chunk in chunks)
    extra = "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n"
    trailer = b"0\r\nX-Note: " + b"t" * 1000 + b"\r\n\r\n"
    request = head("/api/score", 100, "POST", extra) + encoded + trailer
    # In one write, and in pieces of 7 KB (a chunk's size line split from its data, too).
    for pieces in ([request], [request[i : i + 7000] for i in range(0, len(request), 7000)]):
        answer = exchange(server, *pieces)
        assert statuses(answer) == [200]
        assert orjson.loads(answer.split(b"\r\n\r\n", 1)[1])["points"] == 25


def test_heads_within_the_limit_are_served_one_after_another_on_one_connection(
    server: Server,
) -> None:
    # Three requests kept alive on one connection, each head most of the limit; the last closes.
    near = MAX_HEAD_BYTES - 200
    requests = [head("/healthz", near), head("/healthz", near)]
    requests.append(head("/healthz", near, extra="Connection: close\r\n"))
    assert statuses(exchange(server, *requests)) == [200, 200, 200]
    # And all three in one write.
    assert statuses(exchange(server, b"".join(requests))) == [200, 200, 200]


def test_a_body_in_the_same_write_as_its_head_is_not_counted_in_the_head(server: Server) -> None:
    # A small head and a body of 60 KB (whitespace JSON allows) in one write: the body reaches
    # the application, which scores the hand.
    body = orjson.dumps({"cards": CARDS}) + b" " * 60_000
    extra = (
        f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\nConnection: close\r\n"
    )
    answer = exchange(server, head("/api/score", 100, "POST", extra) + body)
    assert statuses(answer) == [200]
    assert orjson.loads(answer.split(b"\r\n\r\n", 1)[1])["points"] == 25


@pytest.fixture(scope="module")
def impatient() -> Iterator[Server]:
    """A server giving a request's head one second to arrive."""
    with running_server(**FAST, REQUEST_HEAD_SECONDS="1") as started:
        yield started


@pytest.mark.parametrize("sent", [b"", b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: "])
def test_a_head_not_sent_in_time_is_answered_408_and_closed(impatient: Server, sent: bytes) -> None:
    # Nothing at all, or a head begun and never ended: the server does not wait without end.
    answer = exchange(impatient, sent) if sent else exchange(impatient)
    assert statuses(answer) == [408]
    assert answer.endswith(b"request line and headers not sent within 1 s")


@pytest.mark.parametrize(
    "extra",
    [
        "Content-Type: application/json\r\nContent-Length: 40\r\n",
        "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n",
    ],
)
def test_a_body_not_sent_in_time_is_answered_408_and_closed(impatient: Server, extra: str) -> None:
    # The head in time, then a body begun and never ended (of a declared length, or chunked):
    # the connection is not held open without end once the head is in.
    begun = b'{"name":' if "Content-Length" in extra else b'8\r\n{"name":'
    answer = exchange(impatient, head("/api/rooms", 10, "POST", extra) + begun)
    assert statuses(answer) == [408]
    assert answer.endswith(b"request body not sent within 1 s")


def test_answers_a_client_does_not_read_end_its_connection(impatient: Server) -> None:
    # Requests sent in one go, whose answers (megabytes) the client never reads: the server
    # does not wait without end for room to write them.
    with socket.socket() as client:
        client.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        client.settimeout(GUARD_SECONDS)
        client.connect(("127.0.0.1", impatient.port))
        client.sendall(b"GET /openapi.json HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n" * 300)
        wait_until_let_go(client, GUARD_SECONDS)


async def test_a_websocket_and_a_kept_connection_outlive_the_heads_time(impatient: Server) -> None:
    room = create_room(impatient, "Ann")
    ann = Client(impatient, room["code"], room["token"])
    await ann.connect()
    try:
        await asyncio.sleep(2.5)  # past the head's time: nothing of it is left to ring
        await ann.act("settings", settings={"rounds": 2})
        state = await ann.wait_for(lambda s: s["settings"]["rounds"] == 2)
        assert state["players"][0]["connected"] is True
        assert ann.closed is None
    finally:
        await close_all()
    # A request answered, then the next one's head within its time: both served.
    with socket.create_connection(("127.0.0.1", impatient.port), timeout=GUARD_SECONDS) as client:
        client.sendall(head("/healthz", 10))
        first = client.recv(65536)
        client.sendall(head("/healthz", 10, extra="Connection: close\r\n"))
        rest = b""
        while chunk := client.recv(65536):
            rest += chunk
    assert statuses(first) + statuses(rest) == [200, 200]


def test_a_websocket_on_a_connection_kept_from_a_request_outlives_the_heads_time(
    impatient: Server,
) -> None:
    """A proxy keeping its connections to the server (nginx's upstream ``keepalive``) opens a
    WebSocket on one that has served a request already: no time of that request's (its head,
    its body, the next head) is left to end the WebSocket later."""
    code = create_room(impatient, "Ann")["code"]
    with socket.create_connection(("127.0.0.1", impatient.port), timeout=GUARD_SECONDS) as client:
        client.sendall(head("/healthz", 10))
        answer = b""
        while not answer.endswith(b'{"status":"ok"}'):
            answer += client.recv(65536)
        assert statuses(answer) == [200]
        upgrade(client, f"/ws/rooms/{code}")
        time.sleep(2.5)  # past the head's time, and the body's
        client.sendall(masked(0x9, b"still there?"))
        frame = b""
        while len(frame) < 2 + len(b"still there?"):
            chunk = client.recv(65536)
            assert chunk, f"closed by the server after {frame!r}"
            frame += chunk
    assert frame == bytes((0x8A, len(b"still there?"))) + b"still there?"  # its pong


class Quick(HeadLimitedProtocol):
    head_seconds = 1.0


async def test_a_pipelined_request_answered_slowly_is_not_taken_for_a_slow_head() -> None:
    """Two requests in one write: the first answered at once, the second after longer than a
    head may take. The time for the next head starts once both are answered."""

    async def application(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return
        if scope["path"] == "/slow":
            await asyncio.sleep(2.5)
        body = scope["path"].encode()
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": body})

    async with serving(application, "websockets-sansio", http=Quick) as port:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        try:
            writer.write(head("/fast", 10) + head("/slow", 10, extra="Connection: close\r\n"))
            async with asyncio.timeout(GUARD_SECONDS):
                answer = await reader.read()  # to the close after the second answer
        finally:
            writer.close()
    assert statuses(answer) == [200, 200]
    assert b"\r\n/slow\r\n" in answer


LARGE = 600_000  # bytes: about the largest file a page loads (Swagger UI's bundle, gzipped)


class SlowLink(HeadLimitedProtocol):
    """The server's protocol with 1.5 s for a head, and little room in the system's buffer
    for what it sends (as on a slow link: on loopback the system takes megabytes at once)."""

    head_seconds = 1.5

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        sock = transport.get_extra_info("socket")
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 32 * 1024)
        super().connection_made(transport)


async def large_answer(scope: Scope, receive: Receive, send: Send) -> None:
    if scope["type"] != "http":
        return
    await send(
        {
            "type": "http.response.start",
            "status": 200,
            "headers": [(b"content-length", str(LARGE).encode())],
        }
    )
    await send({"type": "http.response.body", "body": b"x" * LARGE})  # in one write


def read_slowly(port: int) -> bytes:
    """Ask for the large answer and read it 4 KB at a time, 20 ms apart: some 3 s in all."""
    with socket.socket() as client:
        client.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 16 * 1024)
        client.settimeout(GUARD_SECONDS)
        client.connect(("127.0.0.1", port))
        client.sendall(head("/large", 10, extra="Connection: close\r\n"))
        answer = b""
        while chunk := client.recv(4096):
            answer += chunk
            time.sleep(0.02)
        return answer


async def test_a_client_reading_slowly_gets_the_whole_answer() -> None:
    """Answers unread for longer than a head may take reset the connection; answers read
    slowly, for longer than that in all, do not."""
    async with serving(large_answer, "websockets-sansio", http=SlowLink) as port:
        answer = await asyncio.to_thread(read_slowly, port)
    assert statuses(answer) == [200]
    assert answer.endswith(b"\r\n\r\n" + b"x" * LARGE)


async def reads_its_body_late(scope: Scope, receive: Receive, send: Send) -> None:
    if scope["type"] != "http":
        return
    await asyncio.sleep(2.5)  # longer than a head, or a body, may take
    message = await receive()
    said = b"read " + message.get("body", b"")
    length = (b"content-length", str(len(said)).encode())
    await send({"type": "http.response.start", "status": 200, "headers": [length]})
    await send({"type": "http.response.body", "body": said})


def expecting(port: int, send_body: bool) -> bytes:
    """A request that waits for "100 Continue" before its body, as HTTP lets a client do; the
    body sent once it comes (if ``send_body``); whatever the server answers, to its close."""
    with socket.create_connection(("127.0.0.1", port), timeout=GUARD_SECONDS) as client:
        extra = "Content-Length: 2\r\nExpect: 100-continue\r\nConnection: close\r\n"
        client.sendall(head("/late", 10, "POST", extra))
        answer = b""
        while not answer.endswith(b"\r\n\r\n"):
            answer += client.recv(1)
        if send_body and answer.startswith(b"HTTP/1.1 100 "):
            client.sendall(b"{}")
        with contextlib.suppress(ConnectionResetError):
            while chunk := client.recv(65536):
                answer += chunk
        return answer


async def test_a_body_waited_for_100_continue_is_timed_from_it() -> None:
    async with serving(reads_its_body_late, "websockets-sansio", http=Quick) as port:
        sent = await asyncio.to_thread(expecting, port, True)
        never = await asyncio.to_thread(expecting, port, False)
    assert statuses(sent) == [100, 200]
    assert sent.endswith(b"\r\n\r\nread {}")
    # And a body never sent after it is still not waited for without end.
    assert statuses(never) == [100, 408]
    assert never.endswith(b"request body not sent within 1 s")
