"""A finished match replayed in the browser, move by move, and its deals checked there."""

from __future__ import annotations

import hashlib
import json
import re
import sqlite3
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.conftest import CHROMIUM, CHROMIUM_ARGS, E2E_SETTINGS, Pages, scroll_width
from tests.e2e.matches import in_thread
from tests.e2e.ui import card_name, create_room, expect, join_from_home
from tests.replays import new_key, play_match, replayed_hands
from tests.rooms.client import api
from tests.server import Server, running_server

Shot = Callable[[Any, str], None]
NAMES = ["Hana", "Ivo"]


@dataclass
class Finished:
    server: Server
    database: Path
    match: dict[str, Any]


@pytest.fixture(scope="module")
def finished(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Finished]:
    """A server on an SQLite file, holding a finished 2-round match of two people and a bot."""
    database = tmp_path_factory.mktemp("replay") / "spectrum.db"
    # Reached as lan.test too: a plain http address that is not this machine's own.
    settings = {**E2E_SETTINGS, "BOT_DELAY_SECONDS": "0", "ALLOWED_HOSTS": "lan.test"}
    with running_server(f"sqlite+aiosqlite:///{database}", **settings) as server:
        rules = {"rounds": 2, "turn_seconds": 0, "multi_pickup": True}
        keys: list[str | None] = [new_key(10), new_key(11)]
        match_id = in_thread(play_match, server, NAMES, rules, ["easy"], keys)
        match = api(server, "GET", f"/api/matches/{match_id}").json()
        yield Finished(server, database, match)


@pytest.fixture
def pages_here(browser: Any, finished: Finished) -> Iterator[Pages]:
    opened = Pages(browser, finished.server)
    yield opened
    opened.close()
    assert opened.errors == [], "JavaScript errors:\n" + "\n".join(opened.errors)


def shown_hands(page: Any) -> list[list[str]]:
    """The hands the replay shows, seat by seat, as card names."""
    rows = page.locator(".replay .hands > li .cards")
    return [
        rows.nth(i).locator(".card").evaluate_all("cs => cs.map(c => c.getAttribute('aria-label'))")
        for i in range(rows.count())
    ]


def names(hands: list[list[str]]) -> list[list[str]]:
    return [[card_name(card) for card in hand] for hand in hands]


def at_move(page: Any, move: int, last: int) -> None:
    expect(page.locator(".replay-what b")).to_have_text(f"Move {move} of {last}")


def test_a_match_replayed_to_its_last_move_ends_with_the_stored_hands(
    pages_here: Pages, finished: Finished, shot: Shot
) -> None:
    match = finished.match
    first, second = match["rounds"]
    page = pages_here.open(f"/matches/{match['id']}")
    summary = page.locator(".panel", has_text="Fair deal, checked in this browser")
    fixed = "✓ This deal was fixed before the round began."
    expect(summary.locator(".verdict")).to_have_text(fixed)
    replay = page.locator(".replay")
    last = len(first["moves"])
    at_move(page, 0, last)
    deal = replayed_hands(first["seed"], first["dealer"], 3, 5, [])
    assert shown_hands(page) == names(deal)

    # The keys step the replay while the focus is in it; elsewhere they are the page's own.
    page.keyboard.press("End")
    replay.get_by_role("button", name="Round 1").focus()
    page.keyboard.press("ArrowRight")
    at_move(page, 1, last)
    page.keyboard.press("End")
    at_move(page, last, last)
    assert shown_hands(page) == names([hand["cards"] for hand in first["hands"]])
    assert page.url.endswith(f"?round=1&move={last}")
    page.keyboard.press("Home")
    at_move(page, 0, last)
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    at_move(page, 2, last)
    assert shown_hands(page) == names(replayed_hands(first["seed"], first["dealer"], 3, 5,
                                                     first["moves"][:2]))  # fmt: skip
    page.keyboard.press("ArrowLeft")
    at_move(page, 1, last)
    assert page.url.endswith("?round=1&move=1")
    replay.get_by_role("button", name="Next").click()
    at_move(page, 2, last)

    replay.get_by_role("button", name="Round 2").click()
    last = len(second["moves"])
    at_move(page, 0, last)
    replay.get_by_role("button", name="Last move").click()
    at_move(page, last, last)
    assert shown_hands(page) == names([hand["cards"] for hand in second["hands"]])
    expect(replay.locator(".verdict.good")).to_be_visible()
    final = second["moves"][-1]
    what = page.locator(".replay-what")
    if final["type"] == "knock":
        expect(what).to_contain_text(f"{NAMES[final['seat']]} knocked.")
    else:
        expect(what).to_contain_text(", ".join(final["cards"][0].split("-")))


