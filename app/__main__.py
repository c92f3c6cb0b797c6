"""Serve the application with uvicorn using the production settings."""

from __future__ import annotations

import uvicorn

from app.config import get_settings


def main() -> None:
    """Run the server until it is stopped."""
    settings = get_settings()
    uvicorn.run(
        "app.main:app",
        host=settings.host,
        port=settings.port,
        loop="uvloop",
        http="httptools",
        ws="websockets-sansio",
        ws_per_message_deflate=False,
        ws_max_size=settings.max_body_bytes,
        log_level=settings.log_level,
        access_log=False,
        proxy_headers=True,
        timeout_graceful_shutdown=10,
    )


if __name__ == "__main__":
    main()
