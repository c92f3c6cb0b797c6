"""The game as a screen reader gives it: what the live regions read out, and when; the hint's
words at a contrast a low-vision player can read."""

from __future__ import annotations

import re
from typing import Any

from tests.e2e.conftest import E2E_SETTINGS, Pages
from tests.e2e.test_access import axe_script
from tests.e2e.ui import create_room, discard, expect, join_from_home, my_turn, seat_online, take
from tests.server import running_server

# How a screen reader is told of changes inside an element: the politeness of the nearest live
# region around it ("off" inside a timer, or where the page says so; null outside any).
LIVE = """(element) => {
  const live = '[aria-live], [role=status], [role=alert], [role=log], [role=timer]';
  const root = element.closest(live);
  const implied = { status: 'polite', log: 'polite', alert: 'assertive', timer: 'off' };
  return root && (root.getAttribute('aria-live') ?? implied[root.getAttribute('role')]);
}"""

# What the chat's log gains from now on (a live log reads out each line added to it).
WATCH_LOG = """() => {
  window.gained = [];
  new MutationObserver((changes) => changes.forEach((change) => change.addedNodes.forEach(
    (node) => window.gained.push(node.textContent)))).observe(
    document.querySelector('[role=log]'), { childList: true, subtree: true });
}"""


def test_a_chat_line_is_added_to_the_log_alone(pages: Pages) -> None:
    """A live log reads out what is added to it: a new line, not every line again."""
    ann = pages.open("/")
    code = create_room(ann, "Ann")
    bob = pages.open("/")
    join_from_home(bob, "Bob", code)
    seat_online(ann, "Bob")
    for text in ("one", "two"):
        ann.fill("#chat-text", text)
        ann.press("#chat-text", "Enter")
        expect(ann.get_by_role("log", name="Chat")).to_contain_text(text)
    ann.evaluate(WATCH_LOG)
    bob.fill("#chat-text", "hello")
    bob.press("#chat-text", "Enter")
    expect(ann.get_by_role("log", name="Chat")).to_contain_text("Bob: hello")
    ann.get_by_role("button", name="React with 👍").click()
    expect(ann.get_by_role("log", name="Chat")).to_contain_text("You: 👍")
    assert ann.evaluate("window.gained") == ["Bob: hello", "You: 👍"]
    lines = ann.get_by_role("log", name="Chat").locator("p")
    expect(lines).to_have_text(["You: one", "You: two", "Bob: hello", "You: 👍"])


def test_the_reconnection_countdown_is_not_read_out_each_second(pages: Pages) -> None:
    """ "Connection lost. Reconnecting in 3 s…" is read when it comes; its seconds going down
    are not read out again and again."""
    ann = pages.open(None)
    sockets: list[Any] = []

    def relay(route: Any) -> None:
        if sockets:  # after the first: the server cannot be reached
            route.close(code=1012)
        else:
            route.connect_to_server()
            sockets.append(route)

    ann.route_web_socket(re.compile("/ws/rooms/"), relay)
    ann.goto(pages.server.url + "/")
    create_room(ann, "Ann")
    sockets[0].close(code=1012)
    banner = ann.get_by_role("status").filter(has_text="Connection lost")
    expect(banner).to_contain_text(re.compile(r"Reconnecting in \d+ s"))
    countdown = ann.locator("[data-retry]")
    assert banner.evaluate(LIVE) == "polite"
    assert countdown.evaluate(LIVE) == "off"


def test_the_turns_words_say_when_the_time_runs_low(pages: Pages) -> None:
    """The turn's timer is no live region (it would be read every second); the turn's words,
    which are, say once when ten seconds are left."""
    ann = pages.open("/")
    create_room(ann, "Ann", timer="15")
    ann.click("[data-act=add-bot][data-level=easy]")
    ann.click("[data-act=start]")
    my_turn(ann)
    timer = ann.get_by_role("timer", name="time left")
    assert timer.evaluate(LIVE) == "off"
    words = ann.locator(".status [aria-live]")
    assert words.evaluate(LIVE) == "polite"
    expect(words).to_have_text("Your turn: take a card")
    expect(words).to_have_text("Your turn: take a card, time left 10 seconds", timeout=15000)
    expect(timer).to_have_class(re.compile(r"\blow\b"))