def test_each_move_is_told_with_its_cards_and_a_take_with_its_piles(
    pages_here: Pages, finished: Finished
) -> None:
    """The stored moves give every discard an empty list of piles: a discard names its cards
    only, and each card of a take is named with the pile it came from."""
    first = finished.match["rounds"][0]
    moves = first["moves"]
    page = pages_here.open(f"/matches/{finished.match['id']}?round=1&move=1")
    what = page.locator(".replay-what")
    for number, move in enumerate(moves, 1):
        at_move(page, number, len(moves))
        cards = [", ".join(card.split("-")) for card in move["cards"]]
        text = what.inner_text()
        assert "NaN" not in text
        if move["type"] == "take":
            for card, pile in zip(cards, move["piles"], strict=True):
                where = "the discard pile" if pile == 4 else f"pile {pile + 1}"
                assert f"{card} from {where}" in text, text
        elif move["type"] == "discard":
            assert " discarded " in text, text
            assert " from " not in text, text
            for card in cards:
                assert card in text, text
        else:
            assert " knocked" in text, text
        if number < len(moves):
            page.locator(".replay").get_by_role("button", name="Next").click()


def test_a_link_to_a_move_opens_there(pages_here: Pages, finished: Finished, shot: Shot) -> None:
    match = finished.match
    second = match["rounds"][1]
    move = min(7, len(second["moves"]))
    path = f"/matches/{match['id']}?round=2&move={move}"
    page = pages_here.open(path, context=wide(pages_here, 1366))
    at_move(page, move, len(second["moves"]))
    expected = replayed_hands(second["seed"], second["dealer"], 3, 5, second["moves"][:move])
    assert shown_hands(page) == names(expected)
    link = page.get_by_role("link", name="Link to this move")
    assert link.get_attribute("href") == f"?round=2&move={move}"
    # Each round's button says whether it is the one shown ("true" or "false": an empty
    # aria-pressed made the others plain buttons to a screen reader).
    rounds = page.locator("[data-act=round]")
    pressed = rounds.evaluate_all("bs => bs.map((b) => b.getAttribute('aria-pressed'))")
    assert pressed == ["false", "true", *["false"] * (len(match["rounds"]) - 2)]
    steps = page.locator("[data-act=step]")
    disabled = steps.evaluate_all("bs => bs.map((b) => b.getAttribute('aria-disabled'))")
    assert set(disabled) <= {"true", "false"}, disabled
    shot(page, "replay-1366")
    phone = pages_here.open(path, context=wide(pages_here, 360, phone=True))
    at_move(phone, move, len(second["moves"]))
    assert scroll_width(phone) <= 360
    phone.locator(".replay").scroll_into_view_if_needed()
    # The slider spans the panel on a phone, its buttons under it (beside them it was some
    # 80 px for up to 200 moves).
    slider = phone.locator(".replay-steps input[type=range]").bounding_box()
    row = phone.locator(".replay-steps").bounding_box()
    assert slider is not None
    assert row is not None
    assert slider["width"] >= 0.95 * row["width"]
    buttons = phone.locator(".replay-steps .btn").evaluate_all(
        "bs => bs.map((b) => b.getBoundingClientRect().top)"
    )
    assert len(buttons) == 4
    assert min(buttons) >= slider["y"] + slider["height"] - 1
    shot(phone, "replay-360")
    # A fragment works as well as a query.
    page.goto(f"{finished.server.url}/matches/{match['id']}#round=2&move=1")
    at_move(page, 1, len(second["moves"]))


@dataclass
class LanAddress:
    """The test server by a name of the network, over plain http: no secure context."""

    port: int
    url: str
    ws_url: str


