"""While the database is away play goes on; finished rounds wait and are saved when it returns."""

import asyncio
import random
import time

import httpx

from tests.databases import postgres_database, set_connections_allowed
from tests.play import play_until
from tests.rooms.client import Client, create_room, join_room
from tests.server import FAST, running_server


async def test_rounds_wait_for_the_database_and_are_saved_when_it_returns() -> None:
    with postgres_database() as url, running_server(url, **FAST) as server:
        room = create_room(server, "Ann", rounds=2, turn_seconds=0)
        bob = join_room(server, room["code"], "Bob")
        clients = [Client(server, room["code"], token) for token in (room["token"], bob["token"])]
        for client in clients:
            await client.connect()
        await clients[0].act("start")
        rng = random.Random(3)
        await play_until(clients, rng, lambda s: s["status"] == "round_over")
        match_id = clients[0].view["match_id"]
        assert httpx.get(f"{server.url}/readyz").status_code == 200

        set_connections_allowed(url, False)
        try:
            await play_until(clients, rng, lambda s: s["status"] == "finished")
            ready = httpx.get(f"{server.url}/readyz")
            assert ready.status_code == 503
            assert ready.json()["backlog"] >= 1
            assert ready.json()["status"] == "degraded"
            down = httpx.get(f"{server.url}/api/matches/{match_id}")
            assert down.status_code == 503
            assert down.json()["code"] == "database_unavailable"
        finally:
            set_connections_allowed(url, True)

        deadline = time.monotonic() + 60
        while httpx.get(f"{server.url}/readyz").status_code != 200:
            assert time.monotonic() < deadline, httpx.get(f"{server.url}/readyz").text
            await asyncio.sleep(0.5)
        stored = httpx.get(f"{server.url}/api/matches/{match_id}").json()
        assert [played["number"] for played in stored["rounds"]] == [1, 2]
        assert stored["status"] == "finished"
        results = clients[0].view["results"]
        assert [hand["total"] for hand in stored["rounds"][1]["hands"]] == results[1]["totals"]
        for client in clients:
            await client.close()
