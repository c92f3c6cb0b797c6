"""Bot decision speed on one core: median and p90 time per decision for each level.

Run: .venv/bin/python -m bench.bots [--positions N] [--seed S]

Positions come from rounds played by normal bots (4 players), sampled at every stage of the
round; every level then decides each of them. The standard game, 10-card Spectrum, and 10-card
with multiple pickups.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import time

from app.bots.levels import Level, decide
from app.bots.observation import Observation, observe
from app.engine.round import Round
from app.engine.variant import Variant

VARIANTS: dict[str, Variant] = {
    "standard": Variant(),
    "10-card": Variant(ten_card=True),
    "10-card multiple pickups": Variant(multi_pickup=True, ten_card=True),
}
PLAYERS = 4


def positions(variant: Variant, count: int, rng: random.Random) -> list[Observation]:
    """``count`` positions where a seat is about to take, from rounds of normal bots."""
    found: list[Observation] = []
    number = 0
    while len(found) < count:
        number += 1
        current = Round(variant, PLAYERS, dealer=number % PLAYERS, seed=f"{number:064x}")
        seen: list[Observation] = []
        while not current.ended and current.turns < 60:
            seat = current.turn
            observation = observe(current, seat)
            seen.append(observation)
            for action in decide(Level.NORMAL, observation, rng).actions:
                current.apply(action)
        found += rng.sample(seen, min(len(seen), 12))
    return found[:count]


def timings(level: Level, observations: list[Observation], seed: int) -> list[float]:
    """Milliseconds per decision, one figure per position."""
    figures = []
    for index, observation in enumerate(observations):
        rng = random.Random(seed + index)
        started = time.perf_counter()
        decide(level, observation, rng)
        figures.append((time.perf_counter() - started) * 1000)
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--positions", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    arguments = parser.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {0})
    for name, variant in VARIANTS.items():
        observations = positions(variant, arguments.positions, random.Random(arguments.seed))
        for level in Level:
            figures = timings(level, observations, arguments.seed)
            quantiles = statistics.quantiles(figures, n=10)
            print(
                f"{name}, {level.value}: median {statistics.median(figures):.2f} ms, "
                f"p90 {quantiles[8]:.2f} ms, max {max(figures):.2f} ms "
                f"({len(figures)} positions)"
            )


if __name__ == "__main__":
    main()
