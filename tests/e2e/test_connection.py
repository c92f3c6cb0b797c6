"""The connection: reconnecting after a restart or a dead link, closes that are explained, gaps,
ids and acks, and the move log kept across a reload."""

from __future__ import annotations

import json
import re
import signal
import time
from collections.abc import Callable
from typing import Any

import msgpack
import pytest

from app.api.sockets import PING, PING_HIDDEN
from tests.e2e.conftest import E2E_SETTINGS, Pages
from tests.e2e.ui import (
    create_room,
    discard,
    expect,
    hand,
    join_from_home,
    knock_or_end,
    my_turn,
    seat_online,
    take,
)
from tests.faults.proxy import Proxy
from tests.rooms.client import join_room
from tests.rooms.decoding import Tables, decode_patch
from tests.server import running_server

ROOM_SOCKET = re.compile(r"/ws/rooms/")
Shot = Callable[[Any, str], None]


class Relay:
    """Stands between a page and the server's WebSocket, recording (and maybe holding) frames."""

    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []
        self.received: list[dict[str, Any]] = []
        self.hold_sent: set[str] = set()  # message types from the page to keep back
        self.held: list[str] = []
        self.drop_received: Any = None  # a predicate on server frames to drop (once)
        self.dropped: list[dict[str, Any]] = []
        self.page_side: Any = None
        self.server_side: Any = None
        self.tables: Tables | None = None

    def __call__(self, route: Any) -> None:
        self.page_side = route
        self.server_side = route.connect_to_server()
        route.on_message(self._from_page)
        self.server_side.on_message(self._from_server)

    def _from_page(self, message: str) -> None:
        frame = json.loads(message)
        self.sent.append(frame)
        if frame.get("type") in self.hold_sent:
            self.held.append(message)
        else:
            self.server_side.send(message)

    def _from_server(self, message: str | bytes) -> None:
        # Kept as standard frames: binary patches (the page's default) unpacked and decoded by
        # the tables of the connection's first state; the page gets the message as it came.
        frame = msgpack.unpackb(message) if isinstance(message, bytes) else json.loads(message)
        if isinstance(frame, list):
            assert self.tables is not None, "a compact patch before the tables"
            frame = decode_patch(frame, self.tables)
        elif "encoding" in frame:
            self.tables = frame["encoding"]
        if self.drop_received is not None and self.drop_received(frame):
            self.drop_received = None
            self.dropped.append(frame)
            return
        self.received.append(frame)
        self.page_side.send(message)


def test_it_reconnects_by_itself_after_a_server_restart(browser: Any, shot: Shot) -> None:
    with running_server(**E2E_SETTINGS) as server:
        pages = Pages(browser, server)
        try:
            ann = pages.open("/")
            code = create_room(ann, "Ann", rounds=1, timer="0")
            join_room(server, code, "Bob")  # seated, but never connects
            ann.click("text=Start the match")
            expect(ann.locator(".hand .card")).to_have_count(5)
            held = hand(ann)
            on_turn = re.compile(r"Bob is playing \(away\)|A bot is playing for Bob")
            expect(ann.locator(".status")).to_have_text(on_turn)

            server.stop()  # closes every socket with 1012
            banner = ann.locator(".banner")
            expect(banner).to_contain_text("Reconnecting")
            assert hand(ann) == held, "the table stays in view while away"
            shot(ann, "reconnecting")
            server.start()
            expect(banner).to_have_count(0, timeout=15000)
            expect(ann.locator(".hand .card")).to_have_count(5)
            assert hand(ann) == held
            expect(ann.locator(".status")).to_have_text(on_turn)
        finally:
            pages.close()
        assert pages.errors == []


