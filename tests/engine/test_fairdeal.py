"""The fair deal's worked example in docs/rules.md is true, and a round's moves rebuild it."""

from __future__ import annotations

import hashlib
import random
import re
from pathlib import Path

from app.engine.cards import CARD_IDS, card_ids
from app.engine.fairdeal import commitment, shuffled_deck
from app.engine.match import Match, MatchRules
from app.engine.round import Round
from app.engine.variant import STANDARD, VARIANTS
from tests.replays import replayed_hands

RULES = (Path(__file__).resolve().parents[2] / "docs" / "rules.md").read_text()


def found(pattern: str, text: str) -> tuple[str, ...]:
    match = re.search(pattern, text)
    assert match is not None, pattern
    return match.groups()


def test_the_worked_example_in_the_rules_is_what_the_server_computes() -> None:
    example = " ".join(RULES[RULES.index("To check by hand") :].split())
    (seed,) = found(r"`([0-9a-f]{64})`", example)
    first, last = found(r"`printf %s \"\$seed\" \| sha256sum` gives `(\w+)…(\w+)`", example)
    assert commitment(seed).startswith(first)
    assert commitment(seed).endswith(last)
    top, prefix = found(r"\$seed:([\w-]+)\" \| sha256sum` gives `(\w+)…`", example)
    deck = card_ids(shuffled_deck(seed))
    assert deck[0] == top
    assert hashlib.sha256(f"{seed}:{top}".encode()).hexdigest().startswith(prefix)
    named = found(r"then come ([\w\-, ]+)…", example)[0].split(", ")
    assert len(named) == 4
    assert deck[1 : 1 + len(named)] == named
    dealt = Round(STANDARD, 2, dealer=0, seed=seed)
    assert card_ids(dealt.hands[1]) == deck[0:10:2]
    assert set(CARD_IDS) == set(deck)


def test_a_round_result_keeps_every_move_and_they_rebuild_the_hands() -> None:
    for name, variant in VARIANTS.items():
        players = 3
        match = Match(players, MatchRules(rounds=2, variant=variant), f"seed-{name}")
        rng = random.Random(name)
        while not match.finished:
            current = match.start_round()
            while not current.ended:
                match.apply(current.random_action(rng, knock_chance=0.05))
        for result in match.results:
            assert len(result.moves) == len(match.rounds[result.number - 1].actions)
            hands = replayed_hands(
                result.seed, result.dealer, players, variant.hand_size, list(result.moves)
            )
            assert hands == [card_ids(hand) for hand in result.hands]
