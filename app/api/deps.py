"""What routes are given: the application's services as typed dependencies."""

from __future__ import annotations

import enum
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Annotated

from fastapi import Depends, FastAPI
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker
from starlette.requests import HTTPConnection

from app.api.errors import ApiError
from app.config import Settings
from app.metrics import Metrics
from app.rooms.live import LiveRoom
from app.rooms.registry import RoomRegistry, WindowLimiter
from app.storage.store import DatabaseStore


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

    def install(self, application: FastAPI) -> None:
        """Make these the services of ``application``'s routes."""
        application.state.services = self


# Every dependency is a coroutine function: FastAPI runs plain functions in a thread pool.
async def get_services(connection: HTTPConnection) -> Services:
    """The services of the application serving this request or WebSocket."""
    services: Services = connection.app.state.services
    return services


ServicesDep = Annotated[Services, Depends(get_services)]


async def get_settings(services: ServicesDep) -> Settings:
    """The server's settings."""
    return services.settings


async def get_registry(services: ServicesDep) -> RoomRegistry:
    """The live rooms of this process."""
    return services.registry


async def get_store(services: ServicesDep) -> DatabaseStore:
    """Where rooms and finished rounds are saved."""
    return services.store


async def get_metrics(services: ServicesDep) -> Metrics:
    """The server's Prometheus metrics."""
    return services.metrics


async def get_room_creations(services: ServicesDep) -> WindowLimiter:
    """Rooms created per address and minute."""
    return services.room_creations


async def get_room_misses(services: ServicesDep) -> WindowLimiter:
    """Unknown room codes tried per address and minute."""
    return services.room_misses


async def get_session(services: ServicesDep) -> AsyncIterator[AsyncSession]:
    """A database session for one request."""
    async with services.sessions() as session:
        yield session


async def get_address(connection: HTTPConnection) -> str:
    """The client's address (as the proxy in front reports it, when trusted)."""
    return connection.client.host if connection.client else "unknown"


SettingsDep = Annotated[Settings, Depends(get_settings)]
RegistryDep = Annotated[RoomRegistry, Depends(get_registry)]
StoreDep = Annotated[DatabaseStore, Depends(get_store)]
MetricsDep = Annotated[Metrics, Depends(get_metrics)]
RoomCreationsDep = Annotated[WindowLimiter, Depends(get_room_creations)]
RoomMissesDep = Annotated[WindowLimiter, Depends(get_room_misses)]
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


def find_room(
    registry: RoomRegistry, misses: WindowLimiter, code: str, address: str
) -> LiveRoom | Miss:
    """The room with this code; each unknown code counts against the address's misses."""
    room = registry.get(code)
    if room is not None:
        return room
    return Miss.UNKNOWN if misses.hit(address) else Miss.TOO_MANY


async def get_room_or_none(
    registry: RegistryDep, misses: RoomMissesDep, address: AddressDep, code: str
) -> LiveRoom | None:
    """The room with the path's code, or None; 429 once the address has missed too often."""
    found = find_room(registry, misses, code, address)
    if found is Miss.TOO_MANY:
        raise ApiError(429, "too_many_misses", "too many unknown room codes; wait a minute")
    return None if found is Miss.UNKNOWN else found


MaybeRoomDep = Annotated[LiveRoom | None, Depends(get_room_or_none)]


async def get_room(room: MaybeRoomDep, code: str) -> LiveRoom:
    """The room with the path's code: 404 when there is none, 429 past the misses allowed."""
    if room is None:
        raise ApiError(404, "no_room", f"there is no room {code}")
    return room


RoomDep = Annotated[LiveRoom, Depends(get_room)]
