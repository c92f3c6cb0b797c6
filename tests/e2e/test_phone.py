"""A phone's own cases: the narrowest, 320 px wide."""

from __future__ import annotations

import pytest

from tests.e2e.conftest import Pages, scroll_width
from tests.e2e.test_access import resize
from tests.e2e.ui import expect

NARROWEST = {"width": 320, "height": 568}


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
