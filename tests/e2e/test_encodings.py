"""The room page asks for compact patches; ``?encoding=standard`` keeps it to RFC 6902 JSON
Patch. Two pages, one of each, play a round and see the same table."""

from __future__ import annotations

import json
from typing import Any

from tests.e2e.conftest import Pages
from tests.e2e.ui import create_room, discard, discard_top_is, expect, my_turn, seat_online, take

LABELS = "cards => cards.map((card) => card.getAttribute('aria-label'))"


def _record(page: Any) -> tuple[list[str], list[str]]:
    """The frames the page's WebSockets send and receive from now on."""
    sent: list[str] = []
    received: list[str] = []

    def watch(ws: Any) -> None:
        ws.on("framesent", lambda payload: sent.append(payload))
        ws.on("framereceived", lambda payload: received.append(payload))

    page.on("websocket", watch)
    return sent, received


def test_a_compact_page_and_a_standard_page_play_a_round_alike(pages: Pages) -> None:
    ann = pages.open(None)
    ann_sent, ann_got = _record(ann)
    ann.goto(pages.server.url + "/")
    code = create_room(ann, "Ann", rounds=1, timer="0")
    bob = pages.open(None, phone=True)
    bob_sent, bob_got = _record(bob)
    bob.goto(f"{pages.server.url}/r/{code}?encoding=standard")
    bob.fill("form[data-submit=join] input[name=name]", "Bob")
    bob.click("form[data-submit=join] button")
    seat_online(ann, "Bob")
    ann.click("text=Start the match")

    my_turn(bob)
    take(bob, 0)
    gone = discard(bob, 0)
    discard_top_is(ann, gone)
    took = take(ann, 4)
    assert took == gone
    let_go = discard(ann, 0)
    discard_top_is(bob, let_go)
    my_turn(bob)
    bob.click("[data-act=knock]")
    bob.click("[data-act=knock-yes]")
    expect(ann.locator(".status")).to_contain_text("Bob knocked · 1 turn left")
    take(ann, 1)
    discard(ann, 0, hand_after=None)
    for page in (ann, bob):
        expect(page.locator(".result")).to_have_count(2)
        expect(page.locator(".standings tbody tr")).to_have_count(2)
    # Both pages show the same standings and the same revealed hands, whichever encoding
    # brought them.
    standings = [
        page.locator(".standings").inner_text().replace(" (you)", "") for page in (ann, bob)
    ]
    assert standings[0] == standings[1]
    shown = [page.locator(".result .card").evaluate_all(LABELS) for page in (ann, bob)]
    assert len(shown[0]) == 10
    assert shown[0] == shown[1]

    hellos = [json.loads(text) for text in ann_sent + bob_sent if '"hello"' in text]
    assert {hello.get("encoding") for hello in hellos} == {"compact", "standard"}
    assert all(
        json.loads(text).get("encoding") == "compact" for text in ann_sent if '"hello"' in text
    )
    ann_patches = [text for text in ann_got if text.startswith("[")]
    bob_patches = [text for text in bob_got if text.startswith('{"type":"patch"')]
    assert len(ann_patches) > 5
    assert len(bob_patches) > 5
    assert not any(text.startswith('{"type":"patch"') for text in ann_got)
    assert not any(text.startswith("[") for text in bob_got)
    # Ann's patches are the smaller, for the same round.
    assert _mean(ann_patches) < _mean(bob_patches) / 2


def _mean(texts: list[str]) -> float:
    return sum(map(len, texts)) / len(texts)
