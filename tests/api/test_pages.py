"""The browser client as the server serves it: its pages, its files, its size and QR codes."""

from __future__ import annotations

import base64
import gzip
import hashlib
import json
import re
from pathlib import Path
from urllib.parse import quote

import pytest

from tests import fetch
from tests.server import Server

FRONTEND = Path(__file__).resolve().parents[2] / "frontend"


def the_page(url: str) -> str:
    """index.html as the server at ``url`` serves it: saying which version of the client it is,
    the version its service worker keeps."""
    worker = fetch.get(url + "/sw.js").text
    version = re.search(r"const VERSION = '([0-9a-f]{16})-en';", worker)
    assert version is not None
    page = (FRONTEND / "index.html").read_text()
    assert page.startswith('<!doctype html>\n<html lang="en">\n')
    return page.replace('<html lang="en">', f'<html lang="en" data-v="{version[1]}">', 1)


CLIENT_BUDGET_BYTES = 60 * 1024


def client_files() -> list[Path]:
    return sorted(path for path in FRONTEND.rglob("*") if path.is_file())


def gzipped(path: Path) -> int:
    return len(gzip.compress(path.read_bytes(), 9))


@pytest.mark.parametrize("language", ["en", "fr"])
def test_the_whole_client_in_one_language_is_under_60_kb_gzipped(language: str) -> None:
    """Everything a browser reading ``language`` is given or keeps offline: every file but the
    other languages' words."""
    tables = sorted((FRONTEND / "js" / "lang").glob("*.js"))
    assert [path.stem for path in tables] == ["en", "fr"]
    files = [path for path in client_files() if path not in tables or path.stem == language]
    assert any(path.suffix == ".js" for path in files)
    total = sum(gzipped(path) for path in files)
    assert total < CLIENT_BUDGET_BYTES, f"{total} bytes gzipped"


def test_the_client_fetches_nothing_from_elsewhere() -> None:
    remote = re.compile(r"""(?:src|href|import|from|url\()\s*=?\s*["'(]?\s*(?:https?:)?//""")
    for path in client_files():
        if path.suffix in {".html", ".js", ".css"}:
            assert not remote.search(path.read_text()), path


IMPORT = re.compile(r"^import .* from '\./([\w/.]+)';$", re.M)


def imported_by(module: str) -> set[str]:
    """The client modules ``module`` (a path under js/) needs, itself included."""
    needed, waiting = set(), [module]
    while waiting:
        name = waiting.pop()
        if name not in needed:
            needed.add(name)
            waiting += IMPORT.findall((FRONTEND / "js" / name).read_text())
    return needed


def test_the_patch_module_needs_no_page() -> None:
    """patch.js (the patches and the compact decoder) and unpack.js (MessagePack) need neither
    the page nor the words: the load generator (bench/peers/harness/load.mjs) runs them outside
    a browser."""
    assert imported_by("patch.js") == {"patch.js"}
    assert imported_by("unpack.js") == {"unpack.js"}
    # What the card faces need, found the same way: the page, and the app with its words.
    assert {"dom.js", "app.js"} <= imported_by("cards.js")


CLIENT_PATHS = ["/", "/r/ABCD-EFGH", "/history", "/matches/x1", "/players/Ann", "/calculator"]


@pytest.mark.parametrize("path", [*CLIENT_PATHS, "/rules"])
def test_every_client_path_serves_the_page(server: Server, path: str) -> None:
    response = fetch.get(server.url + path)
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/html")
    assert response.text == the_page(server.url)
    # A browser's copy of this version is still good: no page again. (Its tag is weak: the
    # page went gzipped.)
    tag = response.headers["etag"].removeprefix("W/")
    for asked in (tag, f"W/{tag}", f'"0123456789abcdef", {tag}', "*"):
        again = fetch.get(server.url + path, headers={"If-None-Match": asked})
        assert again.status_code == 304, asked
        assert again.content == b""
        assert again.headers["etag"] == response.headers["etag"]
    other = fetch.get(server.url + path, headers={"If-None-Match": '"0123456789abcdef"'})
    assert other.status_code == 200
    assert other.text == response.text


def test_client_files_are_served_with_their_types(server: Server) -> None:
    script = fetch.get(server.url + "/static/js/app.js")
    assert script.status_code == 200
    assert "javascript" in script.headers["content-type"]
    assert script.content == (FRONTEND / "js" / "app.js").read_bytes()
    style = fetch.get(server.url + "/static/css/app.css")
    assert style.headers["content-type"].startswith("text/css")
    assert fetch.get(server.url + "/static/js/nothing.js").status_code == 404
    assert fetch.get(server.url + "/static/../app/config.py").status_code == 404


