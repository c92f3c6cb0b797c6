"""One round of Spectrum as a state machine: deal, take then discard, knock, the end."""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass
from enum import StrEnum
from itertools import combinations

from app.engine.actions import DISCARD_PILE, Action, Discard, Knock, Take
from app.engine.cards import CARD_IDS, Card
from app.engine.errors import IllegalAction
from app.engine.fairdeal import commitment, shuffled_deck
from app.engine.scoring import Score, best_split, hand_points, score_hand, split_points

MIN_PLAYERS = 2
DRAW_PILES = 4


@dataclass(frozen=True, slots=True)
class Variant:
    """Which variations are in play."""

    multi_pickup: bool = False
    ten_card: bool = False

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
                f"{'10-card Spectrum' if self.ten_card else 'Spectrum'} is for "
                f"{MIN_PLAYERS} to {self.max_players} players, not {players}",
            )


class Step(StrEnum):
    """The two steps of a turn."""

    TAKE = "take"
    DISCARD = "discard"


class Ending(StrEnum):
    """Why a round ended."""

    KNOCK = "knock"
    EXHAUSTED = "exhausted"


def _plural(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


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

    # Legality: one source for validation, bots, hints and the interface.

    def verify(self, action: Action) -> None:
        """Raise IllegalAction with a stable code if ``action`` is not allowed now."""
        if self.ending is not None:
            raise IllegalAction("round_over", "the round is over")
        if not 0 <= action.seat < self.players:
            raise IllegalAction("no_such_seat", f"there is no seat {action.seat}")
        if action.seat != self.turn:
            raise IllegalAction("not_your_turn", f"it is seat {self.turn}'s turn")
        if isinstance(action, Take):
            self._verify_take(action)
        elif isinstance(action, Discard):
            self._verify_discard(action)
        else:
            self._verify_knock()

    def _verify_take(self, action: Take) -> None:
        if self.step is not Step.TAKE:
            raise IllegalAction("wrong_step", self._discard_prompt())
        piles = action.piles
        most = self.variant.max_take
        if not 1 <= len(piles) <= most:
            wanted = "one pile" if most == 1 else f"1 to {most} piles"
            raise IllegalAction("wrong_count", f"take from {wanted}, not {len(piles)}")
        for pile in piles:
            if type(pile) is not int or not 0 <= pile <= DISCARD_PILE:
                raise IllegalAction("bad_pile", f"piles are numbered 0 to 4, not {pile!r}")
            if self.count(pile) == 0:
                name = "the discard pile" if pile == DISCARD_PILE else f"draw pile {pile}"
                raise IllegalAction("pile_empty", f"{name} is empty")
        if len(set(piles)) != len(piles):
            raise IllegalAction("duplicate_pile", "take at most one card from each pile")

    def _verify_discard(self, action: Discard) -> None:
        if self.step is not Step.DISCARD:
            raise IllegalAction("wrong_step", "take a card (or knock) before discarding")
        cards = action.cards
        if len(cards) != self.pending:
            raise IllegalAction(
                "wrong_count", f"discard {_plural(self.pending, 'card')}, not {len(cards)}"
            )
        hand = self.hands[action.seat]
        for index, card in enumerate(cards):
            if card not in hand:
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

    def _discard_prompt(self) -> str:
        return f"you have taken; now discard {_plural(self.pending, 'card')}"

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
            return
        if self.step is Step.DISCARD:
            for cards in combinations(self.hands[seat], self.pending):
                yield Discard(seat, cards)
            return
        if self.knocker is None:
            yield Knock(seat)
        available = [pile for pile in range(DISCARD_PILE + 1) if self.count(pile)]
        for size in range(1, min(self.variant.max_take, len(available)) + 1):
            for piles in combinations(available, size):
                yield Take(seat, piles)

    def random_action(self, rng: random.Random, knock_chance: float = 0.05) -> Action:
        """A random legal action for the seat to play, drawn without listing them all."""
        seat = self.turn
        if self.ending is not None:
            raise IllegalAction("round_over", "the round is over")
        if self.step is Step.DISCARD:
            return Discard(seat, tuple(rng.sample(self.hands[seat], self.pending)))
        if self.knocker is None and rng.random() < knock_chance:
            return Knock(seat)
        available = [pile for pile in range(DISCARD_PILE + 1) if self.count(pile)]
        size = rng.randint(1, min(self.variant.max_take, len(available)))
        return Take(seat, tuple(rng.sample(available, size)))

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
        hand = self.hands[seat]
        return split_points(hand) if self.variant.ten_card else hand_points(hand)

    def score(self, seat: int) -> Score:
        """The full scoring of a seat's hand as it stands (between turns)."""
        hand = self.hands[seat]
        return best_split(hand) if self.variant.ten_card else score_hand(hand)
