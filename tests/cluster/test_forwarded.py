"""What nginx tells the nodes of a request: the address it came from, never one the client
wrote (the nodes trust nginx's word, so a written one would escape the per-address limits), and
the scheme a TLS proxy in front says the player used."""

from __future__ import annotations

import base64
import os
import socket
from collections.abc import Iterator

import pytest

from tests import fetch
from tests.cluster.harness import Cluster, running_cluster


@pytest.fixture(scope="module")
def cluster() -> Iterator[Cluster]:
    with running_cluster(count=1, ROOMS_PER_ADDRESS_PER_MINUTE="2") as started:
        yield started


def test_an_address_the_client_writes_is_not_taken(cluster: Cluster) -> None:
    answers = [
        fetch.post(
            f"{cluster.front.url}/api/rooms",
            json={"name": "Ann"},
            headers={"X-Forwarded-For": f"198.51.100.{n}"},
            follow_redirects=True,
        ).status_code
        for n in range(1, 4)
    ]
    assert answers == [201, 201, 429]


def handshake(cluster: Cluster, path: str, origin: str, proto: str | None) -> str:
    """The status line a WebSocket handshake through nginx is answered with."""
    key = base64.b64encode(os.urandom(16)).decode()
    said = f"X-Forwarded-Proto: {proto}\r\n" if proto else ""
    request = (
        f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{cluster.front.port}\r\nOrigin: {origin}\r\n"
        f"{said}Upgrade: websocket\r\nConnection: Upgrade\r\n"
        f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
    )
    with socket.create_connection(("127.0.0.1", cluster.front.port), timeout=30) as sock:
        sock.sendall(request.encode())
        answer = b""
        while b"\r\n" not in answer:
            chunk = sock.recv(4096)
            if not chunk:
                break
            answer += chunk
    return answer.split(b"\r\n", 1)[0].decode()


def test_a_page_at_https_behind_a_tls_proxy_opens_its_socket(cluster: Cluster) -> None:
    # Made at the node itself, which takes the address its trusted neighbour (this test) names:
    # the limit nginx's clients share is the other test's.
    [node] = cluster.nodes.values()
    made = fetch.post(
        f"{node.url}/api/rooms", json={"name": "Bob"}, headers={"X-Forwarded-For": "203.0.113.9"}
    )
    room = made.json()
    page = f"https://127.0.0.1:{cluster.front.port}"
    assert handshake(cluster, room["socket"], page, "https").split()[1] == "101"
    # Without the proxy's word the page's scheme is not the server's, as before.
    assert handshake(cluster, room["socket"], page, None).split()[1] == "403"
    assert handshake(cluster, room["socket"], page, "gopher").split()[1] == "403"
