"""The strong bot: weighs what may still come, what the next player collects, and when to knock."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType

from app.bots.aims import aim as aim_for
from app.bots.decision import Decision, knock_decision, plan_decision
from app.bots.greedy import greedy_keep
from app.bots.observation import Observation
from app.bots.opponents import expected_best, table_for
from app.bots.outlook import Outlook
from app.bots.plans import (
    Plan,
    candidate_keeps,
    kept_cards,
    pass_pile,
    plan_for_keep,
    points_of,
    progress,
)
from app.bots.shapes import FAMILY_SLOTS, VALUES
from app.engine.cards import CARD_IDS, DECK_SIZE, Card
from app.engine.options import Step
from app.engine.scoring import best_two_hands_of

# Of the cards a seat cannot place, the share offered to it per turn, per player at the table.
OFFER_RATE = 0.6
# The chance that each other player leaves a face-up draw card for the seat's next turn.
LEFT_ALONE = 0.8
# The chance per round of turns that someone ends the round by knocking, by variant name:
# about one over the rounds of turns normal bots play.
KNOCK_HAZARD: Mapping[str, float] = MappingProxyType(
    {"standard": 0.1, "multi": 0.18, "ten": 0.2, "ten-multi": 0.3}
)
# Draw cards used per turn (the rest of the takes come from the discard pile).
DRAWS_PER_TURN = 0.9
# Points of worth given up to keep a card the next player wants off the discard pile.
DENIAL = 1.0
# How much better, in expected points against the best opponent, a knock must look.
KNOCK_MARGIN = 0.0
# Never knock with fewer points than this, by hand size.
KNOCK_MINIMUM: Mapping[int, int] = MappingProxyType({5: 5, 10: 15})


@dataclass(frozen=True, slots=True)
class Choice:
    """A hand to end the turn with (halves of five): expected points, worth net of the discard."""

    halves: tuple[tuple[Card, ...], ...]
    worth: float
    expected: float

    @property
    def keep(self) -> tuple[Card, ...]:
        """All the cards kept."""
        return tuple(card for half in self.halves for card in half)


def horizon(observation: Observation) -> float:
    """The seat's expected number of turns after this one, before the round ends."""
    if observation.knocker is not None:
        return 0.0
    rounds_left = int(observation.draw_cards / (observation.players * DRAWS_PER_TURN))
    hazard = KNOCK_HAZARD[observation.variant.name]
    return sum((1 - hazard) ** index for index in range(rounds_left))


def outlook_of(observation: Observation, turns: float) -> Outlook:
    """How often each card should be offered to the seat, for ``turns`` turns.

    After a knock this is the seat's final turn: no card is offered to it any more, not even a
    face-up one, so nothing is aimed for beyond the hand it keeps now."""
    players = observation.players
    unseen = observation.unseen()
    rate = [0.0] * DECK_SIZE
    lump = [0.0] * DECK_SIZE
    if observation.knocker is not None:
        return Outlook(rate, lump, turns, observation.variant.max_take == 1)
    if unseen:
        each = min(1.0, OFFER_RATE * players / len(unseen))
        for card in unseen:
            rate[card] = each
    for top in observation.tops[:4]:
        if top is not None:
            lump[top] = LEFT_ALONE ** (players - 1)
    return Outlook(rate, lump, turns, observation.variant.max_take == 1)


def appeal(known: Sequence[Card], card: Card) -> float:
    """How plainly a seat whose hand holds ``known`` wants ``card``: 0 (not seen to) to 1.

    Only strong evidence counts: the card completes a property of which the seat visibly holds
    four values, or fills a Duo of which it visibly holds three slots or more.
    """
    best = 0.0
    if len(known) < 3:
        return best
    for prop in range(3):
        present = {VALUES[other][prop] for other in known}
        if len(present) == 4 and VALUES[card][prop] not in present:
            best = 0.5
    for slots in FAMILY_SLOTS:
        slot = slots[card]
        if slot < 0:
            continue
        covered = {slots[other] for other in known} - {-1}
        if len(covered) >= 3 and slot not in covered:
            best = max(best, len(covered) / 5)
    return best


