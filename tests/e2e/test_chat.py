"""Two players chat and react in the browser; markup in a message is shown as the text it is; the
host mutes a player and lets a spectator chat; the actions stay on screen beside the chat."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from app.rooms.chat import REACTIONS
from tests.e2e.conftest import PHONE, Pages
from tests.e2e.test_access import AXE_SIZES, on_screen, resize
from tests.e2e.test_phone import PILES_AND_HAND_IN_VIEW
from tests.e2e.test_play import SMALL_PHONE, fits_phone
from tests.e2e.ui import (
    add_bots,
    create_room,
    discard,
    expect,
    join_from_home,
    knock_or_end,
    my_turn,
    seat_online,
    take,
    wait_for,
)

Shot = Callable[[Any, str], None]
MARKUP = "<img src=x onerror=alert(1)><b>hi</b>"


def say(page: Any, text: str) -> None:
    page.fill("#chat-text", text)
    page.press("#chat-text", "Enter")
    expect(page.locator("#chat-text")).to_have_value("")


def test_two_players_chat_and_react_and_markup_stays_text(pages: Pages, shot: Shot) -> None:
    dialogs: list[str] = []
    ann = pages.open("/")
    code = create_room(ann, "Ann", rounds=1, timer="0")
    bob = pages.open("/", phone=True)
    join_from_home(bob, "Bob", code)
    seat_online(ann, "Bob")
    for page in (ann, bob):
        page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
        expect(page.locator(".chatlog")).to_have_text("No messages yet.")
    reactions = bob.locator(".reacts button").evaluate_all("bs => bs.map((b) => b.textContent)")
    assert reactions == list(REACTIONS)

    say(bob, MARKUP)
    for page in (ann, bob):
        line = page.locator(".chatlog p").last
        expect(line).to_have_text(("You" if page is bob else "Bob") + ": " + MARKUP)
        assert page.locator(".chatlog img, .chatlog b, .bubble img, .bubble b").count() == 0
    # The bubble at Bob's seat in Ann's lobby says it too, as text.
    expect(ann.locator(".bubble")).to_have_text(MARKUP)
    # It stays within Bob's row of the seat list, on one line: the row above is not covered.
    bubble, row = (
        ann.locator(selector).bounding_box() for selector in (".bubble", ".seatlist li >> nth=1")
    )
    assert bubble is not None
    assert row is not None
    assert row["y"] <= bubble["y"]
    assert bubble["y"] + bubble["height"] <= row["y"] + row["height"]
    shot(ann, "chat-lobby-1280")

    ann.click(".react[aria-label='React with 🎉']")
    expect(bob.locator(".chatlog p").last).to_have_text("Ann: 🎉")
    expect(bob.locator(".bubble.big")).to_have_text("🎉")
    fits_phone(bob)
    # A reaction's glyph is drawn in ink on its light bubble, in both themes: a system without
    # colour emoji draws it in the text's colour.
    for dark in (False, True):
        page = pages.open("/", dark=dark)
        colours = page.evaluate(
            "() => { const b = document.createElement('span'); b.className = 'bubble big';"
            " document.body.append(b); const s = getComputedStyle(b);"
            " return [s.color, s.backgroundColor]; }"
        )
        assert colours[0] != colours[1], colours

    # The host mutes Bob: he is told, and cannot send; the host sees it.
    # By keyboard, the focus goes from each control to the one drawn in its place.
    ann.click(".chathost summary")
    ann.locator("button[aria-label='Mute Bob']").focus()
    ann.keyboard.press("Enter")
    expect(bob.locator(".chatnote")).to_have_text("The host has muted you.")
    expect(bob.locator("#chat-text")).to_be_disabled()
    expect(bob.locator(".reacts button").first).to_be_disabled()
    expect(ann.locator(".chathost .badge")).to_have_text("muted")
    expect(ann.locator("button[aria-label='Unmute Bob']")).to_be_focused()
    ann.keyboard.press("Enter")
    expect(bob.locator("#chat-text")).to_be_enabled()
    expect(ann.locator("button[aria-label='Mute Bob']")).to_be_focused()
    expect(bob.locator(".chatnote")).to_be_hidden()

    # A spectator reads along, and chats once the host allows it.
    cy = pages.open(f"/r/{code}")
    expect(cy.locator(".chatlog p")).to_have_count(2)
    expect(cy.locator(".chatnote")).to_have_text("The host has not let spectators chat.")
    expect(cy.locator("#chat-text")).to_be_disabled()
    ann.locator(".chathost input[type=checkbox]").focus()
    ann.keyboard.press("Space")
    expect(cy.locator("#chat-text")).to_be_enabled()
    expect(ann.locator(".chathost input[type=checkbox]")).to_be_focused()
    expect(ann.locator(".chathost input[type=checkbox]")).to_be_checked()
    say(cy, "good luck!")
    expect(ann.locator(".chatlog p").last).to_have_text("Spectator: good luck!")
    # Each spectator's own lines are theirs ("You"); the other spectators' are not.
    expect(cy.locator(".chatlog p").last).to_have_text("You: good luck!")
    dee = pages.open(f"/r/{code}")
    expect(dee.locator(".chatlog p").last).to_have_text("Spectator: good luck!")
    dee.click(".react[aria-label='React with 👏']")
    for page, who in ((dee, "You"), (cy, "Spectator"), (ann, "Spectator")):
        expect(page.locator(".chatlog p").last).to_have_text(f"{who}: 👏")
    expect(cy.locator(".chatlog p").nth(-2)).to_have_text("You: good luck!")

    # At the table the chat sits under it; the actions stay on screen at every size.
    ann.click("[data-act=start]")
    my_turn(bob)
    say(bob, "my turn first, sorry Ann")
    expect(ann.locator(".bubble", has_text="my turn first")).to_have_text(
        "my turn first, sorry Ann"
    )
    expect(ann.locator(".chatlog p").last).to_have_text("Bob: my turn first, sorry Ann")
    for size in AXE_SIZES[:2]:
        resize(bob, size)
        shot(bob, f"chat-table-{size['width']}")
    bob.click(".react[aria-label='React with 👍']")
    expect(ann.locator(".bubble.big", has_text="👍")).to_be_visible()
    for size in AXE_SIZES[:2]:
        resize(ann, size)
        shot(ann, f"chat-bubble-{size['width']}")
    on_screen(bob, "[data-act=knock], .dock .score")
    # The host's chat settings, open, fit a small phone too.
    resize(ann, PHONE)
    expect(ann.locator(".chathost label")).to_be_visible()
    fits_phone(ann)
    assert dialogs == []


# The controls (the hand's cards among them) that a chat bubble lies over; null while no bubble
# is shown.
COVERED = """() => {
  const bubbles = [...document.querySelectorAll('.bubble:not([hidden])')];
  if (!bubbles.length) return null;
  const over = (a, b) =>
    a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
  return [...document.querySelectorAll('main :is(button, input, select, a)')]
    .filter((control) => control.checkVisibility())
    .filter((control) => bubbles.some((bubble) =>
      over(bubble.getBoundingClientRect(), control.getBoundingClientRect())))
    .map((control) => control.getAttribute('aria-label') || control.textContent);
}"""


def covered(page: Any, text: str) -> list[str]:
    """Once a bubble says ``text`` on ``page``: the controls the bubbles on screen lie over."""
    expect(page.locator(".bubble", has_text=text)).to_be_visible()
    found: list[str] = wait_for(page, COVERED)
    return found


def ann_on_a_small_phone_and_bob(pages: Pages) -> tuple[Any, Any, str]:
    """Ann's room of one round with no timer, on a 360 x 640 phone, and Bob seated in it from a
    desktop: their pages, and the room's code."""
    ann = pages.open("/", phone=True)
    resize(ann, SMALL_PHONE)
    code = create_room(ann, "Ann", rounds=1, timer="0")
    bob = pages.open("/")
    join_from_home(bob, "Bob", code)
    seat_online(ann, "Bob")
    return ann, bob, code


