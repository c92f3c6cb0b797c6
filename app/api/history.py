"""Match history over REST: matches, one match, exports, players and the leaderboard."""

from __future__ import annotations

import base64
import binascii
import csv
import io
import re
from datetime import datetime
from typing import Annotated, Any, Literal
from urllib.parse import unquote_to_bytes

from fastapi import APIRouter, Depends, Path, Query, Request
from fastapi.dependencies.models import Dependant
from fastapi.exceptions import RequestValidationError
from fastapi.responses import Response
from pydantic import BeforeValidator, TypeAdapter
from sqlalchemy.ext.asyncio import AsyncSession

from app.api.deps import ServicesDep, SessionDep
from app.api.errors import RATE_LIMITED, ApiError, ErrorOut, invalid
from app.api.history_models import (
    SCORE,
    BestHandOut,
    Leaderboard,
    LeaderboardEntry,
    MatchDetail,
    MatchPage,
    MatchSummary,
    OtherPerson,
    PlayerOut,
    RoundMoves,
    average,
    hands_out,
    match_detail,
    moves_out,
    summary_fields,
)
from app.api.score import HandScoreOut
from app.engine.cards import CARD_IDS
from app.engine.errors import IllegalAction
from app.engine.fairdeal import shuffled_deck
from app.engine.match import MAX_ROUNDS
from app.engine.variant import Variant
from app.rooms.seats import clean_name
from app.storage import history
from app.storage.models import MatchRecord


def _query_names(dependant: Dependant) -> set[str]:
    """The query parameters an endpoint declares, its dependencies' included."""
    names = {param.alias for param in dependant.query_params}
    for dependency in dependant.dependencies:
        names |= _query_names(dependency)
    return names


_declared: dict[str, frozenset[str]] = {}


async def strict_query(request: Request) -> None:
    """A query parameter the endpoint does not take, or one given twice, is refused (422): a
    filter misspelt, or given twice with the last one winning, would otherwise change nothing
    or half of what was asked, without a word."""
    route = request.scope["route"]
    known = _declared.get(route.path)
    if known is None:
        known = _declared[route.path] = frozenset(_query_names(route.dependant))
    seen: set[str] = set()
    problems = _undecodable(request)
    said = {problem["loc"] for problem in problems}
    for key, _ in request.query_params.multi_items():
        if ("query", key) in said:
            continue
        if key not in known:
            takes = ", ".join(sorted(known)) or "none"
            problems.append(
                {
                    "loc": ("query", key),
                    "msg": f"not a parameter of this request (it takes: {takes})",
                    "type": "unknown_parameter",
                }
            )
        elif key in seen:
            problems.append(
                {"loc": ("query", key), "msg": "given more than once", "type": "repeated_parameter"}
            )
        seen.add(key)
    if problems:
        raise RequestValidationError(problems)


def _utf8(encoded: bytes) -> bool:
    """Whether ``encoded`` (a part of a URL) is UTF-8 once its %-escapes are decoded."""
    try:
        unquote_to_bytes(encoded).decode()
    except UnicodeDecodeError:
        return False
    return True


BAD_ENCODING = "not UTF-8 once its %-escapes are decoded (write it in UTF-8, then %-encode it)"


def _undecodable(request: Request) -> list[dict[str, Any]]:
    """The path and query parameters whose %-escapes are not UTF-8 (``Zo%EB``, "Zoë" in
    Latin-1): decoded as the server decodes them, each such byte would be the replacement
    character, so the request would be answered as one for another name, or for nobody."""
    problems: list[dict[str, Any]] = []
    if not _utf8(request.scope.get("raw_path", b"")):
        problems += [
            {"loc": ("path", name), "msg": BAD_ENCODING, "type": "bad_encoding"}
            for name, value in request.path_params.items()
            if "\ufffd" in value
        ]
    for part in request.scope.get("query_string", b"").split(b"&"):
        key, _, value = part.replace(b"+", b" ").partition(b"=")
        if not (_utf8(key) and _utf8(value)):
            name = unquote_to_bytes(key).decode(errors="replace")
            problems.append({"loc": ("query", name), "msg": BAD_ENCODING, "type": "bad_encoding"})
    return problems


router = APIRouter(
    prefix="/api",
    tags=["history"],
    dependencies=[Depends(strict_query)],
    responses=RATE_LIMITED,
)

