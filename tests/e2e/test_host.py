"""The host's role passes on from a host away too long: the player it passes to is told, and so
is the old host on coming back, by a new page or by the same page reconnecting, each in their own
language."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from tests.e2e.conftest import E2E_SETTINGS, Pages, pages_on
from tests.e2e.ui import create_room, expect, join_from_home, seat_online
from tests.server import Server, running_server

Shot = Callable[[Any, str], None]
APOSTROPHE = "\N{RIGHT SINGLE QUOTATION MARK}"
# The page's sockets, kept in window.sockets; while window.hold is true, new ones are refused
# (by the server, at an address of no room: the page's policy would block another server's,
# and a socket blocked so is closed without a close event).
SOCKETS = """{
  const Socket = WebSocket;
  window.sockets = [];
  window.WebSocket = class extends Socket {
    constructor(url, protocols) {
      super(window.hold ? url.replace('/ws/rooms/', '/ws/held/') : url, protocols);
      window.sockets.push(this);
    }
  };
}"""


@pytest.fixture(scope="module")
def server() -> Iterator[Server]:
    """A server of its own, whose host's role passes as soon as the host is away."""
    with running_server(**E2E_SETTINGS, HOST_GRACE_SECONDS="0") as started:
        yield started


@pytest.fixture
def pages(browser: Any, server: Server) -> Iterator[Pages]:
    """Browser pages against this module's server."""
    yield from pages_on(browser, server)


def test_the_new_host_and_the_old_one_back_are_told(pages: Pages, shot: Shot) -> None:
    ann = pages.open("/", phone=True)
    code = create_room(ann, "Ann", rounds=1, timer="0")
    zoe = pages.open(None, locale="fr-FR")
    zoe.add_init_script(SOCKETS)
    zoe.goto(pages.server.url + "/")
    join_from_home(zoe, "Zoé", code)
    seat_online(ann, "Zoé")
    expect(zoe.locator("[data-act=start]")).to_have_count(0)

    # Ann's phone closes the page: the role passes to Zoé, who is told and can start.
    phone = ann.context
    ann.close()
    expect(zoe.locator("#toast")).to_have_text(f"Vous êtes l{APOSTROPHE}hôte maintenant.")
    expect(zoe.locator("[data-act=start]")).to_be_visible()
    shot(zoe, "host-passed-fr")

    # Ann opens the room again: she is told who the host is now.
    ann = pages.open(f"/r/{code}", context=phone)
    expect(ann.locator("#toast")).to_have_text("Zoé is the host now.")
    expect(ann.locator(".seatlist li", has_text="Zoé")).to_contain_text("host")
    expect(ann.locator("[data-act=start]")).to_have_count(0)
    shot(ann, "host-back-360")

    # Zoé's link drops, and stays down until the role has passed back to Ann, who is told.
    zoe.evaluate("window.hold = true; window.sockets.at(-1).close()")
    expect(ann.locator("#toast")).to_have_text("You are the host now.")
    expect(ann.locator("[data-act=start]")).to_be_visible()
    # Her page reconnects (at once, or after a try already under way and its wait): the notice of
    # who is host now comes after the one that she is back.
    zoe.evaluate("window.hold = false; dispatchEvent(new Event('online'))")
    told = f"Ann est l{APOSTROPHE}hôte maintenant."
    expect(zoe.locator("#toast")).to_have_text(told, timeout=20000)
    expect(zoe.locator("[data-act=start]")).to_have_count(0)