def test_bubbles_cover_no_control_and_no_card_of_the_hand(pages: Pages, shot: Shot) -> None:
    ann, bob, _ = ann_on_a_small_phone_and_bob(pages)
    # In the host's lobby, Bob's line sits in his row, short of the button that removes him.
    say(bob, "hello there everyone, and good luck with the cards")
    assert covered(ann, "hello there") == []
    shot(ann, "bubble-lobby-360x640")

    ann.click("[data-act=start]")
    expect(ann.locator(".hand .card")).to_have_count(5)
    # Ann's reaction, sent from the chat at the foot of the page, and Bob's line: each on its
    # speaker's tag, off the cards and the piles, wherever the page was when it came.
    ann.click(".react[aria-label='React with 👍']")
    assert covered(ann, "👍") == []
    say(bob, "a line long enough to run over the table")
    assert covered(ann, "a line long") == []
    ann.evaluate("scrollTo(0, 0)")
    shot(ann, "bubble-table-360x640")


# Each chat bubble shown, once ``speaker``'s saying ``text`` is: its speaker, the seat tags and
# the controls (the hand's cards among them) it lies over, whether it is whole on screen and how
# far it is from its speaker's tag (0 touching, more apart); null until then.
AT_THE_TABLE = """([speaker, text]) => {
  const bubbles = [...document.querySelectorAll('.bubble:not([hidden])')];
  const said = (bubble) => bubble.dataset.name === speaker && bubble.textContent === text;
  if (!bubbles.some(said)) return null;
  const box = (element) => element.getBoundingClientRect();
  const over = (a, b) =>
    a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
  const tags = [...document.querySelectorAll('.seat')];
  const name = (tag) => tag.querySelector('.who').textContent;
  const controls = [...document.querySelectorAll('main :is(button, input, select, a)')]
    .filter((control) => control.checkVisibility());
  return bubbles.map((bubble) => {
    const b = box(bubble);
    const own = box(tags.find((tag) => name(tag) === bubble.dataset.name));
    return {
      speaker: bubble.dataset.name,
      tags: tags.filter((tag) => over(b, box(tag))).map(name),
      controls: controls.filter((control) => over(b, box(control)))
        .map((control) => control.getAttribute('aria-label') || control.textContent),
      whole: b.left >= 0 && b.top >= 0 && b.right <= innerWidth && b.bottom <= innerHeight,
      apart: Math.max(b.left - own.right, own.left - b.right, b.top - own.bottom,
        own.top - b.bottom),
    };
  });
}"""

