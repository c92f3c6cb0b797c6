"""The game by keyboard: the focus stays on something after each action, the results' heading is
read first, and the focus ring tells itself apart from what may be played."""

from __future__ import annotations

import re
from typing import Any

from tests.e2e.conftest import Pages
from tests.e2e.ui import (
    create_room,
    discard,
    expect,
    join_from_home,
    play_to_the_results,
    seat_online,
    take,
    wait_for,
)

# What has the focus, as "tag.class" or "tag#id"; "body" when it fell back to the page.
FOCUSED = """() => {
  const element = document.activeElement;
  return element.id ? `${element.localName}#${element.id}` : element.localName;
}"""

# The focused element whole on screen (to a pixel), above the table's sticky dock.
ABOVE_THE_DOCK = """() => {
  const dock = document.querySelector('.dock').getBoundingClientRect();
  const box = document.activeElement.getBoundingClientRect();
  return box.top >= -1 && box.bottom <= dock.top + 1;
}"""


def press(page: Any, selector: str, key: str = "Enter") -> None:
    """Focus what ``selector`` finds and press ``key`` on it, as a keyboard user does."""
    page.locator(selector).focus()
    page.keyboard.press(key)


def focus_kept(page: Any) -> None:
    """The focus is on something in the page, not fallen back to its body."""
    page.wait_for_timeout(100)
    assert page.evaluate(FOCUSED) != "body"


def test_the_focus_stays_in_the_page_after_each_action(pages: Pages) -> None:
    ann = pages.open("/")
    code = create_room(ann, "Ann", rounds=2, timer="0")
    # A computer player added by keyboard: the panels change places, the button keeps the focus.
    press(ann, "[data-act=add-bot][data-level=normal]")
    expect(ann.locator(".seatlist li", has_text="Computer")).to_have_count(1)
    expect(ann.locator("[data-act=add-bot][data-level=normal]")).to_be_focused()
    # Removed: its row goes, and the focus goes to the page's heading.
    press(ann, "[data-act=remove_bot]")
    expect(ann.locator(".seatlist li", has_text="Computer")).to_have_count(0)
    expect(ann.locator("h1")).to_be_focused()

    bob = pages.open("/")
    join_from_home(bob, "Bob", code)
    seat_online(ann, "Bob")
    ann.click("[data-act=start]")
    expect(ann.locator(".status.mine, .status:not(.mine)").first).to_be_visible()
    mover, other = (ann, bob) if ann.locator(".status.mine").count() else (bob, ann)
    expect(mover.locator(".status.mine")).to_be_visible()

    # A hint: "Thinking…", then the hint's words in its place.
    press(mover, "[data-act=hint]")
    expect(mover.locator(".hint-line")).to_be_visible()
    focus_kept(mover)
    # Knock, and Escape to think again: the question goes, the focus is back on Knock.
    press(mover, "[data-act=knock]")
    expect(mover.locator("[data-act=knock-yes]")).to_be_focused()
    mover.keyboard.press("Escape")
    expect(mover.locator("[data-act=knock-yes]")).to_have_count(0)
    expect(mover.locator("[data-act=knock]")).to_be_focused()
    # Knock, and knock again to say so: the buttons go, the focus goes to the table's heading.
    mover.keyboard.press("Enter")
    expect(mover.locator("[data-act=knock-yes]")).to_be_focused()
    mover.keyboard.press("Enter")
    expect(mover.locator(".status.mine")).to_have_count(0)
    expect(mover.locator("#table-title")).to_be_focused()

    take(other, 0)
    discard(other, 0, hand_after=None)
    # The round's end: its heading, which says who knocked, is read before "Ready".
    for page in (ann, bob):
        expect(page.locator("#results-title")).to_be_focused()
    press(ann, "[data-act=ready]")
    expect(ann.locator("[data-act=ready]")).to_have_text("Ready ✓")
    expect(ann.locator("[data-act=ready]")).to_have_attribute("aria-disabled", "true")
    expect(ann.locator("[data-act=ready]")).to_be_focused()


