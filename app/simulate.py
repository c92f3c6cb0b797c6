"""Play many matches between bot levels and print how each level fares.

Run: python -m app.simulate --players 4 --bots strong,normal,easy,easy --matches 2000 --seed 1

Matches come in groups of one per seat rotation: every match of a group is dealt from the same
seed while the bots move one seat along, so each level plays every seat on the same cards.
"""

from __future__ import annotations

import argparse
import math
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass
from multiprocessing import Pool

from app.bots.levels import Level, decide
from app.bots.observation import observe
from app.bots.simple import normal_decision
from app.engine.match import Match, MatchRules
from app.engine.round import Round
from app.engine.variant import VARIANTS, Variant

MAX_ACTIONS = 5000
Z95 = 1.96


@dataclass(frozen=True, slots=True)
class Setup:
    """What every match of a run shares."""

    levels: tuple[Level, ...]
    rules: MatchRules
    seed: int


@dataclass(frozen=True, slots=True)
class SeatResult:
    """How one seat of one match did."""

    group: int
    level: Level
    wins: float
    points: tuple[int, ...]
    knocks: int


def seat_levels(levels: Sequence[Level], rotation: int) -> list[Level]:
    """The level at each seat when the bots have moved ``rotation`` seats along."""
    players = len(levels)
    return [levels[(seat - rotation) % players] for seat in range(players)]


def play_match(setup: Setup, group: int, rotation: int) -> list[SeatResult]:
    """One match of a group, its bots moved ``rotation`` seats along."""
    levels = seat_levels(setup.levels, rotation)
    players = len(levels)
    rngs = [random.Random(f"{setup.seed}/{group}/{rotation}/{seat}") for seat in range(players)]
    match = Match(players, setup.rules, f"simulate/{setup.seed}/{group}")
    knocks = [0] * players
    while not match.finished:
        current = match.start_round()
        while not current.ended:
            seat = current.turn
            decision = decide(levels[seat], observe(current, seat), rngs[seat])
            for action in decision.actions:
                match.apply(action)
            if len(current.actions) > MAX_ACTIONS:
                raise RuntimeError(f"round {current.number} of group {group} does not end")
        if current.knocker is not None:
            knocks[current.knocker] += 1
    winners = match.winners()
    return [
        SeatResult(
            group=group,
            level=levels[seat],
            wins=1 / len(winners) if seat in winners else 0.0,
            points=tuple(result.points[seat] for result in match.results),
            knocks=knocks[seat],
        )
        for seat in range(players)
    ]


def play_job(job: tuple[Setup, int, int]) -> list[SeatResult]:
    """``play_match`` for a pool worker."""
    return play_match(*job)


