"""The variations of Spectrum: how many cards a hand holds and a turn takes, and how hands score.

Everything that differs between variations is answered here; code elsewhere asks the variant
instead of looking at its flags, which exist only to name it in settings and records.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from app.engine.cards import Card
from app.engine.errors import IllegalAction
from app.engine.scoring import (
    Score,
    best_hand_of,
    best_split,
    best_two_hands_of,
    hand_points,
    score_hand,
    split_points,
)

MIN_PLAYERS = 2


@dataclass(frozen=True, slots=True)
class Variant:
    """Which variations are in play: multiple pickups (1 to 5 cards a turn), 10-card hands."""

    multi_pickup: bool = False
    ten_card: bool = False

    @classmethod
    def from_flags(cls, flags: Mapping[str, Any]) -> Variant:
        """The variant named by ``flags()``'s output (a missing flag is off)."""
        return cls(
            multi_pickup=flags.get("multi_pickup", False), ten_card=flags.get("ten_card", False)
        )

    def flags(self) -> dict[str, bool]:
        """The variations as stored in settings and records."""
        return {"multi_pickup": self.multi_pickup, "ten_card": self.ten_card}

    @property
    def name(self) -> str:
        """A short name: ``standard``, ``multi``, ``ten`` or ``ten-multi``."""
        if self.ten_card:
            return "ten-multi" if self.multi_pickup else "ten"
        return "multi" if self.multi_pickup else "standard"

    @property
    def title(self) -> str:
        """The game's name under this variant, for messages."""
        return "10-card Spectrum" if self.ten_card else "Spectrum"

    @property
    def hand_size(self) -> int:
        """Cards in a hand between turns."""
        return 10 if self.ten_card else 5

    @property
    def max_players(self) -> int:
        """Most players the variant allows."""
        return 4 if self.ten_card else 6

    @property
    def max_take(self) -> int:
        """Most cards one turn may take."""
        return 5 if self.multi_pickup else 1

    def check_players(self, players: int) -> None:
        """Raise IllegalAction ``bad_player_count`` unless the variant allows ``players``."""
        if not MIN_PLAYERS <= players <= self.max_players:
            raise IllegalAction(
                "bad_player_count",
                f"{self.title} is for {MIN_PLAYERS} to {self.max_players} players, not {players}",
            )

    def points(self, hand: Sequence[Card]) -> int:
        """Points of a hand of ``hand_size`` cards."""
        return split_points(hand) if self.ten_card else hand_points(hand)

    def score(self, hand: Sequence[Card]) -> Score:
        """The full scoring of a hand of ``hand_size`` cards."""
        return best_split(hand) if self.ten_card else score_hand(hand)

    def best_keep(self, cards: Sequence[Card]) -> tuple[int, int]:
        """The best points a hand can keep from ``cards`` and the position mask of what it keeps."""
        if self.ten_card:
            total, first, second = best_two_hands_of(cards)
            return total, first | second
        return best_hand_of(cards)


STANDARD = Variant()
MULTI_PICKUP = Variant(multi_pickup=True)
TEN_CARD = Variant(ten_card=True)
TEN_CARD_MULTI_PICKUP = Variant(multi_pickup=True, ten_card=True)
VARIANTS: Mapping[str, Variant] = MappingProxyType(
    {variant.name: variant for variant in (STANDARD, MULTI_PICKUP, TEN_CARD, TEN_CARD_MULTI_PICKUP)}
)