def test_a_stalled_server_is_given_up_on_while_opening_and_tried_again(browser: Any) -> None:
    """A server that takes connections but never answers (stopped, not dead): the page gives
    up a socket that does not open, tries again, and is back once the server runs again."""
    with running_server(**E2E_SETTINGS) as server:
        pages = Pages(browser, server)
        try:
            ann = pages.open("/")
            sockets: list[Any] = []
            ann.on("websocket", lambda socket: sockets.append(socket))
            create_room(ann, "Ann", rounds=1, timer="0")
            expect(ann.locator("[data-act=start]")).to_have_count(1)
            assert len(sockets) == 1
            process = server.process
            assert process is not None
            process.send_signal(signal.SIGSTOP)
            try:
                banner = ann.locator(".banner")
                expect(banner).to_contain_text("Reconnecting", timeout=30000)
                # The open socket is found dead; the next one never opens and is given up on,
                # then another is tried: two sockets after the first, the server still stopped.
                for _ in range(600):
                    if len(sockets) >= 3:
                        break
                    ann.wait_for_timeout(100)
                assert len(sockets) >= 3, "the page waited on a socket that never opened"
                assert sockets[1].is_closed()
            finally:
                process.send_signal(signal.SIGCONT)
            expect(banner).to_have_count(0, timeout=30000)
            expect(ann.locator("[data-act=start]")).to_have_count(1)
        finally:
            pages.close()


def test_a_kicked_player_is_told_and_not_retried(pages: Pages, shot: Shot) -> None:
    ann = pages.open("/")
    code = create_room(ann, "Ann")
    bob = pages.open("/", phone=True)
    join_from_home(bob, "Bob", code)
    seat_online(ann, "Bob")
    ann.click("[aria-label='Remove Bob']")
    expect(bob.locator("h1")).to_have_text("The host removed you from the room")
    shot(bob, "removed-360")
    expect(ann.locator(".seatlist")).not_to_contain_text("Bob")
    assert bob.evaluate(f"localStorage.getItem('spectrum.token.{code}')") is None
    bob.wait_for_timeout(1500)  # longer than a first retry would wait
    expect(bob.locator("h1")).to_have_text("The host removed you from the room")
    expect(bob.locator(".banner")).to_have_count(0)
    bob.click("text=Watch the room")
    expect(bob.locator("form[data-submit=join]")).to_be_visible()
    expect(bob.locator(".seatlist")).to_contain_text("Ann")
    # Back in a seat, then giving it up: he goes on watching and the token is forgotten.
    bob.click("form[data-submit=join] button")  # the name is remembered
    seat_online(ann, "Bob")
    bob.click("text=Give up my seat")
    expect(bob.locator("form[data-submit=join]")).to_be_visible()
    expect(ann.locator(".seatlist")).not_to_contain_text("Bob")
    assert bob.evaluate(f"localStorage.getItem('spectrum.token.{code}')") is None


def test_an_unknown_room_and_a_second_tab_are_explained(pages: Pages) -> None:
    ann = pages.open("/r/2222-2222")
    expect(ann.locator("h1")).to_have_text("There is no room with this code")
    expect(ann.locator("a", has_text="Home")).to_be_visible()

    ann.goto(pages.server.url + "/")
    code = create_room(ann, "Ann")
    second = pages.open(f"/r/{code}", context=ann.context)  # same browser: same seat
    expect(second.locator(".seatlist li", has_text="Ann")).to_contain_text("you")
    expect(ann.locator("h1")).to_have_text("You are playing in another tab")
    ann.click("text=Play here")
    expect(ann.locator(".seatlist li", has_text="Ann")).to_contain_text("you")
    expect(second.locator("h1")).to_have_text("You are playing in another tab")