MATCH_ID = re.compile(r"[0-9a-f]{32}")
Tag = Annotated[
    str | None,
    Query(
        pattern=r"^([0-9a-f]{12})?$",
        description="One person of the name, by the `tag` the history gives; empty for those "
        "who played without a player key.",
    ),
]
# A name asked for is checked as a seat's is, by clean_name: a tab or a line break tidied into a
# space as when the seat was taken, and anything that could be no one's name refused as bad_name.
NAME_ASKED = "A player's name, whatever its case; tidied as a seated name is."
# The longest number a request may write: every count it takes is far below a billion.
DIGITS = 9


def plain_digits(value: object) -> object:
    """A number in a URL is written in ASCII digits alone: ``1.0``, ``+1``, ``1_0`` or `` 1``,
    which Python and pydantic would read as 1, are refused, so that a mistyped request is told
    so rather than answered as another."""
    if isinstance(value, str) and not (
        value.isascii() and value.isdigit() and len(value) <= DIGITS
    ):
        raise ValueError(f"must be a whole number written in at most {DIGITS} digits")
    return value


NOT_FOUND: dict[int | str, dict[str, Any]] = {
    404: {"model": ErrorOut, "description": "Unknown."},
    503: {"model": ErrorOut, "description": "The database is unavailable."},
}
UNAVAILABLE: dict[int | str, dict[str, Any]] = {
    503: {"model": ErrorOut, "description": "The database is unavailable."}
}


# A cursor is the last match's place in the list, in this form (the cursors of an earlier
# version, a time and a match id, are refused: the list is no longer ordered by time).
CURSOR = re.compile(r"listed:([1-9][0-9]{0,17})")


def _encode_cursor(cursor: history.Cursor) -> str:
    raw = f"listed:{cursor.listed}".encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def _decode_cursor(text: str) -> history.Cursor:
    if not text:
        # Not the first page: a loop passing on `next_cursor` or "" would start again for ever.
        raise RequestValidationError(
            [
                {
                    "loc": ("query", "cursor"),
                    "msg": "an empty cursor: leave cursor out for the first page",
                    "type": "cursor",
                }
            ]
        )
    try:
        raw = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4)).decode()
        found = CURSOR.fullmatch(raw)
        # Written as the API writes it: base64's decoder passes over stray characters and
        # padding, which would make other texts one cursor.
        if found is None or _encode_cursor(history.Cursor(int(found.group(1)))) != text:
            raise ValueError(raw)
    except (ValueError, binascii.Error, UnicodeDecodeError):
        raise RequestValidationError(
            [
                {
                    "loc": ("query", "cursor"),
                    "msg": "not a cursor this API gives: start again from the first page",
                    "type": "cursor",
                }
            ]
        ) from None
    return history.Cursor(int(found.group(1)))


@router.get("/matches", response_model=MatchPage, responses=UNAVAILABLE)
async def list_matches(
    session: SessionDep,
    player: Annotated[str | None, Query(description=NAME_ASKED)] = None,
    limit: Annotated[int, Query(ge=1, le=100), BeforeValidator(plain_digits)] = 20,
    cursor: Annotated[str | None, Query(max_length=200)] = None,
    tag: Tag = None,
) -> MatchPage:
    """Matches newest first, optionally only those a player played (with a `tag`, one person
    of that name). A match is listed when its first round is stored, above every match listed
    before: the list only grows at its top, and a cursor leads on to exactly what followed it."""
    if tag is not None and player is None:
        raise RequestValidationError(
            [{"loc": ("query", "tag"), "msg": "a tag needs the player's name", "type": "tag"}]
        )
    after = None if cursor is None else _decode_cursor(cursor)
    if player is not None:
        player = _kept_name(player, ("query", "player"))
    matches, next_cursor = await history.list_matches(session, limit, player, after, tag)
    open_rooms = await history.open_rooms(session, {match.room_code for match in matches})
    return MatchPage(
        matches=[MatchSummary(**summary_fields(match, open_rooms)) for match in matches],
        next_cursor=_encode_cursor(next_cursor) if next_cursor else None,
    )


