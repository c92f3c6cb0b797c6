"""Bots choose among the round's own options: every action they pick is in ``legal_actions``."""

import copy
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from app.bots.greedy import greedy_turn
from app.bots.levels import Level, decide
from app.bots.observation import observe
from app.engine.actions import Action
from app.engine.round import Round
from app.engine.variant import VARIANTS
from tests.engine.helpers import canonical, positions


def play_legally(current: Round, actions: tuple[Action, ...] | list[Action]) -> None:
    """Play ``actions`` on a copy of the round, each one listed by ``legal_actions`` first."""
    played = copy.deepcopy(current)
    for action in actions:
        assert canonical(played, action) in list(played.legal_actions(action.seat)), action
        played.apply(action)


@given(
    st.integers(0, 2**32),
    st.sampled_from(sorted(VARIANTS)),
    st.integers(2, 4),
    st.sampled_from(list(Level)),
)
@settings(max_examples=30, deadline=None)
def test_every_bot_action_is_a_legal_action(
    seed: int, name: str, players: int, level: Level
) -> None:
    rng = random.Random(seed)
    for current in positions(VARIANTS[name], players, seed, rng, stops=2):
        seat = current.turn
        observation = observe(current, seat)
        assert observation.options == current.options()
        play_legally(current, decide(level, observation, random.Random(seed)).actions)
        play_legally(current, greedy_turn(current, seat))
