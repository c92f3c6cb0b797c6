"""A turn's legal choices: the one source for validation, random play and the bots."""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from enum import StrEnum
from itertools import combinations, compress
from typing import NamedTuple

from app.engine.actions import DISCARD_PILE, Action, Discard, Knock, Take
from app.engine.cards import CARD_IDS, Card
from app.engine.errors import IllegalAction
from app.engine.variant import Variant

PILES = DISCARD_PILE + 1


class Step(StrEnum):
    """The two steps of a turn."""

    TAKE = "take"
    DISCARD = "discard"


def plural(count: int, word: str) -> str:
    """``1 card``, ``2 cards``."""
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def pile_name(pile: int) -> str:
    """``the discard pile`` or ``draw pile N``."""
    return "the discard pile" if pile == DISCARD_PILE else f"draw pile {pile}"


class Options(NamedTuple):
    """What the seat to play may do: take from ``piles``, knock, or discard from ``hand``."""

    seat: int
    step: Step
    piles: tuple[int, ...]
    max_take: int
    knocker: int | None
    hand: tuple[Card, ...]
    pending: int

    @classmethod
    def of(
        cls,
        variant: Variant,
        seat: int,
        step: Step,
        counts: Sequence[int],
        knocker: int | None,
        hand: Sequence[Card],
        pending: int,
    ) -> Options:
        """The options of ``seat`` at ``step``, given each pile's card count and the knocker."""
        piles = tuple(compress(range(PILES), counts))
        return cls(seat, step, piles, variant.max_take, knocker, tuple(hand), pending)

    @property
    def knock(self) -> bool:
        """Whether the seat may knock now."""
        return self.step is Step.TAKE and self.knocker is None

    @property
    def most(self) -> int:
        """Most piles one take may list now."""
        return min(self.max_take, len(self.piles))

    def takes(self) -> Iterator[tuple[int, ...]]:
        """Every set of piles a take may list, fewest first, each in pile order."""
        for size in range(1, self.most + 1):
            yield from combinations(self.piles, size)

    def discards(self) -> Iterator[tuple[Card, ...]]:
        """Every set of cards the discard may list, each once, in hand order."""
        return combinations(self.hand, self.pending)

    def actions(self) -> Iterator[Action]:
        """Every allowed action: at the take step a knock (if allowed) first, then the takes."""
        if self.step is Step.DISCARD:
            for cards in self.discards():
                yield Discard(self.seat, cards)
            return
        if self.knock:
            yield Knock(self.seat)
        for piles in self.takes():
            yield Take(self.seat, piles)

    # Random choices, drawn without listing every option.

    def random_knock(self, rng: random.Random, chance: float) -> bool:
        """Whether to knock, with ``chance`` when knocking is allowed (no draw otherwise)."""
        return self.knock and rng.random() < chance

    def random_take(self, rng: random.Random) -> tuple[int, ...]:
        """A random number of random piles, in the order drawn."""
        return tuple(rng.sample(self.piles, rng.randint(1, self.most)))

    def random_discard(self, rng: random.Random) -> tuple[Card, ...]:
        """Random cards of the hand, as many as are to be discarded."""
        return tuple(rng.sample(self.hand, self.pending))

    def random_action(self, rng: random.Random, knock_chance: float) -> Action:
        """A random allowed action; a knock with ``knock_chance`` when allowed."""
        if self.step is Step.DISCARD:
            return Discard(self.seat, self.random_discard(rng))
        if self.random_knock(rng, knock_chance):
            return Knock(self.seat)
        return Take(self.seat, self.random_take(rng))

    # Refusals, with a stable code and a message for the player.

    def verify(self, action: Action) -> None:
        """Raise IllegalAction unless the seat to play may play ``action`` at this step."""
        if isinstance(action, Take):
            self._verify_take(action)
        elif isinstance(action, Discard):
            self._verify_discard(action)
        else:
            self._verify_knock()

    def _verify_take(self, action: Take) -> None:
        if self.step is not Step.TAKE:
            raise IllegalAction(
                "wrong_step", f"you have taken; now discard {plural(self.pending, 'card')}"
            )
        piles = action.piles
        most = self.max_take
        if not 1 <= len(piles) <= most:
            wanted = "one pile" if most == 1 else f"1 to {most} piles"
            raise IllegalAction("wrong_count", f"take from {wanted}, not {len(piles)}")
        for pile in piles:
            if type(pile) is not int or not 0 <= pile < PILES:
                raise IllegalAction("bad_pile", f"piles are numbered 0 to 4, not {pile!r}")
            if pile not in self.piles:
                raise IllegalAction("pile_empty", f"{pile_name(pile)} is empty")
        if len(set(piles)) != len(piles):
            raise IllegalAction("duplicate_pile", "take at most one card from each pile")

    def _verify_discard(self, action: Discard) -> None:
        if self.step is not Step.DISCARD:
            raise IllegalAction("wrong_step", "take a card (or knock) before discarding")
        cards = action.cards
        if len(cards) != self.pending:
            raise IllegalAction(
                "wrong_count", f"discard {plural(self.pending, 'card')}, not {len(cards)}"
            )
        for index, card in enumerate(cards):
            if card not in self.hand:
                shown = CARD_IDS[card] if type(card) is int and 0 <= card < 125 else repr(card)
                raise IllegalAction("card_not_in_hand", f"{shown} is not in your hand")
            if card in cards[:index]:
                raise IllegalAction("duplicate_card", f"{CARD_IDS[card]} is listed twice")

    def _verify_knock(self) -> None:
        if self.step is not Step.TAKE:
            raise IllegalAction("wrong_step", "knock instead of taking, not after it")
        if self.knocker is not None:
            raise IllegalAction(
                "knock_not_allowed", f"seat {self.knocker} has already knocked this round"
            )