def _kept_name(name: str, location: tuple[str, str]) -> str:
    """``name`` as names are kept; 422 if it could be no one's (nothing of it shows, it holds
    an invisible or control character, or it is too long), as a seat's name is refused."""
    try:
        return clean_name(name)
    except IllegalAction as refused:
        raise invalid(location, refused) from None


async def _detail(session: AsyncSession, match_id: str) -> MatchDetail:
    match = await _match(session, match_id)
    return match_detail(match, await history.open_rooms(session, {match.room_code}))


async def _match(session: AsyncSession, match_id: str) -> MatchRecord:
    match = await history.get_match(session, match_id) if MATCH_ID.fullmatch(match_id) else None
    if match is None:
        raise ApiError(404, "no_match", f"there is no match {match_id}")
    return match


MatchId = Annotated[str, Path(max_length=64)]


@router.get("/matches/{match_id}", response_model=MatchDetail, responses=NOT_FOUND)
async def get_match(session: SessionDep, match_id: MatchId) -> MatchDetail:
    """One match with its seats, settings, every round and hand and the running totals."""
    return await _detail(session, match_id)


@router.get(
    "/matches/{match_id}/rounds/{number}/moves",
    response_model=RoundMoves,
    responses={
        404: {"model": ErrorOut, "description": "No such match, or no such round of it."},
        409: {"model": ErrorOut, "description": "The round was stored before moves were kept."},
        503: {"model": ErrorOut, "description": "The database is unavailable."},
    },
)
async def round_moves(
    session: SessionDep,
    match_id: MatchId,
    number: Annotated[int, Path(ge=1, le=MAX_ROUNDS), BeforeValidator(plain_digits)],
) -> RoundMoves:
    """Every move of a finished round, with what rebuilding its deal needs: a replay."""
    match = await _match(session, match_id)
    played = next((kept for kept in match.rounds if kept.number == number), None)
    if played is None:
        finished = len(match.rounds)
        raise ApiError(
            404,
            "no_round",
            f"match {match_id} has no finished round {number} "
            f"({'none is' if not finished else f'rounds 1 to {finished} are'} finished)",
        )
    moves = moves_out(played)
    if moves is None:
        raise ApiError(
            409, "no_moves", f"round {number} was stored before moves were kept: it has no replay"
        )
    variant = Variant.from_flags(match.settings)
    return RoundMoves(
        match_id=match.id,
        number=played.number,
        players=len(match.seats),
        hand_size=variant.hand_size,
        dealer=played.dealer,
        seed=played.seed,
        commitment=played.commitment,
        deck=[CARD_IDS[card] for card in shuffled_deck(played.seed)],
        moves=moves,
        hands=hands_out(match, played),
    )


@router.get(
    "/matches/{match_id}/export",
    responses={
        **NOT_FOUND,
        200: {
            "model": MatchDetail,
            "content": {"text/csv": {"schema": {"type": "string"}}},
            "description": "The match as a CSV table (a row per hand) or as JSON, the same "
            "as the match's own.",
        },
    },
    response_class=Response,
)
async def export_match(
    session: SessionDep,
    match_id: MatchId,
    format: Annotated[Literal["csv", "json"], Query()] = "csv",
    bom: Annotated[
        bool,
        Query(
            description="Begin the CSV with a byte-order mark: Excel reads a file without one "
            "in the computer's own encoding, and shows names with accents garbled."
        ),
    ] = False,
) -> Response:
    """The match to keep elsewhere: CSV, one row per hand, or the same JSON as the match."""
    detail = await _detail(session, match_id)
    filename = f"spectrum-match-{detail.id}.{format}"
    headers = {"Content-Disposition": f'attachment; filename="{filename}"'}
    if format == "json":
        return Response(detail.model_dump_json(), media_type="application/json", headers=headers)
    out = io.StringIO()
    if bom:
        out.write("\ufeff")
    started = INSTANT.dump_python(detail.started_at, mode="json")  # as the JSON writes it
    # Text quoted, numbers not: a spreadsheet reads the numbers as numbers.
    writer = csv.writer(out, quoting=csv.QUOTE_NONNUMERIC)
    writer.writerow(
        [
            "match_id",
            "room_code",
            "started_at",
            "round",
            "dealer",
            "knocker",
            "ending",
            "seat",
            "name",
            "cards",
            "points",
            "sequence",
            "total",
        ]
    )
    for played in detail.rounds:
        for hand in played.hands:
            score = hand.score
            sequence = (
                score.sequence
                if isinstance(score, HandScoreOut)
                else " + ".join(part.sequence or "none" for part in score.hands)
            )
            writer.writerow(
                [
                    detail.id,
                    detail.room_code or "",
                    started,
                    played.number,
                    played.dealer,
                    "" if played.knocker is None else played.knocker,
                    played.ending,
                    hand.seat,
                    spreadsheet_text(hand.name),
                    " ".join(hand.cards),
                    hand.points,
                    sequence or "none",
                    hand.total,
                ]
            )
    return Response(out.getvalue(), media_type="text/csv", headers=headers)


