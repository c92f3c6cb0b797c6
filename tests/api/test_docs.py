"""The API's documentation pages, /docs and /redoc: everything they load comes from this server."""

from __future__ import annotations

import re

import pytest

from tests import fetch
from tests.server import Server

ASSET = re.compile(r"""(?:src|href)=["']?([^"'\s>]+)""")


def policy(answer_headers: dict[str, str]) -> dict[str, list[str]]:
    directives = answer_headers["content-security-policy"].split(";")
    return {name: rest for name, *rest in (part.split() for part in directives)}


@pytest.mark.parametrize("path", ["/docs", "/redoc"])
def test_the_docs_load_nothing_from_another_site(server: Server, path: str) -> None:
    answer = fetch.get(server.url + path)
    assert answer.status_code == 200
    assert answer.headers["content-type"].startswith("text/html")
    assert "//" not in " ".join(ASSET.findall(answer.text)), answer.text
    rules = policy(dict(answer.headers))
    assert rules["default-src"] == ["'self'"]
    assert [source for source in rules["script-src"] if not source.startswith("'sha256-")] == [
        "'self'"
    ]
    assert rules["connect-src"] == ["'self'"]
    assert rules["img-src"] == ["'self'", "data:"]
    assert rules["frame-ancestors"] == ["'none'"]
    # ReDoc alone searches in a worker it starts from a blob.
    assert rules.get("worker-src") == (["'self'", "blob:"] if path == "/redoc" else None)
    # Each of its scripts, styles and icon is served, as what it is.
    kinds = {".js": "text/javascript", ".css": "text/css", ".svg": "image/svg+xml"}
    assets = ASSET.findall(answer.text)
    assert any(asset.endswith(".js") for asset in assets), answer.text
    for asset in assets:
        served = fetch.get(server.url + asset)
        assert served.status_code == 200, asset
        assert served.headers["content-type"].startswith(kinds[asset[asset.rindex(".") :]])
        assert served.headers["cache-control"] == "no-cache"
        again = fetch.get(server.url + asset, headers={"If-None-Match": served.headers["etag"]})
        assert again.status_code == 304, asset


def test_a_file_the_docs_do_not_have_is_a_json_404(server: Server) -> None:
    # The package's code is one folder up from its files: never served.
    for path in (
        "/docs/static/nothing.js",
        "/docs/static/%2e%2e/core.py",
        "/docs/static/..%2fcore.py",
    ):
        answer = fetch.get(server.url + path)
        assert answer.status_code == 404, path
        assert answer.json()["code"] == "not_found"


def test_the_docs_describe_the_api_and_are_not_in_it(server: Server) -> None:
    paths = fetch.get(server.url + "/openapi.json").json()["paths"]
    assert "/api/leaderboard" in paths
    assert not {"/docs", "/redoc", "/docs/oauth2-redirect"} & set(paths)
    assert 'url: "/openapi.json"' in fetch.get(server.url + "/docs").text.replace("'", '"')


def test_each_room_route_lists_the_refusals_it_gives(server: Server) -> None:
    """Not one list for all three: making a room is never answered 404 or 409, and each may be
    answered 503, with the codes of docs/protocol.md."""
    paths = fetch.get(server.url + "/openapi.json").json()["paths"]

    def refusals(path: str, method: str) -> dict[str, str]:
        answers = paths[path][method]["responses"]
        return {status: answers[status]["description"] for status in answers if status >= "4"}

    made = refusals("/api/rooms", "post")
    assert sorted(made) == ["413", "422", "429", "503"]
    assert "server_full" in made["503"]
    assert "too_many_rooms" in made["429"]
    joined = refusals("/api/rooms/{code}/join", "post")
    assert sorted(joined) == ["404", "409", "413", "422", "429", "503"]
    for code in ("already_started", "room_full", "name_taken"):
        assert code in joined["409"]
    for code in ("restoring", "not_saved", "room_moved", "database_unavailable"):
        assert code in joined["503"]
    seen = refusals("/api/rooms/{code}", "get")
    assert sorted(seen) == ["404", "422", "429", "503"]
    assert "too_many_misses" in seen["429"]
    # The room's QR code is refused as the room is.
    assert refusals("/api/rooms/{code}/qr.svg", "get") == seen
    # Every route that takes a body may be answered 413 too_large, and says so; no other does.
    for path, methods in paths.items():
        for method, route in methods.items():
            too_large = refusals(path, method).get("413", "")
            assert ("too_large" in too_large) == ("requestBody" in route), (method, path)
    assert "requestBody" in paths["/api/score"]["post"]
