"""A match: a fixed number of rounds with a rotating dealer, totals and places."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from app.engine.actions import Action, action_from_dict, action_to_dict, move_to_dict
from app.engine.cards import Card
from app.engine.errors import IllegalAction
from app.engine.fairdeal import round_seed
from app.engine.round import Ending, Round
from app.engine.scoring import Score
from app.engine.variant import STANDARD, Variant

MAX_ROUNDS = 50


@dataclass(frozen=True, slots=True)
class MatchRules:
    """What is fixed before a match starts."""

    rounds: int = 5
    variant: Variant = STANDARD

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> MatchRules:
        """The rules described by ``to_dict``'s output."""
        return cls(data["rounds"], Variant.from_flags(data))

    def to_dict(self) -> dict[str, Any]:
        """The rules as plain data: the number of rounds and the variant's flags."""
        return {"rounds": self.rounds, **self.variant.flags()}

    def check(self, players: int) -> None:
        """Raise IllegalAction unless a match under these rules can start with ``players``."""
        if not 1 <= self.rounds <= MAX_ROUNDS:
            raise IllegalAction(
                "bad_settings", f"a match has 1 to {MAX_ROUNDS} rounds, not {self.rounds}"
            )
        self.variant.check_players(players)


@dataclass(frozen=True, slots=True)
class RoundResult:
    """A finished round: every hand revealed and scored, and the totals after it."""

    number: int
    dealer: int
    knocker: int | None
    ending: Ending
    seed: str
    commitment: str
    hands: tuple[tuple[Card, ...], ...]
    scores: tuple[Score, ...]
    points: tuple[int, ...]
    totals: tuple[int, ...]
    # Every move of the round in order (``move_to_dict``'s form), for a replay of it.
    moves: tuple[dict[str, Any], ...] = ()


def places(totals: Sequence[int]) -> list[int]:
    """Each seat's place: 1 for the highest total; equal totals share a place."""
    return [1 + sum(other > total for other in totals) for total in totals]


class Match:
    """The rounds of one match, replayable from its seed and its actions."""

    def __init__(self, players: int, rules: MatchRules, seed: str, first_dealer: int = 0) -> None:
        rules.check(players)
        if not 0 <= first_dealer < players:
            raise IllegalAction("bad_settings", f"no seat {first_dealer} to deal the first round")
        self.players = players
        self.first_dealer = first_dealer
        self.rules = rules
        self.seed = seed
        self.round: Round | None = None
        self.rounds: list[Round] = []
        self.results: list[RoundResult] = []
        self.totals = [0] * players

    @property
    def finished(self) -> bool:
        """True once the last round has been scored."""
        return len(self.results) == self.rules.rounds

    @property
    def in_round(self) -> bool:
        """True while a round is being played."""
        return self.round is not None and self.round.ending is None

    def next_round_number(self) -> int:
        """The number the next round will have."""
        return len(self.results) + 1

    def next_dealer(self) -> int:
        """The dealer of the next round: the first dealer, then one seat on each round."""
        return (self.first_dealer + self.next_round_number() - 1) % self.players

    def start_round(self) -> Round:
        """Deal the next round."""
        if self.in_round:
            raise IllegalAction("round_in_progress", "the current round is not over")
        if self.finished:
            raise IllegalAction("match_over", "the match is over")
        number = self.next_round_number()
        self.round = Round(
            self.rules.variant,
            self.players,
            dealer=self.next_dealer(),
            seed=round_seed(self.seed, number),
            number=number,
        )
        self.rounds.append(self.round)
        return self.round

    def apply(self, action: Action) -> RoundResult | None:
        """Play an action in the current round; returns the result if it ended the round."""
        current = self.round
        if current is None:
            raise IllegalAction("no_round", "no round has been dealt")
        if current.ending is not None:
            raise IllegalAction("round_over", "the round is over")
        current.apply(action)
        if current.ending is None:
            return None
        return self._finish_round(current)

    def _finish_round(self, current: Round) -> RoundResult:
        scores = tuple(current.score(seat) for seat in range(self.players))
        points = tuple(score.points for score in scores)
        for seat, gained in enumerate(points):
            self.totals[seat] += gained
        assert current.ending is not None
        result = RoundResult(
            number=current.number,
            dealer=current.dealer,
            knocker=current.knocker,
            ending=current.ending,
            seed=current.seed,
            commitment=current.commitment,
            hands=tuple(tuple(hand) for hand in current.hands),
            scores=scores,
            points=points,
            totals=tuple(self.totals),
            moves=tuple(
                move_to_dict(action, moved)
                for action, moved in zip(current.actions, current.moved, strict=True)
            ),
        )
        self.results.append(result)
        return result

    def places(self) -> list[int]:
        """Each seat's place by total so far."""
        return places(self.totals)

    def winners(self) -> list[int]:
        """The seats in first place."""
        return [seat for seat, place in enumerate(self.places()) if place == 1]

    # Replay.

    def record(self) -> dict[str, Any]:
        """What rebuilds the match: its seed, first dealer and the actions of each round."""
        rounds = [[action_to_dict(action) for action in dealt.actions] for dealt in self.rounds]
        record = {
            "players": self.players,
            "rules": self.rules.to_dict(),
            "seed": self.seed,
            "rounds": rounds,
        }
        if self.first_dealer:  # a rematch's; a record without one is dealt from seat 0
            record["first_dealer"] = self.first_dealer
        return record

    @classmethod
    def replay(cls, record: dict[str, Any]) -> Match:
        """The match rebuilt from ``record()``'s output."""
        rules = MatchRules.from_dict(record["rules"])
        match = cls(record["players"], rules, record["seed"], record.get("first_dealer", 0))
        for actions in record["rounds"]:
            match.start_round()
            for action in actions:
                match.apply(action_from_dict(action))
        return match
