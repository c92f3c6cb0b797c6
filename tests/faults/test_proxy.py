"""The fault proxy itself: a reset reaches both of its ends, so a test that cuts the database's
connections leaves none open on the database's side; a closed proxy takes no connection; a
connection one end closes is closed at the other, and let go."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from tests.faults.proxy import Proxy


@contextmanager
def proxied() -> Iterator[tuple[Proxy, socket.socket, socket.socket]]:
    """A connection through a proxy: the proxy, its near end, and its far end."""
    with socket.create_server(("127.0.0.1", 0)) as upstream_listener:
        upstream_listener.settimeout(30)
        proxy = Proxy(upstream_listener.getsockname())
        try:
            with socket.create_connection(("127.0.0.1", proxy.port), timeout=30) as near:
                far, _ = upstream_listener.accept()
                with far:
                    far.settimeout(30)
                    yield proxy, near, far
        finally:
            proxy.close()


def test_a_reset_reaches_both_ends() -> None:
    with proxied() as (proxy, near, far):
        near.sendall(b"ping")
        assert far.recv(16) == b"ping"  # relayed: both relay threads are started
        proxy.reset()
        for end in (near, far):
            with pytest.raises(ConnectionResetError):
                end.recv(16)


def test_a_closed_proxy_takes_no_connection() -> None:
    with socket.create_server(("127.0.0.1", 0)) as upstream_listener:
        upstream_listener.settimeout(1)
        proxy = Proxy(upstream_listener.getsockname())
        proxy.close()
        with pytest.raises(ConnectionRefusedError):
            socket.create_connection(("127.0.0.1", proxy.port), timeout=30).close()
        with pytest.raises(TimeoutError):
            upstream_listener.accept()  # nothing was relayed


def test_a_connection_one_end_closes_is_closed_at_the_other_and_let_go() -> None:
    with proxied() as (proxy, near, far):
        far.close()
        assert near.recv(16) == b""  # told by a FIN, not a reset
        # The proxy let both sockets go before it sent the FIN.
        with proxy.lock:
            assert proxy.sockets == set()
