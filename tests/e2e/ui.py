"""What a player does in the browser, step by step, for the e2e tests."""

from __future__ import annotations

import re
import time
from typing import Any

from tests.e2e.conftest import ROOM_URL, require_playwright

expect = require_playwright().expect
MINUS = "\N{MINUS SIGN}"  # the page writes negative points with a real minus sign


def signed(points: int) -> str:
    """Points as the page shows a round's gain: "+10", "\N{MINUS SIGN}5", "0"."""
    return f"+{points}" if points > 0 else str(points).replace("-", MINUS)


def card_name(card: str) -> str:
    """A card id as the page names it: "3-star-orange" is "3, star, orange"."""
    return ", ".join(card.split("-"))


def create_room(page: Any, name: str, rounds: int = 1, timer: str = "0") -> str:
    """Create a room from the home page; returns its code once the lobby shows."""
    page.fill("#name", name)
    page.click("summary")
    page.fill("#set-rounds", str(rounds))
    page.select_option("#set-timer", timer)
    page.click("[data-submit=create] button.primary")  # in any language
    expect(page).to_have_url(ROOM_URL)
    match = ROOM_URL.search(page.url)
    assert match is not None
    expect(page.locator(".code")).to_have_text(match.group(1))
    return match.group(1)


def join_from_home(page: Any, name: str, typed_code: str) -> None:
    """Join a room from the home page with the code as a person might type it."""
    page.fill("#name", name)
    page.fill("#code", typed_code)
    page.click("form[data-submit=join] button")
    expect(page).to_have_url(ROOM_URL)
    expect(page.locator(".seatlist")).to_contain_text(name)


def seat_online(page: Any, name: str) -> None:
    """Wait until the lobby shows ``name`` seated and online."""
    expect(page.locator(".seatlist li", has_text=name).locator(".dot.on")).to_be_visible()


def add_bots(page: Any, levels: list[str], touch: bool = False) -> None:
    """The host seats a bot of each of ``levels`` in turn (by touch if ``touch``), each once
    the lobby shows the one before."""
    for n, level in enumerate(levels):
        button = f"[data-act=add-bot][data-level={level}]"
        if touch:
            page.tap(button)
        else:
            page.click(button)
        expect(page.locator(".seatlist [data-act=remove_bot]")).to_have_count(n + 1)


def hand(page: Any) -> list[str]:
    """The names of the cards in this player's hand, as shown (without "just taken")."""
    labels: list[str] = page.locator(".hand .card").evaluate_all(
        "cards => cards.map(card => card.getAttribute('aria-label'))"
    )
    return [label.removesuffix(", just taken") for label in labels]


def my_turn(page: Any) -> None:
    expect(page.locator(".status.mine")).to_be_visible()


def take(page: Any, pile: int, hand_after: int = 6) -> str:
    """Take the top card of ``pile`` by clicking it; returns that card's name."""
    my_turn(page)
    label = page.locator(f'.pile[data-pile="{pile}"]').get_attribute("aria-label")
    assert label is not None
    taken = label.split(": ", 1)[1].rsplit(", ", 1)[0]
    page.click(f'.pile[data-pile="{pile}"]')
    expect(page.locator(".hand .card")).to_have_count(hand_after)
    expect(page.locator(".status.mine")).to_contain_text("discard")
    return taken


def discard(page: Any, index: int = 0, hand_after: int | None = 5) -> str:
    """Discard the card at ``index`` of the hand as shown by clicking it; returns its name.

    ``hand_after`` None: the discard ends the round, so the hand gives way to the results.
    """
    card = page.locator(".hand .card").nth(index)
    name = card.get_attribute("aria-label")
    assert name is not None
    card.click()
    if hand_after is not None:
        expect(page.locator(".hand .card")).to_have_count(hand_after)
    return name.replace(", just taken", "")


def discard_top_is(page: Any, name: str) -> None:
    """Wait until the discard pile shows ``name`` on top."""
    expect(page.locator(".pile.discard")).to_have_attribute(
        "aria-label", re.compile(rf"^Discard pile: {re.escape(name)}, ")
    )


def knock_or_end(page: Any) -> None:
    """On one's turn, knock (or, after the other's knock, end the round)."""
    my_turn(page)
    if page.locator("[data-act=knock]").count():
        page.click("[data-act=knock]")
        page.click("[data-act=knock-yes]")
    else:
        take(page, 0)
        discard(page, 0, hand_after=None)


def play_to_the_results(page: Any) -> None:
    """Knock, or end the round after another's knock, until the match's results show (a bot
    may knock, or end the round, before this player's turn comes)."""
    for _ in range(3):
        expect(page.locator(".status.mine, .standings").first).to_be_visible()
        if page.locator(".standings").count():
            return
        knock_or_end(page)
    expect(page.locator(".standings")).to_be_visible()


# Whether each element a selector finds is whole on screen, above the sticky dock.
OVER_THE_DOCK = """(selector) => {
  const dock = document.querySelector('.dock').getBoundingClientRect();
  const found = [...document.querySelectorAll(selector)];
  return found.length > 0 && dock.bottom <= innerHeight + 1 && found.every((element) => {
    const box = element.getBoundingClientRect();
    return box.top >= 0 && box.bottom <= dock.top + 1;
  });
}"""


def wait_for(page: Any, expression: str, arg: Any = None, timeout: float = 8.0) -> Any:
    """Wait until ``expression`` (or the function, called with ``arg``) is true in ``page``;
    its value. Asked again and again from here: the page's Content-Security-Policy refuses
    the string evaluation Playwright's ``wait_for_function`` does inside the page."""
    deadline = time.monotonic() + timeout
    while (value := page.evaluate(expression, arg)) in (None, False, 0, ""):  # JS's falsy
        assert time.monotonic() < deadline, f"not true within {timeout} s: {expression}"
        page.wait_for_timeout(20)
    return value


def controlled(page: Any) -> None:
    """Wait until the page is in its service worker's hands: the worker keeps its whole shell
    first, which on a busy machine takes longer than any page's wait."""
    wait_for(page, "navigator.serviceWorker.controller !== null", timeout=30)


def reload_through_worker(page: Any) -> None:
    """Load the page again through its service worker, once the worker is active, and wait
    until the page is in its hands. A reload while the worker still installs may never be: the
    worker claims the pages open as it activates, and a page between its answer and its first
    script is none of them (seen on a busy machine, the worker activated, the page not in its
    hands 30 s later)."""
    page.evaluate("navigator.serviceWorker.ready.then(() => true)")
    page.reload()
    controlled(page)


def over_the_dock(page: Any, selector: str) -> None:
    """Wait until what ``selector`` finds is whole on screen, above the table's sticky dock."""
    wait_for(page, OVER_THE_DOCK, selector)
