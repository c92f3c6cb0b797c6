"""The client around the game: the lesson for a newcomer, the installable app that opens
offline, the dark theme."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from tests.e2e.conftest import PICTURES, ROOM_URL, Pages
from tests.e2e.test_access import axe_clean, resize
from tests.e2e.test_play import SMALL_PHONE
from tests.e2e.ui import (
    create_room,
    expect,
    over_the_dock,
    play_to_the_results,
    reload_through_worker,
    wait_for,
)

Shot = Callable[[Any, str], None]


def test_a_newcomer_plays_the_lesson_to_its_end_and_gets_a_real_room(
    pages: Pages, shot: Shot
) -> None:
    page = pages.open("/")
    # Without a name the home page asks for one first.
    page.click("button:has-text('Learn to play')")
    # Beside the button that asked (it was said in the "New room" panel, further down).
    expect(page.locator("[data-submit=learn] [role=alert]")).to_have_text("First enter your name.")
    expect(page.locator("[data-submit=create] [role=alert]")).to_be_empty()
    expect(page.locator("#name")).to_be_focused()
    # Another button's refusal takes its place: one error on the page at a time.
    page.click("form[data-submit=join] button")
    expect(page.locator("form[data-submit=join] [role=alert]")).not_to_be_empty()
    expect(page.locator("[data-submit=learn] [role=alert]")).to_be_empty()
    page.fill("#name", "Newcomer")
    # On a small phone each step of the lesson brings what it asks for into view: the piles and
    # the hand, above the dock.
    resize(page, SMALL_PHONE)
    page.click("button:has-text('Learn to play')")
    expect(page).to_have_url(ROOM_URL)
    coach = page.locator(".coach")
    # The coach seats a computer player and starts the round: the real table, with the coach.
    expect(page.locator(".pile")).to_have_count(5)
    expect(coach).to_contain_text("Numbers")
    expect(coach).to_contain_text("of 5 different")
    turns = 0
    while True:
        expect(page.locator(".status.mine, .standings").first).to_be_visible()
        if page.locator(".standings").count():
            break
        # A newcomer does what the coach says: knock, or take and discard what glows.
        expect(page.locator(".pile.hinted, [data-act=knock].hinted").first).to_be_visible()
        if page.locator("[data-act=knock].hinted").count():
            expect(coach).to_contain_text("knock to end the round")
            over_the_dock(page, ".handbox .hand")
            expect(page.locator("[data-act=knock]")).to_be_in_viewport(ratio=1)
            page.click("[data-act=knock]")
            page.click("[data-act=knock-yes]")
            continue
        expect(coach).to_contain_text("take the glowing card")
        expect(page.locator(".hand .card.teach").first).to_be_visible()
        over_the_dock(page, ".pile.hinted, .handbox .hand")
        page.click(".pile.hinted")
        expect(coach).to_contain_text("Now discard")
        expect(page.locator(".hand .card.hinted")).to_have_count(1)
        over_the_dock(page, ".handbox .hand")
        if turns == 0 and PICTURES:
            shot(page, "lesson-discard-360x640")
            for size in ({"width": 1366, "height": 900}, {"width": 390, "height": 844}):
                resize(page, size)
                shot(page, f"lesson-table-{size['width']}")
            resize(page, SMALL_PHONE)
        page.click(".hand .card.hinted")
        # The discard is taken: five cards again, or the round is over (the bot had knocked).
        wait_for(
            page,
            "document.querySelector('.standings')"
            " || document.querySelectorAll('.hand .card').length === 5",
        )
        turns += 1
        assert turns <= 12, "the coach asks for a knock within 10 turns"
    expect(coach).to_contain_text("The round is over")
    expect(coach).to_contain_text("Your hand scored")
    shot(page, "lesson-end")
    lesson = page.url
    page.click("[data-coach=real]")
    expect(page).not_to_have_url(lesson)
    expect(page).to_have_url(ROOM_URL)
    # The real room: an ordinary lobby, without the coach, waiting for friends.
    expect(page.locator(".code")).to_be_visible()
    expect(page.locator(".seatlist")).to_contain_text("Newcomer")
    expect(page.locator(".coach")).to_have_count(0)
    expect(page.locator("[data-act=start]")).to_be_disabled()


def new_page(pages: Pages, **options: Any) -> Any:
    """A page in a fresh context with these options (color_scheme, locale, viewport...)."""
    options = {"reduced_motion": "reduce", "locale": "en-US", **options}
    context = pages.browser.new_context(**options)
    pages.contexts.append(context)
    return pages.open(None, context=context)


def test_the_app_installs_and_its_shell_opens_offline(pages: Pages, shot: Shot) -> None:
    page = new_page(pages, viewport={"width": 390, "height": 844})
    page.goto(pages.server.url + "/")
    # Its files come gzipped: what came over the network is well under what the page runs.
    sizes = page.evaluate(
        "performance.getEntriesByType('resource').filter((e) => e.name.includes('/static/'))"
        ".map((e) => [e.encodedBodySize, e.decodedBodySize])"
    )
    assert len(sizes) > 3, sizes
    assert all(0 < sent < whole for sent, whole in sizes), sizes
    assert sum(sent for sent, _ in sizes) < sum(whole for _, whole in sizes) / 2, sizes
    link = page.locator("link[rel=manifest]").get_attribute("href")
    assert link == "/manifest.webmanifest"
    answer = page.request.get(pages.server.url + link)
    assert answer.headers["content-type"] == "application/manifest+json"
    manifest = json.loads(answer.text())
    assert manifest["name"] == "Spectrum Online"
    assert manifest["start_url"] == "/"
    assert manifest["scope"] == "/"
    assert manifest["display"] == "standalone"
    assert manifest["theme_color"].startswith("#")
    assert manifest["background_color"].startswith("#")
    for icon in manifest["icons"]:
        image = page.request.get(pages.server.url + icon["src"])
        assert image.ok
        assert image.headers["content-type"] == icon["type"] == "image/svg+xml"
        assert image.text().startswith("<svg")
        assert "href" not in image.text()
    # The service worker takes the page in hand: its scope is the whole site.
    scope = page.evaluate("navigator.serviceWorker.ready.then((r) => r.scope)")
    assert scope == pages.server.url + "/"
    reload_through_worker(page)
    kept = page.evaluate(
        "caches.keys().then((names) => caches.open(names[0])).then((c) => c.keys())"
        ".then((requests) => requests.map((r) => new URL(r.url).pathname))"
    )
    for path in ("/", "/static/js/app.js", "/static/js/rules.js", "/static/css/app.css"):
        assert path in kept

    page.context.set_offline(True)
    try:
        shell = [
            ("/", "Learn to play"),
            ("/rules", "The scoring hands"),
            ("/calculator", "Score calculator"),
        ]
        for path, shows in shell:
            page.goto(pages.server.url + path)
            expect(page.locator("main")).to_contain_text(shows)
        page.goto(pages.server.url + "/r/2222-2222")
        expect(page.locator(".banner")).to_contain_text("You are offline.")
        expect(page.locator(".banner")).to_contain_text("A room needs the network")
        shot(page, "offline-room-390")
    finally:
        page.context.set_offline(False)
    # Back online, the room page finds out for itself (here: there is no such room).
    expect(page.locator("h1")).to_have_text("There is no room with this code")


PAGES = [
    ("/", "#name"),
    ("/calculator", ".picker"),
    ("/rules", ".shown"),
    ("/history", "h1"),
    ("/no/such/page", "h1"),
    ("/r/2222-2222", "h1"),
]


def lobby_table_results(page: Any, url: str, shot: Shot, name: str) -> None:
    """A room against a bot: the lobby, the table, the results."""
    page.goto(url + "/")
    page.fill("#name", "Ann")
    page.click("form[data-submit=create] button")
    expect(page.locator(".code")).to_be_visible()
    page.click("[data-act=add-bot][data-level=normal]")
    expect(page.locator("[data-act=start]")).to_be_enabled()
    shot(page, f"{name}-lobby")
    page.click("[data-act=start]")
    expect(page.locator(".pile")).to_have_count(5)
    shot(page, f"{name}-table")
    for _ in range(60):
        expect(page.locator(".status.mine, .results").first).to_be_visible()
        if page.locator(".results").count():
            break
        if page.locator("[data-act=knock]").count():
            page.click("[data-act=knock]")
            page.click("[data-act=knock-yes]")
        else:
            page.click(".pile.can >> nth=0")
            page.click(".hand .card.can >> nth=0")
    expect(page.locator(".results")).to_be_visible()
    shot(page, f"{name}-results")


def test_the_dark_theme_follows_the_system_has_a_switch_and_shows_on_every_page(
    pages: Pages, shot: Shot
) -> None:
    for width in (1366, 390):
        page = new_page(pages, color_scheme="dark", viewport={"width": width, "height": 900})
        for path, ready in PAGES:
            page.goto(pages.server.url + path)
            expect(page.locator(ready).first).to_be_visible()
            assert page.evaluate("document.documentElement.dataset.theme") == "dark"
            background = page.evaluate("getComputedStyle(document.documentElement).backgroundColor")
            assert background == "rgb(20, 23, 29)", path
            shot(page, f"dark{path.replace('/', '-').rstrip('-') or '-home'}-{width}")
        # A match in the dark theme on a phone; on a laptop the axe test below plays one, so
        # this one only serves the pictures.
        if width == 390 or PICTURES:
            lobby_table_results(page, pages.server.url, shot, f"dark-{width}")
    # The switch: light on a dark system, remembered on the next visit; back to following.
    expect(page.locator("#theme")).to_have_attribute("aria-pressed", "true")
    page.click("#theme")
    expect(page.locator("#theme")).to_have_attribute("aria-pressed", "false")
    page.reload()
    assert page.evaluate("document.documentElement.dataset.theme") == "light"
    assert page.evaluate("localStorage.getItem('spectrum.theme')") == "light"
    # The switch answers once the page's modules have run (their words may still be loading
    # when the page's load event fires): a page drawn in <main> says they have.
    expect(page.locator("#main h1").first).to_be_visible()
    page.click("#theme")
    assert page.evaluate("localStorage.getItem('spectrum.theme')") is None
    assert page.evaluate("document.documentElement.dataset.theme") == "dark"
    light = new_page(pages, color_scheme="light")
    light.goto(pages.server.url + "/")
    assert light.evaluate("document.documentElement.dataset.theme") == "light"
    expect(light.locator("#main h1").first).to_be_visible()
    light.click("#theme")
    expect(light.locator("#theme")).to_have_attribute("aria-pressed", "true")
    assert light.evaluate("localStorage.getItem('spectrum.theme')") == "dark"
    light.reload()
    assert light.evaluate("document.documentElement.dataset.theme") == "dark"


def test_every_page_is_clean_for_axe_in_the_dark_theme(pages: Pages) -> None:
    page = new_page(pages, color_scheme="dark")
    for path, ready in PAGES:
        page.goto(pages.server.url + path)
        expect(page.locator(ready).first).to_be_visible()
        axe_clean(page, f"{path} (dark)")
    page.goto(pages.server.url + "/")
    page.fill("#name", "Dee")
    page.click("button:has-text('Learn to play')")
    expect(page.locator(".pile.hinted, [data-act=knock].hinted").first).to_be_visible()
    axe_clean(page, "the lesson's table (dark)")
    page.set_viewport_size({"width": 1366, "height": 768})
    page.goto(pages.server.url + "/")
    create_room(page, "Dee", rounds=1)
    page.click("[data-act=add-bot][data-level=easy]")
    expect(page.locator("[data-act=start]")).to_be_enabled()
    axe_clean(page, "the host's lobby (dark)")
    page.click("[data-act=start]")
    expect(page.locator(".status.mine, .results").first).to_be_visible()
    axe_clean(page, "the table (dark)")
    play_to_the_results(page)
    axe_clean(page, "the results (dark)")
