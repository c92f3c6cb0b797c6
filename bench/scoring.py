"""Scoring speed on one core: 5-card hands per second and the 10-card best split's latency.

Run: .venv/bin/python -m bench.scoring [--hands N] [--splits N] [--seed S]
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import time

from app.engine.scoring import best_split, hand_points, score_hand, split_points


def hands_per_second(score: object, hands: list[list[int]], repeats: int = 5) -> float:
    """The best of ``repeats`` runs of scoring every hand, as hands per second."""
    best = float("inf")
    for _ in range(repeats):
        started = time.perf_counter()
        for hand in hands:
            score(hand)  # type: ignore[operator]
        best = min(best, time.perf_counter() - started)
    return len(hands) / best


def split_latencies(score: object, hands: list[list[int]]) -> list[float]:
    """Microseconds per 10-card split, one figure per hand."""
    figures = []
    for hand in hands:
        started = time.perf_counter()
        score(hand)  # type: ignore[operator]
        figures.append((time.perf_counter() - started) * 1e6)
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--hands", type=int, default=200_000)
    parser.add_argument("--splits", type=int, default=20_000)
    parser.add_argument("--seed", type=int, default=1)
    arguments = parser.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {0})
    rng = random.Random(arguments.seed)
    fives = [rng.sample(range(125), 5) for _ in range(arguments.hands)]
    tens = [rng.sample(range(125), 10) for _ in range(arguments.splits)]
    for name, function in (("hand_points", hand_points), ("score_hand", score_hand)):
        print(f"5-card {name}: {hands_per_second(function, fives):,.0f} hands/s")
    for name, function in (("split_points", split_points), ("best_split", best_split)):
        figures = split_latencies(function, tens)
        quantiles = statistics.quantiles(figures, n=100)
        print(
            f"10-card {name}: median {statistics.median(figures):.1f} us, "
            f"p90 {quantiles[89]:.1f} us, p99 {quantiles[98]:.1f} us, max {max(figures):.1f} us"
        )


if __name__ == "__main__":
    main()
