"""In cluster mode: which node serves a room, and where a request for a room held elsewhere goes.

A request for a room another node holds is answered 307 with the same path under that node's
prefix, which the load balancer sends to that node alone; while a room changes hands (no node is
known to hold it yet) the answer is 503 with Retry-After.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from fastapi import Request
from fastapi.responses import JSONResponse, RedirectResponse, Response
from starlette.requests import HTTPConnection

from app.cluster.moved import DatabaseUnreachable, Elsewhere
from app.rooms.live import LiveRoom
from app.rooms.registry import normalise_code

if TYPE_CHECKING:
    from app.cluster.node import ClusterNode

log = logging.getLogger(__name__)


MOVING = "the room is moving to another server; try again in a moment"


class Moved(Exception):
    """The request belongs to another node: at ``location``, or unknown for a moment (None)."""

    def __init__(self, location: str | None, detail: str = MOVING) -> None:
        super().__init__(location or "moving")
        self.location = location
        self.detail = detail


async def moved_handler(request: Request, error: Exception) -> Response:
    """A 307 to the node that serves the request, or a 503 while the room changes hands."""
    assert isinstance(error, Moved)
    if error.location:
        return RedirectResponse(error.location, status_code=307)
    return JSONResponse(
        {"detail": error.detail, "code": "moving"},
        status_code=503,
        headers={"Retry-After": "1"},
    )


def there(node_path: str, connection: HTTPConnection) -> str:
    """This request's path and query under another node's prefix."""
    query = connection.url.query
    return f"{node_path}{connection.url.path}" + (f"?{query}" if query else "")


async def locate(cluster: ClusterNode, code: str) -> LiveRoom | Elsewhere | None:
    """The room if this node serves it (claiming it if nobody does), where it is, or None.
    Without Redis only rooms held here are found; the others are "moving" until it is back."""
    from redis.exceptions import RedisError  # a cluster's only: Redis is not loaded without

    normal = normalise_code(code)
    if normal is None:
        return None
    try:
        return await cluster.locate(normal)
    except DatabaseUnreachable as error:
        log.warning(
            "room %s cannot be restored while the database is unreachable: %s", normal, error
        )
        raise
    except (RedisError, OSError) as error:
        log.warning("room %s cannot be sought while Redis is unreachable: %s", normal, error)
        return Elsewhere("", "")


async def cluster_error_handler(request: Request, error: Exception) -> Response:
    """Redis unreachable: what needs it (a new room, a room not held here) is refused for now."""
    log.warning("Redis unreachable: %s", error)
    return JSONResponse(
        {"detail": "the cluster cannot place rooms right now; try again soon", "code": "moving"},
        status_code=503,
        headers={"Retry-After": "2"},
    )


def socket_path(cluster: ClusterNode | None, code: str) -> str:
    """The path a room's WebSocket is reached at."""
    return cluster.socket_path(code) if cluster is not None else f"/ws/rooms/{code}"
