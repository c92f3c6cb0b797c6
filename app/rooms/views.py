"""What each connection sees of a room: a public part shared by all and a private ``you``.

Nothing here ever puts another seat's hand, a face-down card or the deck order into a view:
hands appear only in ``you`` (one's own) and in ``results`` (after the reveal).
"""

from __future__ import annotations

from collections.abc import Set as AbstractSet
from typing import Any

from app.engine.actions import Action, Discard, Take
from app.engine.cards import CARD_IDS, Card
from app.engine.match import RoundResult, places
from app.engine.round import DRAW_PILES, Round
from app.engine.scoring import score_cards
from app.rooms.chat import ChatLine
from app.rooms.settings import RoomSettings
from app.rooms.state import RoomState

View = dict[str, Any]


def _top(cards: list[Card]) -> str | None:
    return CARD_IDS[cards[-1]] if cards else None


_FIELDS = ("number", "dealer", "turn", "piles", "discard", "knocker", "final_turns", "commitment",
           "ending", "log", "auto")  # fmt: skip


def _pile(cards: list[Card], cache: dict[tuple[int, int], View]) -> View:
    """A pile as its face-up top and count; the same object while neither changes."""
    key = (cards[-1] if cards else -1, len(cards))
    view = cache.get(key)
    if view is None:
        if len(cache) > 512:
            cache.clear()
        view = cache[key] = {"top": _top(cards), "count": len(cards)}
    return view


def turn_view(current: Round, deadline: int | None) -> View | None:
    """Whose turn it is, how many cards they must discard (0 while they are to take or knock)
    and when the timer plays for them; None once the round is over. A take changes only
    ``pending``."""
    if current.ending is not None:
        return None
    return {"seat": current.turn, "pending": current.pending, "deadline": deadline}


def move_view(action: Action, moved: tuple[Card, ...]) -> View:
    """One move of a round as everyone saw it: every card a move shows was face up as it moved
    (a take takes only face-up tops), so nothing here is private."""
    if isinstance(action, Take):
        return {"seat": action.seat, "type": "take", "piles": list(action.piles),
                "cards": [CARD_IDS[card] for card in moved]}  # fmt: skip
    if isinstance(action, Discard):
        return {"seat": action.seat, "type": "discard", "cards": [CARD_IDS[card] for card in moved]}
    return {"seat": action.seat, "type": "knock"}


class MoveLog:
    """A round's public moves, as a list that is a new object only when a move was added
    (earlier entries stay the same objects, so a patch holds only the new ones)."""

    __slots__ = ("_moves", "_round")

    def __init__(self) -> None:
        self._round: Round | None = None
        self._moves: list[View] = []

    def of(self, current: Round) -> list[View]:
        """The moves of ``current`` so far."""
        count = len(current.actions)
        same = self._round is current
        if same and len(self._moves) == count:
            return self._moves
        kept = self._moves if same and len(self._moves) < count else []
        added = zip(current.actions[len(kept) :], current.moved[len(kept) :], strict=True)
        self._moves = kept + [move_view(action, moved) for action, moved in added]
        self._round = current
        return self._moves


def round_view(
    current: Round,
    deadline: int | None,
    piles: dict[tuple[int, int], View],
    log: MoveLog | None = None,
    auto: list[int] | None = None,
) -> View:
    """The public face of a round: piles by top card and count, whose turn, the knock, every
    move so far, and which of them (``auto``, by their number) the room played for a seat."""
    return dict(
        zip(
            _FIELDS,
            (
                current.number,
                current.dealer,
                turn_view(current, deadline),
                [_pile(pile, piles) for pile in current.piles[:DRAW_PILES]],
                _pile(current.discard, piles),
                current.knocker,
                current.final_turns if current.knocker is not None else None,
                current.commitment,
                current.ending.value if current.ending else None,
                (log or MoveLog()).of(current),
                [] if auto is None else auto,
            ),
            strict=True,
        )
    )


def result_view(result: RoundResult) -> View:
    """A finished round with every hand revealed and scored, and the seed that dealt it."""
    return {
        "number": result.number,
        "dealer": result.dealer,
        "knocker": result.knocker,
        "ending": result.ending.value,
        "seed": result.seed,
        "commitment": result.commitment,
        "hands": [
            {"seat": seat, "cards": [CARD_IDS[card] for card in hand], **score.as_dict()}
            for seat, (hand, score) in enumerate(zip(result.hands, result.scores, strict=True))
        ],
        "points": list(result.points),
        "totals": list(result.totals),
    }


def line_view(line: ChatLine) -> View:
    """A chat line as everyone sees it: its text, or its reaction."""
    return {"n": line.n, "seat": line.seat, "name": line.name, "text": line.text,
            "reaction": line.reaction, "at": line.at}  # fmt: skip


def settings_view(settings: RoomSettings) -> View:
    """The room's settings as sent to clients."""
    return settings.model_dump()


_PLAYER_FIELDS = (
    "name",
    "connected",
    "host",
    "total",
    "series",
    "place",
    "ready",
    "bot",
    "standin",
)


