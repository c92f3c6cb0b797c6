"""SIGTERM: the server saves, closes every socket with 1012 and exits within its grace period."""

import signal
import time

from tests.rooms.client import Client, create_room, join_room
from tests.server import FAST, running_server


async def test_sigterm_closes_with_1012_and_keeps_the_room() -> None:
    with running_server(**FAST) as server:
        room = create_room(server, "Ann", rounds=1, turn_seconds=0)
        bob = join_room(server, room["code"], "Bob")
        clients = [Client(server, room["code"], token) for token in (room["token"], bob["token"])]
        for client in clients:
            await client.connect()
        await clients[0].act("start")
        for client in clients:
            await client.wait_for(lambda s: s["status"] == "playing")
        mover = next(client for client in clients if client.my_turn())
        await mover.act("take", piles=[0])
        hand = list(mover.view["you"]["hand"])

        started = time.monotonic()
        code = server.stop(signal.SIGTERM)
        assert time.monotonic() - started < 12
        assert code in (0, -signal.SIGTERM)  # uvicorn re-raises the signal once it is done
        assert "Application shutdown complete" in server.logs()
        for client in clients:
            closed = await client.wait_closed()
            assert closed == (1012, "the server is restarting")

        server.start()
        again = Client(server, room["code"], mover.token)
        await again.connect()
        assert again.view["you"]["hand"] == hand
        assert again.view["round"]["turn"]["pending"] == 1
        await again.close()