# Each tag's line among the tags: 0 for the first, 1 for the second.
TAG_LINES = """(tags) => {
  const tops = [...new Set(tags.map((tag) => tag.getBoundingClientRect().top))];
  return Object.fromEntries(tags.map((tag) => [
    tag.querySelector('.who').textContent, tops.indexOf(tag.getBoundingClientRect().top)]));
}"""


def test_a_bubble_at_a_table_of_six_on_a_small_phone_hides_no_tag(pages: Pages, shot: Shot) -> None:
    """With six at the table on a 360 x 640 phone, the others' tags on two lines, a line or a
    reaction shows by its speaker's tag and on no tag: over one on the first line, under one on
    the last, by one's own; so too on a 390 x 844 phone and on a desktop. It stays whole on
    screen, off the hand, the piles and the buttons, and the layout makes it no room: the piles
    and the whole hand stay in view above the dock."""
    ann, bob, code = ann_on_a_small_phone_and_bob(pages)
    add_bots(ann, ["easy", "normal", "strong"])
    cy = pages.open("/")
    join_from_home(cy, "Cy", code)
    seat_online(ann, "Cy")
    ann.click("[data-act=start]")
    # Bob plays first, Cy last before Ann: on her turn the dock holds her buttons.
    for page in (bob, cy):
        take(page, 0)
        discard(page, 0)
    my_turn(ann)
    expect(ann.locator(".dock .btn").first).to_be_visible()
    said = [
        (bob, "Bob", "a line long enough to run over the table and more"),
        (cy, "Cy", "hi all"),
        (ann, "Ann", "and mine is long enough as well"),
        (ann, "Ann", "👍"),
    ]
    for size in (SMALL_PHONE, {"width": 390, "height": 844}):
        resize(ann, size)
        # Bob's tag on the first line of the others', Cy's on the second.
        lines = ann.locator(".felt .seat").evaluate_all(TAG_LINES)
        assert lines == {"Bob": 0, "Easy bot": 0, "Normal bot": 0, "Strong bot": 1, "Cy": 1}
        for speaker, name, line in said:
            if line in REACTIONS:
                speaker.click(f".react[aria-label='React with {line}']")
            else:
                say(speaker, line)
            for page in (ann, bob):
                page.evaluate("scrollTo(0, 0)")  # as the page opens, not at the chat
                for bubble in wait_for(page, AT_THE_TABLE, [name, line]):
                    assert bubble["tags"] == [], bubble
                    assert bubble["controls"] == [], bubble
                    assert bubble["whole"], bubble
                    assert 0 <= bubble["apart"] <= 8, bubble
            assert ann.evaluate(PILES_AND_HAND_IN_VIEW)
        shot(ann, f"bubbles-six-{size['width']}x{size['height']}")
    shot(bob, "bubbles-six-desktop")


def test_a_round_that_ends_while_a_message_is_written_is_said_and_the_message_kept(
    pages: Pages,
) -> None:
    """The results take the table's place, but the focus stays in the chat box being written
    in: the results' heading is said instead (the toast is a polite live region, out of sight
    here, where it would cover the box's Send button)."""
    ann = pages.open("/")
    code = create_room(ann, "Ann", rounds=2, timer="0")
    bob = pages.open("/")
    join_from_home(bob, "Bob", code)
    seat_online(ann, "Bob")
    ann.click("text=Start the match")
    take(bob, 0)  # seat 0 deals, so Bob plays first
    discard(bob, 0)
    knock_or_end(ann)
    ann.fill("#chat-text", "gg")
    take(bob, 0)
    discard(bob, 0, hand_after=None)
    heading = ann.locator("#results-title")
    expect(heading).to_be_visible()
    expect(ann.locator("#toast")).to_have_text(heading.inner_text())
    clip = ann.locator("#toast").evaluate("toast => getComputedStyle(toast).clip")
    assert clip == "rect(0px, 0px, 0px, 0px)", clip
    expect(ann.locator("#chat-text")).to_be_focused()
    expect(ann.locator("#chat-text")).to_have_value("gg")
