"""Match history over REST, on SQLite and PostgreSQL, from rounds saved by the real store."""

from __future__ import annotations

import asyncio
import base64
import csv
import gzip
import io
import random
import re
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import event

from app.engine.cards import card_ids
from app.engine.match import Match, MatchRules
from app.rooms.settings import RoomSettings
from app.rooms.store import FinishedRound
from app.storage.db import make_engine, make_sessions
from app.storage.eventlog import SEGMENT_BYTES
from app.storage.history import Leaderboards
from app.storage.journal import Batch, open_backend
from app.storage.statements import LISTING_LOCK
from app.storage.store import DatabaseStore
from tests import fetch
from tests.databases import BACKENDS, blocked_on_a_lock, connect, fresh_database
from tests.e2e.matches import play_matches
from tests.server import FAST, Server, migrate, running_server

NAMES = ["Ann", "Bob", "Cy", "Dee", "Eve"]
START = 1_790_000_000_000


@dataclass
class Played:
    """What was saved, to check the API against."""

    matches: dict[str, Match] = field(default_factory=dict)
    names: dict[str, list[str]] = field(default_factory=dict)
    started: dict[str, int] = field(default_factory=dict)


def play(players: int, rules: MatchRules, seed: str, rounds: int) -> Match:
    match = Match(players, rules, seed)
    rng = random.Random(seed)
    while len(match.results) < rounds:
        current = match.start_round()
        while not current.ended:
            match.apply(current.random_action(rng, knock_chance=0.1))
    return match


async def populate(url: str) -> Played:
    store = DatabaseStore(make_engine(url), flush_seconds=0)
    store.start()
    try:
        return await save_matches(store)
    finally:
        await store.stop()
        await store.engine.dispose()


async def save_matches(store: DatabaseStore) -> Played:
    played = Played()
    rng = random.Random(5)
    for index in range(7):
        ten_card = index % 3 == 2
        players = rng.randint(2, 4 if ten_card else 5)
        settings = RoomSettings.model_validate({"rounds": 3, "ten_card": ten_card})
        finished_rounds = 2 if index == 6 else 3  # the newest match is left unfinished
        match = play(players, settings.rules, f"seed-{index}", finished_rounds)
        match_id = f"{index:032x}"
        names = rng.sample(NAMES, players)
        started = START + index * 60_000
        for result in match.results:
            await store.save(
                None,
                [
                    FinishedRound(
                        match_id=match_id,
                        room_code="ABCD-EFGH",
                        settings=settings.model_dump(),
                        started_at=started,
                        names=tuple(names),
                        result=result,
                        ended_at=started + result.number * 1000,
                        final=result.number == 3,
                        places=tuple(match.places()),
                    )
                ],
            )
        played.matches[match_id] = match
        played.names[match_id] = names
        played.started[match_id] = started
    # A retry of a saved round stores nothing twice (the API tests see each round once).
    first = next(iter(played.matches))
    names = tuple(played.names[first])
    again = FinishedRound(
        first, "ABCD-EFGH", RoomSettings().model_dump(), START, names,
        played.matches[first].results[0], START, False, (1,) * len(names),
    )  # fmt: skip
    await store.save(None, [again])
    assert store.rounds_saved == 21
    assert store.backlog == 0
    return played


@pytest.fixture(scope="module", params=BACKENDS)
def history(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[Server, Played]]:
    """A server on a database (SQLite, then PostgreSQL) holding seven saved matches."""
    with fresh_database(request.param, tmp_path_factory.mktemp("history")) as url:
        migrate(url)
        played = asyncio.run(populate(url))
        # Its tests ask more than the API's default burst: no rate limit in their way.
        api = {key: value for key, value in FAST.items() if key.startswith("API_")}
        with running_server(url, **api) as server:
            yield server, played


def get(server: Server, path: str, **params: Any) -> httpx.Response:
    return fetch.get(f"{server.url}{path}", params=params)


def test_matches_newest_first_with_cursor_pages(history: tuple[Server, Played]) -> None:
    server, played = history
    newest_first = sorted(played.matches, key=played.started.__getitem__, reverse=True)
    seen: list[str] = []
    cursor = None
    while True:
        params: dict[str, Any] = {"limit": 3}
        if cursor:
            params["cursor"] = cursor
        page = get(server, "/api/matches", **params).json()
        seen += [match["id"] for match in page["matches"]]
        cursor = page["next_cursor"]
        if cursor is None:
            break
    assert seen == newest_first
    unfinished = get(server, "/api/matches", limit=1).json()["matches"][0]
    assert unfinished["status"] == "unfinished"
    assert unfinished["ended_at"] is None
    assert unfinished["winners"] == []
    assert unfinished["rounds_played"] == 2


def test_matches_of_one_player(history: tuple[Server, Played]) -> None:
    server, played = history
    for name in NAMES:
        expected = sorted(
            (match_id for match_id, names in played.names.items() if name in names),
            key=played.started.__getitem__,
            reverse=True,
        )
        listed = get(server, "/api/matches", player=name.upper(), limit=100).json()
        assert [match["id"] for match in listed["matches"]] == expected
        # Spaces around or inside are tidied as a seated name's are.
        spaced = get(server, "/api/matches", player=f" {name}\u3164 ", limit=100).json()
        assert spaced == listed
        # A tab or a line break, as a seated name's, is a space.
        assert get(server, "/api/matches", player=f"\t{name}\n", limit=100).json() == listed
        assert (
            get(server, f"/api/players/{name}%20").json()
            == get(server, f"/api/players/{name}").json()
        )