def test_moves_made_on_another_device_are_not_said_to_be_played_for_you(pages: Pages) -> None:
    """Ann plays a turn on her phone, then takes her seat back on her laptop: that turn was
    hers, not played for her while she was away (the laptop, which had not seen it, said so;
    the server now says which moves the room played)."""
    laptop = pages.open("/")
    code = create_room(laptop, "Ann")
    bob = pages.open("/")
    join_from_home(bob, "Bob", code)
    seat_online(laptop, "Bob")
    laptop.click("text=Start the match")
    my_turn(bob)
    key = f"spectrum.token.{code}"
    token = laptop.evaluate("key => localStorage.getItem(key)", key)
    phone = pages.open("/", phone=True)
    phone.evaluate("([key, token]) => localStorage.setItem(key, token)", [key, token])
    phone.goto(f"{pages.server.url}/r/{code}")
    expect(laptop.locator("h1")).to_have_text("You are playing in another tab")
    take(bob, 2)
    discard(bob, 0)
    take(phone, 1)
    discard(phone, 0)
    laptop.click("text=Play here")
    expect(laptop.locator(".log li")).to_have_count(4)
    expect(laptop.locator(".log li").first).to_contain_text("You discarded")
    expect(laptop.locator(".recap")).to_have_count(0)
    assert pages.errors == []


def test_a_version_gap_asks_for_a_fresh_state(pages: Pages) -> None:
    ann = pages.open("/")
    code = create_room(ann, "Ann")
    relay = Relay()
    watcher = pages.open(None)
    watcher.context.route_web_socket(ROOM_SOCKET, relay)
    watcher.goto(f"{pages.server.url}/r/{code}")
    expect(watcher.locator("form[data-submit=join]")).to_be_visible()
    # The patch that turns on multiple pickups never reaches the watcher...
    relay.drop_received = lambda frame: (
        frame["type"] == "patch"
        and any(op["path"] == "/settings/multi_pickup" for op in frame["ops"])
    )
    ann.check("input[name=multi_pickup]")
    expect(ann.locator("input[name=multi_pickup]")).to_be_checked()
    ann.select_option("#set-timer", "30")
    # ...so the next one shows a gap: the page asks for a fresh state and shows both changes.
    expect(watcher.locator(".panel", has_text="Settings")).to_contain_text("multiple pickups")
    expect(watcher.locator(".panel", has_text="Settings")).to_contain_text("30 s turns")
    assert len(relay.dropped) == 1
    assert {"type": "resync"} in relay.sent
    versions = [frame["version"] for frame in relay.received if "version" in frame]
    assert versions == sorted(versions)
    assert relay.received[-1]["type"] == "state", "the answer to the resync"


def test_a_move_shows_at_once_and_is_pending_until_acknowledged(pages: Pages) -> None:
    relay = Relay()
    ann = pages.open(None)
    ann.context.route_web_socket(ROOM_SOCKET, relay)
    ann.goto(f"{pages.server.url}/")
    code = create_room(ann, "Ann")
    bob = pages.open(f"/r/{code}", phone=True)
    bob.fill("form[data-submit=join] input[name=name]", "Bob")
    bob.click("form[data-submit=join] button")
    seat_online(ann, "Bob")
    ann.click("text=Start the match")
    bob_took = bob.locator('.pile[data-pile="1"]')
    bob_took.click()
    bob.locator(".hand .card").nth(0).click()
    my_turn(ann)

    # The server does not answer yet: the card is in Ann's hand at once, marked as pending.
    relay.hold_sent = {"take"}
    ann.click('.pile[data-pile="3"]')
    expect(ann.locator(".hand .card")).to_have_count(6)
    expect(ann.locator("main")).to_have_attribute("aria-busy", "true")
    expect(ann.locator('.pile[data-pile="3"]')).to_have_attribute(
        "aria-label", re.compile("turning over")
    )
    take = relay.sent[-1]
    assert take["type"] == "take"
    assert take["piles"] == [3]
    assert isinstance(take["id"], int)

    # The answer carries the action's id as "ack"; the move is no longer pending.
    relay.hold_sent = set()
    relay.server_side.send(relay.held.pop())
    expect(ann.locator("main")).to_have_attribute("aria-busy", "false")
    expect(ann.locator('.pile[data-pile="3"]')).not_to_have_attribute(
        "aria-label", re.compile("turning over")
    )
    acks = [frame for frame in relay.received if frame.get("ack") == take["id"]]
    assert len(acks) == 1

    # A refusal with the action's id puts the table back as it was and says why, kindly.
    relay.hold_sent = {"discard"}
    ann.locator(".hand .card").nth(0).click()
    expect(ann.locator(".hand .card")).to_have_count(5)
    refused = json.loads(relay.held.pop())
    relay.page_side.send(
        json.dumps(
            {
                "type": "error",
                "code": "card_not_in_hand",
                "message": "you do not hold that card",
                "id": refused["id"],
            }
        )
    )
    expect(ann.locator(".hand .card")).to_have_count(6)
    expect(ann.locator("#toast")).to_have_text("That card is no longer in your hand.")
    expect(ann.locator("main")).to_have_attribute("aria-busy", "false")
    relay.hold_sent = set()
    ann.locator(".hand .card").nth(0).click()
    expect(ann.locator(".hand .card")).to_have_count(5)
    expect(bob.locator(".status.mine")).to_be_visible()


