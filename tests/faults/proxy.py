"""A TCP proxy between the server and PostgreSQL (or a browser and the server) that a test
controls: it passes bytes on, drops them all (a blackhole: connections stay open, nothing
arrives; or a network gone: the same, and new connections are refused at once), cuts every
connection with a reset, or delays each chunk."""

from __future__ import annotations

import contextlib
import socket
import struct
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from urllib.parse import urlsplit

from sqlalchemy.engine import make_url

PASS, BLACKHOLE, DOWN, SLOW = "pass", "blackhole", "down", "slow"
DROPPING = (BLACKHOLE, DOWN)


class Proxy:
    """Listens on a free port of 127.0.0.1 and forwards to ``target`` as ``mode`` says."""

    def __init__(self, target: tuple[str, int]) -> None:
        self.target = target
        self.mode = PASS
        self.delay = 0.0
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port: int = self.listener.getsockname()[1]
        self.sockets: set[socket.socket] = set()
        self.lock = threading.Lock()
        self.running = True
        threading.Thread(target=self._accept, daemon=True).start()

    def url_for(self, database_url: str) -> str:
        """``database_url`` pointed at the proxy instead of the database."""
        return (
            make_url(database_url)
            .set(host="127.0.0.1", port=self.port)
            .render_as_string(hide_password=False)
        )

    def blackhole(self) -> None:
        """Drop everything from now on, in both directions; connections stay open."""
        self.mode = BLACKHOLE

    def down(self) -> None:
        """A phone's network gone: the blackhole, and new connections refused with a reset."""
        self.mode = DOWN

    def slow(self, delay: float) -> None:
        """Delay each chunk by ``delay`` seconds."""
        self.delay, self.mode = delay, SLOW

    def heal(self) -> None:
        """Pass bytes on again (connections that lost bytes meanwhile stay broken: cut them)."""
        if self.mode in DROPPING:
            self.reset()
        self.mode = PASS

    def reset(self) -> None:
        """Cut every open connection with a TCP reset."""
        with self.lock:
            sockets, self.sockets = self.sockets, set()
        for sock in sockets:
            _reset(sock)

    def close(self) -> None:
        """Stop listening and cut everything."""
        self.running = False
        with contextlib.suppress(OSError):
            # Wakes the accepting thread: a close alone would leave it blocked, still taking
            # connections.
            self.listener.shutdown(socket.SHUT_RDWR)
        with contextlib.suppress(OSError):
            self.listener.close()
        self.reset()

    def _accept(self) -> None:
        while self.running:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            if self.mode == DOWN:
                _reset(client)
                continue
            threading.Thread(target=self._serve, args=(client,), daemon=True).start()

    def _serve(self, client: socket.socket) -> None:
        try:
            upstream = socket.create_connection(self.target, timeout=5)
            upstream.settimeout(None)
        except OSError:
            client.close()
            return
        with self.lock:
            self.sockets |= {client, upstream}
        threading.Thread(target=self._pump, args=(upstream, client), daemon=True).start()
        self._pump(client, upstream)

    def _pump(self, source: socket.socket, sink: socket.socket) -> None:
        try:
            while True:
                data = source.recv(65536)
                if not data:
                    break
                if self.mode in DROPPING:
                    continue
                if self.mode == SLOW:
                    time.sleep(self.delay)
                sink.sendall(data)
        except OSError:
            pass
        finally:
            # An end closed: the other is told (FIN), and both sockets are let go (the other
            # relay thread, woken by the shutdown, finds them gone). Unless a reset took them:
            # it ends them, and a FIN sent now would reach the far end before its reset.
            with self.lock:
                ours = source in self.sockets
                self.sockets -= {source, sink}
            if ours:
                for sock in (source, sink):
                    with contextlib.suppress(OSError):
                        sock.shutdown(socket.SHUT_RDWR)
                    sock.close()


def _reset(sock: socket.socket) -> None:
    """Close ``sock`` with a TCP reset. Its reading end is shut first: a relay thread blocked
    reading it would otherwise keep the socket alive after the close, and the other end (the
    database's) would never be told, holding a connection until this process ends."""
    with contextlib.suppress(OSError):
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    with contextlib.suppress(OSError):
        sock.shutdown(socket.SHUT_RD)
    with contextlib.suppress(OSError):
        sock.close()


@contextmanager
def proxy_to(database_url: str) -> Iterator[Proxy]:
    """A proxy in front of the PostgreSQL server of ``database_url``."""
    parts = urlsplit(make_url(database_url).set(drivername="postgresql").render_as_string())
    proxy = Proxy((parts.hostname or "127.0.0.1", parts.port or 5432))
    try:
        yield proxy
    finally:
        proxy.close()
