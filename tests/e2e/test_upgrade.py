"""A host upgrades the server under an installed client: the server restarts on the same
address and database, serving changed client files. Its players get the new files, all of
them, and keep their seats.

The server runs from a copy of ``app/`` and ``frontend/`` (the server serves the client beside
its code), its files dated ten days back as a checkout of then would be; an upgrade changes a
file of the copy, dated now, and restarts the server."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests import server as servers
from tests.e2e.conftest import E2E_SETTINGS, Pages, pages_on
from tests.e2e.ui import expect, wait_for
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
        for path in (folder / "frontend" / "js").rglob("*.js"):
            self.change(path.relative_to(folder / "frontend" / "js").as_posix(), "old")
        then = time.time() - TEN_DAYS
        for path in (folder / "frontend").rglob("*"):
            os.utime(path, (then, then))

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


def upgrade(host: Server, copy: Copy, module: str, build: str) -> None:
    """Stop the server, change a client module, start it again at the same address."""
    host.stop()
    copy.change(module, build)
    host.start()


KEPT = """async (path) => {
  const names = await caches.keys();
  return Promise.all(names.map(async (name) => [name, await (await caches.open(name)).match(path)
    .then((answer) => answer?.text() ?? '')]));
}"""


def test_after_an_upgrade_the_next_page_runs_the_new_files_and_keeps_them_offline(
    players: Pages, host: Server, copy: Copy
) -> None:
    page = players.open("/", worker=True)
    page.reload()  # now through the worker, which has kept the shell
    wait_for(page, "navigator.serviceWorker.controller !== null")
    expect(page.locator("#name")).to_be_visible()
    assert page.evaluate("globalThis.ran['home.js']") == "old"
    upgrade(host, copy, "home.js", "new")
    page.reload()
    expect(page.locator("#name")).to_be_visible()
    assert page.evaluate("globalThis.ran['home.js']") == "new"
    # The new worker keeps the new files: closed and opened again, offline, the page is new.
    context = page.context
    page.close()
    page = players.open(None, context=context)
    page.goto(host.url + "/")
    wait_for(
        page,
        "navigator.serviceWorker.getRegistration().then((r) => !!r?.active && !r.waiting"
        " && !r.installing && r.active.state === 'activated')",
        timeout=20,
    )
    kept = dict(page.evaluate(KEPT, "/static/js/home.js"))
    assert len(kept) == 1, kept
    assert "'new'" in next(iter(kept.values()))
