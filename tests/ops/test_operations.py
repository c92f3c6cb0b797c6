"""Health, readiness, Prometheus metrics and logs of a running server."""

import asyncio
import json
import random
import time

from websockets.asyncio.client import connect

from tests import fetch
from tests.play import play_until
from tests.rooms.client import Client, create_room, join_room
from tests.server import FAST, running_server


def metric(text: str, name: str) -> float:
    """The value of the sample named exactly ``name`` (labels included)."""
    for line in text.splitlines():
        sample, _, value = line.rpartition(" ")
        if sample == name:
            return float(value)
    raise AssertionError(f"{name} not in metrics")


async def test_metrics_logs_and_health() -> None:
    with running_server(**FAST, LOG_JSON="true", LOG_LEVEL="debug") as server:
        assert fetch.get(f"{server.url}/healthz").json() == {"status": "ok"}
        ready = fetch.get(f"{server.url}/readyz").json()
        assert ready["status"] == "ready"
        assert ready["backlog"] == 0

        room = create_room(server, "Ann", rounds=1, turn_seconds=0)
        bob = join_room(server, room["code"], "Bob")
        tokens = [room["token"], bob["token"]]
        clients = [Client(server, room["code"], token) for token in tokens]
        for client in clients:
            await client.connect()
        watcher = Client(server, room["code"])
        await watcher.connect()
        await clients[0].act("start")
        rng = random.Random(2)
        await play_until(clients, rng, lambda s: s["status"] == "finished", knock_chance=0.2)
        await clients[1].send({"type": "knock"})  # refused: the round is over

        text = fetch.get(f"{server.url}/metrics").text
        assert metric(text, "spectrum_rooms") == 1
        assert metric(text, 'spectrum_connections{role="player"}') == 2
        assert metric(text, 'spectrum_connections{role="spectator"}') == 1
        assert metric(text, 'spectrum_actions_total{outcome="accepted"}') >= 3
        assert metric(text, "spectrum_action_seconds_count") >= 3
        assert metric(text, "spectrum_rounds_saved_total") == 1
        assert metric(text, "spectrum_save_failures_total") == 0
        assert metric(text, "spectrum_storage_backlog") == 0
        assert metric(text, "spectrum_sockets_open") == 3
        ended = metric(text, "spectrum_sockets_ended_total")
        for client in [*clients, watcher]:
            await client.close()
        # Every accepted socket is counted when it ends: those that said hello, and one refused
        # for a room that does not exist.
        async with connect(f"{server.ws_url}/ws/rooms/ZZZZ-ZZZZ", compression=None) as ws:
            await ws.wait_closed()
        deadline = time.monotonic() + 30  # each handler ends after its close handshake
        while True:
            text = fetch.get(f"{server.url}/metrics").text
            if metric(text, "spectrum_sockets_open") == 0 or time.monotonic() > deadline:
                break
            await asyncio.sleep(0.05)
        assert metric(text, "spectrum_sockets_ended_total") == ended + 4
        assert metric(text, "spectrum_sockets_open") == 0

        # A token in the URL and one spelled with a JSON escape, at debug level.
        url = f"{server.ws_url}/ws/rooms/{room['code']}?token={tokens[1]}"
        async with connect(url, compression=None) as ws:
            await ws.send('{"type": "hello", "\\u0074oken": "' + tokens[0] + '"}')
            assert json.loads(await ws.recv())["type"] == "state"

    logs = server.logs()
    lines = [line for line in logs.splitlines() if line.strip()]
    assert lines
    for line in lines:
        entry = json.loads(line)
        assert {"time", "level", "logger", "message"} <= set(entry)
    for token in tokens:
        assert token not in logs
    assert "[accepted]" in logs
    assert '"hand"' not in logs
    assert "< TEXT [" in logs
