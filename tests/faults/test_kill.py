"""The server killed with SIGKILL at random moments of play: every move a player was shown is
there after the restart, and every round shown is stored once with the totals shown."""

import asyncio
import contextlib
import random
import signal

from tests.faults.table import Table, new_server


async def test_sigkill_at_random_moments_loses_nothing_shown(database_url: str) -> None:
    server = new_server(database_url)
    server.start()
    rng = random.Random()
    try:
        table = Table(server, players=3, rounds=2)
        await table.connect()
        await table.start()
        for _ in range(2):
            playing = asyncio.create_task(table.play_until(lambda s: s["status"] == "finished"))
            await asyncio.sleep(rng.uniform(0.2, 1.5))
            server.stop(signal.SIGKILL)
            for client in table.clients:
                await client.wait_closed()
            playing.cancel()
            with contextlib.suppress(BaseException):
                await playing
            shown = table.views()
            server.start()
            await table.check_restored(shown)
        await table.play_until(lambda s: s["status"] == "finished")
        table.check_history()
        backend = database_url.split("+")[0]
        table.report(f"SIGKILL at random moments ({backend})")
        await table.close()
    finally:
        server.stop(signal.SIGKILL)
