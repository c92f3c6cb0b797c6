"""Serve the application with uvicorn using the production settings."""

from __future__ import annotations

import sys

import uvicorn
from pydantic import ValidationError

from app.config import Settings, settings_problems
from app.logs import configure_logging


def main() -> None:
    """Check the settings, then run the server until it is stopped."""
    try:
        settings = Settings()
    except ValidationError as error:
        print("Spectrum Online cannot start; fix these settings:", file=sys.stderr)
        for line in settings_problems(error):
            print(f"  {line}", file=sys.stderr)
        sys.exit(2)
    configure_logging(settings.log_level, settings.log_json)
    uvicorn.run(
        "app.main:app",
        host=settings.host,
        port=settings.port,
        loop="uvloop",
        http="httptools",
        ws="websockets-sansio",
        ws_per_message_deflate=False,
        ws_max_size=16 * settings.max_message_bytes,
        log_config=None,
        log_level=settings.log_level,
        access_log=False,
        proxy_headers=True,
        forwarded_allow_ips=settings.forwarded_allow_ips,
        timeout_graceful_shutdown=settings.shutdown_grace_seconds,
    )


if __name__ == "__main__":
    main()
