"""A link that dies without closing: the server's pings find it; the others see the player away."""

from tests.rooms.client import close_all, open_table
from tests.server import FAST, running_server


async def test_a_silent_dead_link_is_seen_as_away() -> None:
    with running_server(**FAST, HEARTBEAT_SECONDS="1") as server:
        table = await open_table(server, players=2)
        ann, bob = table.players
        assert ann.state is not None
        assert [player["connected"] for player in ann.state["players"]] == [True, True]
        # Bob's device stops reading, as a phone losing its network does: nothing answers pings.
        assert bob.ws is not None
        bob.ws.transport.pause_reading()
        # Found after one ping and its wait (2 s here); uvicorn's own default would take 40 s.
        await ann.wait_for(lambda s: not s["players"][1]["connected"], timeout=20)
        assert ann.state["players"][0]["connected"]
        assert "Traceback" not in server.logs()
        bob.ws.transport.abort()  # the dead device's socket, which nothing reads any more
        await close_all()