# A time, written as every JSON answer writes it ("2026-12-06T08:00:00Z").
INSTANT = TypeAdapter(datetime)
# What a spreadsheet opening a CSV file takes for the start of a formula.
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
# A ";" where a cell would start like a formula (after any spaces or quotes): spreadsheets in
# many languages split columns on ";", and do not know that this file's quotes hold it.
CELL_AFTER_SEMICOLON = re.compile(r';(?=[ "]*[=+\-@\t\r])')


def spreadsheet_text(text: str) -> str:
    """A player's text as a spreadsheet shows it as text: one starting like a formula is
    quoted with a leading apostrophe, which spreadsheets take for "this is text", and so is
    what follows a ";" that would start a cell like one where columns are split on ";"."""
    text = CELL_AFTER_SEMICOLON.sub(";'", text)
    return f"'{text}" if text.startswith(FORMULA_START) else text


def _best_hand_out(best: history.BestHand | None) -> BestHandOut | None:
    if best is None:
        return None
    return BestHandOut(
        points=best.points,
        cards=best.cards,
        score=SCORE.validate_python(best.scoring),
        match_id=best.match_id,
        round=best.round,
    )


@router.get("/players/{name:path}", response_model=PlayerOut, responses=NOT_FOUND)
async def get_player(
    session: SessionDep,
    name: Annotated[str, Path(description=NAME_ASKED)],
    tag: Tag = None,
) -> PlayerOut:
    """One person's matches, wins, average points per hand and best hands (5-card rounds and
    10-card rounds kept apart). A name is not an
    account: people of one name are told apart by the player key their browser sent (`tag`);
    without a `tag`, the one of that name with the most matches."""
    name = _kept_name(name, ("path", "name"))
    person = await history.find_person(session, name, tag)
    totals = await history.player_totals(session, person) if person else None
    if person is None or totals is None:
        whom = f"nobody called {name}" if tag is None else f"nobody called {name} with tag {tag!r}"
        raise ApiError(404, "no_player", f"{whom} has played here")
    best = await history.best_hand(session, person, 5)
    best_ten = await history.best_hand(session, person, 10)
    others = [
        OtherPerson(tag=other.tag, matches=count)
        for other, count in await history.people_named(session, name)
        if other != person
    ]
    return PlayerOut(
        name=totals.name,
        tag=totals.tag,
        others=others,
        matches=totals.matches,
        finished_matches=totals.finished,
        wins=totals.wins,
        rounds=totals.rounds,
        average_points=average(totals.points, totals.hands),
        best_hand=_best_hand_out(best),
        best_ten_card_hand=_best_hand_out(best_ten),
    )


@router.get("/leaderboard", response_model=Leaderboard, responses=UNAVAILABLE)
async def get_leaderboard(
    services: ServicesDep,
    limit: Annotated[int, Query(ge=1, le=100), BeforeValidator(plain_digits)] = 20,
    offset: Annotated[
        int,
        Query(ge=0, le=10_000_000, description="How many of the best to leave out."),
        BeforeValidator(plain_digits),
    ] = 0,
) -> Leaderboard:
    """The best players of this server (as of the last finished round this server saved; in a
    cluster, what other nodes saved is seen within ten seconds): `limit` of them from place
    `offset` + 1."""
    board = await services.leaderboards.get(services.sessions, services.store.rounds_saved)
    return Leaderboard(
        total=len(board),
        players=[
            LeaderboardEntry(
                name=player.name,
                tag=player.tag,
                matches=player.matches,
                wins=player.wins,
                rounds=player.rounds,
                average_points=average(player.points, player.hands),
            )
            for player in board[offset : offset + limit]
        ],
    )
