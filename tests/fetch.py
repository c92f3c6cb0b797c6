"""HTTP requests from the tests to their servers, all with one TLS context.

httpx builds a TLS context, loading the whole CA bundle, for every client it makes, and so for
every call such as ``httpx.get``: some 20 ms of CPU, more than the request to a local server
costs. A test run makes thousands of them (a server's start alone polls its health check every
50 ms), so every request here passes the one context made below.
"""

from __future__ import annotations

import ssl
from typing import Any

import httpx

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
