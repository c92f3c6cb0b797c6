"""Browser tests: Debian's Chromium driven by Playwright against a real server.

Without /usr/bin/chromium (or the playwright package) these tests skip, unless REQUIRE_BROWSER=1,
when they fail. A browser is never downloaded.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.server import FAST, Address, Server, running_server

CHROMIUM = Path("/usr/bin/chromium")
PLAYWRIGHT_DISABLED_FEATURES = [
    "AvoidUnnecessaryBeforeUnloadCheckSync",
    "DestroyProfileOnBrowserClose",
    "HttpsUpgrades",
    "HttpsFirstBalancedModeAutoEnable",
    "LensOverlay",
    "MediaRouter",
    "PaintHolding",
    "ThirdPartyStoragePartitioning",
    "AvoidCorsURLLoaderRestartOnRedirect",
    "TcpPortRandomizationWin",
    "OptimizationHints",
    "NetworkTimeServiceQuerying",
    "AimEnabled",
    "PreconnectToSearch",
    "msForceBrowserSignIn",
    "msEdgeUpdateLaunchServicesPreferredVersion",
    "CDPScreenshotNewSurface",
    "SkipListAccountsWithoutGaiaCookies",
]
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    # Chromium reads the last --disable-features only, and Playwright passes its own first:
    # this one repeats Playwright's (1.65) and adds the omnibox pop-ups a headless window
    # preloads, two renderers a window that are never shown and would only use the cores.
    # test_browser_flags checks that nothing of Playwright's is dropped.
    "--disable-features="
    + ",".join(
        [
            *PLAYWRIGHT_DISABLED_FEATURES,
            "WebUIOmniboxPopup",
            "WebUIOmniboxAimPopup",
        ]
    ),
]
SCREENSHOTS = Path(__file__).parent / "screenshots"
# Pictures are taken only for `make screenshots`; tests skip the steps that only serve them.
PICTURES = os.environ.get("SCREENSHOTS") == "1"
DESKTOP = {"width": 1280, "height": 860}
PHONE = {"width": 360, "height": 740}
# Rate limits out of the way; between rounds the players' "ready" deals, not the clock; bots
# play at once, and never stand in for someone a test keeps away on purpose.
E2E_SETTINGS = {**FAST, "READY_SECONDS": "60", "BOT_DELAY_SECONDS": "0.2", "STANDIN_SECONDS": "600"}


def _unavailable(reason: str) -> None:
    if os.environ.get("REQUIRE_BROWSER") == "1":
        pytest.fail(f"REQUIRE_BROWSER=1 but {reason}")
    pytest.skip(reason, allow_module_level=True)


def require_playwright() -> Any:
    """Playwright's sync API module; skips (or with REQUIRE_BROWSER=1 fails) without it."""
    try:
        from playwright import sync_api
    except ImportError:
        _unavailable("the playwright Python package is not installed (pip install playwright)")
    return sync_api


@pytest.fixture(scope="package")
def playwright() -> Iterator[Any]:
    """Playwright's sync API, started once for the browser tests."""
    if not CHROMIUM.exists():
        _unavailable(f"no browser at {CHROMIUM} (install Debian's chromium package)")
    with require_playwright().sync_playwright() as started:
        yield started


@pytest.fixture(scope="package")
def browser(playwright: Any) -> Iterator[Any]:
    """Headless Chromium from Debian, never a downloaded one."""
    launched = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
    yield launched
    launched.close()


@pytest.fixture(scope="package")
def e2e_server() -> Iterator[Server]:
    """One real server with a fresh database for the browser tests."""
    with running_server(**E2E_SETTINGS) as started:
        yield started


class Pages:
    """Opens pages in fresh browser contexts (each its own local storage) and notes JS errors."""

    def __init__(self, browser: Any, server: Address) -> None:
        self.browser = browser
        self.server = server
        self.contexts: list[Any] = []
        self.errors: list[str] = []

    def open(
        self,
        path: str | None = "/",
        phone: bool = False,
        context: Any = None,
        motion: bool = False,
        locale: str = "en-US",
        dark: bool = False,
        worker: bool = False,
    ) -> Any:
        """A page at ``path``: desktop size, or a 360 px wide touch phone; in English unless
        another ``locale`` is asked for, in the light theme unless ``dark``.

        Reduced motion is asked for (animations never stand between a test and the state),
        unless ``motion``. The site's service worker runs only with ``worker``: in a fresh
        context it fetches and stores the whole shell, work the tests of the worker itself and
        of a whole round through it need, and the others would only wait for.
        """
        if context is None:
            options: dict[str, Any] = {
                "viewport": PHONE if phone else DESKTOP,
                "reduced_motion": "no-preference" if motion else "reduce",
                "locale": locale,
                "color_scheme": "dark" if dark else "light",
                "service_workers": "allow" if worker else "block",
            }
            if phone:
                options.update(is_mobile=True, has_touch=True, device_scale_factor=2)
            context = self.browser.new_context(**options)
            self.contexts.append(context)
        page = context.new_page()
        page.set_default_timeout(8000)
        page.on("pageerror", lambda error: self.errors.append(f"{page.url}: {error}"))
        page.on(
            "console",
            lambda message: (
                message.type == "error"
                and "WebSocket" not in message.text
                and "Failed to load resource" not in message.text
                and self.errors.append(f"{page.url}: console: {message.text}")
            ),
        )
        if path:
            page.goto(self.server.url + path)
        return page

    def close(self) -> None:
        for context in self.contexts:
            context.close()


def pages_on(browser: Any, server: Server) -> Iterator[Pages]:
    """Browser pages against ``server``, closed after; any uncaught JS error fails the test."""
    opened = Pages(browser, server)
    yield opened
    opened.close()
    assert opened.errors == [], "JavaScript errors:\n" + "\n".join(opened.errors)


@pytest.fixture
def pages(browser: Any, e2e_server: Server) -> Iterator[Pages]:
    """Browser pages against the shared server."""
    yield from pages_on(browser, e2e_server)


@pytest.fixture(scope="module")
def own_server() -> Iterator[Server]:
    """A server of the module's own, for tests whose history others must not add to or count
    (the shared server's history is counted by other tests)."""
    with running_server(**E2E_SETTINGS) as started:
        yield started


@pytest.fixture
def own_pages(browser: Any, own_server: Server) -> Iterator[Pages]:
    """Browser pages against the module's own server."""
    yield from pages_on(browser, own_server)


@pytest.fixture
def shot() -> Callable[[Any, str], None]:
    """Save a full-page screenshot under tests/e2e/screenshots/ (to look at, not compared) when
    SCREENSHOTS=1 (`make screenshots`); otherwise nothing, as pictures nobody looks at would
    cost a tenth of the browser tests' time."""
    if PICTURES:
        SCREENSHOTS.mkdir(exist_ok=True)

    def save(page: Any, name: str) -> None:
        if not PICTURES:
            return
        page.evaluate(
            "document.getAnimations().forEach((a) => a.effect.getTiming().iterations === Infinity"
            " || a.finish())"
        )
        page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=True)

    return save


def scroll_width(page: Any) -> int:
    """How wide the page's content is; more than the viewport means horizontal scrolling."""
    width: int = page.evaluate("document.documentElement.scrollWidth")
    return width


ROOM_URL = re.compile(r"/r/([0-9A-Z]{4}-[0-9A-Z]{4})$")