def multi_pickup_against_a_bot(ann: Any) -> None:
    """Ann makes a room with multiple pickups, seats an easy bot and starts: her turn comes
    after the bot's first."""
    create_room(ann, "Ann", rounds=1, timer="0")
    ann.check("input[name=multi_pickup]")
    expect(ann.locator("input[name=multi_pickup]")).to_be_checked()
    ann.click("[data-act=add-bot][data-level=easy]")
    ann.click("[data-act=start]")
    my_turn(ann)


def cards_of(page: Any, selector: str) -> list[str]:
    """The card ids of the cards ``selector`` finds, in order."""
    cards: list[str] = page.locator(selector).evaluate_all(
        "cards => cards.map((card) => card.dataset.card)"
    )
    return cards


def test_picks_go_with_a_move_lost_or_refused(pages: Pages) -> None:
    """Piles and cards picked for a move are dropped when the move is lost with the link or
    refused by the server, and the table snaps back to its step; picks made while a move
    waits for its answer outlive the answer."""
    relay = Relay()
    ann = pages.open(None)
    ann.context.route_web_socket(ROOM_SOCKET, relay)
    ann.goto(f"{pages.server.url}/")
    multi_pickup_against_a_bot(ann)
    take_button = ann.locator("[data-act=take]")
    picked_piles = ann.locator(".pile[aria-pressed=true]")
    picked_cards = ann.locator(".hand .card[aria-pressed=true]")
    badges = ann.locator(".hand .pick, .pile .pick")

    # The take never reaches the server, and the link goes: the cards picked meanwhile to
    # discard, and the piles, are dropped with it.
    held = cards_of(ann, ".hand .card")
    ann.click('.pile[data-pile="0"]')
    ann.click('.pile[data-pile="2"]')
    expect(picked_piles.locator(".pick")).to_have_text(["1", "2"])
    relay.hold_sent = {"take"}
    take_button.click()
    expect(ann.locator(".hand .card")).to_have_count(7)
    for card in held[:2]:
        ann.click(f'.hand .card[data-card="{card}"]')
    expect(picked_cards.locator(".pick")).to_have_text(["1", "2"])
    relay.page_side.close()
    relay.server_side.close()
    expect(ann.locator(".hand .card")).to_have_count(5)
    expect(ann.locator(".status.mine")).to_contain_text("pick 1 to 5 piles")
    expect(badges).to_have_count(0)
    expect(picked_piles).to_have_count(0)
    expect(take_button).to_have_text("Take cards")
    relay.hold_sent = set()
    expect(ann.locator(".banner")).to_have_count(0, timeout=15000)
    expect(ann.locator("main")).to_have_attribute("aria-busy", "false")
    expect(badges).to_have_count(0)
    assert sorted(cards_of(ann, ".hand .card")) == sorted(held)

    # Cards picked while the take waits for its answer are still picked once it comes.
    ann.click('.pile[data-pile="1"]')
    ann.click('.pile[data-pile="3"]')
    relay.hold_sent = {"take"}
    take_button.click()
    expect(ann.locator(".hand .card")).to_have_count(7)
    for card in held[:2]:
        ann.click(f'.hand .card[data-card="{card}"]')
    relay.hold_sent = set()
    relay.server_side.send(relay.held.pop())
    expect(ann.locator("main")).to_have_attribute("aria-busy", "false")
    expect(picked_cards.locator(".pick")).to_have_text(["1", "2"])
    expect(ann.locator("[data-act=discard]")).to_have_text("Discard 2/2")

    # The server refuses the discard (sent with a card she does not hold): the table is back
    # at her discard step, with nothing picked.
    relay.hold_sent = {"discard"}
    ann.click("[data-act=discard]")
    expect(ann.locator(".hand .card")).to_have_count(5)
    hand_now = set(cards_of(ann, ".hand .card")) | set(held)
    stranger = next(
        f"{number}-{shape}-{colour}"
        for number in range(1, 6)
        for shape in ("circle", "crescent", "triangle", "square", "star")
        for colour in ("violet", "cyan", "yellow", "orange", "red")
        if f"{number}-{shape}-{colour}" not in hand_now
    )
    discard = json.loads(relay.held.pop())
    relay.hold_sent = set()
    relay.server_side.send(json.dumps({**discard, "cards": [stranger, held[0]]}))
    expect(ann.locator("#toast")).to_have_text("That card is no longer in your hand.")
    expect(ann.locator(".hand .card")).to_have_count(7)
    expect(ann.locator(".status.mine")).to_contain_text("Discard 2 cards")
    expect(badges).to_have_count(0)
    expect(picked_cards).to_have_count(0)
    expect(ann.locator("[data-act=discard]")).to_have_text("Discard 0/2")


