"""Liveness and readiness of the server."""

from __future__ import annotations

import asyncio

from fastapi import APIRouter
from fastapi.responses import JSONResponse, Response
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest
from pydantic import BaseModel, Field

from app.api.deps import ClusterDep, MetricsDep, RegistryDep, StoreDep
from app.storage.batching import error_kind
from app.storage.migrations import current_revision, head_revision

# Writes that have waited longer than this mean the database is falling behind; a few queued
# for a moment are normal under load, so the count alone says nothing.
LATE_WRITE_SECONDS = 5.0

router = APIRouter(tags=["operations"])
metrics_router = APIRouter(tags=["operations"])


class Health(BaseModel):
    """The process answers."""

    status: str


class Readiness(BaseModel):
    """Whether the server can keep what is played, and if not, why."""

    status: str = Field(description="`ready`, or `degraded` with the problems listed.")
    database: str
    migrations: str
    backlog: int = Field(description="Journal writes and finished rounds waiting to be saved.")
    oldest_unsaved_seconds: float = Field(
        description="How long the oldest write not yet saved has waited."
    )
    redis: str | None = Field(None, description="In a cluster: `ok`, or why Redis is not.")
    node: str | None = Field(None, description="In a cluster: this node's id.")
    problems: list[str]


@router.get("/healthz", response_model=Health)
def healthz() -> Health:
    """The process is up."""
    return Health(status="ok")


@router.get("/readyz", response_model=Readiness, responses={503: {"model": Readiness}})
async def readyz(store: StoreDep, registry: RegistryDep, cluster: ClusterDep) -> JSONResponse:
    """The database is reachable, its migrations are at head, writes are neither failing nor
    falling behind (none waits longer than a few seconds), the rooms kept at the last stop are
    held again, and in a cluster Redis answers."""
    problems = []
    database = "ok"
    migrations = "unknown"
    try:
        async with asyncio.timeout(2):
            await store.ping()
            revision = await current_revision(store.engine)
        migrations = revision or "none"
        if revision != head_revision():
            problems.append(f"database is at migration {revision}, not {head_revision()}")
    except Exception as error:  # unreachable, refused, timed out: all mean not ready
        database = f"unreachable: {error.__class__.__name__}"
        problems.append(f"database unreachable ({error.__class__.__name__})")
    late = store.oldest_unsaved_seconds()
    # An error's kind only: its words (which may name tables, values or paths) are in the log.
    if store.failing:
        problems.append(f"database writes are failing ({error_kind(store.last_error)})")
    elif store.refused:
        why = error_kind(next(iter(store.refused.values())))
        problems.append(f"the database refuses the writes of {len(store.refused)} room(s) ({why})")
    elif late > LATE_WRITE_SECONDS:
        problems.append(f"writes wait for the database: the oldest for {late:.0f} s")
    if registry.unrestored is not None:
        problems.append(f"live rooms are not restored yet: {registry.unrestored}")
    redis = None
    if cluster is not None:
        redis = "ok"
        try:
            async with asyncio.timeout(2):
                await cluster.redis.ping()
        except Exception as error:  # unreachable, refused, timed out: what is refused is said
            redis = f"unreachable: {error.__class__.__name__}"
            problems.append(
                "Redis unreachable: new rooms and rooms not held here are refused, and a room "
                "whose lease lapses stops taking moves; rooms held here play on while their "
                "leases last"
            )
        if cluster.evicted:
            problems.append("another process took this node's id: this one is stopping")
        elif cluster.draining:
            problems.append("draining: rooms are being handed over to other nodes")
    body = Readiness(
        status="degraded" if problems else "ready",
        database=database,
        migrations=migrations,
        backlog=store.backlog,
        oldest_unsaved_seconds=round(late, 3),
        redis=redis,
        node=cluster.node if cluster is not None else None,
        problems=problems,
    )
    return JSONResponse(body.model_dump(), status_code=503 if problems else 200)


@metrics_router.get(
    "/metrics",
    response_class=Response,
    responses={200: {"content": {CONTENT_TYPE_LATEST: {}}, "description": "Prometheus text."}},
)
async def metrics(collected: MetricsDep) -> Response:
    """Rooms, connections, actions, action latency and saved rounds, for Prometheus."""
    return Response(generate_latest(collected.registry), media_type=CONTENT_TYPE_LATEST)
