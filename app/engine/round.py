"""One round of Spectrum as a state machine: deal, take then discard, knock, the end."""

from __future__ import annotations

import random
from collections.abc import Iterator
from enum import StrEnum

from app.engine.actions import DISCARD_PILE, Action, Discard, Take
from app.engine.cards import Card
from app.engine.errors import IllegalAction
from app.engine.fairdeal import commitment, shuffled_deck
from app.engine.options import Options, Step
from app.engine.scoring import Score
from app.engine.variant import Variant

DRAW_PILES = 4


class Ending(StrEnum):
    """Why a round ended."""

    KNOCK = "knock"
    EXHAUSTED = "exhausted"


class Round:
    """The authoritative state of one round; illegal actions raise and change nothing."""

    def __init__(self, variant: Variant, players: int, dealer: int, seed: str, number: int = 1):
        variant.check_players(players)
        self.variant = variant
        self.players = players
        self.dealer = dealer
        self.seed = seed
        self.commitment = commitment(seed)
        self.number = number
        deck = shuffled_deck(seed)
        dealt = players * variant.hand_size
        # One card at a time, starting with the seat after the dealer.
        self.hands: list[list[Card]] = [
            deck[(seat - dealer - 1) % players : dealt : players] for seat in range(players)
        ]
        rest = deck[dealt:]
        base, extra = divmod(len(rest), DRAW_PILES)
        self.piles: list[list[Card]] = []
        start = 0
        for index in range(DRAW_PILES):
            size = base + (1 if index < extra else 0)
            # Stored bottom first so that the top card is the list's last.
            self.piles.append(rest[start : start + size][::-1])
            start += size
        self.discard: list[Card] = []
        self.turn = (dealer + 1) % players
        self.step = Step.TAKE
        self.pending = 0
        self.knocker: int | None = None
        self.final_turns = 0
        self.ending: Ending | None = None
        self.turns = 0
        self.actions: list[Action] = []
        # The cards each action moved, parallel to ``actions`` (empty for a knock). Every one of
        # them was face up when it moved, so this log is public: bots build observations from it.
        self.moved: list[tuple[Card, ...]] = []
        self._begin_turn()

    # What everyone can see.

    @property
    def ended(self) -> bool:
        """True once the round is over and every hand can be scored."""
        return self.ending is not None

    def top(self, pile: int) -> Card | None:
        """The face-up card of a pile (4 is the discard pile), None when it is empty."""
        cards = self.discard if pile == DISCARD_PILE else self.piles[pile]
        return cards[-1] if cards else None

    def count(self, pile: int) -> int:
        """How many cards a pile holds (4 is the discard pile)."""
        return len(self.discard if pile == DISCARD_PILE else self.piles[pile])

    # Legality: ``options`` is the one source for validation, random play and the bots.

    def options(self) -> Options:
        """What the seat to play may do now."""
        return Options.of(
            self.variant,
            self.turn,
            self.step,
            [*map(len, self.piles), len(self.discard)],
            self.knocker,
            self.hands[self.turn],
            self.pending,
        )

    def verify(self, action: Action) -> None:
        """Raise IllegalAction with a stable code if ``action`` is not allowed now."""
        if self.ending is not None:
            raise IllegalAction("round_over", "the round is over")
        if not 0 <= action.seat < self.players:
            raise IllegalAction("no_such_seat", f"there is no seat {action.seat}")
        if action.seat != self.turn:
            raise IllegalAction("not_your_turn", f"it is seat {self.turn}'s turn")
        self.options().verify(action)

    def can(self, action: Action) -> bool:
        """Whether ``action`` is allowed now."""
        try:
            self.verify(action)
        except IllegalAction:
            return False
        return True

    def legal_actions(self, seat: int) -> Iterator[Action]:
        """Every allowed action of ``seat``; discards list each set of cards once, in hand order."""
        if self.ending is not None or seat != self.turn:
            return iter(())
        return self.options().actions()

    def random_action(self, rng: random.Random, knock_chance: float = 0.05) -> Action:
        """A random legal action for the seat to play, drawn without listing them all."""
        if self.ending is not None:
            raise IllegalAction("round_over", "the round is over")
        return self.options().random_action(rng, knock_chance)

    # Changes.

    def apply(self, action: Action) -> None:
        """Play ``action``; raises IllegalAction, changing nothing, if it is not allowed."""
        self.verify(action)
        self.actions.append(action)
        if isinstance(action, Take):
            hand = self.hands[action.seat]
            taken = tuple(
                (self.discard if pile == DISCARD_PILE else self.piles[pile]).pop()
                for pile in action.piles
            )
            hand.extend(taken)
            self.moved.append(taken)
            self.step = Step.DISCARD
            self.pending = len(action.piles)
        elif isinstance(action, Discard):
            hand = self.hands[action.seat]
            for card in action.cards:
                hand.remove(card)
            self.discard.extend(action.cards)
            self.moved.append(tuple(action.cards))
            self.step = Step.TAKE
            self.pending = 0
            if self.knocker is not None:
                self.final_turns -= 1
                if self.final_turns == 0:
                    self.ending = Ending.KNOCK
                    return
            self._next_turn()
        else:
            self.moved.append(())
            self.knocker = action.seat
            self.final_turns = self.players - 1
            self._next_turn()

    def _next_turn(self) -> None:
        self.turn = (self.turn + 1) % self.players
        self.turns += 1
        self._begin_turn()

    def _begin_turn(self) -> None:
        if not any(self.piles):
            self.ending = Ending.EXHAUSTED

    # Scores.

    def points(self, seat: int) -> int:
        """Points of a seat's hand as it stands (between turns)."""
        return self.variant.points(self.hands[seat])

    def score(self, seat: int) -> Score:
        """The full scoring of a seat's hand as it stands (between turns)."""
        return self.variant.score(self.hands[seat])
