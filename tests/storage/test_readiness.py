"""/readyz is steady while tables play: writes queued for a moment are normal, so readiness
goes by whether writes fail or fall behind (the oldest's age), not by how many wait."""

import asyncio

import httpx

from tests import fetch
from tests.faults.table import Table, new_server


async def test_readyz_stays_ready_while_tables_play(database_url: str) -> None:
    server = new_server(database_url)
    server.start()
    try:
        tables = [Table(server, players=3, rounds=1) for _ in range(3)]
        for table in tables:
            await table.connect()
            await table.start()
        answers: list[int] = []
        playing = asyncio.gather(
            *(table.play_until(lambda s: s["status"] != "playing", steps=40) for table in tables)
        )
        async with httpx.AsyncClient(base_url=server.url, timeout=10, verify=fetch.TLS) as client:
            while not playing.done() or len(answers) < 20:
                answers.append((await client.get("/readyz")).status_code)
                await asyncio.sleep(0.05)
        await playing
        assert set(answers) == {200}, answers
        for table in tables:
            await table.close()
    finally:
        server.stop()