def test_the_hint_reads_at_aa_contrast_in_both_themes(pages: Pages) -> None:
    for dark in (False, True):
        ann = pages.open("/", dark=dark)
        create_room(ann, "Ann")
        ann.click("[data-act=add-bot][data-level=easy]")
        ann.click("[data-act=start]")
        my_turn(ann)
        ann.get_by_role("button", name="Hint").click()
        expect(ann.get_by_role("status").filter(has_text="Hint:")).to_be_visible()
        ann.evaluate(axe_script())
        found = ann.evaluate(
            "() => axe.run('.dock', { runOnly: ['color-contrast'], resultTypes: ['violations'] })"
        )["violations"]
        assert found == [], [node["failureSummary"] for rule in found for node in rule["nodes"]]


def test_the_lobbys_remove_buttons_are_red_and_read_at_aa_in_both_themes(pages: Pages) -> None:
    """The host's Remove buttons are drawn in the warning colour (a quiet button's grey used to
    win over it), legible on the page in either theme."""
    for dark, red in ((False, "rgb(184, 50, 43)"), (True, "rgb(240, 131, 124)")):
        ann = pages.open("/", dark=dark)
        create_room(ann, "Ann")
        ann.click("[data-act=add-bot][data-level=easy]")
        remove = ann.get_by_role("button", name=re.compile("^Remove "))
        expect(remove).to_have_css("color", red)
        ann.evaluate(axe_script())
        found = ann.evaluate(
            "() => axe.run('.seatlist', { runOnly: ['color-contrast'], "
            "resultTypes: ['violations'] })"
        )["violations"]
        assert found == [], [node["failureSummary"] for rule in found for node in rule["nodes"]]


def test_the_calculators_focus_goes_on_to_a_card_when_its_button_goes(pages: Pages) -> None:
    """A chosen card removed, or all of them cleared, by keyboard: the focus is on a card, not
    fallen back to the top of the page."""
    page = pages.open("/calculator")
    picker = page.get_by_role("group", name="violet cards")
    for number in (1, 2, 3):
        card = picker.get_by_role("button", name=f"{number}, circle, violet", exact=True)
        card.focus()
        page.keyboard.press("Enter")
        expect(card).to_have_attribute("aria-pressed", "true")
    chosen = page.get_by_role("group", name=re.compile("^Chosen cards"))
    chosen.get_by_role("button", name="Remove 1, circle, violet").focus()
    page.keyboard.press("Enter")
    expect(chosen.get_by_role("button")).to_have_count(2)
    expect(chosen.get_by_role("button", name="Remove 2, circle, violet")).to_be_focused()
    page.get_by_role("button", name="Clear").focus()
    page.keyboard.press("Enter")
    expect(chosen.get_by_role("button")).to_have_count(0)
    expect(picker.get_by_role("button", name="1, circle, violet", exact=True)).to_be_focused()


def test_the_piles_and_the_hand_are_landmarks_and_a_join_is_read_out(pages: Pages) -> None:
    """A screen reader's landmark list leads to the piles and the hand (and to the moves and
    the chat); in the lobby, someone taking a seat is read out from the list of players."""
    ann = pages.open("/")
    code = create_room(ann, "Ann")
    seats = ann.get_by_role("list").filter(has_text="seats free")
    expect(seats.get_by_role("listitem")).to_have_count(2)
    bob = pages.open("/")
    join_from_home(bob, "Bob", code)
    seat_online(ann, "Bob")
    joined = seats.get_by_role("listitem").filter(has_text="Bob")
    assert joined.evaluate(LIVE) == "polite"
    assert seats.evaluate("list => list.getAttribute('aria-relevant')") == "additions"

    ann.click("[data-act=start]")
    my_turn(bob)
    piles = bob.get_by_role("region", name="Piles")
    expect(piles.get_by_role("button")).to_have_count(5)
    held = bob.get_by_role("region", name=re.compile("^Your hand"))
    expect(held.get_by_role("button")).to_have_count(5)
    regions = re.findall(r'- region "([^"]*)"', bob.locator("main").aria_snapshot())
    assert regions == ["Piles", held.get_attribute("aria-label"), "Moves this round", "Chat"]


