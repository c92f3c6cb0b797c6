"""What the table tells a player: sound switch, turn alert, offline banner, a link for friends."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from tests.e2e.conftest import E2E_SETTINGS, Pages
from tests.e2e.ui import create_room, expect, my_turn
from tests.server import running_server

Shot = Callable[[Any, str], None]
LOOPBACK_WARNING = "This link works on this computer only"
PAUSED_CLOCK = "\N{EN DASH}:\N{EN DASH}\N{EN DASH}"


def table_with_a_bot(page: Any, timer: str = "0") -> str:
    """Ann's room with an easy bot, started; returns the room's code."""
    code = create_room(page, "Ann", rounds=1, timer=timer)
    page.click("[data-act=add-bot][data-level=easy]")
    page.click("[data-act=start]")
    expect(page.locator(".pile")).to_have_count(5)
    return code


def test_sound_is_off_under_automation_and_the_switch_is_remembered(pages: Pages) -> None:
    ann = pages.open("/")
    create_room(ann, "Ann")
    switch = ann.locator("[data-act=sound]")
    expect(switch).to_have_attribute("aria-pressed", "false")
    assert ann.evaluate("localStorage.getItem('spectrum.sound')") is None
    switch.click()
    expect(switch).to_have_attribute("aria-pressed", "true")
    ann.reload()
    expect(switch).to_have_attribute("aria-pressed", "true")
    switch.click()
    expect(switch).to_have_attribute("aria-pressed", "false")
    ann.reload()
    expect(switch).to_have_attribute("aria-pressed", "false")
    assert ann.evaluate("localStorage.getItem('spectrum.sound')") == "off"


def test_a_turn_in_a_hidden_tab_marks_the_title_and_the_icon(pages: Pages) -> None:
    ann = pages.open("/")
    create_room(ann, "Ann", rounds=1)
    plain = ann.locator("link[rel=icon]").get_attribute("href")
    assert plain is not None
    ann.click("[data-act=add-bot][data-level=easy]")
    ann.evaluate(
        "Object.defineProperty(document, 'hidden', { configurable: true, get: () => true })"
    )
    ann.click("[data-act=start]")
    my_turn(ann)  # after the bot's first turn
    expect(ann).to_have_title(re.compile("^● Your turn"))
    expect(ann.locator("link[rel=icon]")).to_have_attribute("href", re.compile("^data:image/png"))
    ann.evaluate("delete document.hidden; document.dispatchEvent(new Event('visibilitychange'))")
    expect(ann.locator("link[rel=icon]")).to_have_attribute("href", plain)


def test_going_offline_shows_at_once_and_coming_back_reconnects(pages: Pages, shot: Shot) -> None:
    ann = pages.open("/")
    table_with_a_bot(ann, timer="300")
    my_turn(ann)
    expect(ann.locator("[data-deadline]")).to_have_text(re.compile(r"^[45]:\d\d$"))

    ann.context.set_offline(True)
    ann.evaluate("dispatchEvent(new Event('offline'))")
    banner = ann.locator(".banner", has_text="You are offline")
    expect(banner).to_be_visible()
    # The clock is not shown running (nor stopped at 0:00) while nothing can be known.
    expect(ann.locator(".timer.paused")).to_have_text(PAUSED_CLOCK)
    expect(ann.locator("[data-deadline]")).to_have_count(0)
    shot(ann, "offline")

    ann.context.set_offline(False)
    ann.evaluate("dispatchEvent(new Event('online'))")
    expect(banner).to_have_count(0, timeout=20000)
    expect(ann.locator(".banner")).to_have_count(0, timeout=20000)
    expect(ann.locator("#toast")).to_contain_text("reconnected")
    expect(ann.locator("[data-deadline]")).to_have_text(re.compile(r"^[45]:\d\d$"))
    my_turn(ann)
    ann.click('.pile[data-pile="0"]')
    expect(ann.locator(".hand .card")).to_have_count(6)


def test_a_link_on_a_loopback_address_says_it_works_here_only(pages: Pages) -> None:
    ann = pages.open("/")
    create_room(ann, "Ann")
    warning = ann.locator(".share .warn")
    expect(warning).to_contain_text(LOOPBACK_WARNING)
    expect(warning).to_contain_text(
        f"PUBLIC_URL=http://<this computer's address>:{pages.server.port}"
    )
    expect(warning).to_contain_text("HOST=0.0.0.0")


def test_a_public_url_link_has_no_loopback_warning(browser: Any) -> None:
    public = "http://192.0.2.10:8000"
    with running_server(**E2E_SETTINGS, PUBLIC_URL=public) as server:
        pages = Pages(browser, server)
        try:
            ann = pages.open("/")
            code = create_room(ann, "Ann")
            expect(ann.locator(".share .link")).to_have_text(f"{public}/r/{code}")
            expect(ann.locator(".share .warn")).to_have_count(0)
            ann.reload()
            expect(ann.locator(".share .link")).to_have_text(f"{public}/r/{code}")
            expect(ann.locator(".share .warn")).to_have_count(0)
            # A link kept from before PUBLIC_URL was set (a start without it gave this one)
            # gives way to the server's once the room's page has its state.
            kept = f"{server.url}/r/{code}"
            ann.evaluate(
                "([key, link]) => localStorage.setItem(key, link)", [f"spectrum.link.{code}", kept]
            )
            ann.reload()
            expect(ann.locator(".share .link")).to_have_text(f"{public}/r/{code}")
            expect(ann.locator(".share .warn")).to_have_count(0)
            stored = ann.evaluate("(key) => localStorage.getItem(key)", f"spectrum.link.{code}")
            assert stored == f"{public}/r/{code}"
            # Someone who opened the room at this computer's own address shares the public one.
            bob = pages.open(f"/r/{code}")
            expect(bob.locator(".share .link")).to_have_text(f"{public}/r/{code}")
            expect(bob.locator(".share .warn")).to_have_count(0)
        finally:
            pages.close()
        assert pages.errors == []
