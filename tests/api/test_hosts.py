"""The names the server answers to. A page whose own name was made to resolve to the server's
address (DNS rebinding) talks to it as its own origin; only the Host header still names the
page's site, and the server refuses it (403), WebSockets included, before anything runs."""

from __future__ import annotations

import re
from collections.abc import Iterator

import orjson
import pytest

from tests import fetch
from tests.api.test_heads import exchange
from tests.rooms.client import create_room
from tests.server import FAST, Server, running_server

SETTINGS = {
    "PUBLIC_URL": "https://cards.example.org",
    "ALLOWED_ORIGINS": "https://other.example",
    "ALLOWED_HOSTS": ".friends.example, Play.LAN",
}


@pytest.fixture(scope="module")
def server() -> Iterator[Server]:
    with running_server(**{**FAST, **SETTINGS}) as server:
        yield server


def rooms_held(server: Server) -> int:
    metrics = fetch.get(f"{server.url}/metrics").text
    found = re.search(r"^spectrum_rooms (\S+)$", metrics, re.M)
    assert found, metrics
    return int(float(found.group(1)))


def as_named(server: Server, name: str) -> dict[str, str]:
    """Headers of a request that names the server ``name`` (with its port, as browsers do)."""
    return {"Host": f"{name}:{server.port}"}


ALLOWED = [
    "127.0.0.1",
    "[::1]",
    "localhost",
    "LocalHost",
    "app.localhost",
    "cards.example.org",  # PUBLIC_URL's
    "other.example",  # an allowed origin's
    "friends.example",
    "ann.friends.example",
    "play.lan",
    "play.lan.",
]
REFUSED = [
    "evil.example",
    "127.0.0.1.evil.example",
    "localhost.evil.example",
    "evilfriends.example",
    "play.lan.evil.example",
    "cards.example.org.evil.example",
]


def test_a_rooms_share_link_is_public_urls_at_its_creation_and_after(server: Server) -> None:
    room = create_room(server)
    link = f"https://cards.example.org/r/{room['code']}"
    assert room["url"] == link
    assert fetch.get(f"{server.url}/api/rooms/{room['code']}").json()["url"] == link


@pytest.mark.parametrize("name", ALLOWED)
def test_the_names_the_server_was_given_are_answered(server: Server, name: str) -> None:
    answer = fetch.get(f"{server.url}/api/matches", headers=as_named(server, name))
    assert answer.status_code == 200, answer.text
    page = fetch.get(f"{server.url}/", headers=as_named(server, name))
    assert page.status_code == 200
    assert "<html" in page.text


@pytest.mark.parametrize("name", REFUSED)
def test_other_names_are_refused_403_and_told_how_to_allow_them(server: Server, name: str) -> None:
    for path in ("/", "/api/matches", "/static/js/app.js", "/r/ABCDEF"):
        answer = fetch.get(f"{server.url}{path}", headers=as_named(server, name))
        assert answer.status_code == 403, (path, answer.text)
        assert answer.json()["code"] == "unknown_host"
        assert f"ALLOWED_HOSTS={name}" in answer.json()["detail"]


def test_a_refused_name_changes_nothing(server: Server) -> None:
    before = rooms_held(server)
    answer = fetch.post(
        f"{server.url}/api/rooms",
        json={"name": "Mallory", "settings": {}},
        headers={
            **as_named(server, "evil.example"),
            "Origin": f"http://evil.example:{server.port}",
        },
    )
    assert answer.status_code == 403
    assert rooms_held(server) == before
    create_room(server)  # the same request under the server's own name is answered
    assert rooms_held(server) == before + 1


def test_a_refused_name_is_said_back_short(server: Server) -> None:
    name = "x" * 60 + "." + "y" * 60 + ".example"
    answer = fetch.get(f"{server.url}/", headers=as_named(server, name))
    assert answer.status_code == 403
    assert name[:100] in answer.json()["detail"]
    assert name not in answer.json()["detail"]


def get_naming(server: Server, path: str, *hosts: str) -> tuple[int, bytes]:
    """The status and body of a GET of ``path`` sent with a Host header for each of ``hosts``,
    read until the server closes the connection."""
    lines = [f"GET {path} HTTP/1.1", *(f"Host: {host}" for host in hosts), "Connection: close"]
    answer = exchange(server, "\r\n".join([*lines, "", ""]).encode())
    head, _, body = answer.partition(b"\r\n\r\n")
    return int(head.split(None, 2)[1]), body