def test_the_lessons_box_reads_out_what_changes_not_all_of_itself(pages: Pages) -> None:
    """The coach's box is a status (read out as it changes) but not read out whole again at
    each step: a status is atomic unless it says otherwise, and the box holds its
    explanation and the count of each property besides the step to take."""
    page = pages.open("/")
    page.fill("#name", "Newcomer")
    page.get_by_role("button", name="Learn to play").click()
    coach = page.get_by_role("status").filter(has_text="of 5 different")
    expect(coach).to_contain_text("Numbers")
    cdp = page.context.new_cdp_session(page)
    document = cdp.send("DOM.getDocument")["root"]["nodeId"]
    box = cdp.send("DOM.querySelector", {"nodeId": document, "selector": ".coach"})["nodeId"]
    [node] = cdp.send("Accessibility.getPartialAXTree", {"nodeId": box, "fetchRelatives": False})[
        "nodes"
    ]
    found = {item["name"]: item["value"].get("value") for item in node["properties"]}
    assert (node["role"]["value"], found["live"], found["atomic"]) == ("status", "polite", False)


def test_the_rules_hands_are_read_in_the_readers_language(pages: Pages) -> None:
    """The rules' text is English, marked so on a French page; the hands shown under it, in
    French words, are marked French, so a reader's French voice says them."""
    page = pages.open("/rules", locale="fr-FR")
    language = "element => element.closest('[lang]').lang"
    expect(page.locator("html")).to_have_attribute("lang", "fr")
    assert page.get_by_role("heading", level=1).evaluate(language) == "en"
    shown = page.get_by_role("heading", name="Les mains qui marquent, en cartes")
    assert shown.evaluate(language) == "fr"
    card = page.get_by_role("img", name="1, cercle, rouge").first
    assert card.evaluate(language) == "fr"


# The contrast of an element's text (or its pseudo-element's) with the first background
# behind it that is not transparent, as WCAG computes it.
CONTRAST = """(element, pseudo) => {
  const luminance = (colour) => {
    const [r, g, b] = colour.match(/[\\d.]+/g).slice(0, 3).map((c) => c / 255)
      .map((c) => (c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4));
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  let under = element;
  const clear = 'rgba(0, 0, 0, 0)';
  while (getComputedStyle(under).backgroundColor === clear) under = under.parentElement;
  const [a, b] = [getComputedStyle(element, pseudo).color, getComputedStyle(under).backgroundColor]
    .map(luminance).sort((x, y) => y - x);
  return (a + 0.05) / (b + 0.05);
}"""


def test_an_empty_piles_word_reads_at_aa_contrast(pages: Pages) -> None:
    """The word in an empty discard pile ("discard", drawn by the style sheet, which axe-core
    does not read) is small text: 4.5:1 at least, in both themes."""
    ann = pages.open("/")
    code = create_room(ann, "Ann")
    bob = pages.open("/", dark=True)
    join_from_home(bob, "Bob", code)
    seat_online(ann, "Bob")
    ann.click("[data-act=start]")
    for page in (ann, bob):
        slot = page.locator(".pile.discard .slot")
        expect(slot).to_have_attribute("data-w", "discard")
        assert slot.evaluate("slot => getComputedStyle(slot, '::before').content") == '"discard"'
        assert slot.evaluate(CONTRAST, "::before") >= 4.5