def test_a_match_with_every_round_and_hand(history: tuple[Server, Played]) -> None:
    server, played = history
    for match_id, match in played.matches.items():
        body = get(server, f"/api/matches/{match_id}").json()
        names = played.names[match_id]
        assert [seat["name"] for seat in body["players"]] == names
        assert [seat["total"] for seat in body["players"]] == match.totals
        assert body["settings"]["ten_card"] == match.rules.variant.ten_card
        assert len(body["rounds"]) == len(match.results)
        for stored, result in zip(body["rounds"], match.results, strict=True):
            assert (stored["number"], stored["dealer"], stored["knocker"]) == (
                result.number,
                result.dealer,
                result.knocker,
            )
            assert stored["ending"] == result.ending.value
            assert stored["seed"] == result.seed
            for hand, cards, score, total in zip(
                stored["hands"], result.hands, result.scores, result.totals, strict=True
            ):
                assert hand["cards"] == card_ids(cards)
                assert hand["score"] == score.as_dict()
                assert hand["points"] == score.points
                assert hand["total"] == total
        if match.finished:
            assert body["status"] == "finished"
            best = max(match.totals)
            assert body["winners"] == [
                name for name, total in zip(names, match.totals, strict=True) if total == best
            ]
            assert [seat["place"] for seat in body["players"]] == match.places()


