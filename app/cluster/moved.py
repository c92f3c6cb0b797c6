"""A room held by another node of a cluster: the answer that says where, and the close code."""

from __future__ import annotations

from dataclasses import dataclass

# The "room moved" close code: reconnect, at the path the reason gives if it gives one.
CLOSE_MOVED = 4012


@dataclass(frozen=True, slots=True)
class Elsewhere:
    """The room is held by another node, reached at ``path`` (empty: not known yet)."""

    node: str
    path: str


class DatabaseUnreachable(Exception):
    """The database could not be read or written while a room was sought or claimed: the
    room cannot be restored here for now (refused like any failed read, 503 or 1013)."""
