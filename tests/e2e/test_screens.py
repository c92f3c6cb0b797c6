"""Every stage of a match and every page, pictured at a laptop's, a phone's and a tablet's size
in tests/e2e/screenshots/ (to be looked at); the five colours told apart without colour."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tests.e2e.conftest import Pages
from tests.e2e.test_access import pictured
from tests.e2e.ui import create_room, discard, expect, knock_or_end, my_turn, take
from tests.rooms.client import api

Shot = Callable[[Any, str], None]


def test_every_stage_at_three_sizes(pages: Pages, shot: Shot) -> None:
    ann = pages.open("/")
    pictured(ann, shot, "stage-home")
    create_room(ann, "Ann", rounds=2, timer="60")
    ann.click("[data-act=add-bot][data-level=easy]")
    expect(ann.locator("[data-act=start]")).to_be_enabled()
    pictured(ann, shot, "stage-lobby")

    ann.click("[data-act=start]")
    my_turn(ann)  # after the bot's first turn
    pictured(ann, shot, "stage-table-take")
    ann.click("[data-act=hint]")
    expect(ann.locator(".hint-line")).to_be_visible()
    pictured(ann, shot, "stage-table-hint")
    knocked = ann.locator(".status", has_text="knocked").count() > 0
    take(ann, 0)
    pictured(ann, shot, "stage-table-discard")
    discard(ann, 0, hand_after=None if knocked else 5)
    if not knocked:
        knock_or_end(ann)
    expect(ann.locator(".result")).to_have_count(2)
    expect(ann.locator("[data-act=ready]")).to_be_visible()
    pictured(ann, shot, "stage-round-over")

    # Nobody waits on a computer player: Ann's "ready" alone deals the next round.
    expect(ann.locator(".sticky-actions")).not_to_contain_text("waiting for")
    ann.click("[data-act=ready]")
    expect(ann.locator(".pile")).to_have_count(5)
    knock_or_end(ann)
    # Either the bot's last turn ends the match, or it is Ann's turn once more.
    expect(ann.locator(".status.mine, .standings").first).to_be_visible()
    if ann.locator(".standings").count() == 0:
        knock_or_end(ann)
    expect(ann.locator(".standings")).to_be_visible()
    pictured(ann, shot, "stage-finished")

    match = api(pages.server, "GET", "/api/matches?player=Ann&limit=1").json()["matches"][0]
    for path, name in [
        (f"/matches/{match['id']}", "match"),
        ("/players/Ann", "player"),
        ("/history", "history"),
        ("/calculator", "calculator"),
        ("/rules", "rules"),
        ("/no/such/page", "not-found"),
    ]:
        ann.goto(pages.server.url + path)
        expect(ann.locator("h1").first).to_be_visible()
        pictured(ann, shot, f"stage-{name}")


def test_each_colour_has_a_second_cue_besides_its_colour(pages: Pages, shot: Shot) -> None:
    page = pages.open("/calculator")
    expect(page.locator(".picker")).to_be_visible()
    # Each colour's initial is drawn on its cards, large enough to read, and no two are alike.
    initials = page.evaluate(
        """() => Object.fromEntries(['violet', 'cyan', 'yellow', 'orange', 'red'].map(
             (colour) => [colour, document.getElementById(`i-${colour}`).textContent]))"""
    )
    assert initials == {"violet": "V", "cyan": "C", "yellow": "Y", "orange": "O", "red": "R"}
    faces = page.locator(".picker .card svg").evaluate_all(
        "svgs => svgs.map(svg => svg.querySelector('use[href^=\"#i-\"]')?.getAttribute('href'))"
    )
    assert faces
    assert all(face and face.startswith("#i-") for face in faces)
    # Seen with no colour at all, the cards still say which colour they are.
    session = page.context.new_cdp_session(page)
    session.send("Emulation.setEmulatedVisionDeficiency", {"type": "achromatopsia"})
    shot(page, "calculator-achromatopsia")
    session.send("Emulation.setEmulatedVisionDeficiency", {"type": "none"})
