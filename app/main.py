"""The ASGI application: HTTP routes, the room WebSocket and their shared state."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI
from fastapi.exceptions import RequestValidationError
from sqlalchemy.exc import SQLAlchemyError

from app.api import health, history, rooms, score
from app.api.errors import (
    ApiError,
    api_error_handler,
    database_error_handler,
    validation_error_handler,
)
from app.config import Settings, get_settings
from app.limits import BodySizeLimit
from app.metrics import Metrics
from app.rooms.live import RoomConfig
from app.rooms.registry import RoomRegistry, WindowLimiter
from app.storage.db import make_engine, make_sessions
from app.storage.store import DatabaseStore

CLOSE_RESTART = 1012
log = logging.getLogger(__name__)


def create_app(settings: Settings | None = None) -> FastAPI:
    """A new application configured by ``settings`` (by default the environment's)."""
    settings = settings or get_settings()
    engine = make_engine(settings.database_url)
    store = DatabaseStore(engine, flush_seconds=settings.journal_flush_ms / 1000)
    registry = RoomRegistry(
        RoomConfig(
            ready_seconds=settings.ready_seconds,
            idle_seconds=settings.room_idle_seconds,
            max_queue=settings.send_queue_frames,
        ),
        max_rooms=settings.max_rooms,
        store=store,
    )
    metrics = Metrics(registry, store)
    registry.on_action = metrics.observe_action

    @asynccontextmanager
    async def lifespan(application: FastAPI) -> AsyncIterator[None]:
        store.start()
        try:
            await registry.restore(await store.restore())
        except Exception:  # the database is away: serve anyway, /readyz says why
            log.exception("live rooms could not be restored")
        if registry.rooms:
            log.info("restored %d rooms", len(registry.rooms))
        yield
        registry.close_all(CLOSE_RESTART, "the server is restarting")
        await store.stop()
        await engine.dispose()

    application = FastAPI(
        title="Spectrum Online",
        summary="Play the TIC card game Spectrum with friends, in real time.",
        version="0.1.0",
        lifespan=lifespan,
    )
    application.state.settings = settings
    application.state.store = store
    application.state.sessions = make_sessions(engine)
    application.state.rooms = registry
    application.state.metrics = metrics
    application.state.room_creations = WindowLimiter(settings.rooms_per_address_per_minute, 60)
    application.state.room_misses = WindowLimiter(settings.room_misses_per_minute, 60)
    application.add_exception_handler(ApiError, api_error_handler)
    application.add_exception_handler(RequestValidationError, validation_error_handler)
    for failure in (SQLAlchemyError, OSError, TimeoutError):
        application.add_exception_handler(failure, database_error_handler)
    for module in (health, score, rooms, history):
        application.include_router(module.router)
    if settings.metrics:
        application.include_router(health.metrics_router)
    application.add_middleware(BodySizeLimit, max_bytes=settings.max_body_bytes)
    application.add_middleware(rooms.KeepRawSend)
    return application


app = create_app()