def test_exports(history: tuple[Server, Played]) -> None:
    server, played = history
    match_id, match = next(iter(played.matches.items()))
    detail = get(server, f"/api/matches/{match_id}").json()
    as_json = get(server, f"/api/matches/{match_id}/export", format="json")
    assert as_json.headers["content-type"].startswith("application/json")
    assert "attachment" in as_json.headers["content-disposition"]
    assert as_json.json() == detail
    as_csv = get(server, f"/api/matches/{match_id}/export", format="csv")
    assert as_csv.headers["content-type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(as_csv.text)))
    assert len(rows) == len(match.results) * match.players
    first = rows[0]
    assert first["match_id"] == match_id
    assert {row["started_at"] for row in rows} == {detail["started_at"]}  # written alike
    assert first["round"] == "1"
    assert first["cards"].split() == card_ids(match.results[0].hands[0])
    assert int(first["points"]) == match.results[0].points[0]
    assert int(rows[-1]["total"]) == match.totals[-1]


def test_the_csv_may_begin_with_a_byte_order_mark_for_excel(history: tuple[Server, Played]) -> None:
    """Excel reads a CSV file without a byte-order mark in the computer's own encoding ("Chloé"
    shown "ChloÃ©"); the browser's download asks for one, a script gets the file without."""
    server, played = history
    match_id = next(iter(played.matches))
    url = f"{server.url}/api/matches/{match_id}/export?format=csv"
    plain = fetch.raw(url, **{"Accept-Encoding": "identity"})[1]
    marked = fetch.raw(url + "&bom=1", **{"Accept-Encoding": "identity"})[1]
    assert not plain.startswith(b"\xef\xbb\xbf")
    assert marked == b"\xef\xbb\xbf" + plain
    (first, *_) = csv.DictReader(io.StringIO(marked.decode("utf-8-sig")))
    assert first["match_id"] == match_id
    assert get(server, f"/api/matches/{match_id}/export", bom="maybe").status_code == 422


def test_the_schema_describes_both_exports(history: tuple[Server, Played]) -> None:
    """The JSON export is the match as `GET /api/matches/{id}` gives it, and the schema says
    so; the CSV is text."""
    server, played = history
    match_id = next(iter(played.matches))
    schema = get(server, "/openapi.json").json()
    content = schema["paths"]["/api/matches/{match_id}/export"]["get"]["responses"]["200"][
        "content"
    ]
    detail = schema["paths"]["/api/matches/{match_id}"]["get"]["responses"]["200"]["content"]
    assert content["application/json"]["schema"] == detail["application/json"]["schema"]
    assert content["text/csv"]["schema"] == {"type": "string"}
    for format in ("csv", "json"):
        answer = get(server, f"/api/matches/{match_id}/export", format=format)
        assert answer.headers["content-type"].split(";")[0] in content


def test_player_pages_and_leaderboard(history: tuple[Server, Played]) -> None:
    server, played = history
    stats: dict[str, dict[str, Any]] = {}
    for match_id, match in played.matches.items():
        for seat, name in enumerate(played.names[match_id]):
            entry = stats.setdefault(
                name,
                {"matches": 0, "wins": 0, "rounds": 0, "hands": 0, "points": 0, 5: None, 10: None},
            )
            entry["matches"] += 1
            entry["wins"] += int(match.finished and match.places()[seat] == 1)
            entry["rounds"] += len(match.results)
            entry["points"] += sum(result.points[seat] for result in match.results)
            # The best round of each hand size, kept apart.
            size = 10 if match.rules.variant.ten_card else 5
            entry["hands"] += len(match.results) * size // 5  # a 10-card round is two hands
            entry[size] = max(entry[size] or -100, *(r.points[seat] for r in match.results))
    for name, entry in stats.items():
        body = get(server, f"/api/players/{name.lower()}").json()
        assert body["name"] == name
        assert (body["matches"], body["wins"], body["rounds"]) == (
            entry["matches"],
            entry["wins"],
            entry["rounds"],
        )
        assert body["average_points"] == round(entry["points"] / entry["hands"], 2)
        for key, size in (("best_hand", 5), ("best_ten_card_hand", 10)):
            best = body[key]
            assert (best and best["points"]) == entry[size], (name, key)
            assert best is None or len(best["cards"]) == size
    # Someone's best 10-card round outscores their best 5-card one: weighed together, it would
    # have been their best hand.
    assert any(entry[5] is not None and (entry[10] or -100) > entry[5] for entry in stats.values())
    # Points are per 5-card hand: a 10-card round counts as two.
    assert any(entry["hands"] > entry["rounds"] > 0 for entry in stats.values())
    board = get(server, "/api/leaderboard").json()["players"]
    assert sorted(player["name"] for player in board) == sorted(stats)
    for player in board:
        entry = stats[player["name"]]
        assert player["average_points"] == round(entry["points"] / entry["hands"], 2)
    keys = [(-p["wins"], -p["average_points"], -p["matches"]) for p in board]
    assert keys == sorted(keys)
    assert len(get(server, "/api/leaderboard", limit=2).json()["players"]) == 2
    # Read on in pages: the same places, and how many there are in all.
    pages = [get(server, "/api/leaderboard", limit=2, offset=n).json() for n in range(0, 6, 2)]
    assert [entry for page in pages for entry in page["players"]] == board
    assert {page["total"] for page in pages} == {len(stats)}
    assert get(server, "/api/leaderboard", offset=100).json()["players"] == []


def cursor_of(stamp: str) -> str:
    """A cursor in the API's own form (a time and a match id, base64) at ``stamp``."""
    return base64.urlsafe_b64encode(f"{stamp}|{'0' * 32}".encode()).decode().rstrip("=")


@pytest.mark.parametrize(
    ("path", "params", "status"),
    [
        ("/api/matches/" + "f" * 32, {}, 404),
        ("/api/matches/not-a-match", {}, 404),
        ("/api/matches/" + "f" * 32 + "/export", {}, 404),
        ("/api/players/Nobody", {}, 404),
        ("/api/matches", {"limit": 0}, 422),
        ("/api/matches", {"limit": 101}, 422),
        ("/api/matches", {"limit": "many"}, 422),
        ("/api/matches", {"cursor": "not-a-cursor"}, 422),
        # "listed:6" as the API writes it is bGlzdGVkOjY: with padding, or stray characters.
        ("/api/matches", {"cursor": "bGlzdGVkOjY"}, 200),
        ("/api/matches", {"cursor": "bGlzdGVkOjY="}, 422),
        ("/api/matches", {"cursor": "bGlz!dGVk!OjY"}, 422),
        ("/api/matches", {"cursor": "bGlzdGVkOjY\n"}, 422),
        # Well formed, but past year 9999 or before year 1 once in UTC.
        ("/api/matches", {"cursor": cursor_of("9999-12-31T23:59:59-23:59")}, 422),
        ("/api/matches", {"cursor": cursor_of("0001-01-01T00:00:00+23:59")}, 422),
        ("/api/leaderboard", {"limit": -1}, 422),
        # A tag tells apart people of one name: without the name it means nothing.
        ("/api/matches", {"tag": "0123456789ab"}, 422),
        ("/api/matches", {"tag": ""}, 422),
    ],
)
def test_unknown_ids_and_bad_parameters(
    history: tuple[Server, Played], path: str, params: dict[str, Any], status: int
) -> None:
    server, played = history
    assert get(server, path, **params).status_code == status
    match_id = next(iter(played.matches))
    bad = get(server, f"/api/matches/{match_id}/export", format="xml")
    assert bad.status_code == 422


async def save_one_match(url: str, names: tuple[str, ...]) -> str:
    """One finished round of a new match by ``names``; the match's id."""
    store = DatabaseStore(make_engine(url), flush_seconds=0)
    store.start()
    try:
        settings = RoomSettings.model_validate({"rounds": 1})
        match = play(len(names), settings.rules, "formulas", 1)
        match_id = "f" * 32
        saved = FinishedRound(
            match_id, "ABCD-EFGH", settings.model_dump(), START, names,
            match.results[0], START + 1000, True, tuple(match.places()),
        )  # fmt: skip
        assert await store.save(None, [saved])
        return match_id
    finally:
        await store.stop()
        await store.engine.dispose()


def test_a_name_that_starts_like_a_formula_is_text_in_the_csv(tmp_path: Path) -> None:
    names = ('=HYPERLINK("http://x")', "+cmd|' /C calc'!A0", "-2+3", "@SUM(1)", "Ann = 1")
    with fresh_database(BACKENDS[0], tmp_path) as url:
        migrate(url)
        match_id = asyncio.run(save_one_match(url, names))
        with running_server(url) as server:
            as_csv = get(server, f"/api/matches/{match_id}/export", format="csv")
            as_json = get(server, f"/api/matches/{match_id}/export", format="json").json()
    shown = [row["name"] for row in csv.DictReader(io.StringIO(as_csv.text))]
    assert shown == [f"'{name}" for name in names[:4]] + ["Ann = 1"]
    # The JSON and the API keep the names as they are.
    assert [player["name"] for player in as_json["players"]] == list(names)


def test_no_cell_starts_like_a_formula_where_columns_are_split_on_semicolons(
    tmp_path: Path,
) -> None:
    """Spreadsheets in many languages (Excel in French, say) split a CSV file's columns on
    ";", quotes or not: no name may start a cell there like a formula either."""
    names = ("x;=1+2;", 'a; "=HYPERLINK(""http://x"")"', "b;+1;-2;@3", "c;;=d", "Ann;Lee")
    with fresh_database(BACKENDS[0], tmp_path) as url:
        migrate(url)
        match_id = asyncio.run(save_one_match(url, names))
        with running_server(url) as server:
            as_csv = get(server, f"/api/matches/{match_id}/export", format="csv").text
            as_json = get(server, f"/api/matches/{match_id}/export", format="json").json()
    rows = list(csv.reader(io.StringIO(as_csv), delimiter=";"))
    cells = [cell for row in rows for cell in row]
    assert len(cells) > len(rows)  # the names' ";" split them
    assert [cell for cell in cells if cell.startswith(("=", "+", "-", "@", "\t", "\r"))] == []
    # Split on ",", each name is one cell, marked as text where a ";" would start a formula.
    shown = [row["name"] for row in csv.DictReader(io.StringIO(as_csv))]
    assert shown == [
        "x;'=1+2;",
        'a;\' "=HYPERLINK(""http://x"")"',
        "b;'+1;'-2;'@3",
        "c;;'=d",
        "Ann;Lee",
    ]
    # Text is quoted and numbers are not (a reader told so makes the numbers floats).
    header, *hands = csv.reader(io.StringIO(as_csv), quoting=csv.QUOTE_NONNUMERIC)
    assert all(isinstance(cell, str) for cell in header)
    numbers = {"round", "dealer", "seat", "points", "total"}
    for hand in hands:
        for column, cell in zip(header, hand, strict=True):
            if column == "knocker" and cell == "":  # nobody knocked
                continue
            assert isinstance(cell, float if column in numbers | {"knocker"} else str), column
    assert [player["name"] for player in as_json["players"]] == list(names)


def one_round(
    match_id: str, names: tuple[str, ...], seed: str, bots: tuple[str | None, ...], at: int
) -> FinishedRound:
    """A finished one-round match of ``names`` (``bots`` per seat), dealt by ``seed``."""
    settings = RoomSettings.model_validate({"rounds": 1})
    match = play(len(names), settings.rules, seed, 1)
    return FinishedRound(
        match_id, "ABCD-EFGH", settings.model_dump(), at, names, match.results[0], at + 1000,
        True, tuple(match.places()), bots, ("",) * len(names),
    )  # fmt: skip


def a_bot_scoring_more(person: FinishedRound) -> FinishedRound:
    """A match where a computer player bearing the person's name scores more than the person
    did in theirs (the first such deal)."""
    mine = person.result.scores[0].points
    for attempt in range(1000):
        theirs = one_round(
            "b" * 32, ("Kim", "Strong bot"), f"bot-{attempt}", (None, "strong"), START + 10_000
        )
        if theirs.result.scores[1].points > mine:
            return theirs
    raise AssertionError("no deal found")


async def save_rounds(url: str, rounds: list[FinishedRound]) -> None:
    """Store rounds as a server's journal writes them; beside a server running on the same
    database too (the journal's own write, without taking an SQLite file for this process)."""
    engine = make_engine(url)
    journal = open_backend(engine, SEGMENT_BYTES)
    try:
        await journal.write(Batch(list(rounds)))
    finally:
        await journal.close()
        await engine.dispose()


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_person_is_named_and_best_by_their_own_seats(backend: str, tmp_path: Path) -> None:
    """A person's best hand is from their own seats, never a computer player's of the same
    name; and their name is the spelling they played under most, whatever the database's
    collation would put first."""
    person = one_round("a" * 32, ("Strong bot", "Ann"), "person", (None, None), START)
    rounds = [
        person,
        a_bot_scoring_more(person),
        one_round("c" * 32, ("ANN", "Kim"), "c", (None, None), START + 20_000),
        one_round("d" * 32, ("Ann", "Kim"), "d", (None, None), START + 30_000),
    ]
    with fresh_database(backend, tmp_path) as url:
        migrate(url)
        asyncio.run(save_rounds(url, rounds))
        with running_server(url) as server:
            page = get(server, "/api/players/Strong bot").json()
            ann = get(server, "/api/players/ann").json()
            board = get(server, "/api/leaderboard").json()["players"]
    assert page["matches"] == 1
    assert page["best_hand"]["match_id"] == "a" * 32
    assert page["best_hand"]["points"] == person.result.scores[0].points
    assert ann["name"] == "Ann"
    assert ann["matches"] == 3
    assert sorted(entry["name"] for entry in board) == ["Ann", "Kim", "Strong bot"]


@pytest.mark.parametrize(
    ("path", "params", "problem"),
    [
        ("/api/matches", [("status", "finished")], ("status", "unknown_parameter")),
        ("/api/matches", [("limit", "2"), ("limit", "1")], ("limit", "repeated_parameter")),
        ("/api/matches", [("player", "Ann"), ("player", "Bob")], ("player", "repeated_parameter")),
        ("/api/matches", [("player", " ")], ("player", "bad_name")),
        ("/api/matches", [("player", "\u3164")], ("player", "bad_name")),
        ("/api/players/Ann", [("tag", ""), ("tag", "")], ("tag", "repeated_parameter")),
        ("/api/players/\u0308", [], ("name", "bad_name")),
        ("/api/players/\u200b", [], ("name", "bad_name")),
        ("/api/players/Ann\u00ad", [], ("name", "bad_name")),
        ("/api/matches", [("player", "\u200b\u200b")], ("player", "bad_name")),
        ("/api/players/" + "A" * 25, [], ("name", "bad_name")),
        ("/api/matches", [("player", "A" * 97)], ("player", "bad_name")),
        ("/api/matches", [("player", "")], ("player", "bad_name")),
        ("/api/matches", [("player", "Ann\x01")], ("player", "bad_name")),
        # Nothing drawn but a space between: a mark alone, a variation selector.
        ("/api/players/\u0301 \u0302", [], ("name", "bad_name")),
        ("/api/matches", [("player", "\u034f \ufe0f")], ("player", "bad_name")),
        ("/api/leaderboard", [("limt", "5")], ("limt", "unknown_parameter")),
        ("/api/matches/" + "0" * 32, [("format", "csv")], ("format", "unknown_parameter")),
        # The last page gives no cursor: an empty one is not the first page again.
        ("/api/matches", [("cursor", "")], ("cursor", "cursor")),
        ("/api/matches", [("limit", "1.0")], ("limit", "value_error")),
        ("/api/matches", [("limit", " 5")], ("limit", "value_error")),
        ("/api/leaderboard", [("limit", "1_0")], ("limit", "value_error")),
        ("/api/leaderboard", [("offset", "+1")], ("offset", "value_error")),
        ("/api/leaderboard", [("offset", "0" * 10)], ("offset", "value_error")),
        ("/api/matches/" + "0" * 32 + "/rounds/1.0/moves", [], ("number", "value_error")),
    ],
)
def test_a_parameter_misspelt_given_twice_naming_nobody_or_not_in_digits_is_refused(
    history: tuple[Server, Played],
    path: str,
    params: list[tuple[str, str]],
    problem: tuple[str, str],
) -> None:
    server, _ = history
    answer = fetch.get(f"{server.url}{path}", params=params)
    assert answer.status_code == 422, answer.text
    [detail] = answer.json()["detail"]
    assert (detail["loc"][-1], detail["type"]) == problem


@pytest.mark.parametrize(
    ("path", "problem"),
    [
        # "Zoë" %-encoded from Latin-1: read with a replacement character, it names nobody.
        ("/api/matches?player=Zo%EB", ("player", "bad_encoding")),
        ("/api/players/Zo%EB", ("name", "bad_encoding")),
        ("/api/players/Ann?tag=&x=%C3", ("x", "bad_encoding")),
        ("/api/matches?limit=%FF", ("limit", "bad_encoding")),
        ("/api/matches/" + "0" * 31 + "%E0", ("match_id", "bad_encoding")),
    ],
)
def test_a_parameter_whose_escapes_are_not_utf8_is_refused(
    history: tuple[Server, Played], path: str, problem: tuple[str, str]
) -> None:
    server, _ = history
    answer = fetch.get(server.url + path)
    assert answer.status_code == 422, answer.text
    [detail] = answer.json()["detail"]
    assert (detail["loc"][-1], detail["type"]) == problem


def test_every_refusal_has_a_code_as_the_schema_says(history: tuple[Server, Played]) -> None:
    """A program reads the `code` of any refusal: a bad parameter's (422) as a missing match's
    (404), and the OpenAPI description says so."""
    server, _ = history
    for path in ("/api/matches?limit=0", "/api/matches?limt=1", "/api/players/%20"):
        refused = fetch.get(server.url + path)
        assert refused.status_code == 422
        assert refused.json()["code"] == "invalid_request"
        assert refused.json()["detail"][0]["loc"][0] in ("query", "path")
    assert fetch.get(server.url + "/api/matches/" + "f" * 32).json()["code"] == "no_match"
    schema = get(server, "/openapi.json").json()["components"]["schemas"]
    invalid = schema["HTTPValidationError"]
    assert set(invalid["required"]) == {"detail", "code"}
    assert invalid["properties"]["code"]["enum"] == ["invalid_request"]
    assert set(schema["ErrorOut"]["required"]) == {"detail", "code"}


def test_the_replacement_character_written_in_utf8_is_a_name_like_any(
    history: tuple[Server, Played],
) -> None:
    server, _ = history
    assert fetch.get(server.url + "/api/players/%EF%BF%BD").json()["code"] == "no_player"
    listed = fetch.get(server.url + "/api/matches?player=%EF%BF%BD")
    assert listed.json() == {"matches": [], "next_cursor": None}


def test_the_schema_requires_every_field_the_history_answers_hold(
    history: tuple[Server, Played],
) -> None:
    """Every answer holds every field of its model, those with a default too: a client made
    from the OpenAPI document must not take any of them for one that may be missing."""
    server, played = history
    schemas = get(server, "/openapi.json").json()["components"]["schemas"]
    match_id = next(iter(played.matches))
    checked: set[str] = set()

    def walk(value: Any, schema: dict[str, Any]) -> None:
        options = schema.get("anyOf", [schema])
        if value is None:
            assert {"type": "null"} in options
            return
        if isinstance(value, list):
            [listed] = [option for option in options if option.get("type") == "array"]
            for item in value:
                walk(item, listed["items"])
            return
        if not isinstance(value, dict):
            return
        models = [
            schemas[option["$ref"].rsplit("/", 1)[1]] for option in options if "$ref" in option
        ]
        [model] = [model for model in models if set(model["properties"]) == set(value)]
        checked.add(model["title"])
        assert set(model["required"]) == set(value), model["title"]
        for key, item in value.items():
            walk(item, model["properties"][key])

    def answer(model: str, path: str) -> None:
        walk(get(server, path).json(), {"$ref": f"#/components/schemas/{model}"})

    answer("MatchPage", "/api/matches")
    answer("MatchDetail", f"/api/matches/{match_id}")
    answer("RoundMoves", f"/api/matches/{match_id}/rounds/1/moves")
    answer("PlayerOut", f"/api/players/{played.names[match_id][0]}")
    answer("Leaderboard", "/api/leaderboard")
    assert checked >= {"SeatOut", "HistorySettings", "MoveOut", "HandOut", "BestHandOut"}


def test_head_is_answered_as_get_without_the_body(history: tuple[Server, Played]) -> None:
    """HTTP asks every resource that takes GET to take HEAD: the same status and headers."""
    server, played = history
    match_id = next(iter(played.matches))
    for path in (
        "/api/matches?limit=2",
        f"/api/matches/{match_id}/export?format=csv",
        "/api/leaderboard",
        "/api/matches?limt=2",
        "/api/matches/" + "f" * 32,
    ):
        got = fetch.get(server.url + path)
        head = fetch.request("HEAD", server.url + path)
        assert head.status_code == got.status_code, path
        assert head.content == b""
        for header in (
            "content-type",
            "content-length",
            "content-disposition",
            "content-encoding",
            "vary",
            "etag",
        ):
            assert head.headers.get(header) == got.headers.get(header), (path, header)


def answers(played: Played) -> list[str]:
    """A path of each kind of the history's answers (and the OpenAPI description)."""
    match_id = next(iter(played.matches))
    return [
        "/api/matches?limit=100",
        f"/api/matches/{match_id}",
        f"/api/matches/{match_id}/export?format=csv",
        f"/api/matches/{match_id}/export?format=json",
        f"/api/matches/{match_id}/rounds/1/moves",
        "/api/leaderboard",
        f"/api/players/{played.names[match_id][0]}",
        "/openapi.json",
    ]


def test_answers_of_a_kilobyte_or_more_go_gzipped_to_a_client_that_takes_it(
    history: tuple[Server, Played],
) -> None:
    server, played = history
    sent = whole = 0
    for path in (*answers(played), "/api/matches/" + "f" * 32):
        plain, as_is = fetch.raw(server.url + path, **{"Accept-Encoding": "identity"})
        assert "content-encoding" not in plain.headers, path
        assert plain.headers["vary"] == "Accept-Encoding", path
        answer, body = fetch.raw(server.url + path, **{"Accept-Encoding": "gzip, deflate"})
        assert answer.status_code == plain.status_code, path
        assert answer.headers["vary"] == "Accept-Encoding", path
        assert int(answer.headers["content-length"]) == len(body), path
        if len(as_is) < 1024:  # too small to gain: as it is
            assert "content-encoding" not in answer.headers, path
            assert body == as_is, path
            continue
        assert answer.headers["content-encoding"] == "gzip", path
        assert gzip.decompress(body) == as_is, path
        sent, whole = sent + len(body), whole + len(as_is)
    assert whole > 50_000
    assert sent < whole / 4, (sent, whole)


def test_an_answer_asked_for_again_unchanged_is_a_304_with_no_body(
    history: tuple[Server, Played],
) -> None:
    """A client that keeps an answer asks with its ETag and gets 304 with no body while the
    answer is unchanged: a script polling the history, or a browser opening a match again, does
    not download it again. Gzipped or not, the tag is of the same answer (weak when gzipped)."""
    server, played = history
    match_id = next(iter(played.matches))
    paths = answers(played)
    tags: dict[str, str] = {}
    for path in paths:
        plain, _ = fetch.raw(server.url + path, **{"Accept-Encoding": "identity"})
        answer, _ = fetch.raw(server.url + path, **{"Accept-Encoding": "gzip"})
        tag = plain.headers["etag"]
        assert re.fullmatch(r'"[\w-]{22}"', tag), (path, tag)
        assert answer.headers["etag"] == "W/" + tag, path
        tags[path] = tag
        for accept, kept in (("identity", tag), ("gzip", "W/" + tag), ("identity", "W/" + tag)):
            for asked in (kept, f'"other", {kept}', "*"):
                again, empty = fetch.raw(
                    server.url + path, **{"Accept-Encoding": accept, "If-None-Match": asked}
                )
                assert (again.status_code, empty) == (304, b""), (path, accept, asked)
                assert again.headers["etag"] == (tag if accept == "identity" else "W/" + tag)
                assert again.headers["vary"] == "Accept-Encoding"
                assert "content-type" not in again.headers, path
                assert "content-encoding" not in again.headers, path
        other, body = fetch.raw(server.url + path, **{"If-None-Match": '"other", W/"else"'})
        assert other.status_code == 200, path
        assert body == fetch.raw(server.url + path)[1], path
    # Each answer its own tag, but the JSON export, which is the match's own answer.
    assert tags[f"/api/matches/{match_id}/export?format=json"] == tags[f"/api/matches/{match_id}"]
    assert len(set(tags.values())) == len(paths) - 1
    missing = fetch.get(server.url + "/api/matches/" + "f" * 32, headers={"If-None-Match": "*"})
    assert missing.status_code == 404
    assert "etag" not in missing.headers


def test_the_tag_changes_with_the_answer(history: tuple[Server, Played]) -> None:
    """The tag is the answer's: a room's page after someone joins is new to a client holding
    the page from before, and the page before is not new to it."""
    server, _ = history
    created = fetch.post(server.url + "/api/rooms", json={"name": "Tagged"})
    assert created.status_code == 201
    path = f"{server.url}/api/rooms/{created.json()['code']}"
    before = fetch.get(path)
    assert fetch.get(path, headers={"If-None-Match": before.headers["etag"]}).status_code == 304
    joined = fetch.post(path + "/join", json={"name": "Tagger"})
    assert joined.status_code in (200, 201), joined.text
    after = fetch.get(path, headers={"If-None-Match": before.headers["etag"]})
    assert after.status_code == 200
    assert after.json() != before.json()
    assert after.headers["etag"] != before.headers["etag"]


def test_an_answer_holding_a_token_is_never_compressed(history: tuple[Server, Played]) -> None:
    # What an attacker adds to an answer could otherwise tell its secret from its size.
    server, _ = history
    with httpx.Client(verify=fetch.TLS) as client:
        answer = client.post(
            server.url + "/api/rooms",
            json={"name": "Zed " + "z" * 20},
            headers={"Accept-Encoding": "gzip"},
        )
    assert answer.status_code == 201
    assert "token" in answer.json()
    assert "content-encoding" not in answer.headers
    # Nor kept by a cache or proxy on the way, as the answer to a join.
    assert answer.headers["cache-control"] == "no-store"
    joined = fetch.post(
        f"{server.url}/api/rooms/{answer.json()['code']}/join", json={"name": "Zoe"}
    )
    assert joined.status_code == 201
    assert "token" in joined.json()
    assert joined.headers["cache-control"] == "no-store"


def test_every_api_request_declares_its_rate_limit(history: tuple[Server, Played]) -> None:
    server, _ = history
    schema = get(server, "/openapi.json").json()
    operations = [
        (path, method, operation)
        for path, methods in schema["paths"].items()
        if path.startswith("/api/")
        for method, operation in methods.items()
    ]
    assert len(operations) >= 10
    for path, method, operation in operations:
        refused = operation["responses"].get("429")
        assert refused is not None, (path, method)
        assert refused["content"]["application/json"]["schema"] == {
            "$ref": "#/components/schemas/ErrorOut"
        }


def ids(answer: httpx.Response) -> list[str]:
    assert answer.status_code == 200, answer.text
    return [match["id"] for match in answer.json()["matches"]]


@pytest.mark.parametrize("backend", BACKENDS)
def test_the_list_only_grows_at_its_top(backend: str, tmp_path: Path) -> None:
    """A match is listed when its first round is stored, above every match listed before,
    whenever it started: pages already read keep what followed them, and a reader who reads
    from the top until a match they know has every match listed since."""
    old, middle, new, late = "1" * 32, "2" * 32, "3" * 32, "4" * 32
    solo = (None, None)
    with fresh_database(backend, tmp_path) as url:
        migrate(url)
        asyncio.run(
            save_rounds(
                url,
                [
                    one_round(old, ("Ann", "Bob"), "o", solo, START),
                    one_round(middle, ("Ann", "Bob"), "m", solo, START + 30_000),
                    one_round(new, ("Ann", "Bob"), "n", solo, START + 50_000),
                ],
            )
        )
        with running_server(url) as server:
            first = get(server, "/api/matches", limit=2)
            assert ids(first) == [new, middle]
            cursor = first.json()["next_cursor"]
            # Started before `new`, after `middle`; its first round ends only now.
            late_round = one_round(late, ("Cy", "Dee"), "l", solo, START + 40_000)
            asyncio.run(save_rounds(url, [late_round]))
            assert ids(get(server, "/api/matches", limit=2, cursor=cursor)) == [old]
            assert ids(get(server, "/api/matches", limit=2)) == [late, new]


@pytest.mark.parametrize("backend", BACKENDS)
def test_matches_stored_side_by_side_are_each_listed_once(backend: str, tmp_path: Path) -> None:
    """First rounds of many matches written at once (on PostgreSQL, by writes that run side
    by side) each take their own place in the list."""
    rounds = [
        one_round(f"{n:032x}", ("Ann", "Bob"), f"side-{n}", (None, None), START + n)
        for n in range(1, 41)
    ]

    async def save_apart() -> None:
        store = DatabaseStore(make_engine(url), flush_seconds=0)
        store.start()
        try:
            assert all(await asyncio.gather(*(store.save(None, [one]) for one in rounds)))
        finally:
            await store.stop()
            await store.engine.dispose()

    with fresh_database(backend, tmp_path) as url:
        migrate(url)
        asyncio.run(save_apart())
        with running_server(url) as server:
            seen: list[str] = []
            cursor = None
            while True:
                page = get(
                    server, "/api/matches", limit=7, **({"cursor": cursor} if cursor else {})
                )
                seen += ids(page)
                cursor = page.json()["next_cursor"]
                if cursor is None:
                    break
    assert sorted(seen) == sorted(one.match_id for one in rounds)


def test_on_postgresql_a_new_match_waits_for_the_listing_lock(tmp_path: Path) -> None:
    """Writes to PostgreSQL run side by side (and on several nodes): one that adds a match
    takes the listing lock first, so that matches commit in the order of their numbers; while
    another session (a node) holds it, the match waits, and is listed once it is released."""
    waiting = one_round("e" * 32, ("Ann", "Bob"), "wait", (None, None), START)

    async def held_up() -> None:
        holder = await connect(url)
        store = DatabaseStore(make_engine(url), flush_seconds=0)
        store.start()
        try:
            async with holder.transaction():
                await holder.execute(LISTING_LOCK)
                saving = asyncio.ensure_future(store.save(None, [waiting]))
                await blocked_on_a_lock(holder)
                assert await holder.fetchval("SELECT count(*) FROM matches") == 0
            await store.saved()
            assert await holder.fetchval("SELECT listed FROM matches") is not None
            saving.cancel()
        finally:
            await holder.close()
            await store.stop()
            await store.engine.dispose()

    with fresh_database("postgresql", tmp_path) as url:
        migrate(url)
        asyncio.run(held_up())


@pytest.mark.parametrize("backend", BACKENDS)
def test_the_code_of_a_room_still_open_is_not_published(backend: str, tmp_path: Path) -> None:
    """A room's code lets anyone in to watch, or to join its next match: the history names a
    match's room only once that room is gone."""
    with fresh_database(backend, tmp_path) as url:
        migrate(url)
        with running_server(url) as server:
            code = fetch.post(f"{server.url}/api/rooms", json={"name": "Ann"}).json()["code"]
            played = one_round("5" * 32, ("Ann", "Bob"), "open", (None, None), START + 5_000)
            gone = one_round("6" * 32, ("Ann", "Bob"), "gone", (None, None), START)
            asyncio.run(save_rounds(url, [replace(played, room_code=code), gone]))
            listed = {
                m["id"]: m["room_code"] for m in get(server, "/api/matches").json()["matches"]
            }
            detail = get(server, f"/api/matches/{'5' * 32}").json()
            as_json = get(server, f"/api/matches/{'5' * 32}/export", format="json").json()
            as_csv = get(server, f"/api/matches/{'5' * 32}/export", format="csv").text
            page = get(server, "/api/matches", player="Bob").text
    assert listed == {"5" * 32: None, "6" * 32: "ABCD-EFGH"}
    assert detail["room_code"] is None
    assert as_json["room_code"] is None
    assert [row["room_code"] for row in csv.DictReader(io.StringIO(as_csv))] == ["", ""]
    assert code not in page


async def test_the_leaderboard_counts_a_round_the_moment_this_server_saves_it(
    tmp_path: Path,
) -> None:
    """The leaderboard is kept between requests, but a round this server saves is on it at
    once."""
    with fresh_database(BACKENDS[0], tmp_path) as url:
        migrate(url)
        with running_server(url) as server:
            assert get(server, "/api/leaderboard").json() == {"players": [], "total": 0}
            await play_matches(server, ["Hana", "Ivo"], 1)
            board = get(server, "/api/leaderboard").json()["players"]
    assert sorted(entry["name"] for entry in board) == ["Hana", "Ivo"]


def test_the_leaderboard_is_read_once_for_requests_that_come_together(tmp_path: Path) -> None:
    """Requests that come while the leaderboard is read wait for that one reading; it is read
    again once a round is saved here (after the reading under way, if one began before it), or
    once it is older than its time (here: an hour, or none at all)."""

    async def check(url: str) -> None:
        engine = make_engine(url)
        statements: list[str] = []
        event.listen(
            engine.sync_engine,
            "before_cursor_execute",
            lambda *args: statements.append(args[2]),
        )
        sessions = make_sessions(engine)
        try:
            kept = Leaderboards(seconds=3600)
            boards = await asyncio.gather(*(kept.get(sessions, version=1) for _ in range(50)))
            one_reading = len(statements)
            assert one_reading >= 1
            assert all(board == boards[0] for board in boards)
            assert sorted(player.name for player in boards[0]) == ["Ann", "Bob"]
            await kept.get(sessions, version=1)
            assert len(statements) == one_reading  # kept
            await kept.get(sessions, version=2)
            assert len(statements) == 2 * one_reading  # a round was saved here
            at_once = Leaderboards(seconds=0)
            await at_once.get(sessions, version=1)
            await at_once.get(sessions, version=1)
            assert len(statements) == 4 * one_reading  # never kept
            # A round saved while a reading is under way: a request after it is answered by a
            # reading begun after that one, which may have missed the round.
            under_way = asyncio.ensure_future(kept.get(sessions, version=3))
            await asyncio.sleep(0)
            assert kept.reading is not None
            await kept.get(sessions, version=4)
            await under_way
            assert len(statements) == 6 * one_reading
            assert kept.version == 4
        finally:
            await engine.dispose()

    with fresh_database(BACKENDS[0], tmp_path) as url:
        migrate(url)
        asyncio.run(
            save_rounds(url, [one_round("7" * 32, ("Ann", "Bob"), "once", (None, None), START)])
        )
        asyncio.run(check(url))