def test_a_plain_http_lan_address_replays_from_the_servers_deal(
    playwright: Any, finished: Finished
) -> None:
    """On http://lan.test (no Web Crypto) the replay steps through the moves all the same, from
    the deal order the server gives; the check says it needs https."""
    lan = playwright.chromium.launch(
        executable_path=str(CHROMIUM),
        args=[*CHROMIUM_ARGS, "--host-resolver-rules=MAP lan.test 127.0.0.1"],
    )
    port = finished.server.port
    pages = Pages(lan, LanAddress(port, f"http://lan.test:{port}", f"ws://lan.test:{port}"))
    try:
        first = finished.match["rounds"][0]
        page = pages.open(f"/matches/{finished.match['id']}")
        assert page.evaluate("isSecureContext") is False
        expect(page.locator(".replay .verdict")).to_have_text(
            "Checking the deals needs a secure (https) page."
        )
        last = len(first["moves"])
        at_move(page, 0, last)
        assert shown_hands(page) == names(replayed_hands(first["seed"], first["dealer"], 3, 5, []))
        page.locator(".replay").get_by_role("button", name="Round 1").focus()
        page.keyboard.press("ArrowRight")
        page.keyboard.press("ArrowRight")
        at_move(page, 2, last)
        expected = replayed_hands(first["seed"], first["dealer"], 3, 5, first["moves"][:2])
        assert shown_hands(page) == names(expected)
        page.keyboard.press("End")
        at_move(page, last, last)
        assert shown_hands(page) == names([hand["cards"] for hand in first["hands"]])
    finally:
        pages.close()
        lan.close()
    assert pages.errors == []


def test_a_round_whose_moves_cannot_be_fetched_says_so_and_the_others_replay(
    pages_here: Pages, finished: Finished, shot: Shot
) -> None:
    """Without Web Crypto (a plain http LAN address) the replay fetches each round's deal order:
    a round whose fetch fails says why in its place, and the other rounds replay all the same."""
    match = finished.match
    second = match["rounds"][1]
    page = pages_here.open(None)
    page.add_init_script("delete Crypto.prototype.subtle")
    page.route("**/api/matches/*/rounds/1/moves", lambda route: route.abort())
    page.goto(f"{finished.server.url}/matches/{match['id']}")
    replay = page.locator(".replay")
    failed = replay.locator(".verdict.bad[role=alert]").first
    expect(failed).to_contain_text("The moves of round 1 could not be loaded.")
    expect(failed).to_contain_text("The server cannot be reached. Check the connection.")
    expect(replay.locator(".replay-what")).to_have_count(0)
    expect(replay.locator(".verdict").last).to_have_text(
        "Checking the deals needs a secure (https) page."
    )
    replay.scroll_into_view_if_needed()
    shot(page, "replay-moves-failed")
    replay.get_by_role("button", name="Round 2").click()
    last = len(second["moves"])
    at_move(page, 0, last)
    page.keyboard.press("End")
    at_move(page, last, last)
    assert shown_hands(page) == names([hand["cards"] for hand in second["hands"]])
    expect(replay).not_to_contain_text("could not be loaded")
    replay.get_by_role("button", name="Round 1").click()
    expect(failed).to_contain_text("The moves of round 1 could not be loaded.")


def test_a_link_past_the_end_shows_the_last_move_and_steps_back_from_it(
    pages_here: Pages, finished: Finished
) -> None:
    match = finished.match
    last = len(match["rounds"][1]["moves"])
    page = pages_here.open(f"/matches/{match['id']}?round=2&move=999")
    at_move(page, last, last)
    expect(page).to_have_url(re.compile(rf"\?round=2&move={last}$"))
    page.locator(".replay").get_by_role("button", name="Round 2").focus()
    page.keyboard.press("ArrowLeft")
    at_move(page, last - 1, last)
    # Forward again by keyboard to the end: the focus stays on a control of the replay.
    page.get_by_role("button", name="Next").focus()
    page.keyboard.press("Enter")
    at_move(page, last, last)
    expect(page.get_by_role("button", name="Next")).to_be_focused()
    expect(page.get_by_role("button", name="Next")).to_have_attribute("aria-disabled", "true")
    page.keyboard.press("Enter")
    at_move(page, last, last)
    # A round the match does not have: the first round shows, and the address names it.
    page.goto(f"{finished.server.url}/matches/{match['id']}?round=9&move=3")
    at_move(page, 3, len(match["rounds"][0]["moves"]))
    expect(page).to_have_url(re.compile(r"\?round=1&move=3$"))