@pytest.mark.parametrize("silent", [False, True], ids=["with-offline-event", "silent"])
def test_a_dead_link_is_seen_at_once_stood_in_for_and_recovered(
    browser: Any, shot: Shot, silent: bool
) -> None:
    """A phone whose network goes, keeping its socket open: its page says so within 5 s (at
    once when the browser tells it; a dead mobile link often tells nothing, and the page must
    find out by itself), the others see the player away within 10 s and a bot plays for him;
    when the network is back the page reconnects by itself, says so, and tells him what was
    played for him."""
    with running_server(**{**E2E_SETTINGS, "STANDIN_SECONDS": "1"}) as server:
        # Bob's phone reaches the server through this, a network the test can take away.
        link = Proxy(("127.0.0.1", server.port))
        pages = Pages(browser, server)
        try:
            ann = pages.open("/")
            code = create_room(ann, "Ann", rounds=1, timer="300")
            bob = pages.open(None, phone=True)
            bob.goto(f"http://127.0.0.1:{link.port}/")
            join_from_home(bob, "Bob", code)
            seat_online(ann, "Bob")
            ann.click("text=Start the match")
            my_turn(bob)  # seat 0 deals, so Bob plays first
            expect(bob.locator("[data-deadline]")).to_be_visible()

            link.down()  # the socket stays open, nothing gets through, new ones are refused
            if not silent:
                # The browser's word that the network went (its offline switch has its own
                # test, in test_signals, as it keeps a core busy for as long as it is on).
                bob.evaluate("dispatchEvent(new Event('offline'))")
            lost = bob.locator(".banner", has_text=re.compile("offline|Connection lost"))
            # The page gives up on a link silent for 3.5 s; a loaded machine runs its timers late.
            expect(lost).to_be_visible(timeout=20000)
            # The table is drained of colour, not faded: faded to 55%, its words (the status,
            # the hint, the counts, the moves) fell below a readable contrast.
            for part in (".felt", ".moves"):
                expect(bob.locator(part)).to_have_css("filter", "grayscale(1)")
                expect(bob.locator(part)).to_have_css("opacity", "1")
            expect(bob.locator(".timer.paused")).to_be_visible()  # no clock frozen at 0:00
            expect(bob.locator("[data-deadline]")).to_have_count(0)
            if silent:
                expect(lost).to_contain_text("Connection lost")
            shot(bob, f"dead-link-{'silent' if silent else 'offline'}-360")
            bob_seat = ann.locator(".seat", has_text="Bob")
            expect(bob_seat).to_have_attribute("aria-label", re.compile("away"), timeout=10000)
            # The stand-in plays his turn, and the table goes on to Ann: a take and a discard,
            # or a knock, which the deal may make the better move on a first turn.
            my_turn(ann)
            played = re.compile("discarded|knocked")
            newest = ann.locator(".log li").first
            expect(newest).to_have_text(re.compile(f"^Bob ({played.pattern})"))

            link.heal()  # the connections from before are cut
            if not silent:
                bob.evaluate("dispatchEvent(new Event('online'))")
            expect(lost).to_have_count(0, timeout=20000)
            expect(bob.locator("#toast")).to_contain_text("econnected")
            recap = bob.locator(".recap")
            expect(recap).to_contain_text("While you were away")
            expect(recap).to_contain_text(played)
            expect(bob_seat).to_have_attribute("aria-label", re.compile("online"))
            expect(bob.locator(".log li")).not_to_have_count(0)
            if not silent:
                bob.click("[data-act=recap-ok]")
                expect(recap).to_have_count(0)
            else:
                shot(bob, "recap-360")
                # Left up, the note is of this round: the next match's table does not show it.
                knock_or_end(ann)
                knock_or_end(bob)
                expect(ann.locator(".standings")).to_be_visible()
                ann.get_by_role("button", name="Rematch").click()
                expect(bob.locator(".log")).to_contain_text("No moves yet")
                expect(recap).to_have_count(0)
        finally:
            pages.close()
            link.close()
        assert pages.errors == []


