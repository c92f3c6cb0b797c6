"""A host upgrades the server under an installed client: the server restarts on the same
address and database, serving changed client files. Its players get the new files, all of
them, and keep their seats.

The server runs from a copy of ``app/`` and ``frontend/`` (the server serves the client beside
its code), its files dated ten days back as a checkout of then would be; an upgrade changes a
file of the copy, dated now, and restarts the server."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests import fetch
from tests import server as servers
from tests.e2e.conftest import E2E_SETTINGS, Pages, pages_on
from tests.e2e.ui import (
    create_room,
    expect,
    hand,
    my_turn,
    reload_through_worker,
    wait_for,
)
from tests.server import ROOT, Server, migrate, server_env, start_server

TEN_DAYS = 10 * 24 * 3600


def ran(module: str, build: str) -> str:
    """What a module's text gains to say, once it has run on a page, which build it is of."""
    return f"\n;(globalThis.ran ??= {{}})[{module!r}] = {build!r};\n"


class Copy:
    """A copy of the server and its client, run from its own folder: every module of the
    client says, when it runs, that it is of the build "old"."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        for part in ("app", "frontend"):
            shutil.copytree(
                ROOT / part, folder / part, ignore=shutil.ignore_patterns("__pycache__")
            )
        self.release("old")
        then = time.time() - TEN_DAYS
        for path in (folder / "frontend").rglob("*"):
            os.utime(path, (then, then))

    def release(self, build: str) -> None:
        """Make every module say that it is of ``build``."""
        for path in (self.folder / "frontend" / "js").rglob("*.js"):
            self.change(path.relative_to(self.folder / "frontend" / "js").as_posix(), build)

    def change(self, module: str, build: str) -> None:
        """Make ``js/<module>`` say, when it runs, that it is of ``build`` (dated now)."""
        path = self.folder / "frontend" / "js" / module
        text = path.read_text().split(ran(module, "old"))[0]
        path.write_text(text + ran(module, build))

    def spawn(self, env: dict[str, str], log: Path, append: bool) -> subprocess.Popen[bytes]:
        """``python -m app`` in the copy's folder: its own app, serving its own client."""
        with log.open("ab" if append else "wb") as out:
            return subprocess.Popen(
                [sys.executable, "-m", "app"],
                cwd=self.folder,
                env=env,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )


@pytest.fixture
def copy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Copy:
    """A copy of the server and client; the servers the test starts run from it."""
    made = Copy(tmp_path / "copy")
    monkeypatch.setattr(servers, "spawn_server", made.spawn)
    return made


@pytest.fixture
def host(copy: Copy, tmp_path: Path) -> Iterator[Server]:
    """A server run from the copy, on a database of its own."""
    url = f"sqlite+aiosqlite:///{tmp_path}/spectrum.db"
    migrate(url)
    started = start_server(server_env(HOST="127.0.0.1", DATABASE_URL=url, **E2E_SETTINGS))
    yield started
    started.stop()


@pytest.fixture
def players(browser: Any, host: Server) -> Iterator[Pages]:
    yield from pages_on(browser, host)


def upgrade(host: Server, copy: Copy, module: str | None = None) -> None:
    """Stop the server, change a client module (or all of them) to the build "new", start it
    again at the same address."""
    host.stop()
    if module:
        copy.change(module, "new")
    else:
        copy.release("new")
    host.start()


KEPT = """async (path) => {
  const names = await caches.keys();
  return Promise.all(names.map(async (name) => [name, await (await caches.open(name)).match(path)
    .then((answer) => answer?.text() ?? '')]));
}"""


HOME = {"en-US": "New room", "fr-FR": "Nouvelle salle"}


def settled(page: Any, host: Server) -> None:
    """Wait until one worker is in charge, activated, and one copy of the client is kept: the
    copy of the client ``host`` serves (as long as a worker takes to keep its shell, as
    ``controlled()`` waits)."""
    version = re.search(r'data-v="(\w+)"', fetch.get(host.url + "/").text)
    assert version is not None
    assert page.evaluate("document.documentElement.dataset.v") == version[1]
    wait_for(
        page,
        "navigator.serviceWorker.getRegistration().then((r) => !r.waiting && !r.installing"
        " && r.active.state === 'activated').then((done) => done && caches.keys())"
        f".then((names) => names?.length === 1 && names[0].startsWith('shell-{version[1]}-'))",
        timeout=30,
    )


@pytest.mark.parametrize("locale", HOME)
def test_after_an_upgrade_the_next_page_runs_the_new_files_and_keeps_them_offline(
    players: Pages, host: Server, copy: Copy, locale: str
) -> None:
    page = players.open("/", worker=True, locale=locale)
    reload_through_worker(page)  # the worker has kept the shell
    expect(page.locator("h2").first).to_have_text(HOME[locale])
    assert page.evaluate("globalThis.ran['home.js']") == "old"
    upgrade(host, copy, "home.js")  # the other files as they were, ten days old
    page.reload()
    expect(page.locator("h2").first).to_have_text(HOME[locale])
    assert page.evaluate("globalThis.ran['home.js']") == "new"
    # The new version's copy, in the reader's language, is the one kept offline.
    settled(page, host)
    [(_, kept)] = page.evaluate(KEPT, "/static/js/home.js")
    assert "'new'" in kept
    [(_, words)] = page.evaluate(KEPT, f"/static/js/lang/{locale[:2]}.js")
    assert words
    page.context.set_offline(True)
    try:
        page.reload()
        expect(page.locator("h2").first).to_have_text(HOME[locale])
        assert page.evaluate("globalThis.ran['home.js']") == "new"
    finally:
        page.context.set_offline(False)


