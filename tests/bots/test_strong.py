"""The strong bot's hand choice in 10-card Spectrum with one card a turn."""

import random

import pytest

from app.bots.levels import Level, decide
from app.bots.observation import Observation, observe
from app.bots.plans import candidate_keeps, kept_cards, progress
from app.bots.simple import normal_decision
from app.bots.strong import Search, halves_of, horizon, outlook_of
from app.engine.actions import Knock
from app.engine.cards import Card
from app.engine.round import Round
from app.engine.scoring import best_two_hands_of
from app.engine.variant import TEN_CARD


def positions(players: int, seed: int, count: int) -> list[Observation]:
    """Positions met in rounds of normal bots, at every stage of the round."""
    rng = random.Random(seed)
    found: list[Observation] = []
    number = 0
    while len(found) < count:
        number += 1
        current = Round(
            TEN_CARD, players, dealer=number % players, seed=f"{seed:032x}{number:032x}"
        )
        while not current.ended and len(found) < count:
            observation = observe(current, current.turn)
            found.append(observation)
            for action in normal_decision(observation, rng).actions:
                current.apply(action)
    return found


def rank(keep: tuple[Card, ...]) -> tuple[int, int]:
    """Points now, then how near the halves of the best split are to complete properties."""
    points, first, second = best_two_hands_of(keep)
    return points, progress(kept_cards(keep, first)) + progress(kept_cards(keep, second))


@pytest.mark.parametrize("players", [2, 3])
def test_strong_keeps_a_ten_card_hand_as_good_as_normal_and_better_by_its_outlook(
    players: int,
) -> None:
    """Its keep ranks first on points and nearness, and its outlook is at least normal's keep's."""
    for index, observation in enumerate(positions(players, seed=players, count=40)):
        strong = decide(Level.STRONG, observation, random.Random(index))
        if isinstance(strong.actions[0], Knock):
            continue
        normal = normal_decision(observation, random.Random(index), knocks=False)
        keeps = {frozenset(keep): keep for keep in candidate_keeps(observation)}
        best = max(rank(keep) for keep in keeps.values())
        mine, theirs = keeps[frozenset(strong.keep)], keeps[frozenset(normal.keep)]
        assert rank(mine) == rank(theirs) == best
        search = Search(observation, outlook_of(observation, horizon(observation)))
        worth = search.choice(halves_of(search, mine)).worth
        assert worth >= search.choice(halves_of(search, theirs)).worth - 1e-9
