"""Spectators who read nothing and ask for whole states: how much memory the server holds.

One server with the default limits. A room whose state is made large (its chat filled with 50
lines of 200 emoji, some 44 KB a state) is watched by CONNECTIONS spectators from each of
ADDRESSES loopback addresses (127.0.0.1, .2, ...), each with a 4 KB receive buffer, reading
nothing and sending `resync` 19 times a second (within the message rate) for S seconds. Each
resync asks for a whole state; what the server cannot send waits in its queue for that
connection (bounded by SEND_QUEUE_FRAMES and SEND_QUEUE_KB, past which it is closed, 4008).
Reports the server's resident memory before, at its highest during, and after.

Run (when the machine is otherwise idle): .venv/bin/python -m bench.slow_readers
    [--seconds 20] [--addresses 3] [--connections 32]
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import socket
import struct
import time

from websockets.sync.client import connect

from tests import fetch
from tests.server import Server, running_server

LINE = "\U0001f525" * 200  # 800 bytes of UTF-8, 200 characters: the longest chat line


def resident_kib(pid: int) -> int:
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise RuntimeError("no VmRSS")


class Socket:
    """A WebSocket over a plain socket from ``address``, which reads only its handshake."""

    def __init__(self, server: Server, path: str, address: str, receive_buffer: int) -> None:
        self.sock = socket.socket()
        self.sock.bind((address, 0))
        if receive_buffer:
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, receive_buffer)
        self.sock.connect(("127.0.0.1", server.port))
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall(
            f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\nUpgrade: websocket\r\n"
            f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
            "Sec-WebSocket-Version: 13\r\n\r\n".encode()
        )
        head = b""
        while b"\r\n\r\n" not in head:
            head += self.sock.recv(1)  # the handshake's answer, not a byte of what follows
        assert head.startswith(b"HTTP/1.1 101"), head

    def send(self, text: str) -> bool:
        """A masked text frame; False once the server has closed the connection."""
        payload = text.encode()
        mask = os.urandom(4)
        size = len(payload)
        header = bytes([0x81, 0x80 | size]) if size < 126 else b"\x81\xfe" + struct.pack(">H", size)
        try:
            self.sock.sendall(header + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload)))
        except OSError:
            return False
        return True


def fill_chat(server: Server, code: str, token: str) -> None:
    """The host lets spectators chat; spectators from ten addresses say five lines each."""
    host = Socket(server, f"/ws/rooms/{code}", "127.0.0.1", 0)
    host.send(json.dumps({"type": "hello", "token": token}))
    host.send('{"type":"spectator_chat","allowed":true}')
    time.sleep(0.3)
    for n in range(10):
        watcher = Socket(server, f"/ws/rooms/{code}", f"127.0.1.{n + 1}", 0)
        watcher.send('{"type":"hello","spectate":true}')
        for _ in range(5):
            watcher.send(json.dumps({"type": "chat", "text": LINE}))
        time.sleep(0.2)
        watcher.sock.close()
    host.sock.close()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--addresses", type=int, default=3)
    parser.add_argument("--connections", type=int, default=32)
    arguments = parser.parse_args()
    with running_server() as server:
        assert server.process is not None
        pid = server.process.pid
        room = fetch.post(f"{server.url}/api/rooms", json={"name": "Ann"}).json()
        fill_chat(server, room["code"], room["token"])
        with connect(f"{server.ws_url}/ws/rooms/{room['code']}") as watching:
            watching.send('{"type":"hello","spectate":true}')
            state_bytes = len(str(watching.recv(timeout=10)).encode())
        time.sleep(1)
        before = resident_kib(pid)
        readers = [
            Socket(server, f"/ws/rooms/{room['code']}", f"127.0.0.{a + 1}", 4096)
            for a in range(arguments.addresses)
            for _ in range(arguments.connections)
        ]
        for reader in readers:
            reader.send('{"type":"hello","spectate":true}')
        highest, sent, stop = before, 0, time.monotonic() + arguments.seconds
        while time.monotonic() < stop:
            sent += sum(reader.send('{"type":"resync"}') for reader in readers)
            highest = max(highest, resident_kib(pid))
            time.sleep(1 / 19)
        for reader in readers:
            reader.sock.close()
        time.sleep(2)
        after = resident_kib(pid)
        print(
            f"{len(readers)} readers from {arguments.addresses} address(es), "
            f"{sent} resyncs in {arguments.seconds:g} s (a state of {state_bytes:,} bytes): "
            f"resident memory {before / 1024:.1f} MiB before, {highest / 1024:.1f} at most, "
            f"{after / 1024:.1f} after"
        )


if __name__ == "__main__":
    main()