def test_the_move_log_is_whole_after_a_reload(pages: Pages) -> None:
    ann = pages.open("/")
    code = create_room(ann, "Ann", rounds=1, timer="0")
    bob = pages.open("/", phone=True)
    join_from_home(bob, "Bob", code)
    seat_online(ann, "Bob")
    ann.click("text=Start the match")
    took = take(bob, 2)
    gone = discard(bob, 0)
    took_too = take(ann, 4)
    assert took_too == gone
    lines = [
        f"You took {took_too} from the discard pile",
        f"Bob discarded {gone}",
        f"Bob took {took} from pile 3",
    ]
    expect(ann.locator(".log li")).to_have_text(lines)
    ann.reload()
    expect(ann.locator(".log li")).to_have_text(lines)
    expect(ann.locator(".recap")).to_have_count(0)  # nothing was played for her
    expect(bob.locator(".log li")).to_have_text(
        [
            f"Ann took {took_too} from the discard pile",
            f"You discarded {gone}",
            f"You took {took} from pile 3",
        ]
    )


def test_a_reload_on_the_results_is_waited_for_before_the_next_round(pages: Pages) -> None:
    """Ann is ready and Bob reloads on the results: the next round waits for him (a reload is
    not leaving), and his own ready deals it."""
    ann = pages.open("/")
    code = create_room(ann, "Ann", rounds=2, timer="0")
    bob = pages.open("/", phone=True)
    join_from_home(bob, "Bob", code)
    seat_online(ann, "Bob")
    ann.click("text=Start the match")
    knock_or_end(bob)  # seat 1 plays first: Bob knocks, Ann's turn ends the round
    knock_or_end(ann)
    for page in (ann, bob):
        expect(page.locator("h1", has_text="Round 1 of 2")).to_be_visible()
    ann.click("[data-act=ready]")
    expect(ann.locator("[data-act=ready]")).to_have_attribute("aria-disabled", "true")
    bob.reload()
    # His page starts afresh from the server's state: still the results, not the next round.
    expect(bob.locator("h1", has_text="Round 1 of 2")).to_be_visible()
    expect(bob.locator("[data-act=ready]")).not_to_have_attribute("aria-disabled", "true")
    expect(ann.locator("[data-act=ready]")).to_be_visible()
    bob.click("[data-act=ready]")
    for page in (ann, bob):
        expect(page.locator(".hand .card")).to_have_count(5)
        expect(page.locator(".pile")).to_have_count(5)


