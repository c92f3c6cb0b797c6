"""The frames a room sends: full states, and patches from what each connection last held.

The public view is diffed once against what everyone holds and serialised once per encoding
(standard RFC 6902, or compact or binary for the connections that asked for it); each connection
then gets that plus its own ``you`` changes, queued without awaiting a socket.
"""

from __future__ import annotations

from typing import Any, Literal

import orjson

from app.rooms import compact, packed, protocol
from app.rooms.compact import CompactConnection
from app.rooms.connection import Connection
from app.rooms.packed import BinaryConnection
from app.rooms.patch import diff, round_ops
from app.rooms.state import RoomState
from app.rooms.table import Table
from app.rooms.timers import RoomTimers
from app.rooms.views import View, ViewBuilder

# The connection each encoding a hello may ask for is written by.
CONNECTIONS: dict[str, type[Connection]] = {
    "standard": Connection,
    "compact": CompactConnection,
    "binary": BinaryConnection,
}


def join_ops(shared: bytes, private: list[Any]) -> bytes:
    """One JSON Patch array: the shared ops (already serialised) followed by private ones."""
    if not private:
        return shared
    extra = orjson.dumps(private)
    if shared == b"[]":
        return extra
    return shared[:-1] + b"," + extra[1:]


# What a change can have touched of the public view: only the round (a move that left it going),
# only the chat, or anything.
Scope = Literal["round", "chat", "all"]


def chat_ops(before: View, after: View) -> list[dict[str, Any]]:
    """The ops that bring the chat ``before`` up to ``after``: lines that dropped off the front
    are removed and new lines added at the end, so a full chat costs two ops a line, not a
    replace of every line that moved up one."""
    if before is after:
        return []
    ops = [
        {"op": "replace", "path": f"/chat/{key}", "value": after[key]}
        for key in ("muted", "spectators")
        if before.get(key) != after[key]
    ]
    old, new = before.get("lines"), after["lines"]
    if old is new:
        return ops
    if old is None:
        return [{"op": "replace", "path": "/chat", "value": after}]
    first = new[0]["n"] if new else None
    dropped = next((i for i, line in enumerate(old) if line["n"] == first), len(old))
    kept = len(old) - dropped
    if len(new) >= kept and all(a is b for a, b in zip(old[dropped:], new, strict=False)):
        ops += [{"op": "remove", "path": "/chat/lines/0"}] * dropped
        ops += [{"op": "add", "path": "/chat/lines/-", "value": line} for line in new[kept:]]
    else:  # lines changed in place (a seat left): send them all again
        ops.append({"op": "replace", "path": "/chat/lines", "value": new})
    return ops


class Frames:
    """The public view every connection holds, and the frames that bring connections up to date."""

    __slots__ = ("public", "views")

    def __init__(self, views: ViewBuilder, public: View) -> None:
        self.views = views
        self.public = public

    def send_state(self, state: RoomState, connection: Connection, now: int) -> None:
        """Queue a full state for one connection."""
        you = self.views.private(state, connection.seat)
        connection.you = you
        connection.version += 1
        document = {**self.public, "you": you}
        if type(connection) is not Connection:
            # The answer to hello carries the tables that decode the compact (or binary) patches.
            tables = connection.version == 1
            connection.push(compact.state_frame(connection.version, document, now, tables))
        else:
            connection.push(protocol.state_frame(connection.version, document, now))

    def public_view(self, state: RoomState, table: Table, timers: RoomTimers) -> View:
        """The whole public view of the room as it now stands."""
        return self.views.public(
            state,
            table.presence(state),
            table.standins(),
            table.spectators(),
            timers.turn.deadline,
            timers.ready.deadline,
        )

    def publish(
        self,
        state: RoomState,
        table: Table,
        timers: RoomTimers,
        sender: Connection | None,
        ack: object,
        scope: Scope,
        everyone: bool = False,
    ) -> None:
        """Send every connection at the table what changed since the last publish.

        ``scope`` "round": only the round's public face can have changed (a move that left the
        round going), so only it is rebuilt and compared: the most frequent change, at a
        fraction of the cost of the whole view. "chat": only the chat can have changed.
        ``everyone``: each connection gets a patch, an empty one if nothing changed for it.
        """
        if scope == "round":
            ops = self.round_changed(state, timers.turn.deadline)
        elif scope == "chat":
            ops = self.chat_changed(state)
        else:
            ops = self.public_changed(self.public_view(state, table, timers))
        self.send_patches(state, table.connections, ops, sender, ack, everyone)

    def round_changed(self, state: RoomState, deadline: int | None) -> list[dict[str, Any]]:
        """Rebuild only the round's public face; the ops that bring it up to date."""
        before, after = self.public["round"], self.views.round(state, deadline)
        self.public["round"] = after
        if before is None or after is None:
            return diff(before, after, "/round")
        return round_ops(before, after, "/round")

    def chat_changed(self, state: RoomState) -> list[dict[str, Any]]:
        """Rebuild only the chat; the ops that bring it up to date."""
        before, after = self.public["chat"], self.views.chat(state)
        self.public["chat"] = after
        return chat_ops(before, after)

    def public_changed(self, public: View) -> list[dict[str, Any]]:
        """Take ``public`` as the new public view; the ops that bring the old one up to date."""
        old = self.public
        if "chat" in old and old["chat"] is not public["chat"]:
            ops = diff(old, {**public, "chat": old["chat"]}) + chat_ops(old["chat"], public["chat"])
        else:
            ops = diff(old, public)
        self.public = public
        return ops

    def send_patches(
        self,
        state: RoomState,
        connections: list[Connection],
        ops: list[dict[str, Any]],
        sender: Connection | None,
        ack: object,
        everyone: bool = False,
    ) -> None:
        """Send each connection the shared ``ops`` and its own ``you`` changes; the sender's
        patch carries ``ack`` (even when nothing changed). With ``everyone`` each connection
        gets a patch, empty if nothing changed for it. The shared ops are serialised once per
        encoding, when a connection first needs them."""
        shared: bytes | None = None
        encoded: list[Any] | None = None
        short: bytes | None = None
        binary: packed.Packed | None = None
        for connection in connections:
            if connection.you is None:
                continue  # its first state is on the way and already holds this change
            you = self.views.private(state, connection.seat)
            private = diff(connection.you, you, "/you") if connection.you is not you else []
            connection.you = you
            acknowledged = connection is sender and ack is not None
            if not ops and not private and not acknowledged and not everyone:
                continue
            connection.version += 1
            kind = type(connection)
            if kind is BinaryConnection:
                if binary is None:
                    if encoded is None:
                        encoded = compact.encode(ops)
                    binary = packed.pack_ops(encoded)
                frame = packed.patch_frame(
                    connection.version,
                    binary,
                    compact.encode(private) if private else private,
                    ack if acknowledged else None,
                )
                connection.push(frame, True)
                continue
            if kind is CompactConnection:
                if short is None:
                    if encoded is None:
                        encoded = compact.encode(ops)
                    short = orjson.dumps(encoded) if encoded else b"[]"
                ops_bytes = join_ops(short, compact.encode(private) if private else private)
                frame = compact.patch_frame(
                    connection.version, ops_bytes, ack if acknowledged else None
                )
            else:
                if shared is None:
                    shared = orjson.dumps(ops) if ops else b"[]"
                ops_bytes = join_ops(shared, private)
                frame = protocol.patch_frame(
                    connection.version, ops_bytes, ack if acknowledged else None
                )
            connection.push(frame)
