"""HTTP requests from the tests to their servers, all with one TLS context.

httpx builds a TLS context, loading the whole CA bundle, for every client it makes, and so for
every call such as ``httpx.get``: some 20 ms of CPU, more than the request to a local server
costs. A test run makes thousands of them (a server's start alone polls its health check every
50 ms), so every request here passes the one context made below.
"""

from __future__ import annotations

import socket
import ssl
from collections.abc import Mapping
from typing import Any

import httpx

from tests.sockets import websocket_request

TLS = ssl.create_default_context()


def request(method: str, url: str, **options: Any) -> httpx.Response:
    """``httpx.request`` with the shared TLS context."""
    return httpx.request(method, url, verify=TLS, **options)


def get(url: str, **options: Any) -> httpx.Response:
    """``httpx.get`` with the shared TLS context."""
    return request("GET", url, **options)


def post(url: str, **options: Any) -> httpx.Response:
    """``httpx.post`` with the shared TLS context."""
    return request("POST", url, **options)


def raw(url: str, **headers: str) -> tuple[httpx.Response, bytes]:
    """A GET's answer and its body exactly as sent, not decoded."""
    with (
        httpx.Client(verify=TLS) as client,
        client.stream("GET", url, headers=headers) as answer,
    ):
        return answer, b"".join(answer.iter_raw())


def handshake_status(port: int, path: str, headers: dict[str, str]) -> int:
    """The HTTP status a WebSocket handshake for ``path`` on 127.0.0.1:``port`` is answered with,
    sent with exactly these ``headers`` (Host among them) besides the handshake's own."""
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        sock.sendall(websocket_request(path, headers))
        answer = b""
        while b"\r\n" not in answer:
            chunk = sock.recv(4096)
            if not chunk:
                break
            answer += chunk
    return int(answer.split(b"\r\n", 1)[0].split()[1])


def refused_handshake(
    port: int, path: str, headers: dict[str, str]
) -> tuple[int, dict[str, str], bytes]:
    """A WebSocket handshake for ``path`` that the server refuses: the status, the headers
    (names in lower case) and the body of its answer, read until the server closes."""
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        sock.sendall(websocket_request(path, headers))
        answer = b""
        while chunk := sock.recv(4096):
            answer += chunk
    head, _, body = answer.partition(b"\r\n\r\n")
    return int(head.split(None, 2)[1]), header_fields(head), body


def header_fields(head: bytes) -> dict[str, str]:
    """The header fields of an answer's ``head`` (its status line and headers), by name in
    lower case."""
    _, *lines = head.decode("latin-1").split("\r\n")
    return {name.lower(): value for name, _, value in (line.partition(": ") for line in lines)}


def assert_safety_headers(headers: Mapping[str, str], where: object = "") -> None:
    """The headers every answer of the server carries (``headers`` read by lower-case name)."""
    assert headers["x-content-type-options"] == "nosniff", where
    assert headers["x-frame-options"] == "DENY", where
    assert headers["referrer-policy"] == "same-origin", where