def test_the_cards_just_taken_are_marked_after_a_reload(pages: Pages) -> None:
    """A player who reloads, or opens the room on another device, between a multiple pickup
    and its discard is shown which cards were just taken, as before the reload."""
    ann = pages.open("/")
    multi_pickup_against_a_bot(ann)
    ann.click('.pile[data-pile="0"]')
    ann.click('.pile[data-pile="2"]')
    ann.click("[data-act=take]")
    expect(ann.locator(".status.mine")).to_contain_text("Discard 2 cards")
    taken = ann.locator(".hand .card.new")
    expect(taken).to_have_count(2)
    shown = cards_of(ann, ".hand .card.new")
    ann.reload()
    expect(ann.locator(".status.mine")).to_contain_text("Discard 2 cards")
    expect(taken).to_have_count(2)
    assert cards_of(ann, ".hand .card.new") == shown
    expect(taken.first).to_have_attribute("aria-label", re.compile(", just taken$"))


def test_a_chat_message_lost_with_the_link_is_given_back(pages: Pages) -> None:
    """A message sent as the link goes is back in the box once the page is back, to be sent
    again; one the server had taken when the link went, its answer lost, is shown said, once,
    and not given back."""
    relay = Relay()
    ann = pages.open(None)
    ann.context.route_web_socket(ROOM_SOCKET, relay)
    ann.goto(f"{pages.server.url}/")
    code = create_room(ann, "Ann")
    watcher = pages.open(f"/r/{code}")
    lost = ann.locator(".banner", has_text="Connection lost")
    log = ann.locator(".chatlog p")

    # The message never reaches the server.
    relay.hold_sent = {"chat"}
    ann.fill("#chat-text", "back in a minute")
    ann.press("#chat-text", "Enter")
    expect(ann.locator("#chat-text")).to_have_value("")
    relay.page_side.close()
    relay.server_side.close()
    expect(lost).to_be_visible()
    relay.hold_sent = set()
    expect(lost).to_have_count(0, timeout=15000)
    expect(ann.locator("#chat-text")).to_have_value("back in a minute")
    expect(log).to_have_text(["No messages yet."])

    # The server takes it, and the link goes before its answer comes.
    relay.drop_received = lambda frame: frame.get("ack") is not None
    ann.press("#chat-text", "Enter")
    expect(ann.locator("#chat-text")).to_have_value("")
    expect(watcher.locator(".chatlog p")).to_have_text(["Ann: back in a minute"])
    deadline = time.monotonic() + 10
    while not relay.dropped and time.monotonic() < deadline:
        ann.wait_for_timeout(20)  # the relay hears of frames while Playwright is called
    assert len(relay.dropped) == 1
    relay.page_side.close()
    relay.server_side.close()
    expect(lost).to_be_visible()
    expect(lost).to_have_count(0, timeout=15000)
    expect(log).to_have_text(["You: back in a minute"])
    expect(ann.locator("#chat-text")).to_have_value("")


def test_a_page_out_of_sight_says_so_in_its_pings(pages: Pages) -> None:
    """Out of sight, a browser may wake the page's timers only once a minute: its pings say
    it is hidden (the server then waits that long), and say nothing of it once it is back."""
    ann = pages.open("/")
    sockets: list[Any] = []
    ann.on("websocket", lambda socket: sockets.append(socket))
    create_room(ann, "Ann", rounds=1, timer="0")
    expect(ann.locator("[data-act=start]")).to_have_count(1)
    [socket] = sockets
    for hidden, ping in ((True, PING_HIDDEN), (False, PING)):
        with socket.expect_event(
            "framesent", predicate=lambda payload, ping=ping: payload == ping, timeout=20000
        ):
            ann.evaluate(
                "(hidden) => Object.defineProperty(document, 'hidden', "
                "{ value: hidden, configurable: true })",
                hidden,
            )
    expect(ann.locator(".banner")).to_be_hidden()
