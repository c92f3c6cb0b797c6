"""Prometheus metrics of one server: rooms, connections, actions, latency and saved rounds."""

from __future__ import annotations

from collections.abc import Iterator

from prometheus_client import CollectorRegistry, Counter, Histogram
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

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


class Metrics:
    """The metrics of one application, in a registry of its own."""

    def __init__(self, rooms: RoomRegistry, store: DatabaseStore) -> None:
        self.registry = CollectorRegistry()
        self.actions = Counter(
            "spectrum_actions",
            "Client actions handled, by outcome.",
            ["outcome"],
            registry=self.registry,
        )
        self.accepted = self.actions.labels("accepted")
        self.refused = self.actions.labels("refused")
        self.latency = Histogram(
            "spectrum_action_seconds",
            "Time from an action's arrival until every connection has its update queued.",
            buckets=LATENCY_BUCKETS,
            registry=self.registry,
        )
        self.registry.register(_Live(rooms, store))

    def observe_action(self, seconds: float, accepted: bool) -> None:
        """Count one handled action and its latency."""
        (self.accepted if accepted else self.refused).inc()
        self.latency.observe(seconds)
