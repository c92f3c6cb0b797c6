"""A server killed with SIGKILL mid-round comes back with every room, and no round is lost."""

import random
import signal
from typing import Any

from tests import fetch
from tests.play import play_until
from tests.rooms.client import Client, create_room, join_room
from tests.server import FAST, migrate, server_env, start_server


def comparable(state: dict[str, Any]) -> dict[str, Any]:
    """A view without what a restart rightly changes: presence and deadlines."""
    players = [{**player, "connected": None} for player in state["players"]]
    current = dict(state["round"] or {}, deadline=None)
    return {**state, "players": players, "round": current, "ready_deadline": None}


async def test_sigkill_mid_round_loses_nothing(database_url: str) -> None:
    migrate(database_url)
    server = start_server(server_env(HOST="127.0.0.1", DATABASE_URL=database_url, **FAST))
    try:
        room = create_room(server, "Ann", rounds=3, turn_seconds=0)
        seats = [room] + [join_room(server, room["code"], name) for name in ("Bob", "Cy")]
        clients = [Client(server, room["code"], seat["token"]) for seat in seats]
        for client in clients:
            await client.connect()
        await clients[0].act("start")
        rng = random.Random(7)
        # Into the second round, a few turns in, with a card taken but not yet discarded.
        await play_until(
            clients,
            rng,
            lambda s: (
                len(s["results"]) == 1
                and s["status"] == "playing"
                and s["round"]["discard"]["count"] >= 3
                and s["round"]["turn"]["pending"] > 0
            ),
        )
        before = [comparable(client.view) for client in clients]
        match_id = clients[0].view["match_id"]

        server.stop(signal.SIGKILL)
        for client in clients:
            assert (await client.wait_closed())[0] == 1006

        server.start()
        clients = [Client(server, room["code"], seat["token"]) for seat in seats]
        for client in clients:
            await client.connect()
        for client, expected in zip(clients, before, strict=True):
            await client.wait_for(lambda s: all(p["connected"] for p in s["players"]))
            assert comparable(client.view) == expected

        await play_until(clients, rng, lambda s: s["status"] == "finished")
        results = clients[0].view["results"]
        assert [result["number"] for result in results] == [1, 2, 3]

        stored = fetch.get(f"{server.url}/api/matches/{match_id}").json()
        assert [played["number"] for played in stored["rounds"]] == [1, 2, 3]
        assert stored["status"] == "finished"
        for played, shown in zip(stored["rounds"], results, strict=True):
            assert played["seed"] == shown["seed"]
            assert [hand["cards"] for hand in played["hands"]] == [
                hand["cards"] for hand in shown["hands"]
            ]
            assert [hand["total"] for hand in played["hands"]] == shown["totals"]
        listed = fetch.get(f"{server.url}/api/matches", params={"player": "bob"}).json()
        assert [match["id"] for match in listed["matches"]] == [match_id]
        for client in clients:
            await client.close()
    finally:
        server.stop()