def test_a_request_naming_the_server_twice_is_refused_400(server: Server) -> None:
    """Two Host headers are refused whichever comes first (the first was read, so a proxy in
    front that checked the last one would pass a name the server refuses), WebSockets too."""
    own, evil = as_named(server, "localhost")["Host"], as_named(server, "evil.example")["Host"]
    for hosts in ([own, evil], [evil, own], [own, own]):
        for path in ("/api/matches", "/", "/static/js/app.js"):
            status, body = get_naming(server, path, *hosts)
            assert status == 400, (hosts, path, body)
            assert orjson.loads(body)["code"] == "bad_request"
            assert "one Host header" in orjson.loads(body)["detail"]
    assert get_naming(server, "/api/matches", own)[0] == 200
    room = create_room(server)
    # Header names are read in any case: "host" is a second Host header.
    twice = {"Host": own, "host": evil, "Origin": f"http://{own}"}
    status, _, body = fetch.refused_handshake(server.port, f"/ws/rooms/{room['code']}", twice)
    assert (status, orjson.loads(body)["code"]) == (403, "bad_request")
    assert handshake(server, room["code"], "localhost") == 101


@pytest.mark.parametrize("path", ["/healthz", "/readyz", "/metrics"])
def test_health_and_metrics_answer_under_any_name(server: Server, path: str) -> None:
    """Probes and scrapers call a server by their own network's name for it."""
    answer = fetch.get(f"{server.url}{path}", headers=as_named(server, "app.internal"))
    assert answer.status_code in (200, 503), answer.text
    assert answer.status_code == fetch.get(f"{server.url}{path}").status_code


def handshake(server: Server, code: str, name: str) -> int:
    """The status the server answers a browser's WebSocket handshake with, from a page at
    ``http://name:port`` that reached the server under that name."""
    named = f"{name}:{server.port}"
    return fetch.handshake_status(
        server.port, f"/ws/rooms/{code}", {"Host": named, "Origin": f"http://{named}"}
    )


def test_a_websocket_under_another_name_is_refused_though_its_origin_matches(
    server: Server,
) -> None:
    room = create_room(server)
    assert handshake(server, room["code"], "evil.example") == 403
    assert handshake(server, room["code"], "localhost") == 101
    # The refusal says why, as an HTTP request's does, with the safety headers every answer has.
    named = f"evil.example:{server.port}"
    status, headers, body = fetch.refused_handshake(
        server.port, f"/ws/rooms/{room['code']}", {"Host": named, "Origin": f"http://{named}"}
    )
    assert status == 403
    assert headers["content-type"] == "application/json"
    fetch.assert_safety_headers(headers)
    refusal = orjson.loads(body)
    assert refusal["code"] == "unknown_host"
    assert "ALLOWED_HOSTS=evil.example" in refusal["detail"]


def test_a_star_answers_every_name() -> None:
    with running_server(**{**FAST, "ALLOWED_HOSTS": "*"}) as server:
        answer = fetch.get(f"{server.url}/api/matches", headers=as_named(server, "evil.example"))
        assert answer.status_code == 200


def test_without_settings_only_addresses_and_localhost_are_answered() -> None:
    with running_server(**FAST) as server:
        for name, status in [("127.0.0.1", 200), ("localhost", 200), ("cards.example.org", 403)]:
            answer = fetch.get(f"{server.url}/api/matches", headers=as_named(server, name))
            assert answer.status_code == status, name


@pytest.mark.parametrize(
    "path",
    ["/api/players/Ann%0A", "/api/matches%0A", "/rules%0A", "/healthz%0A", "/static/js/app.js%0A"],
)
def test_a_path_holding_a_control_character_is_not_found(server: Server, path: str) -> None:
    """A route's pattern would take ``/api/players/Ann%0A`` for Ann's page: its ``$`` matches
    before a final line break."""
    answer = fetch.get(f"{server.url}{path}")
    assert answer.status_code == 404, answer.text
    assert answer.json()["code"] == "bad_path"


def test_a_websocket_path_holding_a_control_character_is_refused(server: Server) -> None:
    room = create_room(server)
    named = f"localhost:{server.port}"
    headers = {"Host": named, "Origin": f"http://{named}"}
    status, said, body = fetch.refused_handshake(
        server.port, f"/ws/rooms/{room['code']}%0A", headers
    )
    assert status == 403
    fetch.assert_safety_headers(said)
    assert orjson.loads(body)["code"] == "bad_path"
    assert fetch.handshake_status(server.port, f"/ws/rooms/{room['code']}", headers) == 101