def test_a_ten_card_hand_by_keyboard_at_200_percent_zoom(pages: Pages) -> None:
    """A 1366x768 laptop at 200%: the focused card stays above the dock; before taking, the
    hand is out of the Tab order; the focus ring is not the ring of what may be played."""
    ann = pages.open("/")
    create_room(ann, "Ann", rounds=1, timer="0")
    ann.check("input[name=ten_card]")
    ann.click("[data-act=add-bot][data-level=easy]")
    ann.click("[data-act=start]")
    expect(ann.locator(".status.mine")).to_be_visible()
    ann.set_viewport_size({"width": 683, "height": 384})
    # From the last pile, Tab goes on to the actions, not through the ten cards.
    press(ann, ".pile[data-pile='4']", "Tab")
    assert ann.evaluate("document.activeElement.closest('.hand') === null")
    # The pile's focus ring is ink, not the accent of the ring around a card that may be taken.
    ann.locator(".pile.can").first.focus()
    ring = ann.locator(".pile:focus").evaluate("pile => getComputedStyle(pile).outlineColor")
    accent = ann.locator(".pile.can .card").first.evaluate(
        "card => getComputedStyle(card).boxShadow.match(/rgb\\([^)]*\\)/)[0]"
    )
    assert ring != accent, ring
    ann.keyboard.press("Enter")
    expect(ann.locator(".hand .card.can")).to_have_count(11)
    for index in (10, 0):
        ann.locator(".hand .card").nth(index).focus()
        wait_for(ann, ABOVE_THE_DOCK)
    ring = ann.locator(".hand .card:focus").evaluate("card => getComputedStyle(card).outlineColor")
    assert ring != accent, ring


def test_the_standings_say_the_place_in_words(pages: Pages) -> None:
    """What a screen reader reads of the standings, line by line, is "place 1", not "1" or
    "=1" (a label on a plain span is no text to it)."""
    ann = pages.open("/")
    create_room(ann, "Ann", rounds=1, timer="0")
    ann.click("[data-act=add-bot][data-level=easy]")
    ann.click("[data-act=start]")
    play_to_the_results(ann)
    expect(ann.locator(".standings")).to_be_visible()
    # One heading names the page: the winners; the last round's is under it.
    expect(ann.locator("h1")).to_have_count(1)
    expect(ann.locator("h1")).to_have_id("results-title")
    nodes = ann.context.new_cdp_session(ann).send("Accessibility.getFullAXTree")["nodes"]
    texts = [
        node["name"]["value"]
        for node in nodes
        if node.get("role", {}).get("value") == "StaticText" and not node.get("ignored")
    ]
    places = [text for text in texts if text.startswith("place ")]
    assert len(places) == 2, texts
    assert all(re.fullmatch(r"place \d(, shared)?", text) for text in places), places
    assert "=" not in texts, texts  # a shared place's "=1" is not read as "equals 1"


def test_a_seat_taken_from_the_rooms_link_by_keyboard_keeps_the_focus_in_the_page(
    pages: Pages,
) -> None:
    """The Join button was disabled while the seat was asked for, which took the focus from it
    to the page: the seated lobby was then read from its top by nobody. The focus now goes to
    the room's heading once the seat is taken."""
    ann = pages.open("/")
    code = create_room(ann, "Ann")
    bob = pages.open(f"/r/{code}")
    bob.locator("form[data-submit=join] input[name=name]").fill("Bob")
    press(bob, "form[data-submit=join] input[name=name]")
    expect(bob.locator("[data-act=leave]")).to_be_visible()
    expect(bob.locator("h1")).to_be_focused()
    expect(bob.locator("h1")).to_have_text(f"Room {code}")


def test_after_a_discard_by_keyboard_the_focus_is_on_a_pile_with_a_card(pages: Pages) -> None:
    """The focus went to pile 1 after a discard, even once it was empty."""
    ann = pages.open("/")
    code = create_room(ann, "Ann", rounds=1, timer="0")
    bob = pages.open("/")
    join_from_home(bob, "Bob", code)
    seat_online(ann, "Bob")
    ann.click("[data-act=start]")
    movers = [bob, ann]  # seat 0 deals; the player after the dealer plays first
    # Pile 1 holds 29 cards (115 in four piles, the larger first): each turn takes one.
    for turn in range(29):
        mover = movers[turn % 2]
        take(mover, 0)
        if turn < 28:
            discard(mover, 0)
    expect(bob.locator('.pile[data-pile="0"] .card')).to_have_count(0)
    press(bob, ".hand .card >> nth=0")
    expect(bob.locator(".hand .card")).to_have_count(5)
    expect(bob.locator('.pile[data-pile="1"]')).to_be_focused()
