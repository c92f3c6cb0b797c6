"""This node's part in the cluster, for Prometheus: rooms owned, claims, hand-overs, failures."""

from __future__ import annotations

from collections.abc import Iterator

from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from app.cluster.node import ClusterNode


class ClusterCollector(Collector):
    """Values read when scraped, labelled with the node's id."""

    def __init__(self, node: ClusterNode) -> None:
        self.node = node

    def collect(self) -> Iterator[Metric]:
        node, counts = self.node, self.node.counts

        def gauge(name: str, text: str, value: float) -> GaugeMetricFamily:
            family = GaugeMetricFamily(name, text, labels=["node"])
            family.add_metric([node.node], value)
            return family

        def counter(name: str, text: str, value: float) -> CounterMetricFamily:
            family = CounterMetricFamily(name, text, labels=["node"])
            family.add_metric([node.node], value)
            return family

        yield gauge(
            "spectrum_rooms_owned", "Rooms this node holds the lease of.", len(node.ownership.held)
        )
        yield gauge(
            "spectrum_redis_up",
            "Whether Redis answered the last heartbeat (1) or not (0).",
            float(node.redis_ok),
        )
        yield gauge(
            "spectrum_draining",
            "Whether this node is handing its rooms over (1).",
            float(node.draining),
        )
        yield counter(
            "spectrum_room_claims",
            "Rooms this node claimed (created or taken over).",
            counts.claims,
        )
        yield counter(
            "spectrum_room_handovers",
            "Rooms this node handed over when draining.",
            counts.handovers,
        )
        yield counter(
            "spectrum_rooms_lost",
            "Rooms this node stopped holding when a lease lapsed or was taken.",
            counts.lost,
        )
        yield counter(
            "spectrum_lease_renewals_failed",
            "Lease renewals Redis did not grant.",
            node.ownership.renewals_failed,
        )
        yield counter(
            "spectrum_fenced_writes_refused",
            "Writes the database refused: a newer owner held the room.",
            counts.fenced,
        )
