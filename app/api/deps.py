"""What routes are given: the application's services as typed dependencies."""

from __future__ import annotations

import enum
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Annotated, Any

from fastapi import Depends, FastAPI
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker
from starlette.requests import HTTPConnection

from app.api.addresses import limited_as
from app.api.errors import DATABASE_RETRY_SECONDS, DATABASE_WORDS, ApiError
from app.api.placement import Moved, locate, there
from app.cluster.moved import DatabaseUnreachable, Elsewhere
from app.config import Settings
from app.metrics import Metrics
from app.rooms.live import LiveRoom
from app.rooms.registry import RoomRegistry, WindowLimiter, normalise_code
from app.storage.history import Leaderboards
from app.storage.store import DatabaseStore

# Seconds the leaderboard is kept before it is read again, when no round was saved here: what
# the other nodes of a cluster save is seen by then.
LEADERBOARD_SECONDS = 10.0

if TYPE_CHECKING:  # a server of one node never loads the cluster's modules (nor Redis)
    from app.cluster.node import ClusterNode


@dataclass(frozen=True, slots=True)
class Services:
    """What one application's routes share: settings, storage, rooms, metrics and limits."""

    settings: Settings
    store: DatabaseStore
    sessions: async_sessionmaker[AsyncSession]
    registry: RoomRegistry
    metrics: Metrics
    room_creations: WindowLimiter
    room_misses: WindowLimiter
    cluster: ClusterNode | None = None
    leaderboards: Leaderboards = field(default_factory=lambda: Leaderboards(LEADERBOARD_SECONDS))

    def install(self, application: FastAPI) -> None:
        """Make these the services of ``application``'s routes."""
        application.state.services = self


# Every dependency is a coroutine function: FastAPI runs plain functions in a thread pool.
async def get_services(connection: HTTPConnection) -> Services:
    """The services of the application serving this request or WebSocket."""
    services: Services = connection.app.state.services
    return services


ServicesDep = Annotated[Services, Depends(get_services)]


def _part(read: Callable[[Services], object]) -> Any:
    """A dependency giving what ``read`` takes from the application's services."""

    async def dependency(services: ServicesDep) -> object:
        return read(services)

    return Depends(dependency)


async def get_session(services: ServicesDep) -> AsyncIterator[AsyncSession]:
    """A database session for one request."""
    async with services.sessions() as session:
        yield session


async def get_address(connection: HTTPConnection) -> str:
    """The client's address (as the proxy in front reports it, when trusted), as the limits
    count it (an IPv6 address by its /64)."""
    return limited_as(connection.client.host) if connection.client else "unknown"


SettingsDep = Annotated[Settings, _part(lambda services: services.settings)]
RegistryDep = Annotated[RoomRegistry, _part(lambda services: services.registry)]
StoreDep = Annotated[DatabaseStore, _part(lambda services: services.store)]
MetricsDep = Annotated[Metrics, _part(lambda services: services.metrics)]
# Rooms created, and unknown room codes tried, per address and minute.
RoomCreationsDep = Annotated[WindowLimiter, _part(lambda services: services.room_creations)]
RoomMissesDep = Annotated[WindowLimiter, _part(lambda services: services.room_misses)]
# This node of a cluster; None for a server of one node.
ClusterDep = Annotated["ClusterNode | None", _part(lambda services: services.cluster)]
SessionDep = Annotated[AsyncSession, Depends(get_session)]
AddressDep = Annotated[str, Depends(get_address)]


async def get_base_url(connection: HTTPConnection, settings: SettingsDep) -> str:
    """This server's address as links to its pages should give it."""
    return settings.public_url or str(connection.base_url).rstrip("/")


BaseUrlDep = Annotated[str, Depends(get_base_url)]


class Miss(enum.Enum):
    """Why no room was found for a code."""

    UNKNOWN = "no_room"
    TOO_MANY = "too_many_misses"
    # The rooms kept at the last stop are not held again yet: the code may be one of them.
    RESTORING = "restoring"
    # In a cluster: the room is held by nobody, and the database cannot be read to restore it.
    UNAVAILABLE = "database_unavailable"


def find_room(
    registry: RoomRegistry, misses: WindowLimiter, code: str, address: str
) -> LiveRoom | Miss:
    """The room with this code; each unknown code counts against the address's misses. Past
    them, every code is refused until the window lets the address try again, a room's too: a
    refusal that came only for unknown codes would tell which codes are rooms."""
    if misses.full(address):
        return Miss.TOO_MANY
    room = registry.get(code)
    if room is not None:
        return room
    normal = normalise_code(code)
    if normal in registry.left_out:  # a room, back once the database takes its changes
        return Miss.RESTORING
    if not misses.hit(address):
        return Miss.TOO_MANY
    if registry.unrestored is not None and normal:
        return Miss.RESTORING
    return Miss.UNKNOWN


async def find_room_anywhere(
    services: Services, code: str, address: str
) -> LiveRoom | Elsewhere | Miss:
    """As ``find_room``; in a cluster, the room claimed here if nobody holds it, or where it is."""
    if services.cluster is None:
        return find_room(services.registry, services.room_misses, code, address)
    if services.room_misses.full(address):
        return Miss.TOO_MANY
    try:
        found = await locate(services.cluster, code)
    except DatabaseUnreachable:
        return Miss.UNAVAILABLE
    if found is not None:
        return found
    return Miss.UNKNOWN if services.room_misses.hit(address) else Miss.TOO_MANY


async def get_room_or_none(
    services: ServicesDep, connection: HTTPConnection, address: AddressDep, code: str
) -> LiveRoom | None:
    """The room with the path's code, or None; 429 once the address has missed too often, and
    in a cluster a 307 to the node that holds it."""
    found = await find_room_anywhere(services, code, address)
    if isinstance(found, Elsewhere):
        raise Moved(there(found.path, connection) if found.path else None)
    if found is Miss.TOO_MANY:
        raise too_many_misses(services, address)
    if found is Miss.RESTORING:
        raise ApiError(503, "restoring", RESTORING_WORDS, RESTORING_RETRY_SECONDS)
    if found is Miss.UNAVAILABLE:
        raise ApiError(503, "database_unavailable", DATABASE_WORDS, DATABASE_RETRY_SECONDS)
    return None if found is Miss.UNKNOWN else found


RESTORING_WORDS = "the server is restoring its rooms; try again in a moment"
RESTORING_RETRY_SECONDS = 2


def too_many_misses(services: Services, address: str) -> ApiError:
    """The 429 for an address past its unknown codes, saying when it may try again."""
    wait = services.room_misses.wait(address)
    return ApiError(429, "too_many_misses", "too many unknown room codes; wait a minute", wait)


async def count_room_miss(services: ServicesDep, address: AddressDep, code: str) -> None:
    """For a page of a room: 429 once the address has missed too often (any node serves it)."""
    found = await find_room_anywhere(services, code, address)
    if found is Miss.TOO_MANY:
        raise too_many_misses(services, address)


NOT_A_CODE = (
    "there is no room with this code: a room's code is 8 letters and digits, such as K7QM-2XPD"
)

MaybeRoomDep = Annotated[LiveRoom | None, Depends(get_room_or_none)]


async def get_room(room: MaybeRoomDep, code: str) -> LiveRoom:
    """The room with the path's code: 404 when there is none, 429 past the misses allowed."""
    if room is None:
        typed = normalise_code(code)
        if typed is None:  # not said back: it is anything the path held
            raise ApiError(404, "no_room", NOT_A_CODE)
        raise ApiError(404, "no_room", f"there is no room {typed}")
    return room


RoomDep = Annotated[LiveRoom, Depends(get_room)]
