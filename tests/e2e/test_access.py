"""Every page read by axe-core at three sizes; the table's actions on screen; long and odd names."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from typing import Any
from urllib.parse import quote

from tests.e2e.conftest import PHONE, PICTURES, Pages, require_playwright, scroll_width
from tests.e2e.matches import in_thread, play_matches
from tests.e2e.ui import (
    create_room,
    expect,
    join_from_home,
    my_turn,
    play_to_the_results,
    seat_online,
    take,
    wait_for,
)
from tests.rooms.client import api

Shot = Callable[[Any, str], None]
AXE_SIZES = [
    {"width": 1366, "height": 768},
    {"width": 390, "height": 844},
    {"width": 820, "height": 1180},
]
ACTION_SIZES = [
    {"width": 1280, "height": 720},
    {"width": 1366, "height": 768},
    {"width": 390, "height": 844},
    {"width": 360, "height": 640},
]
# Every rule axe-core runs by default, and the one that checks a name says what is shown.
AXE_OPTIONS = {
    "resultTypes": ["violations"],
    "rules": {"label-content-name-mismatch": {"enabled": True}},
}
# 24 characters each, with the characters a link must escape and scripts other than Latin.
LONG_NAMES = ["Zoë / Ω?#名前 Longname-24", "Ива́н Пётр?#ながいなまえ-ok"]


# Resolved two animation frames on: a rendering update has run in between.
NEXT_FRAME = "() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))"


def resize(page: Any, size: dict[str, int]) -> None:
    """Give ``page`` the viewport ``size`` and wait until its styles answer to it.

    ``matchMedia`` sees the new size at once, but the style sheets' media rules apply only at
    the page's next rendering update: until then the page is laid out at the new width with
    the old width's rules (the phone's header then overflowed, 408 px wide at 360 px)."""
    page.set_viewport_size(size)
    wait_for(
        page, f"matchMedia('(width: {size['width']}px) and (height: {size['height']}px)').matches"
    )
    page.evaluate(NEXT_FRAME)


@functools.cache
def axe_script() -> str:
    """axe-core itself, as axe-playwright-python ships it."""
    require_playwright()
    from axe_playwright_python.sync_playwright import Axe

    return str(Axe().axe_script)


def axe_clean(page: Any, what: str) -> None:
    """axe-core finds nothing wrong with ``page`` at each of the three sizes (axe-core is put
    into the document once, not once a size: it is half a megabyte of script to compile)."""
    if not page.evaluate("typeof window.axe === 'object' && typeof window.axe.run === 'function'"):
        page.evaluate(axe_script())
    for size in AXE_SIZES:
        resize(page, size)
        found = page.evaluate("options => axe.run(document, options)", AXE_OPTIONS)["violations"]
        problems = [
            f"{rule['id']} ({rule['impact']}): {rule['help']} at "
            f"{[node['target'] for node in rule['nodes']][:5]}"
            for rule in found
        ]
        where = f"{what} at {size['width']}x{size['height']}"
        assert problems == [], where + ":\n" + "\n".join(problems)


def pictured(page: Any, shot: Shot, name: str) -> None:
    """Screenshots of ``page`` at each of the three sizes, named ``{name}-{width}`` (with
    SCREENSHOTS=1; otherwise the page is left at its size)."""
    if not PICTURES:
        return
    for size in AXE_SIZES:
        resize(page, size)
        shot(page, f"{name}-{size['width']}")


def on_screen(page: Any, selector: str) -> None:
    """Each element matching ``selector`` is wholly inside the viewport, at every size."""
    for size in ACTION_SIZES:
        resize(page, size)
        page.evaluate("scrollTo(0, 0)")
        elements = page.locator(selector)
        expect(elements.first).to_be_visible()
        for element in elements.all():
            box = element.bounding_box()
            assert box is not None
            inside = (
                box["x"] >= 0
                and box["y"] >= 0
                and box["x"] + box["width"] <= size["width"]
                and box["y"] + box["height"] <= size["height"]
            )
            assert inside, f"{selector} at {size}: {box}"


def test_every_page_is_clean_for_axe_at_three_sizes(pages: Pages, shot: Shot) -> None:
    page = pages.open(None)
    for path, ready in [
        ("/", "#name"),
        ("/calculator", ".picker"),
        ("/rules", ".prose h1"),
        ("/history", "h1"),
        ("/r/not-a-code", "h1"),
        ("/r/2222-2222", "h1"),
        ("/no/such/page", "h1"),
    ]:
        page.goto(pages.server.url + path)
        expect(page.locator(ready).first).to_be_visible()
        axe_clean(page, path)

    ann = pages.open("/")
    create_room(ann, "Ann", rounds=1, timer="60")
    expect(ann.locator("[data-act=start]")).to_be_disabled()
    axe_clean(ann, "a lobby with one player")
    ann.click("[data-act=add-bot][data-level=easy]")
    expect(ann.locator("[data-act=start]")).to_be_enabled()
    axe_clean(ann, "the host's lobby")
    ann.set_viewport_size({"width": 1366, "height": 768})
    ann.click("[data-act=start]")
    expect(ann.locator(".pile")).to_have_count(5)
    # Focus goes where the next action is, not back to the page.
    expect(ann.locator("#table-title:focus, .pile.can:focus")).to_have_count(1)
    my_turn(ann)
    axe_clean(ann, "the table, to take")
    pictured(ann, shot, "table")
    take(ann, 0)
    axe_clean(ann, "the table, to discard")
    ann.locator(".hand .card").first.click()
    play_to_the_results(ann)
    expect(ann.locator("#results-title")).to_be_focused()
    axe_clean(ann, "the results")
    pictured(ann, shot, "results")

    match = api(pages.server, "GET", "/api/matches?player=Ann&limit=1").json()["matches"][0]
    for path in (f"/matches/{match['id']}", "/players/Ann"):
        page.goto(pages.server.url + path)
        expect(page.locator("h1")).to_be_visible()
        axe_clean(page, path)


def test_the_tables_actions_stay_on_screen(pages: Pages, shot: Shot) -> None:
    ann = pages.open("/")
    create_room(ann, "Ann", rounds=1, timer="0")
    ann.check("input[name=ten_card]")
    ann.click("[data-act=add-bot][data-level=easy]")
    ann.click("[data-act=start]")
    my_turn(ann)
    expect(ann.locator(".handgroup")).to_have_count(2)
    on_screen(ann, "[data-act=knock], [data-act=hint], .dock .score")
    for size in ACTION_SIZES:
        resize(ann, size)
        shot(ann, f"table-10card-{size['width']}x{size['height']}")
    # The piles that may be taken from are marked before any pointer comes near them.
    shadow = "card => getComputedStyle(card).boxShadow"
    marked = ann.locator(".pile.can .card").first.evaluate(shadow)
    assert marked != "none"
    assert ann.locator(".hand .card").first.evaluate(shadow) != marked
    take(ann, 1, hand_after=11)
    expect(ann.locator(".hand .card.can")).to_have_count(11)
    assert ann.locator(".hand .card.can").first.evaluate(shadow) not in ("none", "")
    on_screen(ann, "[data-act=hint], .dock .score")


def test_long_and_odd_names_fit_and_link(own_pages: Pages, shot: Shot) -> None:
    """On a server of its own: the history's leaderboard shows ten people, and what other
    tests play on a shared server can push these two off it."""
    pages = own_pages
    first, second = LONG_NAMES
    ann = pages.open("/", phone=True)
    code = create_room(ann, first, rounds=1, timer="0")
    bob = pages.open("/")
    join_from_home(bob, second, code)
    seat_online(ann, second)
    assert scroll_width(ann) <= PHONE["width"]
    shot(ann, "lobby-long-names-360")
    ann.click("[data-act=start]")
    my_turn(bob)
    expect(ann.locator(".seat")).to_have_count(2)
    assert scroll_width(ann) <= PHONE["width"]
    shot(ann, "table-long-names-360")
    bob.click("[data-act=knock]")
    bob.click("[data-act=knock-yes]")
    take(ann, 0)
    ann.locator(".hand .card").first.click()
    expect(ann.locator(".standings")).to_be_visible()
    expect(ann.locator(".standings")).to_contain_text(second)
    shot(ann, "results-long-names-360")
    assert scroll_width(ann) <= PHONE["width"]

    in_thread(play_matches, pages.server, list(LONG_NAMES), 1)
    match = api(pages.server, "GET", f"/api/matches?player={quote(first)}&limit=1").json()
    href = f"/matches/{match['matches'][0]['id']}"
    phone = pages.open(href, phone=True)
    expect(phone.locator("h2", has_text="Round 1")).to_be_visible()
    assert scroll_width(phone) <= PHONE["width"]
    shot(phone, "match-long-names-360")
    for name in LONG_NAMES:
        link = phone.locator(".standings a", has_text=name)
        # Played by protocol clients, without player keys: the link names that person.
        expect(link).to_have_attribute("href", f"/players/{quote(name, safe='')}?tag=")
    phone.locator(".standings a", has_text=second).click()
    expect(phone.locator("h1")).to_have_text(second)
    expect(phone).to_have_url(re.compile(re.escape(quote(second, safe="")) + r"\?tag=$"))
    assert scroll_width(phone) <= PHONE["width"]
    shot(phone, "player-long-name-360")
    # Opened from its address (a link followed from elsewhere, or a reload): "%2F" is no path.
    for name in LONG_NAMES:
        phone.goto(f"{pages.server.url}/players/{quote(name, safe='')}")
        expect(phone.locator("h1")).to_have_text(name)
        expect(phone.locator(".stats")).to_be_visible()
    phone.goto(pages.server.url + "/history")
    # Two lines of each name: the browsers' match (sent with their player keys) and the
    # protocol clients' (without): people of one name are told apart by their keys.
    expect(phone.locator(".standings a", has_text=second)).to_have_count(2)
    expect(phone.locator(".standings a", has_text=second).first).to_be_visible()
    assert scroll_width(phone) <= PHONE["width"]
    shot(phone, "history-long-names-360")
