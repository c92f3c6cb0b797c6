"""Idempotent actions: an action's id is a key, per seat and per match, to the answer it got.

A seat that sends an action with an id it already used in this match is answered as the first
time (the acknowledging patch, or the same error) and nothing is applied again. A string id
holds across connections (a client retrying after a reconnect); an integer id holds on its own
connection only, since a page numbers its actions from 1 again when it is reloaded. The memory
is bounded: the latest ``KEPT_PER_SEAT`` ids of each seat, forgotten when a new match starts.
It is the room's memory, not the journal's: after a server restart an id is new again (see
docs/protocol.md).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from app.rooms.connection import Connection
    from app.rooms.frames import Frames
    from app.rooms.protocol import ClientMessage
    from app.rooms.state import RoomState

KEPT_PER_SEAT = 256


def keyed(connection: Connection, message_id: object) -> object:
    """The key an id is kept under: a string as it is, an integer with its connection."""
    return message_id if isinstance(message_id, str) else (connection.serial, message_id)


class Replies:
    """The answers given to each seat's action ids in the current match.

    An answer is None for an acknowledged action, else the error frame that refused it.
    """

    __slots__ = ("match_id", "seats")

    def __init__(self) -> None:
        self.match_id: str | None = None
        self.seats: dict[int, dict[object, bytes | None]] = {}

    def repeat(
        self, state: RoomState, frames: Frames, connection: Connection, message: ClientMessage
    ) -> bool:
        """If the sender's seat used this id before in this match, answer as then: True."""
        if message.id is None or connection.seat is None or state.match_id != self.match_id:
            return False
        answers = self.seats.get(connection.seat)
        key = keyed(connection, message.id)
        if answers is None or key not in answers:
            return False
        answer = answers[key]
        if answer is None:
            frames.send_patches(state, [connection], [], connection, message.id)
        else:
            connection.push(answer)
        return True

    def keep(
        self,
        state: RoomState,
        match_id: str | None,
        connection: Connection,
        key: object,
        answer: bytes | None,
    ) -> None:
        """Remember the answer given to an action of the sender's seat, if the action came
        during the match ``match_id`` (the room's when it came) and started no other."""
        if key is None or connection.seat is None or match_id is None:
            return
        if state.match_id != match_id:
            return
        if state.match_id != self.match_id:
            self.match_id = state.match_id
            self.seats = {}
        answers = self.seats.setdefault(connection.seat, {})
        answers[keyed(connection, key)] = answer
        if len(answers) > KEPT_PER_SEAT:
            del answers[next(iter(answers))]
