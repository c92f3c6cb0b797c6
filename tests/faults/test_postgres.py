"""PostgreSQL behind a proxy the test controls: blackholed, cut, or gone when the server stops.

For each fault: the room tells its players within a bounded time instead of freezing, every
acknowledged move is there after recovery and a restart, and every round shown is stored once
with the totals shown.
"""

import signal
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager

from tests import fetch
from tests.databases import postgres_database
from tests.faults.proxy import Proxy, proxy_to
from tests.faults.table import HELD, Table, new_server, ready, told_held, until
from tests.server import Server


@contextmanager
def server_behind_proxy() -> Iterator[tuple[Server, Proxy]]:
    with (
        postgres_database() as url,
        proxy_to(url) as proxy,
        tempfile.TemporaryDirectory() as folder,
    ):
        server = new_server(proxy.url_for(url), OUTBOX_PATH=f"{folder}/outbox")
        server.start()
        try:
            yield server, proxy
        finally:
            server.stop(signal.SIGKILL)


async def hold_a_move(table: Table) -> None:
    """Send a move that the database cannot take; wait until every player is told."""
    mover = next(client for client in table.clients if client.my_turn())
    await mover.send({**mover.random_move(table.rng), "id": "held"})
    for client in table.clients:
        await until(lambda c=client: told_held(c), 60, "every player told")
    assert mover.answers["held"]["code"] == HELD
    table.told = len(table.clients)


async def test_a_blackholed_database_is_told_then_recovered_and_nothing_shown_is_lost() -> None:
    with server_behind_proxy() as (server, proxy):
        table = Table(server, players=2, rounds=1)
        await table.connect()
        await table.start()
        await table.play_until(lambda s: s["round"]["discard"]["count"] >= 2, steps=6)
        before = table.views()

        proxy.blackhole()
        await hold_a_move(table)
        assert table.views() == before
        await until(lambda: not ready(server), 60, "/readyz not ready")

        proxy.heal()
        mover = next(client for client in table.clients if "held" in client.answers)
        await until(lambda: mover.answers["held"]["type"] == "patch", 60, "the held ack")
        table.acked += 1
        await until(lambda: ready(server), 60, "/readyz ready again")
        await table.play_until(lambda s: False, steps=4)

        server.stop(signal.SIGKILL)
        for client in table.clients:
            await client.wait_closed()
        shown = table.views()
        server.start()
        await table.check_restored(shown)
        await table.play_until(lambda s: s["status"] == "finished")
        table.check_history()
        table.report("PostgreSQL blackholed, then SIGKILL")
        await table.close()


async def test_connections_cut_again_and_again_lose_no_move() -> None:
    with server_behind_proxy() as (server, proxy):
        table = Table(server, players=3, rounds=1)
        await table.connect()
        await table.start()
        cuts = 0
        while table.state["status"] != "finished":
            if table.acked % 5 == 0:
                proxy.reset()  # the journal's connection is cut: its next write fails
                cuts += 1
            await table.step()
        table.told = sum(told_held(client) for client in table.clients)
        table.check_history()
        table.report(f"PostgreSQL connections cut {cuts} times")
        await table.close()


async def test_sigterm_while_the_database_is_away_keeps_the_held_move() -> None:
    with server_behind_proxy() as (server, proxy):
        table = Table(server, players=2, rounds=1)
        await table.connect()
        await table.start()
        await table.play_until(lambda s: s["round"]["discard"]["count"] >= 2, steps=4)
        before = table.views()

        proxy.blackhole()
        await hold_a_move(table)
        server.stop(signal.SIGTERM)
        assert "kept in" in server.logs(), server.logs()[-2000:]

        proxy.heal()
        server.start()
        await until(lambda: ready(server), 60, "/readyz ready after the restart")
        assert "kept in the outbox at the last stop" in server.logs()
        await table.connect()
        for client, shown in zip(table.clients, before, strict=True):
            await client.wait_for(lambda s: all(p["connected"] for p in s["players"]), 30)
            # The held move was stored: the table is one move on from what it was shown.
            assert client.state is not None
            assert client.state["round"]["turn"] != shown["round"]["turn"]
        table.restarts += 1
        await table.play_until(lambda s: s["status"] == "finished")
        table.check_history()
        response = fetch.get(f"{server.url}/readyz")
        assert response.status_code == 200
        table.report("PostgreSQL blackholed, then SIGTERM (outbox)")
        await table.close()
