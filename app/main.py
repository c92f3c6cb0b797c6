"""The ASGI application: HTTP routes, the room WebSocket and their shared state."""

from __future__ import annotations

import asyncio
import itertools
import logging
import os
import signal
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from fastapi import FastAPI
from fastapi.exceptions import RequestValidationError
from sqlalchemy.exc import SQLAlchemyError

from app.api import docs, health, history, pages, rooms, score, sockets
from app.api.deps import Services
from app.api.errors import (
    ApiError,
    api_error_handler,
    database_error_handler,
    describe_invalid_requests,
    validation_error_handler,
)
from app.api.middleware import install_middleware
from app.api.placement import Moved, cluster_error_handler, moved_handler
from app.collection import start_collecting
from app.config import Settings, get_settings
from app.metrics import Metrics
from app.rooms.inbound import RESTARTING
from app.rooms.live import RoomConfig
from app.rooms.registry import RoomRegistry, WindowLimiter
from app.rooms.thinking import Thinker
from app.storage.db import make_engine, make_sessions
from app.storage.store import DatabaseStore

if TYPE_CHECKING:
    from app.cluster.node import ClusterNode

CLOSE_RESTART = 1012
log = logging.getLogger(__name__)


# What a database away, unreachable or too slow raises: answered 503, and said in one line.
DATABASE_FAILURES = (SQLAlchemyError, OSError, TimeoutError)
# Seconds between tries to restore the rooms kept at the last stop, doubling up to the last.
RESTORE_RETRY_SECONDS = (1.0, 2.0, 4.0, 8.0, 15.0, 30.0)


async def restore_rooms(registry: RoomRegistry, store: DatabaseStore) -> bool:
    """Hold again the rooms kept at the last stop, once the outbox it kept is written and
    nothing else waits for the database (a room made and given up meanwhile must be
    forgotten there first); whether they are held (else ``registry.unrestored`` says why)."""
    try:
        await store.outbox_written()
    except Exception as error:
        registry.unrestored = outbox_not_written(error)
        return False
    # Rooms held here are not restored again, and those the database refuses are left out of
    # the restore: the others, given up meanwhile, must be forgotten in the database first.
    given_up = store.unsaved_rooms() - registry.rooms.keys() - store.refused.keys()
    waiting = await store.settle(given_up, store.write_seconds)
    if waiting:
        registry.unrestored = f"the writes of {len(waiting)} room(s) wait for the database"
        return False
    try:
        count = await registry.restore(await store.restore())
    except Exception as error:  # the database is away: serve anyway, /readyz says why
        registry.unrestored = f"the rooms kept at the last stop cannot be read ({kind(error)})"
        log.exception("live rooms could not be restored yet")
        return False
    registry.unrestored = None
    if count:
        log.info("restored %d room%s", count, "" if count == 1 else "s")
    return True


async def restore_later(registry: RoomRegistry, store: DatabaseStore) -> None:
    """Try again, more and more seldom, until the rooms kept at the last stop are held."""
    for attempt in itertools.count():
        delay = retry_seconds(attempt)
        log.warning(
            "live rooms are not restored yet: %s; trying again in %g s", registry.unrestored, delay
        )
        await asyncio.sleep(delay)
        if await restore_rooms(registry, store):
            log.info("the rooms kept at the last stop are restored")
            return


def retry_seconds(attempt: int) -> float:
    """The pause before the try after ``attempt`` tries."""
    return RESTORE_RETRY_SECONDS[min(attempt, len(RESTORE_RETRY_SECONDS) - 1)]


def restore_when_taken(registry: RoomRegistry, store: DatabaseStore) -> set[asyncio.Task[None]]:
    """Have each room a restore left out, the database refusing its last changes, held again
    once the database takes them; the tasks doing so (cancelled at the stop)."""
    registry.left_out = store.left_out
    tasks: set[asyncio.Task[None]] = set()

    def accepted(code: str) -> None:
        if code in store.left_out:
            task = asyncio.create_task(restore_accepted(registry, store, code))
            tasks.add(task)
            task.add_done_callback(tasks.discard)

    store.on_accepted = accepted
    return tasks


async def restore_accepted(registry: RoomRegistry, store: DatabaseStore, code: str) -> None:
    """Hold again a room a restore left out while the database refused its last changes,
    now that it has taken them: once all of them are in, as a restart would."""
    for attempt in itertools.count():
        if code not in store.left_out or code in registry.rooms:
            return
        if not await store.settle({code}, store.write_seconds):
            try:
                restored = await registry.restore(await store.restore({code}))
            except Exception:  # the database is away: tried again below
                log.exception("room %s could not be restored yet", code)
            else:
                if restored:
                    log.info("room %s is restored: the database holds its last changes", code)
                return  # or refused again (told again once taken), or forgotten meanwhile
        await asyncio.sleep(retry_seconds(attempt))


def outbox_not_written(error: BaseException) -> str:
    """Why the rooms are not restored, for /readyz: the error's kind (its words are in the
    log)."""
    return f"the outbox kept at the last stop is not written ({kind(error)})"


