"""The action counts and latency histogram, as a scrape reads them."""

from __future__ import annotations

from prometheus_client import CollectorRegistry, generate_latest

from app.metrics import Actions


def scraped(actions: Actions) -> dict[str, float]:
    registry = CollectorRegistry()
    registry.register(actions)
    values = {}
    for line in generate_latest(registry).decode().splitlines():
        if line and not line.startswith("#"):
            name, value = line.rsplit(" ", 1)
            values[name] = float(value)
    return values


def test_actions_are_counted_by_outcome_and_their_latency_by_bucket() -> None:
    actions = Actions(buckets=(0.001, 0.01, 0.1))
    for seconds, accepted in [(0.0005, True), (0.001, True), (0.005, False), (0.2, True)]:
        actions.observe(seconds, accepted)
    values = scraped(actions)
    assert values['spectrum_actions_total{outcome="accepted"}'] == 3
    assert values['spectrum_actions_total{outcome="refused"}'] == 1
    # Buckets are cumulative and hold what is at most their bound.
    assert values['spectrum_action_seconds_bucket{le="0.001"}'] == 2
    assert values['spectrum_action_seconds_bucket{le="0.01"}'] == 3
    assert values['spectrum_action_seconds_bucket{le="0.1"}'] == 3
    assert values['spectrum_action_seconds_bucket{le="+Inf"}'] == 4
    assert values["spectrum_action_seconds_count"] == 4
    assert abs(values["spectrum_action_seconds_sum"] - 0.2065) < 1e-9


def test_nothing_handled_reads_zero() -> None:
    values = scraped(Actions())
    assert values['spectrum_actions_total{outcome="accepted"}'] == 0
    assert values['spectrum_action_seconds_bucket{le="+Inf"}'] == 0
    assert values["spectrum_action_seconds_count"] == 0
