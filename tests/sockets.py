"""WebSockets opened by hand on a raw socket, and what the system holds of a TCP connection at
the server's end (Linux's /proc/net/tcp)."""

from __future__ import annotations

import base64
import os
import socket
import struct
import time
from pathlib import Path

TABLES = (Path("/proc/net/tcp"), Path("/proc/net/tcp6"))
TIME_WAIT = 0x06  # the state a socket closed by its side ends in, holding nothing


def server_end(server_port: int, client_port: int) -> int | None:
    """The TCP state of the server's end of the connection between these ports, or None if the
    system holds no such socket any more (the server reset it, or it has ended)."""
    ends = (f":{server_port:04X}", f":{client_port:04X}")
    for table in TABLES:
        for line in table.read_text().splitlines()[1:]:
            local, remote, state = line.split()[1:4]
            if (local[-5:], remote[-5:]) == ends:
                return int(state, 16)
    return None


def wait_until_let_go(client: socket.socket, seconds: float) -> float:
    """Wait until the system holds nothing of the server's end of ``client``'s connection (no
    socket, or one that has ended): the seconds that took. Fails past ``seconds``.

    The client's own end is no sign of it: a reset sent to a client that reads nothing may be
    dropped by its system (its window shut, the reset's sequence number beyond what it took),
    which then keeps its end established."""
    start = time.monotonic()
    try:
        ports = (client.getpeername()[1], client.getsockname()[1])
    except OSError:  # reset already, and taken
        return 0.0
    while server_end(*ports) not in (None, TIME_WAIT):
        assert time.monotonic() < start + seconds, "the server still holds the socket"
        time.sleep(0.1)
    return time.monotonic() - start


def websocket_request(path: str, headers: dict[str, str]) -> bytes:
    """A WebSocket handshake's request for ``path``, with exactly these ``headers`` (Host
    among them) besides the handshake's own."""
    key = base64.b64encode(os.urandom(16)).decode()
    lines = [f"GET {path} HTTP/1.1", *(f"{name}: {value}" for name, value in headers.items())]
    lines += ["Upgrade: websocket", "Connection: Upgrade", f"Sec-WebSocket-Key: {key}"]
    return "\r\n".join([*lines, "Sec-WebSocket-Version: 13", "", ""]).encode()


def upgrade(client: socket.socket, path: str) -> None:
    """Open a WebSocket at ``path`` on ``client``'s connection: the handshake's answer, which
    must be 101, is read to its end and no further (no frame after it is taken)."""
    client.sendall(websocket_request(path, {"Host": "127.0.0.1"}))
    answer = b""
    while b"\r\n\r\n" not in answer:
        answer += client.recv(1)
    assert answer.startswith(b"HTTP/1.1 101 "), answer


def reading_little(port: int, timeout: float) -> socket.socket:
    """A client connected to 127.0.0.1:``port`` whose system takes 4 KB at most unread."""
    client = socket.socket()
    client.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    client.settimeout(timeout)
    client.connect(("127.0.0.1", port))
    return client


def raw_frame(first: int, payload: bytes, masked: bool = True) -> bytes:
    """A frame with its first byte as given (opcode, FIN and reserved bits)."""
    length = len(payload)
    head = bytes([first])
    mask_bit = 0x80 if masked else 0
    if length < 126:
        head += bytes([mask_bit | length])
    elif length < 1 << 16:
        head += bytes([mask_bit | 126]) + struct.pack("!H", length)
    else:
        head += bytes([mask_bit | 127]) + struct.pack("!Q", length)
    if not masked:
        return head + payload
    mask = os.urandom(4)
    return head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


def masked(opcode: int, payload: bytes) -> bytes:
    """A client's whole (FIN) frame of ``opcode``, masked as a client's must be."""
    return raw_frame(0x80 | opcode, payload)
