"""What each connection sees of a room: a public part shared by all and a private ``you``.

Nothing here ever puts another seat's hand, a face-down card or the deck order into a view:
hands appear only in ``you`` (one's own) and in ``results`` (after the reveal).
"""

from __future__ import annotations

from typing import Any

from app.engine.cards import CARD_IDS, Card
from app.engine.match import RoundResult, places
from app.engine.round import DRAW_PILES, Round
from app.engine.scoring import score_cards
from app.rooms.settings import RoomSettings
from app.rooms.state import RoomState

View = dict[str, Any]


def _top(cards: list[Card]) -> str | None:
    return CARD_IDS[cards[-1]] if cards else None


def round_view(current: Round, deadline: int | None) -> View:
    """The public face of a round: piles by top card and count, whose turn, the knock."""
    ended = current.ending is not None
    return {
        "number": current.number,
        "dealer": current.dealer,
        "turn": None if ended else current.turn,
        "step": None if ended else current.step.value,
        "pending": current.pending,
        "piles": [{"top": _top(pile), "count": len(pile)} for pile in current.piles[:DRAW_PILES]],
        "discard": {"top": _top(current.discard), "count": len(current.discard)},
        "knocker": current.knocker,
        "final_turns": current.final_turns if current.knocker is not None else None,
        "deadline": None if ended else deadline,
        "commitment": current.commitment,
        "ending": current.ending.value if current.ending else None,
    }


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


def settings_view(settings: RoomSettings) -> View:
    """The room's settings as sent to clients."""
    return settings.model_dump()


class ViewBuilder:
    """Builds a room's views, reusing the parts that did not change since the last build."""

    def __init__(self) -> None:
        self._settings: tuple[RoomSettings, View] | None = None
        self._results: dict[int, View] = {}
        self._results_match: str | None = None
        self._private: dict[int, tuple[tuple[Card, ...], View]] = {}

    def public(
        self,
        state: RoomState,
        connected: list[bool],
        spectators: int,
        deadline: int | None,
        ready_deadline: int | None,
    ) -> View:
        """The part of the view every connection shares."""
        match = state.match
        totals = state.totals()
        series = state.series()
        standing = places(totals) if match else [None] * len(totals)
        current = match.round if match else None
        players = [
            {
                "seat": index,
                "name": seat.name,
                "connected": connected[index],
                "host": index == state.host,
                "total": totals[index],
                "series": series[index],
                "place": standing[index],
                "cards": len(current.hands[index]) if current else 0,
                "ready": seat.ready,
            }
            for index, seat in enumerate(state.seats)
        ]
        return {
            "code": state.code,
            "status": state.status.value,
            "match_id": state.match_id,
            "match_number": state.matches,
            "settings": self._settings_view(state.settings),
            "players": players,
            "spectators": spectators,
            "round": round_view(current, deadline) if current else None,
            "results": self._result_views(state),
            "ready_deadline": ready_deadline,
        }

    def private(self, state: RoomState, seat: int | None) -> View:
        """The part of the view only ``seat`` sees: its own hand and the hand's score."""
        match = state.match
        if seat is None or match is None or match.round is None:
            return {"seat": seat, "hand": [], "evaluation": None}
        current = match.round
        hand = tuple(current.hands[seat])
        cached = self._private.get(seat)
        if cached is not None and cached[0] == hand:
            return cached[1]
        evaluation = score_cards(hand).as_dict() if len(hand) == current.variant.hand_size else None
        view = {"seat": seat, "hand": [CARD_IDS[card] for card in hand], "evaluation": evaluation}
        self._private[seat] = (hand, view)
        return view

    def forget_private(self) -> None:
        """Drop cached private views (seats were renumbered)."""
        self._private.clear()

    def _settings_view(self, settings: RoomSettings) -> View:
        if self._settings is None or self._settings[0] is not settings:
            self._settings = (settings, settings_view(settings))
        return self._settings[1]

    def _result_views(self, state: RoomState) -> list[View]:
        match = state.match
        if match is None:
            return []
        if state.match_id != self._results_match:
            self._results, self._results_match = {}, state.match_id
        views = []
        for result in match.results:
            view = self._results.get(result.number)
            if view is None:
                view = self._results[result.number] = result_view(result)
            views.append(view)
        return views
