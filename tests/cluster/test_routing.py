"""Through nginx: new rooms spread over the nodes, every HTTP route answers from any node, the
room's socket reaches its owner, and whole matches play.

No test here stops or pauses a node, so they share one cluster, each with rooms of its own,
and its leases are steady: each test reads where a room is, then counts on it staying there.
"""

from __future__ import annotations

import contextlib
import random
from collections.abc import Iterator

import pytest
from websockets.exceptions import ConnectionClosed

from tests import fetch
from tests.cluster.harness import (
    CLOSE_MOVED,
    STEADY_LEASE_MS,
    Cluster,
    ClusterClient,
    running_cluster,
)
from tests.play import play_until


@pytest.fixture(scope="module")
def cluster() -> Iterator[Cluster]:
    with running_cluster(LEASE_MS=STEADY_LEASE_MS) as started:
        yield started


async def test_rooms_created_through_nginx_land_on_every_node(cluster: Cluster) -> None:
    owners: dict[str, str] = {}
    for n in range(60):
        room = cluster.create_room(f"P{n}")
        owners[room["code"]] = cluster.owner(room["code"])
        assert room["socket"] == f"/n/{owners[room['code']]}/ws/rooms/{room['code']}"
        if set(owners.values()) == set(cluster.ids):
            break
    assert set(owners.values()) == set(cluster.ids)
    for node in cluster.ids:
        assert cluster.metrics(node)[f'spectrum_rooms_owned{{node="{node}"}}'] >= 1


@pytest.mark.parametrize("players", [2, 4, 6])
async def test_a_match_plays_through_nginx(cluster: Cluster, players: int) -> None:
    room = cluster.create_room("P0", rounds=1, turn_seconds=0, max_players=players)
    code, tokens = room["code"], [room["token"]]
    for seat in range(1, players):
        joined = cluster.join_room(code, f"P{seat}")
        assert joined["socket"] == room["socket"]
        tokens.append(joined["token"])
    clients = [ClusterClient(cluster, code, token) for token in tokens]
    for client in clients:
        await client.connect()
    await clients[0].act("start")
    await play_until(clients, random.Random(players), lambda s: s["status"] == "finished")
    history = cluster.api("GET", f"/api/matches/{clients[0].view['match_id']}")
    assert history.status_code == 200
    assert len(history.json()["rounds"]) == 1
    for client in clients:
        await client.close()


async def test_a_socket_at_a_node_that_does_not_own_the_room_is_sent_to_the_owner(
    cluster: Cluster,
) -> None:
    room = cluster.create_room("Ann")
    owner = cluster.owner(room["code"])
    other = next(node for node in cluster.ids if node != owner)
    client = ClusterClient(cluster, room["code"], room["token"])
    # Straight at the wrong node, by its prefix: answered "moved" with the owner's path.
    client_path = f"/n/{other}/ws/rooms/{room['code']}"
    from websockets.asyncio.client import connect

    async with connect(f"{cluster.front.ws_url}{client_path}") as ws:
        # The node may close before the hello is sent: the close is what is checked.
        with contextlib.suppress(ConnectionClosed):
            await ws.send('{"type": "hello", "spectate": true}')
        await ws.wait_closed()
        assert ws.close_code == CLOSE_MOVED
        assert ws.close_reason == f"/n/{owner}/ws/rooms/{room['code']}"
    await client.connect()
    assert client.node_paths[-1] in (room["socket"], f"/ws/rooms/{room['code']}")
    # Any node answers the room's HTTP routes, sending requests on to the owner.
    info = fetch.get(
        f"{cluster.front.url}/n/{other}/api/rooms/{room['code']}", follow_redirects=False
    )
    assert info.status_code == 307
    assert info.headers["location"] == f"/n/{owner}/api/rooms/{room['code']}"
    await client.close()
