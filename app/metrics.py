"""Prometheus metrics of one server: rooms, connections, actions, latency and saved rounds."""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterator

from prometheus_client import CollectorRegistry
from prometheus_client.core import (
    CounterMetricFamily,
    GaugeMetricFamily,
    HistogramMetricFamily,
    Metric,
)
from prometheus_client.registry import Collector

from app.rooms.inbound import KEEPALIVE
from app.rooms.registry import RoomRegistry
from app.storage.store import DatabaseStore

LATENCY_BUCKETS = (0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)


class _Live(Collector):
    """Values read when scraped: rooms, connections, and what storage has saved."""

    def __init__(self, rooms: RoomRegistry, store: DatabaseStore) -> None:
        self.rooms = rooms
        self.store = store

    def collect(self) -> Iterator[Metric]:
        rooms = list(self.rooms.rooms.values())
        yield GaugeMetricFamily("spectrum_rooms", "Rooms held in memory.", value=len(rooms))
        connections = GaugeMetricFamily(
            "spectrum_connections", "Open WebSocket connections.", labels=["role"]
        )
        players = sum(c.seat is not None for room in rooms for c in room.table.connections)
        watchers = sum(c.seat is None for room in rooms for c in room.table.connections)
        connections.add_metric(["player"], players)
        connections.add_metric(["spectator"], watchers)
        yield connections
        sockets = self.rooms.sockets
        yield GaugeMetricFamily(
            "spectrum_sockets_open", "WebSocket connections accepted and not ended.", sockets.open
        )
        yield CounterMetricFamily(
            "spectrum_sockets_ended",
            "WebSocket connections that ended (full garbage collections follow them).",
            value=sockets.ended,
        )
        yield CounterMetricFamily(
            "spectrum_keepalive_pings",
            "Keepalive pings sent to quiet WebSocket connections.",
            value=KEEPALIVE.pings,
        )
        yield CounterMetricFamily(
            "spectrum_keepalive_pings_deferred",
            "Keepalive pings put off because the client had just sent something.",
            value=KEEPALIVE.deferred,
        )
        yield CounterMetricFamily(
            "spectrum_bot_decisions_late",
            "Bot decisions the bot workers did not make in time (more rooms asking than they "
            "can think for): the turn timer's move was played.",
            value=self.rooms.thinker.bot_workers.late,
        )
        yield CounterMetricFamily(
            "spectrum_hints_late",
            "Hints their workers did not work out in time (more asked at once than they can "
            "work out): refused hint_busy.",
            value=self.rooms.thinker.hint_workers.late,
        )
        yield CounterMetricFamily(
            "spectrum_rounds_saved", "Finished rounds written.", value=self.store.rounds_saved
        )
        yield CounterMetricFamily(
            "spectrum_save_failures",
            "Attempts to write events and finished rounds to the database that failed.",
            value=self.store.save_failures,
        )
        yield GaugeMetricFamily(
            "spectrum_storage_backlog",
            "Writes of events and finished rounds waiting for the database.",
            value=self.store.backlog,
        )


class Actions(Collector):
    """Actions handled, by outcome, and their latency: plain counts, kept by the event loop's
    thread alone (a client library's metric takes a lock and checks its labels every time)."""

    def __init__(self, buckets: tuple[float, ...] = LATENCY_BUCKETS) -> None:
        self.buckets = buckets
        self.accepted = 0
        self.refused = 0
        self.counts = [0] * (len(buckets) + 1)  # the last: over the highest bound
        self.seconds = 0.0

    def observe(self, seconds: float, accepted: bool) -> None:
        """Count one handled action and its latency."""
        if accepted:
            self.accepted += 1
        else:
            self.refused += 1
        self.counts[bisect_left(self.buckets, seconds)] += 1
        self.seconds += seconds

    def collect(self) -> Iterator[Metric]:
        actions = CounterMetricFamily(
            "spectrum_actions", "Client actions handled, by outcome.", labels=["outcome"]
        )
        actions.add_metric(["accepted"], self.accepted)
        actions.add_metric(["refused"], self.refused)
        yield actions
        cumulative = []
        total = 0
        for bound, count in zip([*map(str, self.buckets), "+Inf"], self.counts, strict=True):
            total += count
            cumulative.append((bound, total))
        yield HistogramMetricFamily(
            "spectrum_action_seconds",
            "Time from an action's arrival until every connection has its update queued.",
            buckets=cumulative,
            sum_value=self.seconds,
        )


class Metrics:
    """The metrics of one application, in a registry of its own."""

    def __init__(self, rooms: RoomRegistry, store: DatabaseStore) -> None:
        self.registry = CollectorRegistry()
        self.actions = Actions()
        self.registry.register(self.actions)
        self.registry.register(_Live(rooms, store))