class Search:
    """One decision's search: the outlook, the worth of halves (cached), the next player's wants."""

    def __init__(self, observation: Observation, outlook: Outlook) -> None:
        self.observation = observation
        self.outlook = outlook
        self.cache: dict[tuple[Card, ...], float] = {}
        next_seat = (observation.seat + 1) % observation.players
        self.next_known = observation.known[next_seat]
        self.hand = set(observation.hand)
        self.pass_card = (
            observation.tops[pass_pile(observation.options)]
            if observation.step is Step.TAKE
            else None
        )
        self.appeals: dict[Card, float] = {}

    def worth(self, half: Sequence[Card]) -> float:
        """The expected points of five cards at the end of the round (cached)."""
        key = tuple(sorted(half))
        found = self.cache.get(key)
        if found is None:
            found = self.cache[key] = self.outlook.worth(key)
        return found

    def appeal(self, card: Card) -> float:
        """How much the next player would want ``card`` (cached)."""
        found = self.appeals.get(card)
        if found is None:
            found = self.appeals[card] = appeal(self.next_known, card)
        return found

    def denial(self, keep: Sequence[Card]) -> float:
        """The cost of the card that ending the turn with ``keep`` leaves on the discard pile."""
        kept = set(keep)
        dropped = [card for card in self.hand if card not in kept]
        if not dropped and self.pass_card is not None:
            dropped = [self.pass_card]
        if not dropped:
            return 0.0
        return DENIAL * min(self.appeal(card) for card in dropped)

    def choice(self, halves: tuple[tuple[Card, ...], ...]) -> Choice:
        """The choice ending the turn with ``halves``, valued net of what it gives away."""
        keep = [card for half in halves for card in half]
        expected = sum(self.worth(half) for half in halves)
        return Choice(halves, expected - self.denial(keep), expected)

    def plan(self, keep: Sequence[Card]) -> Plan:
        """The plan that ends the turn with ``keep``; the least wanted card is discarded last."""
        plan = plan_for_keep(self.observation, keep)
        if len(plan.drop) > 1:
            order = sorted(plan.drop, key=lambda card: -self.appeal(card))
            plan = Plan(plan.piles, tuple(order), plan.keep)
        return plan


def choose(search: Search) -> Choice:
    """The best hand to end the turn with.

    With one card per turn and five in hand every reachable hand is tried. Otherwise the search
    starts from the hand (split into the two best halves of five in 10-card Spectrum) and swaps in
    face-up cards one at a time while that raises the worth; the greedy best hand competes too.
    """
    observation = search.observation
    variant = observation.variant
    if variant.hand_size == 5 and variant.max_take == 1:
        return max(
            (search.choice((keep,)) for keep in candidate_keeps(observation)),
            key=lambda choice: choice.worth,
        )
    if variant.max_take == 1:
        return choose_ten(search)
    if observation.step is Step.DISCARD:
        base = [card for card in observation.hand if card not in observation.taking]
        pool = list(observation.taking)
    else:
        base = list(observation.hand)
        pool = [card for card in observation.tops if card is not None]
    most = observation.options.most if observation.step is Step.TAKE else len(pool)
    options = climb(search, halves_of(search, base), pool, most)
    _, greedy = greedy_keep(observation)
    options.append(search.choice(halves_of(search, greedy)))
    return max(options, key=lambda choice: choice.worth)


def choose_ten(search: Search) -> Choice:
    """The best hand of ten to end a one-card turn with.

    Every reachable hand is ranked as the normal bot ranks them: points now, then how near its
    halves are to complete properties. Among the hands that tie on both the outlook decides, each
    split into the halves with the best worth.
    """
    ranked: list[tuple[tuple[int, int], tuple[Card, ...]]] = []
    for keep in candidate_keeps(search.observation):
        points, first, second = best_two_hands_of(keep)
        near = progress(kept_cards(keep, first)) + progress(kept_cards(keep, second))
        ranked.append(((points, near), keep))
    top = max(rank for rank, _ in ranked)
    return max(
        (search.choice(halves_of(search, keep)) for rank, keep in ranked if rank == top),
        key=lambda choice: choice.worth,
    )