def test_every_answer_forbids_sniffing_framing_and_referrers(server: Server) -> None:
    room = fetch.post(server.url + "/api/rooms", json={"name": "Ann"}).json()
    paths = ["/", "/static/js/app.js", "/api/matches", f"/api/rooms/{room['code']}/qr.svg"]
    paths += ["/healthz", "/readyz", "/metrics", "/a%0Ab"]
    answers = [fetch.get(server.url + path) for path in paths]
    answers.append(fetch.get(server.url + "/", headers={"Host": "elsewhere.example"}))
    assert [answer.status_code for answer in answers[-2:]] == [404, 403]
    for answer in answers:
        fetch.assert_safety_headers(answer.headers, answer.url)


def test_the_page_runs_only_this_servers_scripts_and_its_own_inline_one(server: Server) -> None:
    """The page's policy lets its one inline script run (by its hash) and nothing else that
    is not this server's; another site may not frame it. The 404 page is the same page."""
    page = (FRONTEND / "index.html").read_text()
    [inline] = re.findall(r"<script>(.*?)</script>", page, re.S)
    digest = base64.b64encode(hashlib.sha256(inline.encode()).digest()).decode()
    for path in ["/", "/r/ABCD-EFGH", "/no/such/page"]:
        policy = fetch.get(server.url + path).headers["content-security-policy"]
        directives = dict(d.split(" ", 1) for d in policy.split("; "))
        assert directives["script-src"] == f"'self' 'sha256-{digest}'", path
        assert directives["default-src"] == "'self'"
        assert directives["connect-src"] == "'self'"
        assert directives["frame-ancestors"] == "'none'"
        assert directives["object-src"] == "'none'"


def test_a_room_link_comes_as_an_svg_qr_code(server: Server) -> None:
    room = fetch.post(server.url + "/api/rooms", json={"name": "Ann"}).json()
    response = fetch.get(f"{server.url}/api/rooms/{room['code']}/qr.svg")
    assert response.status_code == 200
    assert response.headers["content-type"] == "image/svg+xml"
    assert response.text.startswith("<svg")
    assert f"Link to room {room['code']}" in response.text
    assert room["token"] not in response.text
    missing = fetch.get(f"{server.url}/api/rooms/2222-2222/qr.svg")
    assert missing.status_code == 404
    assert missing.json()["code"] == "no_room"


def test_an_unknown_page_is_the_clients_not_found_page(server: Server) -> None:
    page = fetch.get(server.url + "/no/such/page", headers={"Accept": "text/html"})
    assert page.status_code == 404
    assert page.headers["content-type"].startswith("text/html")
    assert page.text == the_page(server.url)
    for path in ("/api/no-such-thing", "/static/js/nothing.js"):
        missing = fetch.get(server.url + path, headers={"Accept": "text/html"})
        assert missing.status_code == 404
        assert missing.headers["content-type"] == "application/json"
        # Refused as the API refuses anything: a message and a code.
        assert missing.json() == {"detail": "Not Found", "code": "not_found"}
    # A path that exists but for a final "/" is sent to it, as a page's is.
    for path in ("/api/matches/", "/api/leaderboard/", "/history/"):
        moved = fetch.get(server.url + path + "?limit=1")
        assert moved.status_code == 307, path
        assert moved.headers["location"] == server.url + path[:-1] + "?limit=1"
        assert moved.content == b""


@pytest.mark.parametrize(
    "path",
    [
        "/ws/rooms/",
        "/ws/nope",
        "/api/matches",
        "/no/such/page",
        "/static/js/app.js",
        "/docs/static/favicon.png",
    ],
)
def test_a_websocket_where_none_is_served_is_refused_as_an_unknown_path(
    server: Server, path: str
) -> None:
    status, headers, body = fetch.refused_handshake(
        server.port, path, {"Host": f"127.0.0.1:{server.port}"}
    )
    assert status == 404
    assert headers["content-type"] == "application/json"
    fetch.assert_safety_headers(headers, path)
    assert json.loads(body) == {"detail": "Not Found", "code": "not_found"}
    # The handshakes refused on purpose keep their own answers.
    status, _, body = fetch.refused_handshake(
        server.port,
        "/ws/rooms/2222-2222",
        {"Host": f"127.0.0.1:{server.port}", "Origin": "http://evil.example"},
    )
    assert status == 403
    assert json.loads(body)["code"] == "bad_origin"


def test_a_method_a_path_does_not_take_is_refused_as_the_api_refuses(server: Server) -> None:
    refused = fetch.post(server.url + "/api/matches")
    assert refused.status_code == 405
    assert refused.headers["allow"] == "GET, HEAD"  # what it says it takes, it takes
    for method in ("GET", "HEAD"):
        assert fetch.request(method, server.url + "/api/matches").status_code == 200, method
    assert fetch.request("DELETE", server.url + "/api/rooms").headers["allow"] == "POST"
    assert refused.json() == {"detail": "Method Not Allowed", "code": "method_not_allowed"}


