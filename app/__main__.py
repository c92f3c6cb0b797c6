"""Serve the application with uvicorn using the production settings."""

from __future__ import annotations

import uvicorn

from app.config import Settings, load_settings
from app.logs import configure_logging


def serve(settings: Settings) -> None:
    """Run the server until it is stopped."""
    uvicorn.run(
        "app.main:app",
        host=settings.host,
        port=settings.port,
        loop="uvloop",
        http="httptools",
        ws="websockets-sansio",
        ws_per_message_deflate=False,
        ws_max_size=settings.ws_max_bytes,
        ws_ping_interval=settings.heartbeat_seconds,
        ws_ping_timeout=settings.heartbeat_seconds,
        log_config=None,
        log_level=settings.log_level,
        access_log=False,
        proxy_headers=True,
        forwarded_allow_ips=settings.forwarded_allow_ips,
        timeout_graceful_shutdown=settings.shutdown_grace_seconds,
    )


def main() -> None:
    """Check the settings, then serve."""
    settings = load_settings()
    configure_logging(settings.log_level, settings.log_json)
    serve(settings)


if __name__ == "__main__":
    main()
