"""What one seat may know of a round: its own hand and everything that happened face up."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from app.engine.actions import DISCARD_PILE, Discard, Take
from app.engine.cards import DECK_SIZE, Card
from app.engine.options import PILES, Options, Step
from app.engine.round import Round
from app.engine.variant import Variant


@dataclass(frozen=True, slots=True)
class Observation:
    """One seat's view of a round; bots decide from this and nothing else."""

    seat: int
    players: int
    variant: Variant
    dealer: int
    turn: int
    step: Step
    pending: int
    turns: int
    knocker: int | None
    ended: bool
    hand: tuple[Card, ...]
    tops: tuple[Card | None, ...]
    counts: tuple[int, ...]
    discard: tuple[Card, ...]
    known: tuple[tuple[Card, ...], ...]
    taking: tuple[Card, ...]

    @property
    def options(self) -> Options:
        """What this seat may do now (meaningful on its own turn)."""
        return Options.of(
            self.variant, self.seat, self.step, self.counts, self.knocker, self.hand, self.pending
        )

    @property
    def opponents(self) -> tuple[int, ...]:
        """The other seats, in the order they play after this one."""
        return tuple((self.seat + step) % self.players for step in range(1, self.players))

    def tops_of(self, piles: Sequence[int]) -> list[Card]:
        """The face-up cards of ``piles``, in order."""
        return [card for pile in piles if (card := self.tops[pile]) is not None]

    @property
    def draw_cards(self) -> int:
        """Cards left in the four draw piles, face up and face down."""
        return sum(self.counts[:DISCARD_PILE])

    def turns_taken(self, seat: int) -> int:
        """How many turns ``seat`` has finished this round (a knock counts as one)."""
        first = (self.dealer + 1) % self.players
        offset = (seat - first) % self.players
        return max(0, (self.turns - offset + self.players - 1) // self.players)

    def unseen(self) -> list[Card]:
        """Cards this seat cannot place: face down in a draw pile or dealt to another hand."""
        placed = set(self.hand).union(self.discard)
        placed.update(card for card in self.tops if card is not None)
        for cards in self.known:
            placed.update(cards)
        return [card for card in range(DECK_SIZE) if card not in placed]


def observe(current: Round, seat: int) -> Observation:
    """What ``seat`` may know of ``current``: its own hand and the public record, no more."""
    players = current.players
    known: list[list[Card]] = [[] for _ in range(players)]
    for action, cards in zip(current.actions, current.moved, strict=True):
        if isinstance(action, Take):
            known[action.seat].extend(cards)
        elif isinstance(action, Discard):
            kept = known[action.seat]
            for card in cards:
                if card in kept:
                    kept.remove(card)
    taking: tuple[Card, ...] = ()
    if current.step is Step.DISCARD and current.turn == seat:
        taking = current.moved[-1]
    known[seat] = list(current.hands[seat])
    return Observation(
        seat=seat,
        players=players,
        variant=current.variant,
        dealer=current.dealer,
        turn=current.turn,
        step=current.step,
        pending=current.pending,
        turns=current.turns,
        knocker=current.knocker,
        ended=current.ended,
        hand=tuple(current.hands[seat]),
        tops=tuple(current.top(pile) for pile in range(PILES)),
        counts=tuple(current.count(pile) for pile in range(PILES)),
        discard=tuple(current.discard),
        known=tuple(tuple(cards) for cards in known),
        taking=taking,
    )
