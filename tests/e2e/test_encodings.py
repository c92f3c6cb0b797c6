"""The room page asks for binary patches (the compact encoding in MessagePack);
``?encoding=standard`` keeps it to RFC 6902 JSON Patch and ``?encoding=compact`` to the compact
encoding's JSON. Two players' pages, binary and standard, play a round that a compact page
watches, and all three see the same table."""

from __future__ import annotations

import json
from typing import Any

from tests.e2e.conftest import Pages
from tests.e2e.ui import create_room, discard, discard_top_is, expect, my_turn, seat_online, take

LABELS = "cards => cards.map((card) => card.getAttribute('aria-label'))"


def _record(page: Any) -> tuple[list[str], list[str | bytes]]:
    """The frames the page's WebSockets send and receive from now on (a binary one as bytes)."""
    sent: list[str] = []
    received: list[str | bytes] = []

    def watch(ws: Any) -> None:
        ws.on("framesent", lambda payload: sent.append(payload))
        ws.on("framereceived", lambda payload: received.append(payload))

    page.on("websocket", watch)
    return sent, received


def test_binary_standard_and_compact_pages_see_a_round_alike(pages: Pages) -> None:
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
    cy = pages.open(None)
    cy_sent, cy_got = _record(cy)
    cy.goto(f"{pages.server.url}/r/{code}?encoding=compact")
    expect(cy.locator("form[data-submit=join]")).to_be_visible()
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
    for page in (ann, bob, cy):
        expect(page.locator(".result")).to_have_count(2)
        expect(page.locator(".standings tbody tr")).to_have_count(2)
    # The three pages show the same standings and the same revealed hands, whichever encoding
    # brought them.
    standings = [
        page.locator(".standings").inner_text().replace(" (you)", "") for page in (ann, bob, cy)
    ]
    assert standings[0] == standings[1] == standings[2]
    shown = [page.locator(".result .card").evaluate_all(LABELS) for page in (ann, bob, cy)]
    assert len(shown[0]) == 10
    assert shown[0] == shown[1] == shown[2]

    def hellos(sent: list[str]) -> set[str]:
        return {json.loads(text).get("encoding") for text in sent if '"hello"' in text}

    assert (hellos(ann_sent), hellos(bob_sent), hellos(cy_sent)) == (
        {"binary"},
        {"standard"},
        {"compact"},
    )
    ann_texts = [frame for frame in ann_got if isinstance(frame, str)]
    ann_patches = [frame for frame in ann_got if isinstance(frame, bytes)]
    bob_patches = [frame for frame in bob_got if frame.startswith('{"type":"patch"')]
    cy_patches = [frame for frame in cy_got if frame.startswith("[")]
    assert len(ann_patches) > 5
    assert len(bob_patches) > 5
    assert len(cy_patches) > 5
    # Binary frames only for the binary page, and every patch it got was one.
    assert not any(isinstance(frame, bytes) for frame in bob_got + cy_got)
    assert not any(frame.startswith(('{"type":"patch"', "[")) for frame in ann_texts)
    assert not any(frame.startswith("[") for frame in bob_got)
    assert not any(frame.startswith('{"type":"patch"') for frame in cy_got)
    # Ann's patches are the smallest for the same round, Bob's the largest.
    assert _mean(ann_patches) < _mean(cy_patches) < _mean(bob_patches) / 2


def _mean(frames: list[Any]) -> float:
    return sum(len(frame.encode() if isinstance(frame, str) else frame) for frame in frames) / len(
        frames
    )
