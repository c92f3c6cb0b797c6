"""What nginx tells the nodes of a request: the address it came from, never one the client
wrote (the nodes trust nginx's word, so a written one would escape the per-address limits), and
the scheme a TLS proxy in front says the player used; and what nginx keeps to the cluster."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests import fetch
from tests.cluster.harness import Cluster, running_cluster


@pytest.fixture(scope="module")
def cluster() -> Iterator[Cluster]:
    with running_cluster(
        count=1, ROOMS_PER_ADDRESS_PER_MINUTE="2", ROOM_MISSES_PER_MINUTE="2"
    ) as started:
        yield started


def test_an_address_the_client_writes_is_not_taken(cluster: Cluster) -> None:
    answers = [
        fetch.post(
            f"{cluster.front.url}/api/rooms",
            json={"name": "Ann"},
            headers={"X-Forwarded-For": f"198.51.100.{n}"},
            follow_redirects=True,
        ).status_code
        for n in range(1, 4)
    ]
    assert answers == [201, 201, 429]


def test_past_its_misses_an_address_is_refused_a_rooms_code_too(cluster: Cluster) -> None:
    """In a cluster too, where a room is sought in Redis: refused only unknown codes, an
    address past its misses would learn which codes are rooms."""
    [node] = cluster.nodes.values()
    made = fetch.post(
        f"{node.url}/api/rooms", json={"name": "Cy"}, headers={"X-Forwarded-For": "203.0.113.10"}
    )
    room = f"{node.url}/api/rooms/{made.json()['code']}"
    guesser = {"X-Forwarded-For": "203.0.113.11"}
    asked = [room, f"{node.url}/api/rooms/ABCD-EFG2", f"{node.url}/api/rooms/ABCD-EFG3"]
    asked += [f"{node.url}/api/rooms/ABCD-EFG4", room]
    answers = [fetch.get(url, headers=guesser) for url in asked]
    assert [answer.status_code for answer in answers] == [200, 404, 404, 429, 429]
    assert answers[4].json() == answers[3].json()
    assert fetch.get(room, headers={"X-Forwarded-For": "203.0.113.12"}).status_code == 200


def handshake(cluster: Cluster, path: str, origin: str, proto: str | None) -> int:
    """The status a WebSocket handshake through nginx is answered with."""
    headers = {"Host": f"127.0.0.1:{cluster.front.port}", "Origin": origin}
    if proto:
        headers["X-Forwarded-Proto"] = proto
    return fetch.handshake_status(cluster.front.port, path, headers)


def test_a_page_at_https_behind_a_tls_proxy_opens_its_socket(cluster: Cluster) -> None:
    # Made at the node itself, which takes the address its trusted neighbour (this test) names:
    # the limit nginx's clients share is the other test's.
    [node] = cluster.nodes.values()
    made = fetch.post(
        f"{node.url}/api/rooms", json={"name": "Bob"}, headers={"X-Forwarded-For": "203.0.113.9"}
    )
    room = made.json()
    page = f"https://127.0.0.1:{cluster.front.port}"
    assert handshake(cluster, room["socket"], page, "https") == 101
    # Without the proxy's word the page's scheme is not the server's, as before.
    assert handshake(cluster, room["socket"], page, None) == 403
    assert handshake(cluster, room["socket"], page, "gopher") == 403


def test_metrics_are_refused_through_nginx_and_answered_by_each_node(cluster: Cluster) -> None:
    [(node_id, node)] = cluster.nodes.items()
    for path in ("/metrics", "/metrics/", f"/n/{node_id}/metrics", "//metrics", "/%6Detrics"):
        assert fetch.get(f"{cluster.front.url}{path}").status_code == 403, path
    assert fetch.get(f"{cluster.front.url}/healthz").status_code == 200
    assert fetch.get(f"{cluster.front.url}/n/{node_id}/healthz").status_code == 200
    assert "spectrum_rooms_owned" in fetch.get(f"{node.url}/metrics").text


def test_a_path_under_a_nodes_prefix_is_not_read_twice(cluster: Cluster) -> None:
    """nginx sends the path under /n/<node>/ on decoded: an escaped '?', '#' or '%' in it would
    be read again by the node, as the end of the path or one more escape (the metrics, which
    nginx refuses, were given for /n/<node>/metrics%3F or /n/<node>/%256Detrics)."""
    [node_id] = cluster.nodes
    for rest in ("metrics%3F", "metrics%3Fx=1", "metrics%23", "metrics/%3F", "%256Detrics"):
        answer = fetch.get(f"{cluster.front.url}/n/{node_id}/{rest}")
        assert answer.status_code in (403, 404), rest
        assert "spectrum_" not in answer.text, rest
    assert fetch.get(f"{cluster.front.url}/n/{node_id}/healthz").status_code == 200
