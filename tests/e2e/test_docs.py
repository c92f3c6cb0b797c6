"""The API's documentation pages in a browser on a network with no way out: Swagger UI at /docs
and ReDoc at /redoc draw the whole API and try requests, from this server's files alone."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

import pytest

from tests.e2e.conftest import DESKTOP
from tests.e2e.ui import expect
from tests.server import Server

# ReDoc's sidebar shows its maker's logo from their site, and hides it when that fails: this
# server's policy refuses it.
REDOC_LOGO = "https://cdn.redoc.ly/redoc/logo-mini.svg"


class Offline:
    """A page whose every request to another site fails, as on a network with no way out."""

    def __init__(self, browser: Any, server: Server) -> None:
        self.context = browser.new_context(viewport=DESKTOP, service_workers="block")
        self.outside: list[str] = []
        self.errors: list[str] = []
        self.context.route(
            "**/*",
            lambda route: (
                route.continue_()
                if route.request.url.startswith(server.url + "/")
                else route.abort("internetdisconnected")
            ),
        )
        self.page = self.context.new_page()
        self.page.set_default_timeout(20_000)
        self.page.on("request", self.request)
        self.page.on("pageerror", lambda error: self.errors.append(str(error)))
        self.page.on(
            "console",
            lambda message: message.type == "error" and self.errors.append(message.text),
        )
        self.server = server

    def request(self, request: Any) -> None:
        if urlsplit(request.url).scheme in ("http", "https") and not request.url.startswith(
            self.server.url + "/"
        ):
            self.outside.append(request.url)


@pytest.fixture
def offline(browser: Any, e2e_server: Server) -> Iterator[Offline]:
    opened = Offline(browser, e2e_server)
    yield opened
    opened.context.close()


def test_swagger_ui_draws_the_api_and_tries_a_request(offline: Offline) -> None:
    page = offline.page
    page.goto(offline.server.url + "/docs")
    expect(page.locator(".info .title")).to_contain_text("Spectrum Online", timeout=20_000)
    expect(page.locator(".opblock-summary-path", has_text="/api/leaderboard")).to_have_count(
        1, timeout=20_000
    )
    health = page.locator(".opblock", has=page.locator("[data-path='/healthz']"))
    health.locator(".opblock-summary").click()
    health.locator("button.try-out__btn").click()
    health.locator("button.execute").click()
    answer = health.locator(".live-responses-table tr.response")
    expect(answer.locator(".response-col_status")).to_have_text("200", timeout=20_000)
    expect(answer.locator(".microlight").first).to_contain_text('"status": "ok"')
    assert offline.outside == []
    assert offline.errors == []


def test_redoc_draws_the_api_and_searches_it(offline: Offline) -> None:
    page = offline.page
    page.goto(offline.server.url + "/redoc")
    expect(page.locator("h1").first).to_contain_text("Spectrum Online", timeout=20_000)
    # Its search runs in a worker made from a blob, which the page's policy lets it start.
    page.fill("input[placeholder='Search...']", "leaderboard")
    expect(page.locator("[role=search] li", has_text="Get Leaderboard")).to_have_count(
        1, timeout=20_000
    )
    assert set(offline.outside) <= {REDOC_LOGO}
    assert [error for error in offline.errors if REDOC_LOGO not in error] == []