def halves_of(search: Search, cards: Sequence[Card]) -> tuple[tuple[Card, ...], ...]:
    """Five cards as one hand; ten as the two hands of five with the best worth found."""
    if len(cards) == 5:
        return (tuple(cards),)
    _, first, second = best_two_hands_of(cards)
    one = [card for index, card in enumerate(cards) if first >> index & 1]
    two = [card for index, card in enumerate(cards) if second >> index & 1]
    value = search.worth(one) + search.worth(two)
    improved = True
    while improved:
        improved = False
        for i in range(5):
            for j in range(5):
                new_one = [*one[:i], two[j], *one[i + 1 :]]
                new_two = [*two[:j], one[i], *two[j + 1 :]]
                new_value = search.worth(new_one) + search.worth(new_two)
                if new_value > value + 1e-9:
                    one, two, value, improved = new_one, new_two, new_value, True
    return tuple(one), tuple(two)


def climb(
    search: Search, halves: tuple[tuple[Card, ...], ...], pool: Sequence[Card], most: int
) -> list[Choice]:
    """Choices met swapping ``pool`` cards into ``halves`` one at a time, each the best swap."""
    current = search.choice(halves)
    options = [current]
    left = list(pool)
    for _ in range(most):
        best: Choice | None = None
        for card in left:
            for side, half in enumerate(halves):
                for index in range(5):
                    swapped = list(halves)
                    swapped[side] = (*half[:index], card, *half[index + 1 :])
                    choice = search.choice(tuple(swapped))
                    if best is None or choice.worth > best.worth:
                        best = choice
        if best is None or best.worth <= current.worth:
            break
        halves, current = best.halves, best
        options.append(best)
        left = [card for card in left if card not in current.keep]
    return options


def strong_decision(observation: Observation, rng: random.Random) -> Decision:
    """The strong bot's move: the hand with the best outlook, or a knock when it pays."""
    turns = horizon(observation)
    outlook = outlook_of(observation, turns)
    search = Search(observation, outlook)
    choice = choose(search)
    minimum = KNOCK_MINIMUM[observation.variant.hand_size]
    if observation.options.knock and (now := points_of(observation.hand)) >= minimum:
        hand = observation.hand
        table = table_for(observation.variant)
        played = [observation.turns_taken(seat) for seat in observation.opponents]
        after_knock = expected_best(table, [done + 1 for done in played])
        later = expected_best(table, [done + 1 + turns for done in played])
        if now - after_knock >= choice.expected - later + KNOCK_MARGIN:
            return knock_decision(
                observation,
                hand,
                f"knocking with {now} points: the best of the others should reach about "
                f"{after_knock:.1f} with one more turn, {later:.1f} if play goes on "
                f"(while I expect {choice.expected:.1f})",
            )
    plan = search.plan(choice.keep)
    aim = search_aim(search, choice.halves, plan.drop)
    return plan_decision(observation, plan, aim, _reason(search, choice, aim))


def search_aim(
    search: Search, halves: tuple[tuple[Card, ...], ...], dropped: Sequence[Card]
) -> tuple[Card, ...]:
    """The hand aimed for: each half's most promising pattern, completed, with none of the
    cards the turn discards (on the discard pile only the next player may take them)."""
    aim: list[Card] = []
    kept = [card for half in halves for card in half]
    for half in halves:
        target, _ = aim_for(search.outlook, half, exclude=[*kept, *dropped, *aim])
        aim.extend(target)
    return tuple(aim)


def _reason(search: Search, choice: Choice, aim: Sequence[Card]) -> str:
    needed = [card for card in aim if card not in choice.keep]
    points = points_of(choice.keep)
    if not needed:
        return f"keeps {points} points"
    names = ", ".join(CARD_IDS[card] for card in needed)
    return f"holds {points} points now, needs {names} (or alike); expects {choice.expected:.1f}"
