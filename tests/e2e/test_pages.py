"""The pages around the game: history, a match, a player, the calculator, the rules."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.e2e.conftest import DESKTOP, E2E_SETTINGS, Pages, pages_on, scroll_width
from tests.e2e.matches import in_thread, play_matches
from tests.e2e.test_access import resize
from tests.e2e.ui import MINUS, card_name, create_room, expect
from tests.rooms.client import api
from tests.server import running_server

Shot = Callable[[Any, str], None]
ROOT = Path(__file__).resolve().parents[2]
TRIPO = ["1-circle-violet", "2-crescent-cyan", "3-triangle-yellow", "4-square-orange", "5-star-red"]


def pick(page: Any, card: str) -> None:
    """Pick a card in the calculator: its colour first, then the card."""
    page.click(f"[data-act=colour][data-colour={card.rsplit('-', 1)[1]}]")
    page.click(f".picker [aria-label='{card_name(card)}']")


def test_the_calculator_scores_a_tripo_as_25(pages: Pages, shot: Shot) -> None:
    page = pages.open("/calculator")
    for card in reversed(TRIPO):  # any order: the best one is found
        pick(page, card)
    answer = page.locator(".answer")
    expect(answer.locator(".big")).to_have_text("25")
    expect(answer).to_contain_text("3 complete · Tripo · 25 points")
    order = answer.locator(".card").evaluate_all("cs => cs.map(c => c.getAttribute('aria-label'))")
    assert order in ([card_name(c) for c in TRIPO], [card_name(c) for c in reversed(TRIPO)])
    assert "cards=" in page.url, "the hand can be shared as a link"
    shot(page, "calculator")

    page.click(f".chosen [aria-label='Remove {card_name(TRIPO[0])}']")
    expect(answer).to_contain_text("Pick 1 more card")
    pick(page, TRIPO[0])
    for card in ["1-circle-cyan", "1-circle-red", "2-star-red", "3-star-red", "5-star-violet"]:
        pick(page, card)
    expect(answer.locator(".big")).to_have_text("20")
    expect(answer).to_contain_text(f"25 + {MINUS}5")

    phone = pages.open(page.url.removeprefix(pages.server.url), phone=True)
    expect(phone.locator(".answer .big")).to_have_text("20")
    assert scroll_width(phone) <= 360
    shot(phone, "calculator-360")


def test_a_name_without_a_key_links_to_its_own_matches(browser: Any) -> None:
    """Uma played twice without a player key, and another Uma three times with one: a link
    to the first opens her matches, not those of whoever of the name has the most. (A server
    of its own: on the shared one, the leaderboard's ten lines may not reach them.)"""
    with running_server(**E2E_SETTINGS) as server:
        for pages in pages_on(browser, server):
            in_thread(play_matches, server, ["Uma", "Vic"], 2)
            in_thread(play_matches, server, ["Uma", "Wes"], 3, 7, "5" * 64)
            listed = api(server, "GET", "/api/matches?player=Vic&limit=1").json()["matches"]
            for path in (f"/matches/{listed[0]['id']}", "/history"):
                opens_the_uma_without_a_key(pages, path)


def opens_the_uma_without_a_key(pages: Pages, path: str) -> None:
    page = pages.open(path)
    page.locator(".standings a", has_text="Uma").first.wait_for()
    if path == "/history":
        umas = page.locator(".standings tr").filter(has=page.get_by_role("link", name="Uma"))
        umas.filter(has_text="without a key").locator("a").click()
    else:
        page.locator(".standings a", has_text="Uma").click()
    expect(page.locator("h1")).to_have_text("Uma")
    expect(page.locator(".stat", has_text="matches")).to_contain_text("2")


def test_history_pages_show_finished_matches(pages: Pages, shot: Shot) -> None:
    code = in_thread(play_matches, pages.server, ["Hana", "Ivo"], 11)
    matches = api(pages.server, "GET", "/api/matches?player=Hana&limit=100").json()["matches"]
    assert len(matches) == 11
    newest = matches[0]
    assert newest["room_code"] is None  # its room is still open: its code lets anyone in

    page = pages.open("/history")
    recent = page.locator(".panel", has_text="Recent matches")
    expect(recent.locator(".match-link")).to_have_count(10)
    board = page.locator(".panel", has_text="Leaderboard")
    expect(board).to_contain_text("Hana")
    expect(board).to_contain_text("Ivo")
    # Each name ends at a colon, so a name ending in a digit ("Normal bot 2") is not read as
    # another's score.
    totals = [f"{player['name']}: {player['total']}" for player in newest["players"]]
    line = recent.locator(f".match-link[href='/matches/{newest['id']}'] .players")
    expect(line).to_have_text(" · ".join(totals).replace("-", MINUS))
    shot(page, "history")
    recent.locator("text=Show more").click()
    expect(recent.locator(".match-link").nth(10)).to_be_visible()  # the next page, by cursor
    href = f"/matches/{newest['id']}"
    recent.locator(f".match-link[href='{href}']").click()
    expect(page).to_have_url(re.compile(f"{href}$"))
    detail = api(pages.server, "GET", f"/api{href}").json()
    expect(page.locator("h2", has_text="Round 1")).to_be_visible()
    expect(page.locator("main")).not_to_contain_text(code)
    rows = page.locator("[data-k='round-1'] .hands > li")  # the round's panel, not the replay
    expect(rows).to_have_count(2)
    for played in detail["rounds"][0]["hands"]:
        who = page.locator(".who", has_text=played["name"])
        row = rows.filter(has=who)
        shown = row.locator(".card").evaluate_all("cs => cs.map(c => c.getAttribute('aria-label'))")
        assert shown == [card_name(card) for card in played["score"]["order"]]
    # A window as short as a phone held sideways, but wide: each name stays beside its cards,
    # as on any wide screen (only a narrow one puts it above them).
    sizes = (({"width": 1280, "height": 450}, True), ({"width": 360, "height": 640}, False))
    for size, beside in sizes:
        resize(page, size)
        name_bottom, card_top = rows.first.locator(".who, .card").evaluate_all(
            "([who, card]) => [who.getBoundingClientRect().bottom,"
            " card.getBoundingClientRect().top]"
        )
        assert (name_bottom > card_top) == beside, (size, name_bottom, card_top)
    resize(page, DESKTOP)  # as the page was opened
    # With a byte-order mark, which Excel needs to read UTF-8.
    download = page.locator("a", has_text="Download CSV")
    expect(download).to_have_attribute(
        "href", f"/api/matches/{detail['id']}/export?format=csv&bom=1"
    )
    with page.expect_download() as fetched:
        download.click()
    assert Path(fetched.value.path()).read_bytes().startswith(b'\xef\xbb\xbf"match_id",')
    shot(page, "match")

    page.click(".standings a:has-text('Hana')")
    expect(page).to_have_url(re.compile("/players/Hana\\?tag=$"))
    expect(page.locator("h1")).to_have_text("Hana")
    expect(page.locator(".stat", has_text="matches")).to_contain_text("11")
    expect(page.locator(".panel", has_text="Best hand")).to_be_visible()
    shot(page, "player")
    page.go_back()
    expect(page.locator("h2", has_text="Round 1")).to_be_visible()

    page.goto(pages.server.url + "/players/Nobody%20Here")
    expect(page.locator("[role=alert]")).to_contain_text("Nobody called Nobody Here")

    phone = pages.open(href, phone=True)
    expect(phone.locator("h2", has_text="Round 1")).to_be_visible()
    assert scroll_width(phone) <= 360
    shot(phone, "match-360")
    phone.goto(pages.server.url + "/history")
    expect(phone.locator(".match-link").first).to_be_visible()
    assert scroll_width(phone) <= 360
    shot(phone, "history-360")
    # In French a space comes before the colon: one the line cannot break at, so that a name
    # ending in a digit never ends a line, its score beginning the next.
    french = pages.open("/history", phone=True, locale="fr-FR")
    line = french.locator(".match-link .players").first
    expect(line).to_contain_text("Hana")
    assert line.evaluate("line => line.textContent").startswith("Hana\N{NO-BREAK SPACE}: ")


def test_a_player_page_keeps_the_best_5_and_10_card_rounds_apart(pages: Pages, shot: Shot) -> None:
    """A 10-card round scores two hands together: its best is shown beside the best 5-card
    round, never in its place."""
    in_thread(play_matches, pages.server, ["Lia", "Max"], 2, 3)
    in_thread(play_matches, pages.server, ["Lia", "Max"], 2, 5, None, True)
    body = api(pages.server, "GET", "/api/players/Lia").json()
    page = pages.open("/players/Lia")
    panels = page.locator(".panel").filter(has=page.locator("h2", has_text="Best"))
    expect(panels).to_have_count(2)
    for panel, (field, heading, size) in zip(
        panels.all(),
        [("best_hand", "Best hand", 5), ("best_ten_card_hand", "Best 10-card hand", 10)],
        strict=True,
    ):
        best = body[field]
        points = str(best["points"]).replace("-", MINUS)
        expect(panel.locator("h2")).to_have_text(f"{heading}: {points} points")
        expect(panel.locator(".card")).to_have_count(size)
        expect(panel.get_by_role("link")).to_have_attribute("href", f"/matches/{best['match_id']}")
    shot(page, "player-best-hands")


def test_the_rules_page_says_what_docs_rules_md_says(pages: Pages, shot: Shot) -> None:
    """The players' rules (frontend/rules.md) are docs/rules.md's, section by section and line by
    line of the scoring table, without what is there for developers (cards' ids)."""
    reference = (ROOT / "docs" / "rules.md").read_text()
    source = (ROOT / "frontend" / "rules.md").read_text()
    sections = re.compile(r"^#+ .+$", re.MULTILINE)
    table = re.compile(r"^\|.*\|$", re.MULTILINE)
    assert sections.findall(source) == sections.findall(reference)
    assert table.findall(source) == table.findall(reference)
    assert not re.search(r"\bids?\b|\{number\}", source), "no developers' words for players"
    page = pages.open("/rules")
    prose = page.locator(".prose")
    for heading in re.findall(r"^#+ (.+)$", source, re.MULTILINE):
        expect(prose.locator("h1, h2", has_text=heading)).to_have_count(1)
    expect(prose.locator("table").first.locator("tbody tr")).to_have_count(7)
    text = re.sub(r"\s+", " ", prose.inner_text())
    for sentence in (
        "A hand's sequence is the most properties that sequence in one card order",
        "You never lose points by arranging badly",
        f"The server finds the best split for you ({MINUS}10 when neither hand scores)",
    ):
        assert sentence in text
    shot(page, "rules")
    phone = pages.open("/rules", phone=True)
    expect(phone.locator(".prose h2").first).to_be_visible()
    assert scroll_width(phone) <= 360
    shot(phone, "rules-360")


def test_links_move_without_reloading_and_unknown_paths_say_so(pages: Pages) -> None:
    page = pages.open("/")
    page.evaluate("window.sameDocument = true")
    page.click("nav >> text=Rules")
    expect(page.locator(".prose h1")).to_be_visible()
    page.click("nav >> text=Score")
    expect(page.locator("h1")).to_have_text("Score calculator")
    page.go_back()
    expect(page.locator(".prose h1")).to_be_visible()
    assert page.evaluate("window.sameDocument") is True
    expect(page.locator("nav a[aria-current=page]")).to_have_text("Rules")
    page.goto(pages.server.url + "/r/not-a-code")
    expect(page.locator("h1")).to_have_text("That is not a room code")
    # An unknown path is a page that says so, with a 404 status; the API's misses stay JSON.
    response = page.goto(pages.server.url + "/no/such/page")
    assert response is not None
    assert response.status == 404
    expect(page.locator("h1")).to_have_text("Page not found")
    expect(page).to_have_title("Page not found · Spectrum Online")
    page.click("main >> text=Play Spectrum")
    expect(page.locator("#name")).to_be_visible()
    api_miss = page.request.get(pages.server.url + "/api/no-such-thing")
    assert api_miss.status == 404
    assert api_miss.json() == {"detail": "Not Found", "code": "not_found"}


def test_the_pages_policy_runs_the_page_and_refuses_a_script_put_into_it(pages: Pages) -> None:
    """Under its Content-Security-Policy the page works (its theme script ran, the home page
    drew), and a script put into it, as an injection would, does not run."""
    page = pages.open("/")
    expect(page.locator("#main h1")).to_be_visible()
    assert page.evaluate("document.documentElement.dataset.theme") in ("light", "dark")
    ran = page.evaluate(
        """() => {
            const script = document.createElement('script');
            script.textContent = 'window.injected = true';
            document.body.append(script);
            return window.injected === true;
        }"""
    )
    assert ran is False
    pages.errors.clear()  # the refusal is reported to the console: what is checked here


def test_the_home_page_lists_the_newest_rooms_and_forgets_past_twenty(pages: Pages) -> None:
    """The rooms to go back to are the newest first (they were the first six by code), and a
    browser keeps what it knows of twenty rooms at most: it kept every room's keys for ever."""
    page = pages.open("/")
    older = [f"2222-22{n:02d}" for n in range(20)]  # newest first; by code, before any real one
    page.evaluate(
        """codes => {
          localStorage.setItem('spectrum.rooms', codes.join(' '));
          for (const code of codes) {
            localStorage.setItem(`spectrum.token.${code}`, 'x');
            localStorage.setItem(`spectrum.link.${code}`, 'x');
          }
        }""",
        older,
    )
    code = create_room(page, "Ann")
    page.goto(pages.server.url + "/")
    expect(page.locator(".mine a")).to_have_text([code, *older[:5]])
    kept = page.evaluate("Object.keys(localStorage)")
    assert not [key for key in kept if key.endswith(older[-1])], kept
    assert all(f"spectrum.token.{room}" in kept for room in older[:-1])
    rooms = page.evaluate("localStorage.getItem('spectrum.rooms')").split()
    assert rooms == [code, *older[:-1]]


def test_the_home_page_keeps_what_was_typed_through_refusals_and_settings(
    pages: Pages, shot: Shot
) -> None:
    """A code typed on the home page stays in its field through a refusal and a setting ticked,
    as the name and the rounds do: each redraw emptied it, and a second Join was told the code
    had the wrong shape."""
    created = api(pages.server, "POST", "/api/rooms", {"name": "Ann"})
    assert created.status_code == 201, created.text
    code = created.json()["code"]
    page = pages.open("/")
    page.fill("#name", "Ann")
    page.fill("#code", "zzzz zzzz")  # a room's shape, no room's code
    page.click("form[data-submit=join] button")
    expect(page.locator("form[data-submit=join] .error-text")).to_have_text(
        "There is no room ZZZZ-ZZZZ. Check the code with your friends."
    )
    expect(page.locator("#code")).to_have_value("zzzz zzzz")
    typed = code.lower().replace("-", " ")
    page.fill("#code", typed)
    page.click("[data-submit=create] summary")
    page.fill("#set-rounds", "7")
    page.check("[name=multi_pickup]")
    page.check("[name=ten_card]")  # the seats are drawn again: four at most
    expect(page.locator("#set-seats option")).to_have_count(3)
    for field, value in [("#name", "Ann"), ("#code", typed), ("#set-rounds", "7")]:
        expect(page.locator(field)).to_have_value(value)
    page.click("form[data-submit=join] button")
    expect(page.locator("form[data-submit=join] .error-text")).to_have_text(
        "Someone in that room already has your name. Change it above and join again."
    )
    expect(page.locator("#code")).to_have_value(typed)
    expect(page.locator("#name")).to_have_value("Ann")
    shot(page, "home-name-taken")
    page.fill("#name", "Bob")
    page.click("form[data-submit=join] button")
    expect(page).to_have_url(re.compile(f"/r/{code}$"))
    expect(page.locator(".seatlist")).to_contain_text("Bob")


def test_a_room_page_keeps_the_name_typed_through_a_refusal_and_redraws(pages: Pages) -> None:
    """A name refused in a room's seat form stays in its field, to be changed, through the
    room's redraws: each drew the field again with the name last used to sit somewhere."""
    created = api(pages.server, "POST", "/api/rooms", {"name": "Ann"})
    assert created.status_code == 201, created.text
    code = created.json()["code"]
    page = pages.open(f"/r/{code}")
    field = page.locator("form[data-submit=join] input[name=name]")
    field.fill("Ann")
    page.click("form[data-submit=join] button")
    expect(page.locator("form[data-submit=join] .error-text")).to_contain_text("Ann")
    expect(field).to_have_value("Ann")
    field.fill("Anna")
    page.locator("h2").first.click()  # the field loses the focus, then the room changes
    joined = api(pages.server, "POST", f"/api/rooms/{code}/join", {"name": "Cy"})
    assert joined.status_code == 201, joined.text
    expect(page.locator(".seatlist")).to_contain_text("Cy")
    expect(field).to_have_value("Anna")
    page.click("form[data-submit=join] button")
    expect(page.locator(".seatlist")).to_contain_text("Anna")