@pytest.mark.parametrize("name", ["Zoë / Ω?#名前", "a/b", "?", "#1"])
def test_a_player_page_and_its_api_take_any_name(server: Server, name: str) -> None:
    path = quote(name, safe="")
    page = fetch.get(f"{server.url}/players/{path}")
    assert page.status_code == 200
    assert page.text == the_page(server.url)
    player = fetch.get(f"{server.url}/api/players/{path}")
    assert player.status_code == 404
    assert player.json()["code"] == "no_player"
    assert player.json()["detail"] == f"nobody called {name} has played here"


@pytest.mark.parametrize("name", [" ", "%20%20", "%E2%80%83"])
def test_a_blank_player_name_is_refused_422(server: Server, name: str) -> None:
    """No one's name is blank: a name of spaces alone is a bad request, not an unknown one."""
    answer = fetch.get(f"{server.url}/api/players/{name}")
    assert answer.status_code == 422
    [problem] = answer.json()["detail"]
    assert problem["loc"] == ["path", "name"]
    assert problem["type"] == "bad_name"


@pytest.mark.parametrize(("asked", "kept"), [("", "en"), ("en", "en"), ("fr", "fr"), ("xx", "en")])
def test_the_service_worker_is_served_at_the_root_with_the_shell_it_keeps(
    server: Server, asked: str, kept: str
) -> None:
    answer = fetch.get(server.url + "/sw.js", params={"lang": asked} if asked else None)
    assert answer.status_code == 200
    assert answer.headers["content-type"].startswith("text/javascript")
    assert answer.headers["cache-control"] == "no-cache"
    assert answer.text.endswith((FRONTEND / "sw.js").read_text())
    shell = json.loads(answer.text.split("const SHELL = ", 1)[1].split(";\n", 1)[0])
    # A version of the client's files and of the language: each language's copy is its own.
    version = re.search(rf"const VERSION = '([0-9a-f]{{16}})-{kept}';", answer.text)
    assert version is not None
    # The page, the manifest, and every client file but the worker itself, index.html and the
    # other languages' words.
    files = {f"/static/{path.relative_to(FRONTEND).as_posix()}" for path in client_files()}
    others = {f"/static/js/lang/{name}.js" for name in ("en", "fr") if name != kept}
    assert (
        set(shell)
        == {"/", "/manifest.webmanifest"}
        | files
        - {
            "/static/sw.js",
            "/static/index.html",
        }
        - others
    )
    assert f"/static/js/lang/{kept}.js" in shell
    for path in shell:
        assert fetch.get(server.url + path).status_code == 200, path


def test_the_manifest_is_served_as_a_web_app_manifest(server: Server) -> None:
    answer = fetch.get(server.url + "/manifest.webmanifest")
    assert answer.status_code == 200
    assert answer.headers["content-type"] == "application/manifest+json"
    manifest = answer.json()
    assert manifest["display"] == "standalone"
    assert manifest["start_url"] == "/"
    assert {icon["purpose"] for icon in manifest["icons"]} == {"any", "maskable"}
    index = (FRONTEND / "index.html").read_text()
    assert '<link rel="manifest" href="/manifest.webmanifest">' in index


HAND = re.compile(r"^  \[(\d), '(\w*)', (-?\d+), '([\w -]+)'\],$", re.M)


def test_each_hand_the_rules_page_draws_scores_as_it_is_labelled(server: Server) -> None:
    hands = HAND.findall((FRONTEND / "js" / "rules.js").read_text())
    # One hand for each line of the scoring table in docs/rules.md, and one that scores nothing.
    table = re.findall(r"^\| (\d) \| (\w+) \| (\d+) \|$", (FRONTEND / "rules.md").read_text(), re.M)
    assert [hand[:3] for hand in hands] == [*table, ("0", "", "-5")]
    for complete, sequence, points, cards in hands:
        score = fetch.post(server.url + "/api/score", json={"cards": cards.split()}).json()
        assert len(score["complete"]) == int(complete), cards
        assert (score["sequence"] or "") == sequence, cards
        assert score["points"] == int(points), cards


def test_the_rules_file_holds_only_the_markdown_rules_js_reads() -> None:
    """rules.js reads headings, paragraphs, lists, tables and **bold**: a code span or a link in
    rules.md would show as its raw marks."""
    source = (FRONTEND / "rules.md").read_text()
    assert "`" not in source
    assert not re.search(r"\]\(", source)