def builds(page: Any) -> dict[str, str]:
    """Which build each module the page has run is of."""
    ran: dict[str, str] = wait_for(page, "globalThis.ran")
    return ran


def test_an_open_page_runs_no_new_module_beside_its_old_ones_and_keeps_its_seat(
    players: Pages, host: Server, copy: Copy
) -> None:
    page = players.open("/", worker=True)
    reload_through_worker(page)
    create_room(page, "Ann", rounds=1)
    room = page.url
    page.click("[data-act=add-bot][data-level=normal]")
    page.click("[data-act=start]")
    my_turn(page)  # the bot plays at once
    cards = hand(page)
    assert set(builds(page).values()) == {"old"}
    upgrade(host, copy)
    # The room comes back by itself, the seat and the turn with it, on the page's old code.
    expect(page.locator(".banner")).to_have_count(0, timeout=20_000)
    my_turn(page)
    assert hand(page) == cards
    # The history is a module this page has not run: it comes with all the new ones.
    page.click("a[data-nav=history]")
    expect(page.locator("main h1")).to_have_text("History")  # drawn by history.js
    assert set(builds(page).values()) == {"new"}, builds(page)
    page.go_back()
    expect(page).to_have_url(room)
    my_turn(page)
    assert hand(page) == cards
    assert set(builds(page).values()) == {"new"}, builds(page)
    # The new version's worker has taken over, with only the new files kept.
    settled(page, host)
    [(_, kept)] = page.evaluate(KEPT, "/static/js/history.js")
    assert "'new'" in kept
    # Offline, a module the page has not run comes from the new version too.
    page.context.set_offline(True)
    try:
        page.click("a[data-nav=rules]")
        expect(page.locator(".shown").first).to_be_visible()  # drawn by rules.js
        assert set(builds(page).values()) == {"new"}, builds(page)
    finally:
        page.context.set_offline(False)


def test_an_open_page_switches_language_in_the_new_version_after_an_upgrade(
    players: Pages, host: Server, copy: Copy
) -> None:
    page = players.open("/", worker=True, locale="fr-FR")
    reload_through_worker(page)
    expect(page.locator("h2").first).to_have_text("Nouvelle salle")
    upgrade(host, copy)
    # The English words are a module the page has not run: they come with the new code.
    page.click("#lang")
    expect(page.locator("h2").first).to_have_text("New room")
    assert set(builds(page).values()) == {"new"}, builds(page)
    assert builds(page)["lang/en.js"] == "new"


def test_a_page_of_the_new_version_goes_on_while_the_new_worker_cannot_take_over(
    players: Pages, host: Server, copy: Copy
) -> None:
    """A page loaded after an upgrade runs the new client, whether or not the new version's
    worker has taken over yet: it goes to a page it has not shown without loading afresh, even
    when that worker fails to install and is tried again and again."""
    page = players.open("/", worker=True)
    reload_through_worker(page)
    upgrade(host, copy)
    # The new version's worker cannot keep its shell: one of its files is gone.
    assert "/static/js/learn.js" in fetch.get(host.url + "/sw.js?lang=en").text
    (copy.folder / "frontend" / "js" / "learn.js").unlink()
    page.reload()
    expect(page.locator("h2").first).to_have_text("New room")
    assert set(builds(page).values()) == {"new"}, builds(page)
    page.evaluate("window.same = true")
    page.click("a[data-nav=history]")
    expect(page.locator("main h1")).to_have_text("History")
    page.click("a[data-nav=rules]")
    expect(page.locator(".shown").first).to_be_visible()
    assert page.evaluate("window.same") is True
    assert set(builds(page).values()) == {"new"}, builds(page)


def test_a_lesson_loads_afresh_once_while_nodes_of_two_versions_take_turns(
    players: Pages, host: Server, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """In an upgrade under way, a page may come from a node of the old version and the page it
    compares itself with from one of the new: it loads afresh once for that version, then runs
    the module (a lesson's coach, which a lesson's room loads as it opens, loaded afresh without
    end before)."""
    newer = Copy(tmp_path / "newer")
    newer.release("new")
    url = f"sqlite+aiosqlite:///{tmp_path}/newer.db"
    migrate(url)
    with monkeypatch.context() as patch:
        patch.setattr(servers, "spawn_server", newer.spawn)
        other = start_server(server_env(HOST="127.0.0.1", DATABASE_URL=url, **E2E_SETTINGS))
    try:
        page = players.open("/")
        page.fill("#name", "Newcomer")
        page.click("button:has-text('Learn to play')")
        coach = page.locator(".coach")
        expect(coach).to_contain_text("Numbers")
        # From now on the page's own node serves the page, the other node what it compares.
        page.route(
            host.url + "/",
            lambda route: (
                route.continue_()
                if route.request.is_navigation_request()
                else route.fulfill(response=route.fetch(url=other.url + "/"))
            ),
        )
        loads: list[str] = []
        page.on("load", lambda loaded: loads.append(loaded.url))
        page.reload()
        expect(coach).to_contain_text("Numbers")
        page.evaluate("window.same = true")
        # Another module, the rules: the version was found already, so no more loads afresh.
        page.click(".roombar [data-act=rules]")
        expect(page.locator("dialog .prose")).to_be_visible()
        assert page.evaluate("window.same") is True
        assert len(loads) == 2, loads  # the reload, and once afresh
        assert set(builds(page).values()) == {"old"}, builds(page)
    finally:
        other.stop()
