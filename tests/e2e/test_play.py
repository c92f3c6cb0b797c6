"""Two people play through the UI: create, join, a whole round by clicks and keys, the results."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from tests.e2e.conftest import DESKTOP, PHONE, Pages, scroll_width
from tests.e2e.matches import in_thread
from tests.e2e.test_access import resize
from tests.e2e.ui import (
    controlled,
    create_room,
    discard,
    discard_top_is,
    expect,
    hand,
    join_from_home,
    my_turn,
    over_the_dock,
    seat_online,
    signed,
    take,
    wait_for,
)
from tests.rooms.client import Client, api, close_all, join_room
from tests.server import Address

Shot = Callable[[Any, str], None]
SMALL_PHONE = {"width": 360, "height": 640}


# Controls (a checkbox counts with its label) smaller than 44 px either way.
TOO_SMALL = """() => [...document.querySelectorAll('main button, main a, main input, main select')]
  .filter((el) => el.checkVisibility() && !el.classList.contains('sr'))
  .map((el) => [el.outerHTML.slice(0, 80), (el.closest('label') ?? el).getBoundingClientRect()])
  .filter(([, box]) => box.width < 44 || box.height < 44)
  .map(([html, box]) => `${html} ${box.width}x${box.height}`)"""


def fits_phone(page: Any) -> None:
    """No sideways scrolling at 360 px, and every control at least 44 px each way (a page
    resized to a phone's width through ``resize``, which waits until it has restyled)."""
    assert scroll_width(page) <= 360, f"{page.url} scrolls sideways: {scroll_width(page)} px"
    small = page.evaluate(TOO_SMALL)
    assert small == [], f"touch targets under 44 px: {small}"


def clear_of_the_dock(page: Any, selector: str) -> None:
    """What ``selector`` finds is on screen whole, above the sticky dock."""
    dock = page.locator(".dock").bounding_box()
    box = page.locator(selector).bounding_box()
    assert dock is not None
    assert box is not None
    assert dock["y"] + dock["height"] <= page.viewport_size["height"] + 1, f"the dock: {dock}"
    assert box["y"] >= 0, f"{selector} above the screen: {box}"
    assert box["y"] + box["height"] <= dock["y"] + 1, f"{selector} under the dock: {box}"


def test_two_players_play_a_round_and_see_the_results(pages: Pages, shot: Shot) -> None:
    # Both through the site's service worker, as everyone's page is after its first visit.
    ann = pages.open("/", motion=True, worker=True)  # cards travel on her screen
    shot(ann, "home")
    code = create_room(ann, "Ann", rounds=1, timer="0")
    bob = pages.open("/", phone=True, worker=True)
    for page in (ann, bob):
        controlled(page)
    fits_phone(bob)
    shot(bob, "home-360")
    join_from_home(bob, "Bob", code.lower().replace("-", ""))  # as someone might type it
    seat_online(ann, "Bob")
    seat_online(bob, "Ann")
    expect(ann.locator(".qr")).to_have_attribute("src", f"/api/rooms/{code}/qr.svg")
    assert ann.locator(".qr").evaluate("img => img.complete && img.naturalWidth > 0")
    expect(bob.locator("[data-act=start]")).to_have_count(0)  # only the host starts
    shot(ann, "lobby")
    fits_phone(bob)
    shot(bob, "lobby-360")

    ann.click("text=Start the match")
    for page in (ann, bob):
        expect(page.locator(".pile")).to_have_count(5)
        expect(page.locator(".hand .card")).to_have_count(5)
        expect(page.locator(".dock .score")).to_have_text(re.compile(r"points?$"))
    # Seat 0 deals the first round, so Bob (seat 1) goes first.
    my_turn(bob)
    expect(ann.locator(".status")).to_contain_text("Bob is playing")
    fits_phone(bob)
    shot(bob, "table-360")

    # Bob plays his turn with the keyboard: Enter on a pile, then Space on the card it gave him.
    bob.focus('.pile[data-pile="0"]')
    taken = bob.locator('.pile[data-pile="0"]').get_attribute("aria-label")
    assert taken is not None
    bob.keyboard.press("Enter")
    expect(bob.locator(".hand .card.new")).to_be_focused()
    expect(ann.locator(".log")).to_contain_text("Bob took")
    expect(ann.locator(".seat", has_text="Bob")).to_have_attribute(
        "aria-label", re.compile("6 cards")
    )
    fits_phone(bob)
    shot(bob, "table-360-discard")
    new_card = bob.locator(".hand .card.new").get_attribute("aria-label")
    assert new_card is not None
    bob.keyboard.press(" ")
    expect(bob.locator(".hand .card")).to_have_count(5)
    gone = new_card.replace(", just taken", "")
    assert gone in taken
    discard_top_is(ann, gone)
    expect(ann.locator(".log li").first).to_have_text(f"Bob discarded {gone}")

    # Ann takes from the discard pile what Bob just let go, and sees it in her hand.
    took = take(ann, 4)
    assert took == gone
    assert gone in " | ".join(hand(ann))
    shot(ann, "table-desktop")
    let_go = discard(ann, 0)
    discard_top_is(bob, let_go)

    # Bob knocks, after confirming.
    my_turn(bob)
    bob.click("[data-act=knock]")
    expect(bob.locator(".actions")).to_contain_text("Knock with this hand")
    bob.click("[data-act=knock-no]")
    expect(bob.locator("[data-act=knock-yes]")).to_have_count(0)
    bob.click("[data-act=knock]")
    bob.click("[data-act=knock-yes]")
    expect(ann.locator(".status")).to_contain_text("Bob knocked · 1 turn left")
    expect(ann.locator("[data-act=knock]")).to_have_count(0)

    # Ann's last turn ends the round; both see every hand, scored, and the final standings.
    take(ann, 1)
    discard(ann, 5, hand_after=None)
    for page in (ann, bob):
        expect(page.locator(".result")).to_have_count(2)
        expect(page.locator(".standings tbody tr")).to_have_count(2)
        expect(page.locator("h2", has_text="Round 1 of 1")).to_contain_text("Bob knocked")
    expect(ann.locator("[data-act=rematch]")).to_be_visible()
    expect(bob.locator("[data-act=rematch]")).to_have_count(0)
    shot(ann, "results")
    fits_phone(bob)
    shot(bob, "results-360")

    # What the page shows is what the server recorded: each hand in its best order, its points.
    match = api(pages.server, "GET", "/api/matches?limit=1").json()["matches"][0]
    detail = api(pages.server, "GET", f"/api/matches/{match['id']}").json()
    for played in detail["rounds"][0]["hands"]:
        entry = ann.locator(f".result[data-k=result-{played['seat']}]")
        expect(entry.locator(".who")).to_contain_text(played["name"])
        shown = entry.locator(".card").evaluate_all(
            "cards => cards.map(card => card.getAttribute('aria-label'))"
        )
        assert shown == [", ".join(card.split("-")) for card in played["score"]["order"]]
        points = played["points"]
        expect(entry.locator(".gain")).to_have_text(signed(points))
    expect(ann.locator("a", has_text="The whole match")).to_have_attribute(
        "href", f"/matches/{match['id']}"
    )
    # Each browser keeps the commitment it was shown at the table, for the match page's check.
    kept = f"localStorage.getItem('spectrum.deal.{match['id']}.1')"
    for page in (ann, bob):
        assert page.evaluate(kept) == detail["rounds"][0]["commitment"]


def test_a_refresh_mid_round_keeps_the_seat_and_the_hand(pages: Pages, shot: Shot) -> None:
    ann = pages.open("/")
    code = create_room(ann, "Ann", rounds=1, timer="300")
    # Bob opens the shared link itself: he watches until he takes a seat by name.
    bob = pages.open(f"/r/{code}", phone=True)
    expect(bob.locator("form[data-submit=join]")).to_be_visible()
    expect(bob.locator(".seatlist")).to_contain_text("Ann")
    bob.fill("form[data-submit=join] input[name=name]", "Bob")
    bob.click("form[data-submit=join] button")
    seat_online(ann, "Bob")
    expect(bob.locator(".seatlist li", has_text="Bob")).to_contain_text("you")
    ann.click("text=Start the match")

    take(bob, 2)
    held = hand(bob)
    assert len(held) == 6
    timer = bob.locator("[data-deadline]")
    left = timer.inner_text()
    assert re.fullmatch(r"[45]:\d\d", left), left  # five minutes a turn, corrected by server_time
    bob.reload()
    expect(bob.locator(".hand .card")).to_have_count(6)
    assert sorted(hand(bob)) == sorted(held)
    expect(bob.locator(".status.mine")).to_contain_text("discard")
    expect(ann.locator(".seat", has_text="Bob")).to_have_attribute(
        "aria-label", re.compile("online")
    )
    gone = discard(bob, 0)
    discard_top_is(ann, gone)
    my_turn(ann)
    expect(ann.locator("[data-deadline]")).to_have_text(re.compile(r"^[45]:\d\d$"))
    # The countdown is checked four times a second but written only when the second changes:
    # each write lays the page out again.
    ann.evaluate(CLOCK_WRITES)
    wait_for(ann, "window.clockWrites.length >= 2", timeout=60.0)
    writes = ann.evaluate("window.clockWrites")
    assert all(before != after for before, after in writes), writes


# Each text the turn's countdown is given from now on, beside the one it replaces.
CLOCK_WRITES = """() => {
  window.clockWrites = [];
  new MutationObserver((records) => {
    for (const { target, removedNodes, addedNodes } of records) {
      if (!target.matches?.('[data-deadline]')) continue;
      const text = (nodes) => [...nodes].map((node) => node.textContent).join('');
      window.clockWrites.push([text(removedNodes), text(addedNodes)]);
    }
  }).observe(document.body, { childList: true, subtree: true });
}"""


def test_a_computer_player_and_the_servers_hints(pages: Pages, shot: Shot) -> None:
    ann = pages.open("/", phone=True)
    create_room(ann, "Ann", rounds=1, timer="0")
    ann.click("[data-act=add-bot][data-level=easy]")
    bot = ann.locator(".seatlist li", has_text="Easy bot")
    expect(bot).to_contain_text("computer")
    fits_phone(ann)
    ann.click("text=Start the match")
    # The bot (seat 1) plays first, by itself; its moves show in the log.
    my_turn(ann)
    expect(ann.locator(".log")).to_contain_text("Easy bot")
    expect(ann.locator(".seat", has_text="Easy bot")).to_have_attribute(
        "aria-label", re.compile("computer player")
    )
    # Ann asks the server for a hint: the move is spelled out and marked on the table.
    resize(ann, SMALL_PHONE)
    ann.click("[data-act=hint]")
    advice = ann.locator(".hint-line")
    expect(advice).to_be_visible()
    # On a small phone the hint is read where it was asked for, in the dock, whole on screen,
    # and the hand it speaks of is on screen above it.
    expect(advice).to_be_in_viewport(ratio=1)
    over_the_dock(ann, ".handbox .hand")
    # In a player's words: which card from which pile and what it gives, or why to knock now;
    # never a bot's log.
    expect(advice).to_have_text(
        re.compile(
            r"^Hint: (Take .*points?\.|Knock now: your hand makes .*points?, and the others get"
            r" only one more turn each to beat it\.)$"
        )
    )
    words = advice.inner_text()
    for bot_words in ("aiming", "expects", "(or alike)", "draw pile", "complete ·"):
        assert bot_words not in words
    assert not re.search(r"\b[1-5]-[a-z]+-[a-z]+\b", words), "no card ids"
    fits_phone(ann)
    shot(ann, "hint-360")
    piles = ann.locator(".pile.hinted")
    if words.startswith("Hint: Knock now"):  # nothing to take: the knock button is marked
        expect(ann.locator("[data-act=knock]")).to_have_class(re.compile(r"\bhinted\b"))
        expect(piles).to_have_count(0)
        return
    expect(ann.locator("[data-act=knock].hinted")).to_have_count(0)
    expect(piles).not_to_have_count(0)
    pile = int(piles.first.get_attribute("data-pile") or 0)
    named = [
        "the first pile",
        "the second pile",
        "the third pile",
        "the fourth pile",
        "the discard pile",
    ]
    assert named[pile] in words
    piles.first.click()
    expect(ann.locator(".status.mine")).to_contain_text("discard")
    # The hint's discard stays with her, words and marked card, without asking again.
    expect(advice).to_have_text(words)
    expect(ann.locator("[data-act=hint]")).to_have_count(0)
    expect(ann.locator(".hand .card.hinted")).to_have_count(1)
    # The bot may have knocked on its first turn: then this discard ends the round.
    last_turn = ann.locator(".status", has_text="knocked").count() > 0
    moves = ann.locator(".log li")  # newest first
    expect(moves.first).to_contain_text("You took")
    seen = moves.count()
    ann.locator(".hand .card.hinted").click()
    if last_turn:
        expect(ann.locator(".result")).to_have_count(2)
        return
    expect(ann.locator(".hand .card")).to_have_count(5)
    # The turn passed to the bot: it moved after her discard (its moves come 0.2 s apart, so
    # on a slow machine the turn may be hers again by the time this looks).
    expect(moves.nth(seen + 1)).to_be_attached()
    expect(moves.first).to_contain_text("Easy bot")


def test_a_hint_not_followed_is_gone_once_its_position_has_passed(pages: Pages) -> None:
    """A take other than the one advised (or a take after "knock now") leaves the hint's
    words and marks behind: they spoke of a position that is gone."""
    ann = pages.open("/")
    create_room(ann, "Ann", rounds=1, timer="0")
    ann.click("[data-act=add-bot][data-level=easy]")
    ann.click("text=Start the match")
    my_turn(ann)
    ann.click("[data-act=hint]")
    advice = ann.locator(".hint-line")
    expect(advice).to_be_visible()
    hinted = ann.locator(".pile.hinted")
    advised = int(hinted.first.get_attribute("data-pile") or 0) if hinted.count() else None
    other = next(pile for pile in range(4) if pile != advised)
    ann.click(f".pile[data-pile='{other}']")
    expect(ann.locator(".status.mine")).to_contain_text("discard")
    expect(advice).to_have_count(0)
    expect(ann.locator(".hinted")).to_have_count(0)


def test_multiple_pickups_and_ten_cards_with_the_ready_countdown(pages: Pages, shot: Shot) -> None:
    ann = pages.open("/")
    code = create_room(ann, "Ann", rounds=2, timer="0")
    bob = pages.open("/", phone=True)
    join_from_home(bob, "Bob", code)
    seat_online(ann, "Bob")
    # The host changes the settings in the lobby; everyone sees them at once.
    ann.check("input[name=multi_pickup]")
    ann.check("input[name=ten_card]")
    summary = bob.locator(".panel", has_text="Settings")
    expect(summary).to_contain_text("multiple pickups · 10 cards · up to 4 players")
    expect(ann.locator("#set-seats option")).to_have_count(3)
    resize(ann, PHONE)  # the host's controls on a phone
    fits_phone(ann)
    shot(ann, "lobby-host-360")
    ann.set_viewport_size(DESKTOP)
    ann.click("text=Start the match")

    # Ten cards: two hands of five, each in its best order with its own score.
    my_turn(bob)
    expect(bob.locator(".handgroup")).to_have_count(2)
    for group in bob.locator(".handgroup").all():
        expect(group.locator(".card")).to_have_count(5)
        expect(group.locator(".detail")).to_contain_text("points")
    # Bob picks two piles, then takes both.
    take_button = bob.locator("[data-act=take]")
    expect(take_button).to_be_disabled()
    bob.click('.pile[data-pile="0"]')
    bob.click('.pile[data-pile="2"]')
    expect(bob.locator('.pile[data-pile="2"]')).to_have_attribute("aria-pressed", "true")
    expect(take_button).to_have_text("Take 2 cards")
    # The piles picked are numbered, as the cards to discard are; the others are not.
    picked = bob.locator(".pile[aria-pressed=true]")
    expect(picked).to_have_count(2)
    expect(picked.locator(".pick")).to_have_text(["1", "2"])
    expect(bob.locator(".pile[aria-pressed=false] .pick")).to_have_count(0)
    bob.click('.pile[data-pile="0"]')  # picked again: put back
    expect(bob.locator('.pile[data-pile="0"]')).to_have_attribute("aria-pressed", "false")
    expect(picked.locator(".pick")).to_have_text(["1"])
    bob.click('.pile[data-pile="0"]')
    expect(picked.locator(".pick")).to_have_text(["2", "1"])  # in the order picked
    tops = []
    for pile in (2, 0):
        label = bob.locator(f'.pile[data-pile="{pile}"]').get_attribute("aria-label")
        assert label is not None
        tops.append(label.split(": ", 1)[1].rsplit(", ", 1)[0])
    take_button.click()
    expect(bob.locator(".hand .card")).to_have_count(12)
    # Each card is said with its pile (it was "… and … from pile 3 and pile 1").
    expect(ann.locator('.moves li[data-k="move-0"]')).to_have_text(
        f"Bob took {tops[0]} from pile 3 and {tops[1]} from pile 1"
    )
    # Three cards or more go apart by ";", their names holding commas of their own.
    joined = ann.evaluate(
        """() => import('/static/js/app.js').then(({ and }) =>
          and(['2, circle, violet', '3, star, yellow', '1, circle, red']))"""
    )
    assert joined == "2, circle, violet; 3, star, yellow and 1, circle, red"
    expect(bob.locator(".hand .card.new")).to_have_count(2)
    fits_phone(bob)
    shot(bob, "table-10card-360")
    # Then two cards to discard, one of them on the hand's second line: the last one picked
    # lands on top.
    cards = bob.locator(".hand .card")
    first = cards.nth(0).get_attribute("aria-label")
    last = cards.nth(9).get_attribute("aria-label")
    assert first is not None
    assert last is not None
    cards.nth(0).click()
    cards.nth(9).click()
    expect(bob.locator(".hand .card[aria-pressed=true] .pick")).to_have_text(["1", "2"])
    # Lifted, with its number, it leaves the card above it whole (its colour's word at the foot).
    badge = cards.nth(9).locator(".pick").bounding_box()
    lifted = cards.nth(9).bounding_box()
    assert badge is not None
    assert lifted is not None
    above = [
        box
        for box in (card.bounding_box() for card in cards.all())
        if box is not None
        and box["y"] < lifted["y"] - box["height"] / 2
        and box["x"] < badge["x"] + badge["width"]
        and badge["x"] < box["x"] + box["width"]
    ]
    assert above, "the hand is on two lines"
    assert all(box["y"] + box["height"] <= badge["y"] + 0.5 for box in above), (above, badge)
    shot(bob, "discard-picks-360")
    bob.click("text=Discard 2/2")
    expect(bob.locator(".hand .card")).to_have_count(10)
    expect(ann.locator(".pile.discard")).to_have_attribute(
        "aria-label", f"Discard pile: {last.removesuffix(', just taken')}, 2 cards"
    )

    # The rules are one click away, without leaving the table.
    bob.click(".roombar [data-act=rules]")
    dialog = bob.locator("dialog")
    expect(dialog.locator("h2", has_text="The aim")).to_be_visible()
    expect(dialog).not_to_contain_text("{number}")  # the players' rules, not the developers'
    dialog.locator("text=Close").click()
    expect(dialog).to_be_hidden()

    my_turn(ann)
    ann.click("[data-act=knock]")
    ann.click("[data-act=knock-yes]")
    my_turn(bob)
    bob.click('.pile[data-pile="1"]')
    bob.click("[data-act=take]")
    expect(bob.locator(".hand .card")).to_have_count(11)
    bob.locator(".hand .card").nth(0).click()  # one to discard: a tap is enough

    for page in (ann, bob):
        expect(page.locator(".result")).to_have_count(2)
        for entry in page.locator(".result").all():
            expect(entry.locator(".cards")).to_have_count(2)
            expect(entry.locator(".card")).to_have_count(10)
        expect(page.locator("[data-act=ready]")).to_be_visible()
        expect(page.locator(".sticky-actions [data-deadline]")).to_have_text(
            re.compile(r"^[01]:\d\d$")
        )
    shot(ann, "results-10card")
    fits_phone(bob)
    expect(bob.locator("#results-title")).to_be_focused()  # the result is read first
    ann.click("[data-act=ready]")
    expect(ann.locator("[data-act=ready]")).to_have_text("Ready ✓")
    # Each says who is ready and who is awaited, the reader among them as themselves.
    expect(bob.locator(".sticky-actions")).to_contain_text("ready: Ann · waiting for Bob (you)")
    expect(ann.locator(".sticky-actions")).to_contain_text("ready: Ann (you) · waiting for Bob")
    bob.click("[data-act=ready]")
    for page in (ann, bob):
        expect(page.locator(".roombar")).to_contain_text("Round 2 of 2")
        expect(page.locator(".handgroup")).to_have_count(2)
        expect(page.locator("#table-title:focus, .pile.can:focus")).to_have_count(1)


def test_a_turn_the_timer_plays_is_told_and_then_a_bot_stands_in(pages: Pages, shot: Shot) -> None:
    """Two people who let a two-second turn timer (the API allows any length) play for them:
    nobody knocks (the timer never does), so each misses turn after turn."""
    server = pages.server
    response = api(server, "POST", "/api/rooms", {"name": "Bob", "settings": {"turn_seconds": 2}})
    assert response.status_code == 201, response.text
    room = response.json()
    code = room["code"]
    joined = api(server, "POST", f"/api/rooms/{code}/join", {"name": "Ann"})
    assert joined.status_code == 201, joined.text
    seated = []
    for token, phone in ((room["token"], False), (joined.json()["token"], True)):
        page = pages.open("/", phone=phone)
        page.evaluate(
            "([key, token]) => localStorage.setItem(key, token)", [f"spectrum.token.{code}", token]
        )
        page.goto(f"{server.url}/r/{code}")
        seated.append(page)
    bob, ann = seated
    seat_online(bob, "Ann")
    bob.click("text=Start the match")
    # Ann (seat 1) plays first. Her turn runs out: the move made for her is in the log as
    # hers, and she is told.
    told = "Out of time: your turn was played for you."
    expect(ann.locator("#toast")).to_have_text(told, timeout=20000)
    expect(ann.locator(".log")).to_contain_text("You took")
    # Bob's, then: he is told too.
    expect(bob.locator("#toast")).to_have_text(told, timeout=20000)
    # Ann's second runs out: a bot plays for her from now on, and the banner says why, though
    # she never left.
    banner = ann.locator(".banner", has_text="A bot is playing for you")
    expect(banner).to_contain_text("out of time twice running", timeout=20000)
    shot(ann, "standin-360")


def test_a_visitor_by_the_link_finds_the_seat_form_first(pages: Pages, shot: Shot) -> None:
    ann = pages.open("/")
    code = create_room(ann, "Ann", rounds=1, timer="0")
    bob = pages.open(f"/r/{code}", phone=True)
    form = bob.locator("form[data-submit=join]")
    expect(form).to_be_in_viewport()
    assert form.bounding_box()["y"] < bob.locator(".panel.share").bounding_box()["y"]
    # A name already taken: the refusal shows where he is looking.
    form.locator("input[name=name]").fill("ann")
    form.locator("button").click()
    error = form.locator(".error-text")
    expect(error).to_contain_text("already called ann")
    expect(error).to_be_in_viewport()
    shot(bob, "join-taken-360")
    form.locator("input[name=name]").fill("Bob")
    form.locator("button").click()
    seat_online(ann, "Bob")
    # Seated, he sees the invitation first again, like everyone at the table.
    expect(bob.locator(".panel").first).to_have_class(re.compile(r"\bshare\b"))


def test_the_host_on_a_phone_finds_start_on_the_first_screen(pages: Pages, shot: Shot) -> None:
    ann = pages.open("/", phone=True)
    code = create_room(ann, "Ann", rounds=1, timer="0")
    # Alone, the invitation comes first: there is nobody to start with yet.
    expect(ann.locator(".panel").first).to_have_class(re.compile(r"\bshare\b"))
    api(pages.server, "POST", f"/api/rooms/{code}/join", {"name": "Bob"})  # seated, away
    expect(ann.locator(".seatlist li", has_text="Bob")).to_be_visible()
    start = ann.locator("[data-act=start]")
    expect(start).to_be_enabled()
    ann.evaluate("scrollTo(0, 0)")
    expect(start).to_be_in_viewport(ratio=1)
    assert start.bounding_box()["y"] < ann.locator(".panel.share").bounding_box()["y"]
    shot(ann, "lobby-host-ready-360")


def test_a_new_stage_comes_into_view_and_takes_the_focus_but_not_a_draft(
    pages: Pages, shot: Shot
) -> None:
    ann = pages.open("/")
    code = create_room(ann, "Ann", rounds=2, timer="0")
    bob = pages.open("/", phone=True, dark=True)
    resize(bob, SMALL_PHONE)
    join_from_home(bob, "Bob", code)
    seat_online(ann, "Bob")
    # Bob says hello in the lobby: the chat, at the foot of the page, has his focus.
    bob.fill("#chat-text", "gl hf")
    bob.press("#chat-text", "Enter")
    expect(bob.locator(".chatlog")).to_contain_text("gl hf")
    expect(bob.locator("#chat-text")).to_be_focused()
    assert bob.evaluate("scrollY") > 0

    # The match begins: his table is in view, his turn said, and the focus is on the table's
    # heading (not on a pile that a key still on its way would take from).
    ann.click("text=Start the match")
    expect(bob.locator("#table-title")).to_be_focused()
    for selector in (".status.mine", ".piles", ".handbox .hand"):
        expect(bob.locator(selector)).to_be_in_viewport(ratio=1)
    shot(bob, "table-after-chat-360x640")

    bob.click("[data-act=knock]")
    bob.click("[data-act=knock-yes]")
    take(ann, 0)
    discard(ann, 0, hand_after=None)
    expect(bob.locator("[data-act=ready]")).to_be_visible()
    # "Next round in 0:59": the countdown is words in a sentence, in the dark theme too.
    countdown = bob.locator(".sticky-actions [data-deadline]")
    background = "timer => getComputedStyle(timer).backgroundColor"
    assert countdown.evaluate(background) == "rgba(0, 0, 0, 0)"
    ann.click("[data-act=ready]")
    # Ann writes while she waits; the next round, dealt by Bob's "ready", leaves her to it.
    ann.fill("#chat-text", "one sec")
    bob.click("[data-act=ready]")
    for page in (ann, bob):
        expect(page.locator(".roombar")).to_contain_text("Round 2 of 2")
    expect(ann.locator("#chat-text")).to_be_focused()
    expect(ann.locator("#chat-text")).to_have_value("one sec")
    expect(bob.locator("#table-title:focus, .pile.can:focus")).to_have_count(1)
    expect(bob.locator(".piles")).to_be_in_viewport(ratio=1)


async def start_match(server: Address, code: str, token: str) -> None:
    """The host starts the match from a protocol client, and goes."""
    try:
        host = Client(server, code, token)
        await host.connect()
        await host.act("start")
    finally:
        await close_all()


def test_six_players_on_a_small_phone_see_the_piles_and_the_hand(pages: Pages, shot: Shot) -> None:
    """Five others' name tags leave the piles and the whole hand on a 360x640 screen together,
    above the dock, and no name cut short."""
    created = api(
        pages.server, "POST", "/api/rooms", {"name": "Hana", "settings": {"turn_seconds": 0}}
    )
    assert created.status_code == 201, created.text
    code = created.json()["code"]
    ann = pages.open(f"/r/{code}", phone=True)
    resize(ann, SMALL_PHONE)
    ann.fill("form[data-submit=join] input[name=name]", "Ann")
    ann.click("form[data-submit=join] button")
    expect(ann.locator(".seatlist li", has_text="Ann")).to_contain_text("you")
    for name in ("Bartholomew", "Cid", "Dee-Anne", "Eve"):  # seated, never connected
        join_room(pages.server, code, name)
    in_thread(start_match, pages.server, code, created.json()["token"])
    my_turn(ann)  # seat 1, after the host's deal: nobody has moved or knocked
    expect(ann.locator(".felt .seat")).to_have_count(5)
    ann.evaluate("scrollTo(0, 0)")  # as the page opens
    shot(ann, "table-six-360x640")
    for selector in (".felt .seats", ".status", ".piles", ".handbox .hand"):
        clear_of_the_dock(ann, selector)
    cut = ann.locator(".seat .who").evaluate_all(
        "names => names.filter((name) => name.scrollWidth > name.clientWidth)"
        ".map((name) => name.textContent)"
    )
    assert cut == []
    fits_phone(ann)
    # Totals of a minus and two digits, as after a few rounds, keep each tag's cards and points
    # on the one line under its name (a negative total went onto a third line).
    ann.locator(".felt .seat .pts").evaluate_all(
        "totals => totals.forEach((total) => { total.textContent = '\u221225 pts'; })"
    )
    wrapped = ann.locator(".felt .seat").evaluate_all(
        "tags => tags.filter((tag) => tag.querySelector('.pts').getBoundingClientRect().top"
        " > tag.querySelector('.cc').getBoundingClientRect().top + 2).length"
    )
    assert wrapped == 0


# Every message the page's sockets send, kept in window.sent.
SENDS = """{
  const send = WebSocket.prototype.send;
  window.sent = [];
  WebSocket.prototype.send = function (data) {
    window.sent.push(String(data));
    return send.call(this, data);
  };
}"""
ACTIONS_SENT = "window.sent.filter((message) => JSON.parse(message).type !== 'ping')"


def test_a_card_tapped_before_taking_says_to_take_first(pages: Pages) -> None:
    """Before taking, a hand's card cannot be played: a tap on one says what to do first, and
    sends nothing."""
    ann = pages.open(None, phone=True)
    ann.add_init_script(SENDS)
    ann.goto(pages.server.url + "/")
    create_room(ann, "Ann", rounds=1, timer="0")
    ann.click("[data-act=add-bot][data-level=easy]")
    ann.click("[data-act=start]")
    my_turn(ann)
    expect(ann.locator(".status.mine")).to_contain_text("Your turn: take a card")
    held = hand(ann)
    before = ann.evaluate(ACTIONS_SENT)
    assert before, "the hello and the start are recorded"
    # The card is marked disabled for now: a tap on it all the same.
    ann.locator(".hand .card").first.click(force=True)
    expect(ann.locator("#toast")).to_have_text("First take a card from a pile.")
    assert ann.evaluate(ACTIONS_SENT) == before
    assert hand(ann) == held
    expect(ann.locator(".status.mine")).to_contain_text("Your turn: take a card")


# How many lines of text an element's content takes.
LINES = """(element) => Math.round(
  element.getBoundingClientRect().height / parseFloat(getComputedStyle(element).lineHeight))"""


def test_the_line_over_the_table_takes_two_lines_at_most_on_a_small_phone(
    pages: Pages, shot: Shot
) -> None:
    """At 360 px the room's top line (the round, who watches, the room's code, the sound and the
    rules) keeps all it says in two lines at most, in English and in French."""
    ann = pages.open("/", phone=True)
    resize(ann, SMALL_PHONE)
    code = create_room(ann, "Ann", rounds=10, timer="0")
    zoe = pages.open("/", phone=True, locale="fr-FR")
    resize(zoe, SMALL_PHONE)
    join_from_home(zoe, "Zoé", code)
    seat_online(ann, "Zoé")
    for _ in range(2):
        pages.open(f"/r/{code}")  # two people watch
    ann.click("[data-act=start]")
    for page, words in [
        (ann, ["Round 1 of 10", "2 watching", f"Room {code}", "Sound", "Rules"]),
        (zoe, ["Manche 1/10", "2 spectateurs", f"Salle {code}", "Son", "Règles"]),
    ]:
        bar = page.locator(".roombar")
        for word in words:
            expect(bar).to_contain_text(word)
        assert bar.locator("> span").first.evaluate(LINES) <= 2, bar.inner_text()
        for button in bar.locator(".btn").all():
            expect(button).to_be_in_viewport(ratio=1)
        fits_phone(page)
        shot(page, f"roombar-{page.evaluate('document.documentElement.lang')}-360x640")


# For each name tag, how far apart its count of cards and its points are drawn, in px.
APART = """(tags) => tags.map((tag) => {
  const count = document.createRange();
  count.selectNodeContents(tag.querySelector('.cc'));
  const points = tag.querySelector('.pts').getBoundingClientRect();
  return points.left - count.getBoundingClientRect().right;
})"""


def test_a_seat_tag_sets_its_cards_apart_from_its_points(pages: Pages, shot: Shot) -> None:
    """A name tag at the table draws its card between its count of cards and its points, as wide
    apart as a card, and still on one line on a small phone: "5 0 pts" and "10 0 pts" read as
    "50 pts" and "100 pts"."""
    ann = pages.open("/", phone=True)
    resize(ann, SMALL_PHONE)
    create_room(ann, "Ann", rounds=1, timer="0")
    ann.click("[data-act=add-bot][data-level=easy]")
    ann.click("[data-act=start]")
    tags = ann.locator(".seat")
    expect(tags).to_have_count(2)
    expect(tags.locator(".pts")).to_have_text(["0 pts", "0 pts"])
    shot(ann, "seat-tags-360x640")
    assert all(gap >= 12 for gap in tags.evaluate_all(APART)), tags.evaluate_all(APART)


def test_10_card_refused_with_five_seated_says_it_allows_four(pages: Pages, shot: Shot) -> None:
    """The host who ticks 10-card with five players seated is told how many it allows: he was
    told only that too many players were seated."""
    ann = pages.open("/")
    create_room(ann, "Ann")
    for _ in range(4):
        ann.click("[data-act=add-bot][data-level=easy]")
    expect(ann.locator(".seatlist .badge", has_text="computer")).to_have_count(4)
    # A click, not a check: the box may be unticked again, refused, before a check looks at it.
    ann.click("input[name=ten_card]")
    expect(ann.locator("#toast")).to_have_text(
        "That setting allows at most 4 players: too many are seated."
    )
    expect(ann.locator("input[name=ten_card]")).not_to_be_checked()
    shot(ann, "ten-card-refused")
