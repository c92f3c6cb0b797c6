"""A phone's network between a page and the server, which can go dead the way a phone's does.

Dead, its connections stay open and nothing gets through, either way; a new connection fails at
once. Back up, it carries new connections; the ones from before are cut, as a network that came
back with another route would. The server is reached through it at ``url``, an origin of its
own. (Chromium's offline switch, the other way to silence a page, keeps its network process
spinning at a full core for as long as it is on with a socket open.)
"""

from __future__ import annotations

import contextlib
import socket
import struct
import threading
from types import TracebackType

from tests.server import Address

CHUNK = 65536


class Link:
    """A TCP relay to ``server`` on a port of its own; ``cut()`` and ``restore()`` it."""

    def __init__(self, server: Address) -> None:
        self.target = ("127.0.0.1", server.port)
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port: int = self.listener.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self.up = threading.Event()
        self.up.set()
        self.closed = False
        self.lock = threading.Lock()
        self.open: list[socket.socket] = []
        self.threads = [threading.Thread(target=self._accept, daemon=True)]
        self.threads[0].start()

    def cut(self) -> None:
        """Nothing gets through any more; the sockets stay open."""
        self.up.clear()

    def restore(self) -> None:
        """New connections get through again; those from before are cut."""
        self._close_all()
        self.up.set()

    def close(self) -> None:
        self.closed = True
        self.up.set()
        with contextlib.suppress(OSError):
            self.listener.shutdown(socket.SHUT_RDWR)  # wakes the accepting thread
        self.listener.close()
        self._close_all()
        for thread in self.threads:
            thread.join(timeout=10)

    def __enter__(self) -> Link:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.close()

    def _close_all(self) -> None:
        with self.lock:
            sockets, self.open = self.open, []
        for each in sockets:
            reset(each)

    def _accept(self) -> None:
        while not self.closed:
            try:
                page, _ = self.listener.accept()
            except OSError:
                return
            if not self.up.is_set():
                reset(page)
                continue
            try:
                server = socket.create_connection(self.target)
            except OSError:
                page.close()
                continue
            with self.lock:
                self.open += [page, server]
            for source, sink in ((page, server), (server, page)):
                thread = threading.Thread(target=self._pump, args=(source, sink), daemon=True)
                self.threads.append(thread)
                thread.start()

    def _pump(self, source: socket.socket, sink: socket.socket) -> None:
        """Bytes from ``source`` to ``sink`` while the link is up; held while it is down (the
        connection is cut when it comes back), until either side goes."""
        with contextlib.suppress(OSError):
            while data := source.recv(CHUNK):
                self.up.wait()
                if self.closed or source not in self.open:
                    return
                sink.sendall(data)
        with contextlib.suppress(OSError):
            sink.shutdown(socket.SHUT_WR)


def reset(connection: socket.socket) -> None:
    """Close ``connection`` with a reset, not a goodbye (the other side learns nothing it could
    read), waking the thread that waits on it."""
    with contextlib.suppress(OSError):
        connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        connection.shutdown(socket.SHUT_RD)
    connection.close()
