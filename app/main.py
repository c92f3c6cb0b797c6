"""The ASGI application: HTTP routes and, as they arrive, rooms and storage."""

from __future__ import annotations

from fastapi import FastAPI

from app.api import health, score
from app.config import Settings, get_settings
from app.limits import BodySizeLimit


def create_app(settings: Settings | None = None) -> FastAPI:
    """A new application configured by ``settings`` (by default the environment's)."""
    settings = settings or get_settings()
    application = FastAPI(
        title="Spectrum Online",
        summary="Play the TIC card game Spectrum with friends, in real time.",
        version="0.1.0",
    )
    application.state.settings = settings
    application.include_router(health.router)
    application.include_router(score.router)
    application.add_middleware(BodySizeLimit, max_bytes=settings.max_body_bytes)
    return application


app = create_app()