def kind(error: BaseException) -> str:
    """An error's kind, for /readyz (its words are in the log)."""
    return error.__class__.__name__


def create_app(settings: Settings | None = None) -> FastAPI:
    """A new application configured by ``settings`` (by default the environment's)."""
    settings = settings or get_settings()
    name = None
    if settings.cluster:
        from app.cluster.epochs import application_name

        name = application_name(settings.cluster_name)
    engine = make_engine(settings.database_url, settings.database_timeout_seconds, name)
    store = DatabaseStore(
        engine,
        flush_seconds=settings.journal_flush_ms / 1000,
        segment_bytes=settings.event_log_segment_kb * 1024,
        write_seconds=settings.database_timeout_seconds,
        outbox=Path(settings.outbox_path) if settings.outbox_path else None,
    )
    registry = RoomRegistry(
        RoomConfig(
            ready_seconds=settings.ready_seconds,
            idle_seconds=settings.room_idle_seconds,
            bot_delay_seconds=settings.bot_delay_seconds,
            standin_seconds=settings.standin_seconds,
            host_grace_seconds=settings.host_grace_seconds,
        ),
        max_rooms=settings.max_rooms,
        store=store,
        thinker=Thinker(settings.bot_workers),
    )
    metrics = Metrics(registry, store)
    registry.on_action = metrics.actions.observe
    # A cluster's nodes claim their rooms one by one, as players reach them.
    restoring = set() if settings.cluster else restore_when_taken(registry, store)
    cluster: ClusterNode | None = None  # set below on a cluster's node

    @asynccontextmanager
    async def lifespan(application: FastAPI) -> AsyncIterator[None]:
        collector = start_collecting(registry.sockets)
        store.start()
        try:
            await store.drain_outbox()  # what the last stop kept, before any room is read
        except Exception as error:  # the database is away: it stays queued, and in the file
            if cluster is None:
                registry.unrestored = outbox_not_written(error)
            if isinstance(error, DATABASE_FAILURES):
                log.warning(
                    "the outbox could not be written yet (%s: %s); rooms are not restored yet",
                    kind(error),
                    error,
                )
            else:
                log.exception("the outbox could not be written yet; rooms are not restored yet")
        later = None
        if cluster is not None:
            from app.cluster.nodes import DuplicateNode

            # Rooms are claimed and restored one by one, by the node a player reaches.
            try:
                await cluster.start()
            except DuplicateNode as taken:
                # Another process of this id started at the same moment, past the start's own
                # check: refused as there, in one line. Nothing is served or held yet.
                log.error("cannot start: %s", taken)
                logging.shutdown()
                os._exit(1)
            # Its id taken by another process: stopped as by SIGTERM (drained, then ended).
            cluster.on_evicted = lambda: signal.raise_signal(signal.SIGTERM)
        elif registry.unrestored is None:
            await restore_rooms(registry, store)
        if cluster is None and registry.unrestored is not None:
            # Serve meanwhile (/readyz says why not ready, a room's players are told to come
            # back in a moment); the rooms come back once they can.
            later = asyncio.create_task(restore_later(registry, store))
        yield
        if later is not None:
            later.cancel()
        for task in restoring:
            task.cancel()
        collector.cancel()
        if cluster is not None and not cluster.draining:
            await cluster.drain()
        registry.close_all(CLOSE_RESTART, RESTARTING)
        registry.thinker.close()
        await store.stop()
        if cluster is not None:
            await cluster.stop()
        await engine.dispose()

    application = FastAPI(
        title="Spectrum Online",
        summary="Play the TIC card game Spectrum with friends, in real time.",
        version="0.1.0",
        lifespan=lifespan,
        docs_url=None,  # served by app.api.docs, with their files from this server
        redoc_url=None,
    )
    if settings.cluster:  # only a cluster's node loads the cluster's modules and Redis
        from redis.exceptions import RedisError

        from app.cluster.metrics import ClusterCollector
        from app.cluster.node import ClusterNode

        cluster = ClusterNode(settings, registry, store)
        registry.claim_code = cluster.claim_new
        registry.on_dropped = cluster.dropped
        metrics.registry.register(ClusterCollector(cluster))
        application.add_exception_handler(RedisError, cluster_error_handler)
    Services(
        settings=settings,
        store=store,
        sessions=make_sessions(engine),
        registry=registry,
        metrics=metrics,
        room_creations=WindowLimiter(settings.rooms_per_address_per_minute, 60),
        room_misses=WindowLimiter(settings.room_misses_per_minute, 60),
        cluster=cluster,
    ).install(application)
    application.add_exception_handler(Moved, moved_handler)
    application.add_exception_handler(ApiError, api_error_handler)
    application.add_exception_handler(RequestValidationError, validation_error_handler)
    describe_invalid_requests(application)
    for failure in DATABASE_FAILURES:
        application.add_exception_handler(failure, database_error_handler)
    for module in (health, score, rooms, sockets, history):
        application.include_router(module.router)
    if settings.metrics:
        application.include_router(health.metrics_router)
    docs.mount_docs(application)
    pages.mount_client(application)
    install_middleware(application, settings, registry.sockets)
    return application


app = create_app()
