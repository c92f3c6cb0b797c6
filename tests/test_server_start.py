"""A test server counts as started only when it is the one listening on its port: another
process that took the port between the probe and the server, and answers there, is not it."""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from tests.server import FAST, PortTaken, Server, free_port, listens, migrate, server_env


class Healthy(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def squatter() -> Iterator[ThreadingHTTPServer]:
    """Another server on a port, answering 200 to everything."""
    other = ThreadingHTTPServer(("127.0.0.1", free_port()), Healthy)
    thread = threading.Thread(target=other.serve_forever, daemon=True)
    thread.start()
    yield other
    other.shutdown()
    other.server_close()


def test_a_port_another_server_answers_on_is_taken(
    squatter: ThreadingHTTPServer, tmp_path: Path
) -> None:
    port = squatter.server_address[1]
    assert isinstance(port, int)
    url = f"sqlite+aiosqlite:///{tmp_path}/spectrum.db"
    migrate(url)
    server = Server(server_env(HOST="127.0.0.1", PORT=str(port), DATABASE_URL=url, **FAST), port)
    with pytest.raises(PortTaken):
        server.start()
    assert server.process is not None
    assert server.process.poll() is not None


def test_listens_tells_the_holder_of_a_port(squatter: ThreadingHTTPServer) -> None:
    port = squatter.server_address[1]
    assert isinstance(port, int)
    assert listens(os.getpid(), port) is True
    assert listens(os.getpid(), free_port()) is False
