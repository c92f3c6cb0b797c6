"""The WebSocket protocol: client messages validated once, server messages as bytes.

See docs/protocol.md for every message with examples.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, get_args

import orjson
from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError
from pydantic_core import from_json

ActionId = Annotated[str, Field(max_length=64)] | Annotated[int, Field(ge=0, le=2**53)]
CardId = Annotated[str, Field(max_length=32)]
# Who the sender takes the seat a message names to hold: if someone else holds it by then
# (seats move down when a player leaves the lobby), the message is refused.
SeatName = Annotated[str, Field(max_length=128)]


class _Message(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    id: ActionId | None = None


class Hello(_Message):
    """The first message: a seat's token, or a wish to watch; and how patches are to be written
    (RFC 6902 JSON Patch unless the client asks for the compact encoding, or for the binary
    one: compact patches in MessagePack)."""

    type: Literal["hello"]
    token: Annotated[str, Field(min_length=1, max_length=128)] | None = None
    spectate: bool = False
    encoding: Literal["standard", "compact", "binary"] = "standard"


class Resync(_Message):
    """Ask for a fresh full state."""

    type: Literal["resync"]


class Ping(_Message):
    """The client's heartbeat: answered at once with a pong, outside the versioned stream.
    ``hidden``: the page is out of sight, where a browser may wake its timers only once a
    minute, so its pings may come that far apart."""

    type: Literal["ping"]
    hidden: bool = False


class Start(_Message):
    """The host starts the match."""

    type: Literal["start"]


class TakeMessage(_Message):
    """Take the top card of each listed pile (0-3 draw piles, 4 the discard pile)."""

    type: Literal["take"]
    piles: list[int] = Field(max_length=64)


class DiscardMessage(_Message):
    """Discard cards by id; the last becomes the top of the discard pile."""

    type: Literal["discard"]
    cards: list[CardId] = Field(max_length=64)


class KnockMessage(_Message):
    """Knock instead of taking."""

    type: Literal["knock"]


class Ready(_Message):
    """Ready for the next round."""

    type: Literal["ready"]


class Kick(_Message):
    """The host removes a player from the lobby."""

    type: Literal["kick"]
    seat: int
    name: SeatName | None = None


class ChangeSettings(_Message):
    """The host changes some settings in the lobby; the rest stay as they are."""

    type: Literal["settings"]
    settings: dict[str, Any]


class Rematch(_Message):
    """The host starts a new match after the last one ended."""

    type: Literal["rematch"]


class Leave(_Message):
    """Give up one's seat in the lobby."""

    type: Literal["leave"]


class AddBot(_Message):
    """The host seats a computer player in the lobby."""

    type: Literal["add_bot"]
    level: Literal["easy", "normal", "strong"] = "normal"


class RemoveBot(_Message):
    """The host removes a computer player from the lobby."""

    type: Literal["remove_bot"]
    seat: int
    name: SeatName | None = None


class HintRequest(_Message):
    """Ask, on one's turn, for the suggested move and why."""

    type: Literal["hint"]


class Back(_Message):
    """A player a bot has been standing in for takes their seat back."""

    type: Literal["back"]


class ChatMessage(_Message):
    """A short chat message (at most 200 characters once tidied; see ``app.rooms.chat``)."""

    type: Literal["chat"]
    text: str


class React(_Message):
    """One of the quick reactions."""

    type: Literal["react"]
    reaction: str


class Mute(_Message):
    """The host mutes (or unmutes) a player's chat."""

    type: Literal["mute"]
    seat: int
    muted: bool = True
    name: SeatName | None = None


class SpectatorChatMessage(_Message):
    """The host lets spectators chat, or stops them."""

    type: Literal["spectator_chat"]
    allowed: bool


# The turn actions: each is its engine action's journal form without the seat (see
# ``app.engine.actions``), so adding one touches the engine, this schema and the client.
MoveMessage = TakeMessage | DiscardMessage | KnockMessage

ClientMessage = Annotated[
    Hello
    | Resync
    | Ping
    | Start
    | TakeMessage
    | DiscardMessage
    | KnockMessage
    | Ready
    | Kick
    | ChangeSettings
    | Rematch
    | Leave
    | AddBot
    | RemoveBot
    | HintRequest
    | Back
    | ChatMessage
    | React
    | Mute
    | SpectatorChatMessage,
    Field(discriminator="type"),
]
CLIENT_MESSAGE: TypeAdapter[ClientMessage] = TypeAdapter(ClientMessage)
MESSAGE_TYPES = sorted(
    {get_args(model.model_fields["type"].annotation)[0] for model in _Message.__subclasses__()}
)