def jobs(setup: Setup, matches: int) -> list[tuple[Setup, int, int]]:
    """The (setup, group, rotation) of every match, groups of one match per rotation."""
    players = len(setup.levels)
    return [(setup, index // players, index % players) for index in range(matches)]


def ratio_interval(pairs: Sequence[tuple[float, float]]) -> tuple[float, float]:
    """A ratio of sums over independent groups and the half-width of its 95% interval."""
    total = sum(value for value, _ in pairs)
    weight = sum(count for _, count in pairs)
    ratio = total / weight
    groups = len(pairs)
    if groups < 2:
        return ratio, math.nan
    spread = sum((value - ratio * count) ** 2 for value, count in pairs)
    return ratio, Z95 * math.sqrt(groups / (groups - 1) * spread) / weight


def table(results: Sequence[SeatResult], levels: Sequence[Level], rounds: int) -> str:
    """The per-level table: seats, matches, win rate and points per round with 95% intervals."""
    lines = [
        "level   seats  matches  win rate (95% CI)        points/round (95% CI)    knocks/round",
        "------  -----  -------  -----------------------  -----------------------  ------------",
    ]
    for level in dict.fromkeys(levels):
        mine = [result for result in results if result.level is level]
        by_group: dict[int, list[SeatResult]] = {}
        for result in mine:
            by_group.setdefault(result.group, []).append(result)
        wins = ratio_interval(
            [(sum(r.wins for r in group), len(group)) for group in by_group.values()]
        )
        points = ratio_interval(
            [
                (sum(sum(r.points) for r in group), len(group) * rounds)
                for group in by_group.values()
            ]
        )
        seats_per_match = levels.count(level)
        knocks = sum(r.knocks for r in mine) / (len(mine) * rounds)
        lines.append(
            f"{level.value:<6}  {len(mine):>5}  {len(mine) // seats_per_match:>7}  "
            f"{100 * wins[0]:5.1f}% ± {100 * wins[1]:4.1f} "
            f"[{max(0.0, 100 * (wins[0] - wins[1])):5.1f}, "
            f"{min(100.0, 100 * (wins[0] + wins[1])):5.1f}]  "
            f"{points[0]:6.2f} ± {points[1]:4.2f} "
            f"[{points[0] - points[1]:6.2f}, {points[0] + points[1]:6.2f}]  "
            f"{knocks:12.3f}"
        )
    return "\n".join(lines)


def run(setup: Setup, matches: int, processes: int) -> list[SeatResult]:
    """Play every match, in ``processes`` worker processes when more than one."""
    work = jobs(setup, matches)
    if processes <= 1:
        return [result for job in work for result in play_job(job)]
    with Pool(processes) as pool:
        played = pool.map(play_job, work, chunksize=max(1, len(work) // (processes * 16)))
    return [result for results in played for result in results]


def progress_table(
    variant: Variant, rounds: int, turns: int, seed: int
) -> tuple[tuple[tuple[int, float], ...], ...]:
    """How normal bots that never knock score after 0, 1, 2... turns: the opponents' table.

    Four players; each row lists (points, chance) for chances of at least 0.4%, rescaled.
    """
    players = 4
    counts: list[dict[int, int]] = [{} for _ in range(turns + 1)]
    rng = random.Random(seed)
    for number in range(rounds):
        current = Round(variant, players, dealer=number % players, seed=f"{seed:032x}{number:032x}")
        for seat in range(players):
            counts[0][current.points(seat)] = counts[0].get(current.points(seat), 0) + 1
        while not current.ended and current.turns < turns * players:
            seat = current.turn
            for action in normal_decision(observe(current, seat), rng, knocks=False).actions:
                current.apply(action)
            row = counts[(current.turns - 1) // players + 1]
            row[current.points(seat)] = row.get(current.points(seat), 0) + 1
    table = []
    for row in counts:
        total = sum(row.values())
        kept = {points: count for points, count in row.items() if count / total >= 0.004}
        share = sum(kept.values())
        table.append(tuple((points, round(kept[points] / share, 3)) for points in sorted(kept)))
    return tuple(table)


def main(argv: Sequence[str] | None = None) -> None:
    """Parse the command line, play the matches and print the table."""
    parser = argparse.ArgumentParser(description="Play matches between bot levels.")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--bots", default="strong,normal,easy,easy", help="a level per seat")
    parser.add_argument("--matches", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--variant", choices=sorted(VARIANTS), default="standard")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument(
        "--progress",
        type=int,
        metavar="TURNS",
        help="print the opponents' progress table of --variant over TURNS turns instead "
        "(for app/bots/opponents.py), from --matches rounds of normal bots",
    )
    arguments = parser.parse_args(argv)
    if arguments.progress is not None:
        variant = VARIANTS[arguments.variant]
        print(progress_table(variant, arguments.matches, arguments.progress, arguments.seed))
        return
    levels = tuple(Level(name.strip()) for name in arguments.bots.split(","))
    if len(levels) != arguments.players:
        parser.error(f"--bots names {len(levels)} levels for {arguments.players} players")
    rules = MatchRules(arguments.rounds, VARIANTS[arguments.variant])
    rules.check(arguments.players)
    setup = Setup(levels, rules, arguments.seed)
    started = time.perf_counter()
    results = run(setup, arguments.matches, arguments.processes)
    elapsed = time.perf_counter() - started
    print(
        f"{arguments.matches} matches of {arguments.rounds} rounds, {arguments.variant}, "
        f"{arguments.players} players ({arguments.bots}), seed {arguments.seed}: "
        f"{elapsed:.1f} s on {arguments.processes} processes"
    )
    print(table(results, levels, arguments.rounds))
    print(
        "Win rate is per seat; a first place shared by k seats counts 1/k of a win each "
        f"(chance: {100 / arguments.players:.1f}%). Intervals treat each group of "
        f"{arguments.players} rotated matches on the same deals as one sample."
    )


if __name__ == "__main__":
    main()
