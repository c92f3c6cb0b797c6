"""Rooms over HTTP: create one, join one, look one up."""

from __future__ import annotations

import hashlib
import re
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Body, Request, Response
from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from app.api.deps import (
    AddressDep,
    BaseUrlDep,
    ClusterDep,
    RegistryDep,
    RoomCreationsDep,
    RoomDep,
)
from app.api.errors import RATE_LIMITED, TOO_LARGE, ApiError, ErrorOut
from app.api.placement import Moved, socket_path
from app.engine.errors import IllegalAction
from app.rooms.registry import hash_token, new_token
from app.rooms.seats import MAX_NAME_LENGTH
from app.rooms.settings import RoomSettings

router = APIRouter(tags=["rooms"], responses=RATE_LIMITED)


Name = Annotated[str, Field(min_length=1, max_length=MAX_NAME_LENGTH * 4)]
PLAYER_KEY = re.compile(r"[0-9a-f]{64}")


def _player_key(key: str | None) -> str | None:
    if key is not None and not PLAYER_KEY.fullmatch(key):
        raise ValueError("a player key is 64 lowercase hexadecimal characters (0-9, a-f)")
    return key


PlayerKey = Annotated[
    str | None,
    Field(
        max_length=64,
        description="A private random key the browser keeps (64 lowercase hex characters): "
        "the history keeps the results of joins with the same key and name together. Only its "
        "SHA-256 is stored; keep it secret.",
    ),
    AfterValidator(_player_key),
]


def key_hash(key: str | None) -> str:
    """What the history keeps of a player key: its SHA-256 ("" without one)."""
    return hashlib.sha256(key.encode()).hexdigest() if key else ""


Socket = Annotated[
    str,
    Field(description="Path of the room's WebSocket (in a cluster, under its node's prefix)."),
]


class CreateRoom(BaseModel):
    """Who is creating the room, and its settings (all optional)."""

    model_config = ConfigDict(extra="forbid")

    name: Name
    settings: RoomSettings = Field(default_factory=RoomSettings)
    key: PlayerKey = None


class JoinRoom(BaseModel):
    """Who is joining."""

    model_config = ConfigDict(extra="forbid")

    name: Name
    key: PlayerKey = None


class CreatedRoom(BaseModel):
    """A new room; keep the token secret, it is the host's seat."""

    code: str
    url: str
    seat: int
    token: str
    socket: Socket


class JoinedRoom(BaseModel):
    """A seat in a room; keep the token secret."""

    seat: int
    token: str
    socket: Socket


class LobbyPlayer(BaseModel):
    """A seated player as the lobby shows them."""

    seat: int
    name: str
    connected: bool
    host: bool
    bot: str | None = Field(description="The level of a computer player; null for a person.")


class RoomInfo(BaseModel):
    """What anyone with the code can see of a room."""

    code: str
    status: Literal["lobby", "playing", "round_over", "finished"]
    settings: RoomSettings
    players: list[LobbyPlayer]
    spectators: int
    socket: Socket
    node: str | None = Field(description="The node that holds the room; null for one node.")
    url: str = Field(description="The room's share link: PUBLIC_URL or the address asked.")


Responses = dict[int | str, dict[str, Any]]


def _error(words: str) -> dict[str, Any]:
    return {"model": ErrorOut, "description": words}


# What each route may answer besides its own, each with the codes of docs/protocol.md.
NO_ROOM = _error("`no_room`: no room has this code.")
MISSES = _error(
    "`too_many_requests`, or `too_many_misses`: too many unknown room codes from this address."
)
CREATE_ERRORS: Responses = {
    **TOO_LARGE,
    429: _error("`too_many_requests`, or `too_many_rooms` made from this address."),
    503: _error(
        "`server_full`; `not_saved` (the database cannot take the room yet); in a cluster, "
        "`moving` (no node can take a new room), or `database_unavailable` (the database "
        "cannot be read to take a new room's code)."
    ),
}
JOIN_ERRORS: Responses = {
    **TOO_LARGE,
    404: NO_ROOM,
    409: _error("`already_started`, `room_full` or `name_taken`."),
    429: MISSES,
    503: _error(
        "`restoring` (the server is putting its rooms back), `not_saved`, `room_moved` "
        "(the room closed or moved meanwhile); in a cluster `moving`, or "
        "`database_unavailable` (no node holds the room, and the database cannot be read)."
    ),
}
INFO_ERRORS: Responses = {
    404: NO_ROOM,
    429: MISSES,
    503: _error(
        "`restoring`; in a cluster `moving`, or `database_unavailable` (no node holds the "
        "room, and the database cannot be read)."
    ),
}


