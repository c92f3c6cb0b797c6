"""What each client message does to a live room's state, under the room's lock.

``dispatch`` applies one message and says what of the public view it can have changed; a
message that may not be played raises ``IllegalAction`` before anything changes.
"""

from __future__ import annotations

import secrets
import uuid
from typing import TYPE_CHECKING

from app.engine.actions import Action, action_from_dict
from app.engine.errors import IllegalAction
from app.rooms import protocol
from app.rooms.connection import Connection
from app.rooms.frames import Scope
from app.rooms.settings import changed
from app.rooms.state import Status
from app.rooms.timers import millis

if TYPE_CHECKING:
    from app.rooms.live import LiveRoom

CLOSE_KICKED = 4010


def dispatch(room: LiveRoom, connection: Connection, message: protocol.ClientMessage) -> Scope:
    """Apply the message to the room's state; what of the public view it can have changed.
    A spectator may only chat and react (when the host lets them): anything else a seat does
    is refused ``not_a_player``."""
    state, seat, at = room.state, connection.seat, millis(room.clock)
    match message:
        case protocol.TakeMessage() | protocol.DiscardMessage() | protocol.KnockMessage():
            return "round" if _play(room, connection, _move(message, seat)) else "all"
        case protocol.ChatMessage() | protocol.React():
            _chat(room, connection, message, at)
            return "chat"
        case protocol.Mute(seat=target, muted=muted, name=name):
            state.mute(_seat(seat), target, muted, name)
            return "chat"
        case protocol.SpectatorChatMessage(allowed=allowed):
            state.allow_spectator_chat(_seat(seat), allowed)
            return "chat"
        case protocol.Ready():
            state.mark_ready(_seat(seat))  # the announce deals, if it was the last
        case protocol.Start():
            state.start(_seat(seat), uuid.uuid4().hex, secrets.token_hex(32), at)
        case protocol.Rematch():
            state.rematch(_seat(seat), uuid.uuid4().hex, secrets.token_hex(32), at)
        case protocol.ChangeSettings(settings=changes):
            state.change_settings(_seat(seat), changed(state.settings, changes))
        case protocol.Kick(seat=target, name=name):
            state.kick(_seat(seat), target, name)
            _unseat(room, target, CLOSE_KICKED, "the host removed you from the room")
        case protocol.Leave():
            state.leave(_seat(seat))
            _unseat(room, _seat(seat), None, "")
        case protocol.AddBot(level=level):
            state.add_bot(_seat(seat), level)
        case protocol.RemoveBot(seat=target, name=name):
            state.remove_bot(_seat(seat), target, name)
            _unseat(room, target, None, "")
        case protocol.Back():
            room.table.came_back(_seat(seat))
        case protocol.Hello():
            raise IllegalAction("bad_message", "hello is only the first message")
        case _:
            raise IllegalAction("bad_message", f"{message.type} is not handled here")
    return "all"


def _chat(
    room: LiveRoom,
    connection: Connection,
    message: protocol.ChatMessage | protocol.React,
    at: int,
) -> None:
    """Say or react, within the sender's chat limit: a seat's, or for a spectator its
    address's (a spectator who connects again is counted as before)."""
    seat = connection.seat
    watcher = connection.address or connection.serial
    sender = ("seat", seat) if seat is not None else ("watcher", watcher)
    now = room.clock.now()
    room.state.check_chat(seat)
    room.chat_limit.check(sender, now)
    if isinstance(message, protocol.ChatMessage):
        room.state.say(seat, message.text, at)
    else:
        room.state.react(seat, message.reaction, at)
    room.chat_limit.sent(sender, now)


def _seat(seat: int | None) -> int:
    if seat is None:
        raise IllegalAction("not_a_player", "spectators cannot do that; join a seat first")
    return seat


def _move(message: protocol.MoveMessage, seat: int | None) -> Action:
    """The engine action a move asks for: its wire form is the journal's without the seat.
    Its cards are read before the sender's seat is checked."""
    action = action_from_dict({**vars(message), "seat": -1 if seat is None else seat})
    _seat(seat)
    return action


def _play(room: LiveRoom, connection: Connection, action: Action) -> bool:
    """Play a move; True if it left the round going and nobody's stand-in changed."""
    room.state.play(connection.seat, action, millis(room.clock))
    stood_in = room.table.came_back(action.seat)
    return room.state.status is Status.PLAYING and not stood_in


def _unseat(room: LiveRoom, removed: int, code: int | None, reason: str) -> None:
    """A seat left the lobby: renumber the connections and pass the host on if need be."""
    room.table.unseat(removed, code, reason)
    room.frames.views.forget_private()
    room.chat_limit.unseat(removed)
    room.follow_host()
