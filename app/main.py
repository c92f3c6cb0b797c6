"""The ASGI application: HTTP routes, the room WebSocket and their shared state."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI

from app.api import health, rooms, score
from app.api.errors import ApiError, api_error_handler
from app.config import Settings, get_settings
from app.limits import BodySizeLimit
from app.rooms.live import RoomConfig
from app.rooms.registry import RoomRegistry, WindowLimiter

CLOSE_RESTART = 1012


def create_app(settings: Settings | None = None) -> FastAPI:
    """A new application configured by ``settings`` (by default the environment's)."""
    settings = settings or get_settings()

    @asynccontextmanager
    async def lifespan(application: FastAPI) -> AsyncIterator[None]:
        yield
        application.state.rooms.close_all(CLOSE_RESTART, "the server is restarting")

    application = FastAPI(
        title="Spectrum Online",
        summary="Play the TIC card game Spectrum with friends, in real time.",
        version="0.1.0",
        lifespan=lifespan,
    )
    application.state.settings = settings
    application.state.rooms = RoomRegistry(
        RoomConfig(
            ready_seconds=settings.ready_seconds,
            idle_seconds=settings.room_idle_seconds,
            max_queue=settings.send_queue_frames,
        ),
        max_rooms=settings.max_rooms,
    )
    application.state.room_creations = WindowLimiter(settings.rooms_per_address_per_minute, 60)
    application.state.room_misses = WindowLimiter(settings.room_misses_per_minute, 60)
    application.add_exception_handler(ApiError, api_error_handler)
    application.include_router(health.router)
    application.include_router(score.router)
    application.include_router(rooms.router)
    application.add_middleware(BodySizeLimit, max_bytes=settings.max_body_bytes)
    return application


app = create_app()
