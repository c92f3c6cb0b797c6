"""A real uvicorn server in the test's own process, for an application of the test's."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import uvicorn
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol


@asynccontextmanager
async def serving(
    application: Any,
    ws: str | type[WebSocketsSansIOProtocol],
    max_size: int = 1 << 20,
    http: str | type[asyncio.Protocol] = "httptools",
) -> AsyncIterator[int]:
    """``application`` served on a free port of 127.0.0.1 (yielded) with WebSocket protocol
    ``ws`` (and HTTP protocol ``http``), on the test's own event loop."""
    config = uvicorn.Config(
        application,
        host="127.0.0.1",
        port=0,
        http=http,
        ws=ws,
        ws_per_message_deflate=False,
        ws_max_size=max_size,
        ws_ping_interval=None,
        lifespan="off",
        log_config=None,
    )
    config.load()
    instance = uvicorn.Server(config)
    instance.lifespan = config.lifespan_class(config)
    await instance.startup()
    try:
        yield instance.servers[0].sockets[0].getsockname()[1]
    finally:
        await instance.shutdown()
