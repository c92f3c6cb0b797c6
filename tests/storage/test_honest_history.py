"""A restart never rewrites history: a finished match keeps its end time, and its rounds their
results, though the room writes its match's rounds again when it comes back."""

from tests import fetch
from tests.faults.table import Table, new_server, ready, until


async def test_a_restart_keeps_a_finished_match_as_it_was(database_url: str) -> None:
    server = new_server(database_url)
    server.start()
    try:
        table = Table(server, players=2, rounds=1)
        await table.connect()
        await table.start()
        await table.play_until(lambda s: s["status"] == "finished")
        await table.close()
        address = f"{server.url}/api/matches/{table.state['match_id']}"
        before = fetch.get(address).json()
        assert before["status"] == "finished"
        assert before["ended_at"] is not None
        table.check_history()

        server.stop()
        server.start()
        await until(lambda: ready(server), 60, "/readyz ready after the restart")
        assert table.code in fetch.get(f"{server.url}/api/rooms/{table.code}").text
        after = fetch.get(address).json()
        assert after == before
    finally:
        server.stop()