class BadMessage(ValueError):
    """A client message that is not valid JSON or not a valid message."""

    def __init__(self, code: str, message: str, message_id: object = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.message_id = message_id


def parse_message(text: str | bytes) -> ClientMessage:
    """The message in ``text``; raises BadMessage with a clear reason."""
    try:
        return CLIENT_MESSAGE.validate_json(text)
    except ValidationError as error:
        raise _explain(text, error) from None


NOT_JSON = "the message is not valid JSON"
NOT_AN_OBJECT = "a message is a JSON object with a type"
BAD_ID = (
    "id: a string of at most 64 characters, or a whole number from 0 to 2^53 "
    "(9007199254740992, the largest a JavaScript number holds exactly)"
)


def _explain(text: str | bytes, error: ValidationError) -> BadMessage:
    first = error.errors(include_url=False)[0]
    kind = first["type"]
    message_id = peek_id(text)
    if kind == "json_invalid":
        why = first.get("ctx", {}).get("error")  # where parsing stopped, and why
        return BadMessage("bad_json", f"the message is not valid JSON: {why}" if why else NOT_JSON)
    # A message that is not an object (a list, a number, a string, null): the union of messages
    # says dict_type of the message itself, at no place in it.
    not_an_object = kind == "dict_type" and not first["loc"]
    if not_an_object or kind in ("model_type", "model_attributes_type"):
        return BadMessage("bad_message", NOT_AN_OBJECT, message_id)
    if kind == "union_tag_not_found":
        return BadMessage("bad_message", "a message needs a type", message_id)
    if kind == "union_tag_invalid":
        tag = first.get("ctx", {}).get("tag")
        # 5, null, a list, Infinity: mistyped (read by the parser that read the message).
        if not isinstance(from_json(text, allow_inf_nan=True).get("type"), str):
            return BadMessage("bad_message", "type: a message's type is a string", message_id)
        return BadMessage(
            "unknown_type",
            f"unknown message type {tag!r}; known types: {', '.join(MESSAGE_TYPES)}",
            message_id,
        )
    where = ".".join(str(part) for part in first["loc"][1:])
    if first["loc"][1:2] == ("id",):
        return BadMessage("bad_message", BAD_ID, message_id)
    if kind == "extra_forbidden":
        return BadMessage("bad_message", f"unexpected field '{where}'", message_id)
    return BadMessage("bad_message", f"{where}: {first['msg']}", message_id)


def peek_id(text: str | bytes) -> object:
    """The id a raw message carries, if it is a valid one, to echo in an error about it."""
    try:
        data = orjson.loads(text)
    except orjson.JSONDecodeError:
        return None
    if isinstance(data, dict):
        found = data.get("id")
        if isinstance(found, str) and len(found) <= 64:
            return found
        if type(found) is int and 0 <= found <= 2**53:
            return found
    return None


def error_frame(code: str, message: str, message_id: object = None) -> bytes:
    """An error answering one client message."""
    return orjson.dumps({"type": "error", "code": code, "message": message, "id": message_id})


def pong_frame(message_id: object) -> bytes:
    """The answer to a client's ping."""
    return orjson.dumps({"type": "pong", "id": message_id})


def hint_frame(message_id: object, hint: dict[str, Any]) -> bytes:
    """A suggested move, for the player who asked alone."""
    return orjson.dumps({"type": "hint", "id": message_id, **hint})


def state_frame(version: int, state: dict[str, Any], server_time: int) -> bytes:
    """A full state."""
    return orjson.dumps(
        {"type": "state", "version": version, "server_time": server_time, "state": state}
    )


def patch_frame(version: int, ops: bytes, ack: object = None) -> bytes:
    """A patch whose operations are already serialised; ``ack`` echoes the sender's id."""
    if ack is None:
        return b'{"type":"patch","version":%d,"ops":%b}' % (version, ops)
    return b'{"type":"patch","version":%d,"ops":%b,"ack":%b}' % (version, ops, orjson.dumps(ack))
