"""Serve the application with uvicorn using the production settings."""

from __future__ import annotations

import gc

# No collection while the start imports: what importing makes lives as long as the process,
# and the serving process takes up collecting with its own policy (app.collection).
gc.disable()

import asyncio
import contextlib
import logging
import sys
from types import FrameType
from typing import Any

import uvicorn

from app.config import Settings, load_settings, warn_of_misspelt_settings
from app.logs import configure_logging
from app.storage.private import keep_files_private

log = logging.getLogger("app.start")


class DrainingServer(uvicorn.Server):
    """A cluster node's server: on SIGTERM or SIGINT it first hands its rooms over (sockets
    closed "moved", journal written, leases released; a room whose journal the database does
    not take keeps its lease until the stop is over), then stops as uvicorn does."""

    def __init__(self, config: uvicorn.Config, grace: float) -> None:
        super().__init__(config)
        self.grace = grace
        self.loop: asyncio.AbstractEventLoop | None = None
        self.draining: asyncio.Task[None] | None = None

    async def serve(self, sockets: Any = None) -> None:
        self.loop = asyncio.get_running_loop()
        await super().serve(sockets)

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        if self.loop is None or self.draining is not None or not self.started:
            super().handle_exit(sig, frame)
            return
        self.loop.call_soon_threadsafe(self._drain_then_exit, sig, frame)

    def _drain_then_exit(self, sig: int, frame: FrameType | None) -> None:
        self.draining = asyncio.ensure_future(self._drain(sig, frame))

    async def _drain(self, sig: int, frame: FrameType | None) -> None:
        from app.main import app

        cluster = app.state.services.cluster
        try:
            async with asyncio.timeout(self.grace):
                await cluster.drain()
        except Exception:  # whatever is left lapses with its leases
            log.exception("draining did not finish; the leases left lapse by themselves")
        super().handle_exit(sig, frame)


# Each connection is a file descriptor. Many systems start programs with a soft limit of 1,024
# open files under a far higher hard one; the server takes what the hard limit allows.
OPEN_FILES_WANTED = 1 << 20
# Below this many, the log says so: a few hundred players would be refused.
OPEN_FILES_ENOUGH = 4096


def raise_open_files() -> None:
    """Raise this process's soft limit of open files as far as its hard limit allows (at most
    ``OPEN_FILES_WANTED``), and warn if it stays low."""
    try:
        import resource
    except ImportError:  # not on this system
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = OPEN_FILES_WANTED if hard == resource.RLIM_INFINITY else min(hard, OPEN_FILES_WANTED)
    if soft != resource.RLIM_INFINITY and soft < wanted:
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
    limit = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    if limit != resource.RLIM_INFINITY and limit < OPEN_FILES_ENOUGH:
        log.warning(
            "this process may open only %d files, so the server holds fewer than %d "
            "connections at once; raise the limit (ulimit -n, or LimitNOFILE in a systemd unit)",
            limit,
            limit,
        )


def serve(settings: Settings) -> None:
    """Run the server until it is stopped."""
    from app.api.heads import HeadLimitedProtocol

    raise_open_files()

    HeadLimitedProtocol.head_seconds = settings.request_head_seconds
    options: dict[str, Any] = {
        "host": settings.host,
        "port": settings.port,
        "loop": "uvloop",
        "http": "app.api.heads:HeadLimitedProtocol",
        "ws": "app.rooms.inbound:FrameReadingProtocol",
        "ws_per_message_deflate": False,
        "ws_max_size": settings.ws_max_bytes,
        "ws_ping_interval": settings.heartbeat_seconds,
        "ws_ping_timeout": settings.heartbeat_seconds,
        "log_config": None,
        "log_level": settings.log_level,
        "access_log": False,
        "proxy_headers": True,
        "forwarded_allow_ips": settings.forwarded_allow_ips,
        "timeout_graceful_shutdown": settings.shutdown_grace_seconds,
    }
    if not settings.cluster:
        uvicorn.run("app.main:app", **options)
        return
    server = DrainingServer(
        uvicorn.Config("app.main:app", **options), settings.shutdown_grace_seconds
    )
    with contextlib.suppress(KeyboardInterrupt):
        server.run()
    if not server.started:
        sys.exit(3)  # as uvicorn.run: the application did not start


def main() -> None:
    """Check the settings, then serve."""
    settings = load_settings()
    configure_logging(
        settings.log_level, settings.log_json, settings.node_id if settings.cluster else ""
    )
    warn_of_misspelt_settings()
    keep_files_private()
    serve(settings)


if __name__ == "__main__":
    main()