class ViewBuilder:
    """Builds a room's views, reusing the parts that did not change since the last build."""

    def __init__(self) -> None:
        self._settings: tuple[RoomSettings, View] | None = None
        self._results: list[View] = []
        self._results_key: tuple[str | None, int] = (None, 0)
        self._private: dict[int, tuple[tuple[Card, ...], View]] = {}
        self._scored: dict[int, tuple[tuple[Card, ...], View]] = {}
        self._players: list[tuple[tuple[Any, ...], View]] = []
        self._piles: dict[tuple[int, int], View] = {}
        self._log = MoveLog()
        self._standing_key: tuple[Any, ...] = ()
        self._standing: tuple[list[int], list[int], list[int | None]] = ([], [], [])
        self._chat: tuple[int, View] = (-1, {})
        self._lines: dict[int, tuple[ChatLine, View]] = {}

    def public(
        self,
        state: RoomState,
        connected: list[bool],
        standins: AbstractSet[int],
        spectators: int,
        deadline: int | None,
        ready_deadline: int | None,
    ) -> View:
        """The part of the view every connection shares."""
        totals, series, standing = self._standings(state)
        players = [
            self._player(
                index,
                (
                    seat.name,
                    connected[index],
                    index == state.host,
                    totals[index],
                    series[index],
                    standing[index],
                    seat.ready,
                    seat.bot,
                    index in standins,
                ),
            )
            for index, seat in enumerate(state.seats)
        ]
        del self._players[len(players) :]
        return {
            "code": state.code,
            "status": state.status.value,
            "match_id": state.match_id,
            "match_number": state.matches,
            "settings": self._settings_view(state.settings),
            "players": players,
            "spectators": spectators,
            "round": self.round(state, deadline),
            "results": self._result_views(state),
            "ready_deadline": ready_deadline,
            "chat": self.chat(state),
        }

    def chat(self, state: RoomState) -> View:
        """The recent chat, who is muted, and whether spectators may chat; the same object
        until one of them changes (a move never rebuilds it)."""
        if self._chat[0] == state.chat.version:
            return self._chat[1]
        lines = self._lines
        views = []
        for line in state.chat.lines:
            kept = lines.get(line.n)
            if kept is None or kept[0] != line:
                kept = lines[line.n] = (line, line_view(line))
            views.append(kept[1])
        oldest = state.chat.oldest()
        for n in [n for n in lines if n < oldest]:
            del lines[n]
        view = {
            "lines": views,
            "muted": [index for index, seat in enumerate(state.seats) if seat.muted],
            "spectators": state.chat.spectators,
        }
        self._chat = (state.chat.version, view)
        return view

    def round(self, state: RoomState, deadline: int | None) -> View | None:
        """The public face of the round being played or last played, if any."""
        match = state.match
        current = match.round if match else None
        if current is None:
            return None
        return round_view(current, deadline, self._piles, self._log, state.autoplayed(current))

    def _standings(self, state: RoomState) -> tuple[list[int], list[int], list[int | None]]:
        """Each seat's match total, total across matches and place; worked out again only when
        they can change: a round ends, a match starts, a seat is taken or left."""
        match = state.match
        key = (state.match_id, len(match.results) if match else -1, len(state.seats),
               id(state.series_base))  # fmt: skip
        if key != self._standing_key:
            totals = state.totals()
            standing: list[int | None] = list(places(totals)) if match else [None] * len(totals)
            self._standing = (totals, state.series(), standing)
            self._standing_key = key
        return self._standing

    def _player(self, index: int, values: tuple[Any, ...]) -> View:
        """A seat as everyone sees it; the same object while nothing about it changes."""
        if index < len(self._players) and self._players[index][0] == values:
            return self._players[index][1]
        view = {"seat": index, **dict(zip(_PLAYER_FIELDS, values, strict=True))}
        if index < len(self._players):
            self._players[index] = (values, view)
        else:
            self._players.append((values, view))
        return view

    def private(self, state: RoomState, seat: int | None) -> View:
        """The part of the view only ``seat`` sees: its own hand and the hand's score.

        While the seat holds the cards it just took (they come last in its hand), the score is
        still that of the hand it held before taking them: the same object, so no patch.
        """
        match = state.match
        if seat is None or match is None or match.round is None:
            return {"seat": seat, "hand": [], "evaluation": None}
        current = match.round
        hand = tuple(current.hands[seat])
        cached = self._private.get(seat)
        if cached is not None and cached[0] == hand:
            return cached[1]
        scored = hand[: current.variant.hand_size]
        kept = self._scored.get(seat)
        if kept is not None and kept[0] == scored:
            evaluation = kept[1]
        else:
            evaluation = score_cards(scored).as_dict()
            self._scored[seat] = (scored, evaluation)
        view = {"seat": seat, "hand": [CARD_IDS[card] for card in hand], "evaluation": evaluation}
        self._private[seat] = (hand, view)
        return view

    def forget_private(self) -> None:
        """Drop cached private views (seats were renumbered)."""
        self._private.clear()
        self._scored.clear()

    def _settings_view(self, settings: RoomSettings) -> View:
        if self._settings is None or self._settings[0] is not settings:
            self._settings = (settings, settings_view(settings))
        return self._settings[1]

    def _result_views(self, state: RoomState) -> list[View]:
        """Finished rounds; the same list object until a round ends or a match starts."""
        match = state.match
        count = len(match.results) if match else 0
        if (state.match_id, count) != self._results_key:
            previous = self._results if state.match_id == self._results_key[0] else []
            done = match.results if match else []
            self._results = previous + [result_view(result) for result in done[len(previous) :]]
            self._results_key = (state.match_id, count)
        return self._results