# An answer holding a seat's token: no cache or proxy on the way keeps a copy of it.
KEEP_NO_COPY = "no-store"

NO_NODE = "no server can take a new room right now; try again in a moment"


@router.post("/api/rooms", status_code=201, response_model=CreatedRoom, responses=CREATE_ERRORS)
async def create_room(
    body: Annotated[CreateRoom, Body()],
    registry: RegistryDep,
    creations: RoomCreationsDep,
    address: AddressDep,
    base: BaseUrlDep,
    cluster: ClusterDep,
    request: Request,
    response: Response,
) -> CreatedRoom:
    """Create a room; the creator takes seat 0 and is the host (in a cluster, on the least
    loaded node: a 307 sends the request there)."""
    if cluster is not None:
        place = await cluster.placement()  # never a draining node
        if place is None:
            raise Moved(None, NO_NODE)
        # The load balancer names the node of a path under a node's prefix: already placed,
        # unless this node is being drained (a rolling upgrade): then the room goes elsewhere.
        placed = request.headers.get("x-spectrum-node") is not None
        if place.node != cluster.node and (cluster.draining or not placed):
            raise Moved(f"{place.address}/api/rooms")
        if cluster.draining:
            raise Moved(None, NO_NODE)
    counted = creations.counted(address)
    if counted is None:
        raise ApiError(
            429,
            "too_many_rooms",
            "too many rooms created from here; wait a minute",
            creations.wait(address),
        )
    # Counted before the room is made (so that requests at once cannot pass the limit
    # together), and given back when it was refused for what it asked (a name, a full
    # server); not when it was made and could not be kept (not_saved), which cost the server.
    try:
        room, token = await registry.create(body.name, body.settings, key_hash(body.key))
    except IllegalAction as error:
        if error.code != "not_saved":
            creations.give_back(address, counted)
        raise ApiError.refused(error) from None
    if cluster is not None:
        cluster.beat_soon()
    response.headers["Cache-Control"] = KEEP_NO_COPY
    return CreatedRoom(
        code=room.code,
        url=f"{base}/r/{room.code}",
        seat=0,
        token=token,
        socket=socket_path(cluster, room.code),
    )


@router.post(
    "/api/rooms/{code}/join", status_code=201, response_model=JoinedRoom, responses=JOIN_ERRORS
)
async def join_room(
    room: RoomDep, body: Annotated[JoinRoom, Body()], cluster: ClusterDep, response: Response
) -> JoinedRoom:
    """Take the next free seat in a room's lobby."""
    token = new_token()
    try:
        seat = await room.join(body.name, hash_token(token), key_hash(body.key))
    except IllegalAction as error:
        raise ApiError.refused(error) from None
    response.headers["Cache-Control"] = KEEP_NO_COPY
    return JoinedRoom(seat=seat, token=token, socket=socket_path(cluster, room.code))


@router.get("/api/rooms/{code}", response_model=RoomInfo, responses=INFO_ERRORS)
async def room_info(room: RoomDep, cluster: ClusterDep, base: BaseUrlDep) -> RoomInfo:
    """A room's status, settings and seated players."""
    online = room.presence()
    state = room.state
    return RoomInfo(
        code=state.code,
        status=state.status.value,
        settings=state.settings,
        players=[
            LobbyPlayer(
                seat=index,
                name=seat.name,
                connected=online[index],
                host=index == state.host,
                bot=seat.bot,
            )
            for index, seat in enumerate(state.seats)
        ],
        spectators=room.spectators(),
        socket=socket_path(cluster, state.code),
        node=cluster.node if cluster is not None else None,
        url=f"{base}/r/{state.code}",
    )