def test_a_page_that_cannot_load_says_why(pages_here: Pages, finished: Finished) -> None:
    page = pages_here.open(None)
    too_many = {"detail": "too many requests; slow down", "code": "too_many_requests"}
    page.route(
        "**/api/matches/*",
        lambda route: route.fulfill(status=429, json=too_many, headers={"Retry-After": "1"}),
    )
    page.goto(f"{finished.server.url}/matches/{finished.match['id']}")
    expect(page.locator("h1")).to_have_text("Too many tries from here; wait a minute.")
    page.unroute("**/api/matches/*")
    page.route("**/api/players/*", lambda route: route.abort())
    page.goto(f"{finished.server.url}/players/{NAMES[0]}")
    expect(page.locator("h1")).to_have_text("The server cannot be reached. Check the connection.")
    page.goto(f"{finished.server.url}/matches/{'0' * 32}")
    expect(page.locator("h1")).to_have_text("Not found")


def test_an_altered_seed_fails_the_check_naming_its_round(
    pages_here: Pages, finished: Finished, shot: Shot
) -> None:
    match = finished.match
    seed = match["rounds"][1]["seed"]
    altered = ("0" if seed[0] != "0" else "1") + seed[1:]
    with sqlite3.connect(finished.database) as connection:
        connection.execute(
            "UPDATE rounds SET seed = ? WHERE match_id = ? AND number = 2", (altered, match["id"])
        )
    try:
        page = pages_here.open(f"/matches/{match['id']}")
        summary = page.locator(".panel", has_text="Fair deal, checked in this browser")
        verdict = summary.locator(".verdict.bad")
        expect(verdict).to_contain_text(
            "Round 2: the revealed seed does not match the commitment shown before the round"
        )
        expect(verdict).to_contain_text(match["rounds"][1]["commitment"])
        expect(verdict).not_to_contain_text("Round 1:")
        replay = page.locator(".replay")
        expect(replay.locator(".verdict.good")).to_be_visible()  # round 1 is shown first
        replay.get_by_role("button", name="Round 2").click()
        expect(replay.locator(".verdict.bad")).to_contain_text("Round 2: the revealed seed")
        shot(page, "replay-altered-seed")
    finally:
        with sqlite3.connect(finished.database) as connection:
            connection.execute(
                "UPDATE rounds SET seed = ? WHERE match_id = ? AND number = 2", (seed, match["id"])
            )


def test_a_round_rewritten_after_it_was_shown_fails_the_check_against_the_tables_commitment(
    pages_here: Pages, finished: Finished
) -> None:
    """A server that rewrote a round (a new seed, and its commitment to match) passes a check
    of its stored data against itself, but not against the commitment this browser was shown
    at the table."""
    match = finished.match
    shown = match["rounds"][1]["commitment"]
    seed = match["rounds"][1]["seed"]
    other = hashlib.sha256(b"another seed").hexdigest()
    rewritten = hashlib.sha256(other.encode()).hexdigest()
    page = pages_here.open("/")
    page.evaluate(f"localStorage.setItem('spectrum.deal.{match['id']}.2', '{shown}')")
    with sqlite3.connect(finished.database) as connection:
        connection.execute(
            "UPDATE rounds SET seed = ?, commitment = ? WHERE match_id = ? AND number = 2",
            (other, rewritten, match["id"]),
        )
    try:
        page.goto(f"{finished.server.url}/matches/{match['id']}")
        verdict = page.locator(".panel", has_text="Fair deal").locator(".verdict.bad")
        expect(verdict).to_contain_text(
            f"Round 2: this browser was shown the commitment {shown} at the table"
        )
        expect(verdict).not_to_contain_text("the revealed seed does not match")
    finally:
        with sqlite3.connect(finished.database) as connection:
            connection.execute(
                "UPDATE rounds SET seed = ?, commitment = ? WHERE match_id = ? AND number = 2",
                (seed, shown, match["id"]),
            )


def wide(pages: Pages, width: int, phone: bool = False) -> Any:
    """A browser context ``width`` pixels wide (a touch phone if ``phone``)."""
    options: dict[str, Any] = {"viewport": {"width": width, "height": 900}, "locale": "en-US"}
    options["reduced_motion"] = "reduce"
    if phone:
        options.update(is_mobile=True, has_touch=True, device_scale_factor=2)
    context = pages.browser.new_context(**options)
    pages.contexts.append(context)
    return context