def test_what_was_played_for_a_returning_player_is_read_out(browser: Any) -> None:
    """The words saying what was played for a player while away come with the table drawn
    again: a status drawn with its words is not read out by every screen reader, an alert is."""
    with running_server(**{**E2E_SETTINGS, "STANDIN_SECONDS": "1"}) as server:
        pages = Pages(browser, server)
        try:
            ann = pages.open("/")
            code = create_room(ann, "Ann")
            bob = pages.open("/")
            join_from_home(bob, "Bob", code)
            seat_online(ann, "Bob")
            ann.click("[data-act=start]")
            take(bob, 0)
            discard(bob, 0)
            my_turn(ann)
            room = ann.url
            ann.goto("about:blank")  # her link goes on her turn: a bot plays it for her
            my_turn(bob)  # nothing changes now until Bob plays
            played = bob.locator(".log li").first.inner_text()  # "Ann discarded …", or knocked
            assert played.startswith("Ann "), played
            ann.goto(room)
            recap = ann.get_by_role("alert").filter(has_text="While you were away")
            expect(recap).to_contain_text("you " + played.removeprefix("Ann "))
        finally:
            pages.close()
        assert pages.errors == []


def test_a_hint_asked_by_keyboard_takes_the_focus(pages: Pages) -> None:
    """The Hint button gives way to the hint's words, which take the focus (and are read), not
    the page's top heading."""
    ann = pages.open("/")
    create_room(ann, "Ann")
    ann.click("[data-act=add-bot][data-level=easy]")
    ann.click("[data-act=start]")
    my_turn(ann)
    ann.get_by_role("button", name="Hint").focus()
    ann.keyboard.press("Enter")
    hint = ann.get_by_role("status").filter(has_text="Hint:")
    expect(hint).to_be_focused()


def test_the_next_round_opens_at_its_heading_after_a_last_discard_by_keyboard(
    pages: Pages,
) -> None:
    """A discard by keyboard sends the focus on to the first pile; the one that ends a round
    does not, at the next round's start, take the focus from its heading."""
    ann = pages.open("/")
    code = create_room(ann, "Ann", rounds=2)
    bob = pages.open("/")
    join_from_home(bob, "Bob", code)
    seat_online(ann, "Bob")
    ann.click("[data-act=start]")
    my_turn(bob)
    bob.click("[data-act=knock]")
    bob.click("[data-act=knock-yes]")
    my_turn(ann)
    ann.locator(".pile[data-pile='0']").focus()
    ann.keyboard.press("Enter")
    expect(ann.locator(".hand .card.can")).to_have_count(6)
    ann.locator(".hand .card").first.focus()
    ann.keyboard.press("Enter")
    for page in (ann, bob):
        expect(page.locator("#results-title")).to_be_focused()
        page.get_by_role("button", name="Ready").click()
    expect(ann.get_by_role("heading", name=re.compile("round 2 of 2"))).to_be_focused()


def test_clearing_picked_piles_by_keyboard_leaves_the_focus_on_a_pile(pages: Pages) -> None:
    """With multiple pickups, Clear goes once nothing is picked: the focus goes to the first
    pile that may be picked, not to the page's top heading."""
    ann = pages.open("/")
    create_room(ann, "Ann")
    ann.check("input[name=multi_pickup]")
    ann.click("[data-act=add-bot][data-level=easy]")
    ann.click("[data-act=start]")
    my_turn(ann)
    piles = ann.get_by_role("region", name="Piles")
    second = piles.get_by_role("button", name=re.compile("^Pile 2: "))
    second.focus()
    ann.keyboard.press("Enter")
    expect(second).to_have_attribute("aria-pressed", "true")
    ann.get_by_role("button", name="Clear").focus()
    ann.keyboard.press("Enter")
    expect(second).to_have_attribute("aria-pressed", "false")
    expect(piles.get_by_role("button", name=re.compile("^Pile 1: "))).to_be_focused()


def test_every_colour_tab_of_the_calculator_reads_at_aa_contrast_when_chosen(
    pages: Pages,
) -> None:
    """Chosen, a tab's words are paper on ink, whatever its colour (white on the yellow or the
    cyan was under 3:1), in both themes."""
    for dark in (False, True):
        page = pages.open("/calculator", dark=dark)
        for colour in ("violet", "cyan", "yellow", "orange", "red"):
            tab = page.locator(f".tab[data-colour={colour}]")
            tab.click()
            expect(tab).to_have_attribute("aria-pressed", "true")
            assert tab.evaluate(CONTRAST, None) >= 4.5, colour
