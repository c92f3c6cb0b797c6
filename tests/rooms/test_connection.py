"""A connection never makes the room wait: sends that stall are finished by a task, behind
which later frames queue, up to a bound."""

from __future__ import annotations

import asyncio
from typing import Any

from app.rooms.connection import CLOSE_BEHIND, Connection


class Socket:
    """The far side of a connection: records messages; can be made to stall."""

    def __init__(self) -> None:
        self.messages: list[dict[str, Any]] = []
        self.open = asyncio.Event()
        self.open.set()
        self.broken = False

    async def send(self, message: dict[str, Any]) -> None:
        await self.open.wait()
        if self.broken:
            raise OSError("connection reset")
        self.messages.append(message)

    def texts(self) -> list[str]:
        return [message.get("text", message["type"]) for message in self.messages]


async def test_frames_go_out_at_once_and_in_order() -> None:
    socket = Socket()
    connection = Connection(socket.send, 0, max_queue=4)
    for number in range(3):
        connection.push(b"frame %d" % number)
    assert socket.texts() == ["frame 0", "frame 1", "frame 2"]  # no await was needed
    assert connection.writer is None


async def test_a_stalled_send_is_finished_later_with_what_queued_behind_it() -> None:
    socket = Socket()
    connection = Connection(socket.send, 0, max_queue=4)
    socket.open.clear()
    for number in range(3):
        connection.push(b"frame %d" % number)
    assert socket.texts() == []
    assert connection.writer is not None
    assert len(connection.queue) == 2
    socket.open.set()
    await asyncio.wait_for(asyncio.shield(connection.writer), 1)
    assert socket.texts() == ["frame 0", "frame 1", "frame 2"]
    connection.push(b"frame 3")
    assert socket.texts()[-1] == "frame 3"


async def test_a_client_too_far_behind_is_closed() -> None:
    socket = Socket()
    connection = Connection(socket.send, 0, max_queue=2)
    socket.open.clear()
    for number in range(5):
        connection.push(b"frame %d" % number)
    assert connection.closing is not None
    assert connection.closing[0] == CLOSE_BEHIND
    assert not connection.queue
    connection.push(b"ignored")
    socket.open.set()
    assert connection.writer is not None
    await asyncio.wait_for(asyncio.shield(connection.writer), 1)
    assert socket.texts() == ["frame 0", "websocket.close"]
    assert socket.messages[-1]["code"] == CLOSE_BEHIND


async def test_a_broken_socket_is_given_up() -> None:
    socket = Socket()
    socket.broken = True
    connection = Connection(socket.send, None, max_queue=2)
    connection.push(b"frame")
    assert connection.gone
    connection.push(b"more")
    assert socket.messages == []


async def test_a_client_is_closed_when_its_queue_outgrows_its_bytes() -> None:
    """Few frames, but large ones (whole states): the bytes waiting are bounded too, the send
    under way counted with them."""
    socket = Socket()
    connection = Connection(socket.send, 0, max_queue=100, max_bytes=1000)
    socket.open.clear()
    connection.push(b"a" * 400)  # under way, waiting
    connection.push(b"b" * 400)
    assert connection.closing is None
    assert connection.queued_bytes == 800
    connection.push(b"c" * 400)  # 1,200 bytes waiting
    assert connection.closing is not None
    assert connection.closing[0] == CLOSE_BEHIND
    socket.open.set()
    assert connection.writer is not None
    await asyncio.wait_for(asyncio.shield(connection.writer), 1)
    assert socket.texts() == ["a" * 400, "websocket.close"]


async def test_bytes_sent_are_no_longer_counted() -> None:
    socket = Socket()
    connection = Connection(socket.send, 0, max_queue=100, max_bytes=1000)
    for _ in range(3):
        socket.open.clear()
        connection.push(b"a" * 400)
        connection.push(b"b" * 400)
        socket.open.set()
        assert connection.writer is not None
        await asyncio.wait_for(asyncio.shield(connection.writer), 1)
        assert connection.queued_bytes == 0
    assert connection.closing is None
    assert len(socket.messages) == 6
