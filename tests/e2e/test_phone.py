"""A phone's own cases, played by touch: held sideways (a notched one too), 320 to 412 px wide,
the history's pages on a small screen, and the commitments its browser keeps for the match page
(bounded, as a phone's storage is)."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest

from tests.e2e.conftest import DESKTOP, E2E_SETTINGS, PHONE, Pages, scroll_width
from tests.e2e.matches import in_thread
from tests.e2e.test_access import resize
from tests.e2e.ui import (
    add_bots,
    create_room,
    discard,
    expect,
    join_from_home,
    knock_or_end,
    my_turn,
    play_to_the_results,
    seat_online,
    take,
    wait_for,
)
from tests.replays import new_key, play_match
from tests.server import running_server

Shot = Callable[[Any, str], None]
NARROWEST = {"width": 320, "height": 568}
SIDEWAYS = {"width": 667, "height": 375}

# Whether the piles (or what ``piles`` finds of them) and the hand are all whole on screen at
# once, the hand above the dock.
PILES_AND_HAND_IN_VIEW = """(piles) => {
  const dock = document.querySelector('.dock').getBoundingClientRect();
  const whole = (selector, bottom) => [...document.querySelectorAll(selector)].every((element) => {
    const box = element.getBoundingClientRect();
    return box.top >= 0 && box.left >= 0 && box.right <= innerWidth && box.bottom <= bottom + 1;
  });
  return document.querySelectorAll('.hand .card').length > 0 && whole(piles || '.pile', innerHeight)
    && whole('.hand .card', Math.min(dock.top, innerHeight));
}"""


def seated_with_a_bot(page: Any, bots: int = 1) -> None:
    """Ann makes a one-round room without a timer on ``page``, seats ``bots`` bots and starts."""
    create_room(page, "Ann", rounds=1, timer="0")
    add_bots(page, ["easy"] * bots, touch=True)
    expect(page.locator("[data-act=start]")).to_be_enabled()
    page.tap("[data-act=start]")
    expect(page.locator(".pile")).to_have_count(5)


@pytest.mark.parametrize("locale", ["en-US", "fr-FR"])
def test_the_header_fits_phones_from_320_px(pages: Pages, locale: str) -> None:
    """The narrowest phones: the brand and the four links of the header never make a page
    scroll sideways (they took 341 px in English, 359 in French); the links go under the
    brand instead, each whole on screen. At 360 px and on a 412 px phone they stay beside it,
    on one line (at 412 px, set as on wider screens, they made a French page 426 px wide)."""
    page = pages.open("/", phone=True, locale=locale)
    for size, lines in [(NARROWEST, 2), (PHONE, 1), ({"width": 412, "height": 915}, 1)]:
        resize(page, size)
        for path in ["/", "/history", "/calculator", "/rules"]:
            page.goto(pages.server.url + path)
            expect(page.locator("h1").first).to_be_visible()
            assert scroll_width(page) == size["width"], path
            edges = page.locator(".top nav a").evaluate_all(
                "links => links.map((link) => link.getBoundingClientRect().right)"
            )
            assert len(edges) == 4, path
            assert max(edges) <= size["width"], (path, edges)
            tops = page.locator(".top .brand, .top nav").evaluate_all(
                "both => both.map((element) => element.getBoundingClientRect().top)"
            )
            assert (tops[1] > tops[0]) == (lines == 2), (size, path, tops)


KEYS = "() => Object.keys(localStorage).filter((key) => key.startsWith('spectrum.deal')).sort()"


def test_a_browser_keeps_the_commitments_of_its_last_20_matches(pages: Pages) -> None:
    """Each round's commitment is kept for the match page's check (about 100 bytes a round),
    but only for the 20 matches played last: older ones go as new ones come; those kept
    before the list was (none named in it) stay while there is room."""
    ann = pages.open("/", phone=True)
    # 25 matches played before, newest first, two rounds each; one more from before the list.
    older = [f"{n:032x}" for n in range(1, 26)]
    ann.evaluate(
        """(older) => {
          localStorage.setItem('spectrum.deals', older.join(' '));
          for (const match of [...older, 'unlisted']) {
            localStorage.setItem(`spectrum.deal.${match}.1`, 'c');
            localStorage.setItem(`spectrum.deal.${match}.2`, 'c');
          }
        }""",
        older,
    )
    seated_with_a_bot(ann)
    match = wait_for(
        ann,
        "(was) => { const m = localStorage.getItem('spectrum.deals').split(' ')[0];"
        " return m !== was && m; }",
        older[0],
    )
    kept = older[:19]
    assert ann.evaluate("localStorage.getItem('spectrum.deals')") == " ".join([match, *kept])
    # The new match's round, and both rounds of the 19 before it; nothing of the others.
    assert ann.evaluate(KEYS) == sorted(
        [
            "spectrum.deals",
            f"spectrum.deal.{match}.1",
            *(f"spectrum.deal.{other}.{n}" for other in kept for n in (1, 2)),
        ]
    )
    assert len(ann.evaluate(f"localStorage.getItem('spectrum.deal.{match}.1')")) == 64

    # Commitments kept before there was a list: the table keeps them, after its own match.
    before = [f"spectrum.deal.a{n}.1" for n in (1, 2, 3)]
    ann.evaluate(
        """([gone, kept]) => {
          gone.forEach((key) => localStorage.removeItem(key));
          kept.forEach((key) => localStorage.setItem(key, 'c'));
        }""",
        [ann.evaluate(KEYS), before],
    )
    ann.reload()
    listed = wait_for(ann, "localStorage.getItem('spectrum.deals')")
    assert listed.split(" ")[0] == match
    assert sorted(listed.split(" ")[1:]) == ["a1", "a2", "a3"]
    assert ann.evaluate(KEYS) == sorted(["spectrum.deals", f"spectrum.deal.{match}.1", *before])


def test_the_replays_slider_is_a_44_px_touch_target(own_pages: Pages) -> None:
    """The replay's slider is a touch target as tall as the buttons beside it, 44 px (it was
    its 16 px track): a finger that lands 14 px off the track is on it, and moves the replay."""
    rules = {"rounds": 1, "turn_seconds": 0}
    match = in_thread(play_match, own_pages.server, ["Hana", "Ivo"], rules)
    page = own_pages.open(f"/matches/{match}", phone=True)
    slider = page.locator(".replay-steps input[type=range]")
    slider.scroll_into_view_if_needed()
    expect(page.locator(".replay-what b")).to_have_text(re.compile(r"^Move 0 of \d+$"))
    box = slider.bounding_box()
    assert box is not None
    assert box["height"] >= 44, box
    page.touchscreen.tap(box["x"] + box["width"] * 0.75, box["y"] + box["height"] / 2 + 14)
    expect(page.locator(".replay-what b")).not_to_have_text(re.compile(r"^Move 0 of"))


@pytest.mark.parametrize(
    ("size", "bots"),
    [(SIDEWAYS, 1), ({"width": 640, "height": 360}, 5), ({"width": 844, "height": 390}, 5)],
)
def test_a_phone_held_sideways_shows_the_piles_and_the_hand_at_once(
    pages: Pages, size: dict[str, int], bots: int
) -> None:
    """Sideways, the table and the hand side by side, so a turn is played without scrolling
    between the piles and the hand, and the dock covers no card (in one column, the hand was
    below the fold, then under the dock). With six at the table the others' tags go three a
    line, as on an upright phone: one a line, they pushed the piles' cards off a 640 x 360
    screen, and half off an 844 x 390 one (the counts under them may go below the fold when
    the status says who knocked)."""
    ann = pages.open("/", phone=True)
    resize(ann, size)
    seated_with_a_bot(ann, bots)
    piles = ".pile" if bots == 1 else ".pile > :first-child"
    for step in ("take", "discard"):
        my_turn(ann)
        ann.evaluate("scrollTo(0, 0)")
        wait_for(ann, PILES_AND_HAND_IN_VIEW, piles)
        if step == "take":
            ann.tap(".pile.can >> nth=0")
            expect(ann.locator(".hand .card.can")).to_have_count(6)
    assert scroll_width(ann) == size["width"]


# Each element ``selector`` finds, whole between the screen's safe-area insets (the notch).
CLEAR_OF_THE_NOTCH = """([selector, left, right]) => [...document.querySelectorAll(selector)]
  .map((element) => element.getBoundingClientRect())
  .filter((box) => box.left < left || box.right > innerWidth - right)
  .map((box) => [box.left, box.right])"""


def test_a_notched_phone_held_sideways_keeps_the_table_clear_of_the_notch(pages: Pages) -> None:
    """A notched phone held sideways, 812x375 with 47 px insets left and right: the page asks
    to cover the whole screen (viewport-fit=cover), so its content keeps out of the insets
    (the brand, the room's line and the first pile were under the notch, the last link under
    the other side's corner)."""
    ann = pages.open("/", phone=True)
    ann.context.new_cdp_session(ann).send(
        "Emulation.setSafeAreaInsetsOverride",
        {"insets": {"top": 0, "left": 47, "right": 47, "bottom": 21}},
    )
    resize(ann, {"width": 812, "height": 375})
    seated_with_a_bot(ann)
    my_turn(ann)
    selector = ".top a, .roombar, .felt, .pile, .hand .card, .dock"
    assert ann.evaluate(CLEAR_OF_THE_NOTCH, [selector, 47, 47]) == []


def test_a_phone_says_who_knocked_and_how_many_turns_are_left(pages: Pages) -> None:
    """On a phone the seats' "knocked" badges give way to the status line, which names the
    knocker and the turns left (the rule that hid the seats' badges hid the status's too: a
    phone showed no knock at all, the Knock button gone without a word)."""
    ann = pages.open("/", phone=True)
    code = create_room(ann, "Ann", rounds=1, timer="0")
    bob = pages.open("/")
    join_from_home(bob, "Bob", code)
    seat_online(ann, "Bob")
    ann.tap("[data-act=start]")
    my_turn(bob)
    bob.click("[data-act=knock]")
    bob.click("[data-act=knock-yes]")
    said = ann.locator(".felt .status .badge.warm")
    expect(said).to_be_visible()
    expect(said).to_have_text("Bob knocked · 1 turn left")
    expect(ann.locator(".felt .seat .badge.warm")).to_be_hidden()
    assert scroll_width(ann) == PHONE["width"]
    expect(bob.locator(".felt .status .badge.warm")).to_have_text("You knocked · 1 turn left")
    # Held sideways, the seats are set as upright: the status says it; on a desktop, both.
    resize(ann, SIDEWAYS)
    expect(ann.locator(".felt .seat .badge.warm")).to_be_hidden()
    expect(said).to_be_visible()
    resize(ann, DESKTOP)
    expect(ann.locator(".felt .seat .badge.warm")).to_be_visible()
    expect(said).to_be_visible()


# Each visible input's placeholder that its box cuts: its text, the width it is drawn in (in
# the input's own font) and the width the box has for it.
CUT_PLACEHOLDERS = """() => [...document.querySelectorAll('input[placeholder]')].flatMap((box) => {
  if (!box.offsetParent) return [];
  const style = getComputedStyle(box);
  const context = document.createElement('canvas').getContext('2d');
  context.font = `${style.fontStyle} ${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
  const drawn = context.measureText(box.placeholder).width;
  const room = box.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
  return drawn > room ? [[box.placeholder, drawn, room]] : [];
})"""

SIZES = (NARROWEST, PHONE, {"width": 1280, "height": 800})


def placeholders_cut(page: Any, ready: str) -> list[Any]:
    """The placeholders cut on ``page`` at each of SIZES, once ``ready`` is visible."""
    cut = []
    for size in SIZES:
        resize(page, size)
        expect(page.locator(ready).first).to_be_visible()
        cut += [(size["width"], *found) for found in page.evaluate(CUT_PLACEHOLDERS)]
    return cut


@pytest.mark.parametrize("locale", ["en-US", "fr-FR"])
def test_every_placeholder_is_whole_from_a_320_px_phone_to_a_desktop(
    pages: Pages, locale: str
) -> None:
    """What a box is for is never cut: the home page's name and code, the history's player
    search, a room link's name and a room's chat (in French, "Chercher un joueur par son nom"
    was cut after "par s", on a desktop too)."""
    ann = pages.open("/", phone=True, locale=locale)
    cut = placeholders_cut(ann, "#name")
    ann.goto(pages.server.url + "/history")
    cut += placeholders_cut(ann, "input[name=player]")
    ann.goto(pages.server.url + "/")
    ann.fill("#name", "Ann")
    ann.locator("[data-submit=create] button.primary").click()
    cut += placeholders_cut(ann, "#chat-text")
    code = ann.locator(".code").inner_text()
    bob = pages.open(f"/r/{code}", phone=True, locale=locale)
    cut += placeholders_cut(bob, "form[data-submit=join] input[name=name]")
    assert cut == [], cut


@pytest.mark.parametrize("locale", ["en-US", "fr-FR"])
def test_the_leaderboard_shows_every_column_on_a_360_px_phone(browser: Any, locale: str) -> None:
    """The leaderboard's last column, the points per hand, is on screen at 360 px: a
    player's key tag breaks like a name, and cells are set a little tighter (the table was
    351 px wide in English, 377 in French, its last column scrolled out of its 298). No
    number breaks, a place of two digits included (10 was drawn as 1 over 0). A server of
    its own: the board shows ten people, these."""
    rules = {"rounds": 1, "turn_seconds": 0}
    with running_server(**E2E_SETTINGS) as server:
        pages = Pages(browser, server)
        try:
            # Two people named Tess (each told by their key's tag), and a long name.
            for seed, other in [(30, "Bérénice-Marguerite"), (31, "Uma")]:
                in_thread(play_match, server, ["Tess", other], rules, [], [new_key(seed), None])
            # Ten lines: a place of two digits.
            for names in (["Vic", "Wes"], ["Xia", "Yan"], ["Zed", "Abe"]):
                in_thread(play_match, server, names, rules, [], [None, None])
            page = pages.open("/history", phone=True, locale=locale)
            board = page.locator(".table-wrap")
            expect(board.locator("tbody tr")).to_have_count(10)
            width = board.evaluate("wrap => [wrap.scrollWidth, wrap.clientWidth]")
            assert width[0] <= width[1], width
            edge = board.evaluate("wrap => wrap.getBoundingClientRect().right")
            last = board.locator("th").last.evaluate("th => th.getBoundingClientRect().right")
            assert last <= edge, (last, edge)
            # Room for the names: the long one breaks at its hyphen only; no number breaks.
            lines = "cell => { const r = document.createRange(); r.selectNodeContents(cell); "
            lines += "return r.getClientRects().length; }"
            assert board.locator("a", has_text="Bérénice").evaluate(lines) == 2
            assert {cell.evaluate(lines) for cell in board.locator("td.num").all()} == {1}
            places = board.locator("tbody td:first-child")
            assert places.last.inner_text() == "10"
            assert {place.evaluate(lines) for place in places.all()} == {1}
            # The last heading is short; what it stands for is said under the table, not only
            # in a tooltip that no touch brings up.
            heading = board.locator("th").last.inner_text()
            expect(page.locator(".table-wrap + p")).to_contain_text(
                f"per hand ({heading})" if locale == "en-US" else f"par main ({heading})"
            )
        finally:
            pages.close()
        assert pages.errors == []


@pytest.mark.parametrize(
    ("locale", "words"),
    [("en-US", ["match", "win", "round"]), ("fr-FR", ["partie", "victoire", "manche"])],
)
def test_a_players_counts_of_one_are_said_in_the_singular(
    pages: Pages, locale: str, words: list[str]
) -> None:
    """A player page's counts agree with their number: 1 match, 1 round (it said "1 matches",
    "1 rounds"; "1 parties", "1 manches" in French)."""
    player = {"name": "Zoé", "tag": None, "others": [], "matches": 1, "wins": 1, "rounds": 1}
    player |= {"average_points": 5, "best_hand": None}
    page = pages.open(None, phone=True, locale=locale)
    page.route("**/api/players/*", lambda route: route.fulfill(json=player))
    page.goto(pages.server.url + "/players/Zo%C3%A9")
    expect(page.locator(".stat b")).to_have_text(["1", "1", "1", "5"])
    expect(page.locator(".stat span").first).to_have_text(words[0])
    assert page.locator(".stat span").all_inner_texts()[:3] == words


@pytest.mark.parametrize("width", [360, 320])
def test_text_made_twice_as_large_on_a_phone_leaves_every_control_of_the_room_on_screen(
    pages: Pages, width: int
) -> None:
    """A phone's text at 200% (32 px for 16): the site's links and the room's bar wrap rather
    than push "Rules" off a page that cannot scroll sideways; a room code of the widest letters
    goes under "Room" whole when the line has no room for both; the lobby's rows, the discard
    pile's word and the knocker's badge wrap too."""
    ann = pages.open(None, phone=True)
    larger = "() => document.documentElement.style.fontSize = '32px'"
    ann.add_init_script(f"addEventListener('DOMContentLoaded', {larger})")
    ann.goto(pages.server.url + "/")
    resize(ann, {"width": width, "height": 640})
    code = create_room(ann, "Ann")
    ann.click("[data-act=add-bot][data-level=easy]")
    expect(ann.locator(".seatlist")).to_contain_text("Easy bot")
    bob = pages.open("/", phone=True)
    join_from_home(bob, "Bob", code)
    seat_online(ann, "Bob")
    for stage in ("lobby", "table", "knock"):
        if stage == "table":  # without the bot, which might knock: Bob plays first
            ann.click("[data-act=remove_bot]")
            expect(ann.locator(".seatlist")).not_to_contain_text("Easy bot")
            ann.click("[data-act=start]")
            expect(ann.locator(".hand .card")).to_have_count(5)
            take(bob, 0)
            discard(bob, 0)
            expect(ann.locator(".pile.discard .card")).to_have_count(1)
        if stage == "knock":  # Bob's last turn waits
            my_turn(ann)
            ann.click("[data-act=knock]")
            ann.click("[data-act=knock-yes]")
            expect(ann.locator(".status .badge")).to_contain_text("You knocked · 1 turn left")
        ann.locator(".roombar strong").evaluate("code => code.textContent = 'WWWW-WWWW'")
        wide = scroll_width(ann)
        assert wide <= width, f"the {stage} scrolls sideways: {wide} px"
        for name in ("Rules", "Sound"):
            box = ann.locator(".roombar").get_by_role("button", name=name).bounding_box()
            assert box is not None
            assert box["x"] >= 0, (stage, name, box)
            assert box["x"] + box["width"] <= width, (stage, name, box)
        assert ann.evaluate(BROKEN_WORDS, ".roombar") == [], stage


def test_names_of_24_letters_in_one_word_fit_a_phone_at_200_percent_text(pages: Pages) -> None:
    """Whatever names players (the table's "… is playing", the next round's "ready: …", the
    final standings' "… wins!" or every name of a tie, the round's "… knocked", the match
    page's winners and moves) breaks a name too long for the line rather than push the page
    sideways, which on a phone zooms the whole page out (the turn's line made it 418 px)."""
    names = ["Anastasiakonstantinovaxy", "Bartholomewfitzgeraldxyz"]
    ann = pages.open(None, phone=True)
    larger = "() => document.documentElement.style.fontSize = '32px'"
    ann.add_init_script(f"addEventListener('DOMContentLoaded', {larger})")
    ann.goto(pages.server.url + "/")
    code = create_room(ann, names[0], rounds=2)
    bob = pages.open("/", phone=True)
    join_from_home(bob, names[1], code)
    seat_online(ann, names[1])
    ann.click("text=Start the match")

    def fits(page: str) -> None:
        # A phone widens its page to what overflows at the next frame.
        frames = "go => requestAnimationFrame(() => requestAnimationFrame(go))"
        ann.evaluate(f"() => new Promise({frames})")
        assert ann.evaluate("innerWidth") == 360, f"the {page} zoomed the page out"
        assert scroll_width(ann) <= 360, f"the {page} scrolls sideways: {scroll_width(ann)} px"

    expect(ann.locator(".status")).to_contain_text(f"{names[1]} is playing")
    fits("turn's line")
    knock_or_end(bob)  # seat 0 deals the first round, so Bob plays first
    knock_or_end(ann)
    bob.click("[data-act=ready]")
    expect(ann.locator(".sticky-actions")).to_contain_text(f"ready: {names[1]}")
    fits("ready line")
    ann.click("[data-act=ready]")
    knock_or_end(ann)  # Bob deals the second
    knock_or_end(bob)
    heading = ann.locator("#results-title")
    expect(heading).to_contain_text(re.compile("|".join(names)))
    # The winners' heading cheers (grows and shrinks) twice; the page is measured after.
    ann.wait_for_function("() => !document.querySelector('#results-title').getAnimations().length")
    fits("standings")
    ann.click("text=The whole match")
    expect(ann.locator(".replay-what")).to_contain_text(names[0])
    fits("match page")


# The lobby's rows whose name went under the dot that says whether they are online.
DOTS_ALONE = """() => [...document.querySelectorAll('.seatlist li')].filter((row) =>
  row.querySelector('.who').getBoundingClientRect().top
    >= row.querySelector('.dot').getBoundingClientRect().bottom
).map((row) => row.querySelector('.who').textContent)"""

# The lobby's names cut short (drawn wider than their box), and the lines any name takes.
LOBBY_NAMES = """() => [...document.querySelectorAll('.seatlist .who')].map((who) => [
  who.textContent, who.scrollWidth > who.clientWidth,
  Math.round(who.getBoundingClientRect().height / parseFloat(getComputedStyle(who).lineHeight)),
])"""


@pytest.mark.parametrize("locale", ["en-US", "fr-FR"])
def test_the_host_tells_the_bots_apart_in_a_phones_lobby(pages: Pages, locale: str) -> None:
    """Every name of the lobby shows whole on a phone, each word on one line, so that the
    host knows which bot a Remove button removes (from 360 px, every bot's name was cut to
    "Easy b…", two alike, the computer badge and the button taking the rest of the line)."""
    ann = pages.open("/", phone=True, locale=locale)
    create_room(ann, "Anastasiakonstantinovaxy")
    add_bots(ann, ["easy", "strong", "normal", "easy"], touch=True)
    bots = {
        "en-US": ["Easy bot", "Strong bot", "Normal bot", "Easy bot 2"],
        "fr-FR": ["Bot facile", "Bot fort", "Bot moyen", "Bot facile 2"],
    }[locale]
    for width in (360, 320):
        resize(ann, {"width": width, "height": 640})
        names = ann.evaluate(LOBBY_NAMES)
        assert [name for name, _, _ in names[:5]] == ["Anastasiakonstantinovaxy", *bots]
        assert [(name, cut) for name, cut, _ in names if cut] == [], width
        assert [(name, lines) for name, _, lines in names[1:5] if lines > 1] == [], width
        assert ann.evaluate(BROKEN_WORDS, ".seatlist li + li .who") == [], width
        assert scroll_width(ann) == width
    # At 200% text a name too long for the line breaks beside its dot, not under it.
    ann.evaluate("() => document.documentElement.style.fontSize = '32px'")
    for width in (360, 320):
        resize(ann, {"width": width, "height": 640})
        assert ann.evaluate(DOTS_ALONE) == [], width


# The names the seat tags cut (their text runs past the box the tag gives it), and the tags that
# run past the table's edges or the page's.
CUT_NAMES = """() => [...document.querySelectorAll('.seat .who')]
  .filter((who) => who.scrollWidth > who.clientWidth).map((who) => who.textContent)"""
OUT_OF_PLACE = """() => [...document.querySelectorAll('.seat')].filter((seat) => {
  const box = seat.getBoundingClientRect();
  const felt = seat.closest('.felt')?.getBoundingClientRect() ?? { left: 0, right: innerWidth };
  return box.left < felt.left || box.right > felt.right || box.right > innerWidth;
}).map((seat) => seat.querySelector('.who').textContent)"""


def test_long_names_show_whole_on_a_desktop_and_fit_a_phone(pages: Pages, shot: Shot) -> None:
    """Names as long as a name may be (24 letters, one word or two) show whole in the seat
    tags of a desktop's table, which has the room; a phone's table cuts what truly does not
    fit its line, and no tag runs past its edges."""
    names = ["Bartholomewfitzgeraldxyz", "Anastasia Konstantinovax"]
    ann = pages.open("/")
    code = create_room(ann, names[0], rounds=1, timer="0")
    bob = pages.open("/", phone=True)
    join_from_home(bob, names[1], code)
    seat_online(ann, names[1])
    add_bots(ann, ["easy", "normal", "strong", "easy"])
    ann.click("[data-act=start]")
    for page in (ann, bob):
        expect(page.locator(".seat")).to_have_count(6)
    for size in (DESKTOP, {"width": 1024, "height": 768}):
        resize(ann, size)
        assert ann.evaluate(CUT_NAMES) == [], size
        assert ann.evaluate(OUT_OF_PLACE) == [], size
    shot(ann, "long-names-desktop")
    shot(bob, "long-names-phone")
    assert bob.evaluate(OUT_OF_PLACE) == []
    assert scroll_width(bob) == PHONE["width"]


# The words under ``selector`` that the line breaks inside: a word drawn on two lines has two
# boxes.
BROKEN_WORDS = """(selector) => {
  const broken = [];
  for (const root of document.querySelectorAll(selector)) {
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      for (const word of node.data.matchAll(/\\S+/g)) {
        const range = document.createRange();
        range.setStart(node, word.index);
        range.setEnd(node, word.index + word[0].length);
        if (range.getClientRects().length > 1) broken.push(word[0]);
      }
    }
  }
  return broken;
}"""


def test_the_replays_piles_keep_their_words_whole_at_200_percent_text(pages: Pages) -> None:
    """At 200% text the match page's five piles no longer fit a phone's line: they go on two
    lines or more, rather than break "Discard" and "cards" inside the words ("car ds")."""
    ann = pages.open(None, phone=True)
    larger = "() => document.documentElement.style.fontSize = '32px'"
    ann.add_init_script(f"addEventListener('DOMContentLoaded', {larger})")
    ann.goto(pages.server.url + "/")
    seated_with_a_bot(ann)
    play_to_the_results(ann)
    ann.click("text=The whole match")
    expect(ann.locator(".replay-piles > span")).to_have_count(5)
    for width in (360, 320):
        resize(ann, {"width": width, "height": 640})
        assert ann.evaluate(BROKEN_WORDS, ".replay-piles") == [], width
        assert scroll_width(ann) <= width, f"the match page scrolls sideways at {width} px"
        tops = ann.locator(".replay-piles > span").evaluate_all(
            "piles => piles.map((pile) => pile.getBoundingClientRect().top)"
        )
        assert len(set(tops)) > 1, f"five piles on one line at {width} px"


# How the discard pile's words sit: the lines its count takes (its number, then its word) and
# how far the empty slot's word runs past the slot.
DISCARD_WORDS = """() => {
  const count = document.querySelector('.pile.discard .count');
  const slot = document.querySelector('.pile.discard .slot');
  const line = parseFloat(getComputedStyle(count).lineHeight);
  return {
    lines: Math.round(count.getBoundingClientRect().height / line),
    past: slot ? slot.scrollWidth - slot.clientWidth : 0,
    width: count.getBoundingClientRect().width,
  };
}"""


@pytest.mark.parametrize("width", [390, 360])
def test_the_discard_piles_word_is_whole_on_a_french_phone(pages: Pages, width: int) -> None:
    """ "défausse", the widest of the pile's words, broke inside ("défauss / e") under the
    count on 360 and 390 px phones, and ran over the empty slot's border: the word under the
    count is a little smaller and may take half the gaps beside it, and the slot's breaks
    where French does ("dé- / fausse")."""
    bob = pages.open("/", phone=True)
    code = create_room(bob, "Bob")
    ann = pages.open("/", phone=True, locale="fr-FR")
    resize(ann, {"width": width, "height": 740})
    join_from_home(ann, "Ann", code)
    seat_online(bob, "Ann")
    bob.click("[data-act=start]")
    expect(ann.locator(".hand .card")).to_have_count(5)
    empty = ann.evaluate(DISCARD_WORDS)
    assert (empty["lines"], empty["past"]) == (2, 0), empty
    ann.click('.pile[data-pile="0"]')  # seat 0 deals: Ann plays first
    expect(ann.locator(".hand .card")).to_have_count(6)
    discard(ann, 0)
    expect(ann.locator(".pile.discard .card")).to_have_count(1)
    one = ann.evaluate(DISCARD_WORDS)
    assert one["lines"] == 2, one


# For each round result's total, how many lines its words take, from the dot on.
TOTAL_LINES = """(totals) => totals.map((total) => {
  const text = total.firstChild;
  const range = document.createRange();
  range.setStart(text, text.data.indexOf('·'));
  range.setEnd(text, text.data.length);
  return new Set([...range.getClientRects()].map((box) => Math.round(box.top))).size;
})"""


def test_a_rounds_total_keeps_its_number_on_a_french_phone(pages: Pages, shot: Shot) -> None:
    """On a 360x640 phone in French, a result's "· total -5" is one piece: the number went onto
    a line of its own, under "· total"."""
    lea = pages.open("/", phone=True, locale="fr-FR")
    resize(lea, {"width": 360, "height": 640})
    lea.fill("#name", "Marie-Charlotte Lefebvre")
    lea.click("[data-submit=create] summary")
    lea.fill("#set-rounds", "2")
    lea.select_option("#set-timer", "0")
    lea.locator("[data-submit=create] button.primary").click()
    lea.tap("[data-act=add-bot][data-level=easy]")
    lea.tap("[data-act=start]")
    for _ in range(4):  # knock, or end the round after the bot's knock
        expect(lea.locator(".status.mine, .result").first).to_be_visible()
        if lea.locator(".result").count():
            break
        if lea.locator("[data-act=knock]").count():
            lea.tap("[data-act=knock]")
            lea.tap("[data-act=knock-yes]")
        else:
            lea.tap('.pile[data-pile="0"]')
            expect(lea.locator(".hand .card")).to_have_count(6)
            lea.locator(".hand .card").first.tap()
            expect(lea.locator(".hand .card")).not_to_have_count(6)
    expect(lea.locator(".result")).to_have_count(2)
    totals = lea.locator(".result header .muted")
    expect(totals.first).to_contain_text("total")
    shot(lea, "results-fr-360x640")
    assert totals.evaluate_all(TOTAL_LINES) == [1, 1]