def test_the_browser_sends_its_own_player_key_with_joins(
    pages_here: Pages, finished: Finished
) -> None:
    host = pages_here.open("/")
    code = create_room(host, "Kay")
    guest = pages_here.open("/")
    join_from_home(guest, "Lou", code)
    keys = [page.evaluate("localStorage.getItem('spectrum.player-key')") for page in (host, guest)]
    assert all(re.fullmatch(r"[0-9a-f]{64}", key) for key in keys)
    assert keys[0] != keys[1]
    # The same browser keeps its key: a second room from it carries the same one.
    again = pages_here.open("/", context=host.context)
    create_room(again, "Kay")
    assert again.evaluate("localStorage.getItem('spectrum.player-key')") == keys[0]
    kept = kept_events(finished.database)
    joins = [event for event in kept if event.get("type") == "join" and event["name"] in NAMED]
    assert [(join["name"], join["key_hash"]) for join in joins] == [
        ("Kay", hashlib.sha256(keys[0].encode()).hexdigest()),
        ("Lou", hashlib.sha256(keys[1].encode()).hexdigest()),
        ("Kay", hashlib.sha256(keys[0].encode()).hexdigest()),
    ]
    assert not any(key in json.dumps(kept) for key in keys), "only the key's hash is kept"


NAMED = ("Kay", "Lou")


def kept_events(database: Path) -> list[dict[str, Any]]:
    """Every room event the server keeps: in the database, and in the event log beside it."""
    with sqlite3.connect(database) as connection:
        stored = connection.execute("SELECT event FROM live_room_events").fetchall()
    rows = [json.loads(event) for (event,) in stored]
    events: list[dict[str, Any]] = []

    def walk(value: Any) -> None:
        if isinstance(value, dict):
            if "type" in value:
                events.append(value)
            for inner in value.values():
                walk(inner)
        elif isinstance(value, list):
            for inner in value:
                walk(inner)

    walk(rows)
    for segment in sorted(database.with_name(database.name + "-live").glob("*.jsonl")):
        for line in segment.read_text().splitlines():
            walk(json.loads(line))
    return events


def test_two_people_of_one_name_are_two_lines_and_bots_none(
    pages_here: Pages, finished: Finished, shot: Shot
) -> None:
    server = finished.server
    rules = {"rounds": 1, "turn_seconds": 0}
    in_thread(play_match, server, ["Hana", "Jo"], rules, ["normal"], [new_key(20), new_key(21)])
    board = api(server, "GET", "/api/leaderboard").json()["players"]
    hanas = [line for line in board if line["name"] == "Hana"]
    assert len(hanas) == 2
    page = pages_here.open("/history")
    panel = page.locator(".panel", has_text="Leaderboard")
    expect(panel).to_contain_text("Names are not accounts")
    rows = panel.locator("tbody tr")
    expect(rows.filter(has_text="Hana")).to_have_count(2)
    for line in hanas:
        expect(rows.filter(has_text=f"#{line['tag']}")).to_have_count(1)
    expect(rows.filter(has_text="bot")).to_have_count(0)
    shot(page, "leaderboard-same-name")
    rows.filter(has_text=f"#{hanas[1]['tag']}").get_by_role("link", name="Hana").click()
    expect(page).to_have_url(re.compile(f"/players/Hana\\?tag={hanas[1]['tag']}$"))
    expect(page.locator("h1")).to_contain_text(f"#{hanas[1]['tag']}")
    expect(page.locator(".page")).to_contain_text("Names are not accounts: one person")
    other = page.get_by_role("link", name=f"#{hanas[0]['tag']}")
    expect(other).to_be_visible()
    matches = page.locator(".panel", has_text="Matches").locator(".list li")
    expect(matches).to_have_count(hanas[1]["matches"])
    shot(page, "player-one-of-two")
    other.click()
    expect(page.locator("h1")).to_contain_text(f"#{hanas[0]['tag']}")
    expect(page.locator(".panel", has_text="Matches").locator(".list li")).to_have_count(
        hanas[0]["matches"]
    )
