"""Two people play through nginx while the node holding their room is killed: both pages come
back to the table by themselves, hands as they were, and play on."""

from __future__ import annotations

import signal
from typing import Any

from tests.cluster.harness import running_cluster
from tests.e2e.conftest import CHROMIUM, CHROMIUM_ARGS, Pages, _unavailable, require_playwright
from tests.e2e.ui import (
    create_room,
    discard,
    discard_top_is,
    expect,
    hand,
    my_turn,
    seat_online,
    take,
)


def test_both_pages_recover_when_the_owning_node_is_killed() -> None:
    if not CHROMIUM.exists():
        _unavailable(f"no browser at {CHROMIUM} (install Debian's chromium package)")
    sync_api = require_playwright()
    with running_cluster() as cluster, sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        pages = Pages(browser, cluster.front)
        try:
            play_through_a_lost_node(pages, cluster)
        finally:
            pages.close()
            browser.close()
        assert pages.errors == [], "JavaScript errors:\n" + "\n".join(pages.errors)


def play_through_a_lost_node(pages: Pages, cluster: Any) -> None:
    ann = pages.open("/")
    code = create_room(ann, "Ann", rounds=1, timer="0")
    bob = pages.open(f"/r/{code}")
    bob.fill("form[data-submit=join] input[name=name]", "Bob")
    bob.click("form[data-submit=join] button")
    seat_online(ann, "Bob")
    ann.click("text=Start the match")
    take(bob, 2)
    held = hand(bob)
    owner = cluster.owner(code)

    cluster.nodes[owner].stop(signal.SIGKILL)
    for page in (ann, bob):
        expect(page.locator(".banner")).to_contain_text("Reconnecting", timeout=30_000)
    for page in (ann, bob):
        expect(page.locator(".banner")).to_have_count(0, timeout=60_000)
    expect(bob.locator(".hand .card")).to_have_count(6)
    assert sorted(hand(bob)) == sorted(held)
    assert cluster.owner(code) != owner
    gone = discard(bob, 0)
    discard_top_is(ann, gone)
    my_turn(ann)
