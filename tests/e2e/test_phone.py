"""A phone's own cases, played by touch: 320 px wide, and held sideways."""

from __future__ import annotations

from typing import Any

import pytest

from tests.e2e.conftest import Pages, scroll_width
from tests.e2e.test_access import resize
from tests.e2e.ui import create_room, expect, my_turn, wait_for

NARROWEST = {"width": 320, "height": 568}
SIDEWAYS = {"width": 667, "height": 375}

# Whether the piles and the hand are all whole on screen at once, the hand above the dock.
PILES_AND_HAND_IN_VIEW = """() => {
  const dock = document.querySelector('.dock').getBoundingClientRect();
  const whole = (selector, bottom) => [...document.querySelectorAll(selector)].every((element) => {
    const box = element.getBoundingClientRect();
    return box.top >= 0 && box.left >= 0 && box.right <= innerWidth && box.bottom <= bottom + 1;
  });
  return document.querySelectorAll('.hand .card').length > 0 && whole('.pile', innerHeight)
    && whole('.hand .card', Math.min(dock.top, innerHeight));
}"""


def seated_with_a_bot(page: Any) -> None:
    """Ann makes a one-round room without a timer on ``page``, seats a bot and starts."""
    create_room(page, "Ann", rounds=1, timer="0")
    page.tap("[data-act=add-bot][data-level=easy]")
    expect(page.locator("[data-act=start]")).to_be_enabled()
    page.tap("[data-act=start]")
    expect(page.locator(".pile")).to_have_count(5)


@pytest.mark.parametrize("locale", ["en-US", "fr-FR"])
def test_the_header_fits_a_320_px_phone(pages: Pages, locale: str) -> None:
    """The narrowest phones: the brand and the four links of the header never make a page
    scroll sideways (they took 341 px in English, 359 in French); the links go under the
    brand instead, each whole on screen."""
    page = pages.open("/", phone=True, locale=locale)
    resize(page, NARROWEST)
    for path in ["/", "/history", "/calculator", "/rules"]:
        page.goto(pages.server.url + path)
        expect(page.locator("h1").first).to_be_visible()
        assert scroll_width(page) == NARROWEST["width"], path
        edges = page.locator(".top nav a").evaluate_all(
            "links => links.map((link) => link.getBoundingClientRect().right)"
        )
        assert len(edges) == 4, path
        assert max(edges) <= NARROWEST["width"], (path, edges)


def test_a_phone_held_sideways_shows_the_piles_and_the_hand_at_once(pages: Pages) -> None:
    """667x375: the table and the hand side by side, so a turn is played without scrolling
    between the piles and the hand, and the dock covers no card (one column, the hand was
    below the fold, then under the dock)."""
    ann = pages.open("/", phone=True)
    resize(ann, SIDEWAYS)
    seated_with_a_bot(ann)
    my_turn(ann)
    ann.evaluate("scrollTo(0, 0)")
    wait_for(ann, PILES_AND_HAND_IN_VIEW)
    ann.tap(".pile.can >> nth=0")
    expect(ann.locator(".hand .card.can")).to_have_count(6)
    ann.evaluate("scrollTo(0, 0)")
    wait_for(ann, PILES_AND_HAND_IN_VIEW)
    assert scroll_width(ann) == SIDEWAYS["width"]
