"""A node paused past its directory entry's life, whose id another process took meanwhile: woken,
it gives every room up and stops, rather than serving on under an id that is not its own (its
rooms' leases name the id, so it took the other process's rooms for its own)."""

from __future__ import annotations

import asyncio
import signal
import subprocess
import time

from tests import fetch
from tests.cluster.harness import running_cluster
from tests.server import start_server


def metric(url: str, name: str) -> float:
    for line in fetch.get(f"{url}/metrics").text.splitlines():
        if line.startswith(name):
            return float(line.rsplit(" ", 1)[1])
    raise AssertionError(f"{name} not in the metrics")


async def test_a_node_whose_id_was_taken_while_it_was_paused_stops_when_it_wakes() -> None:
    with running_cluster(count=1) as cluster:
        [node] = cluster.ids
        old = cluster.nodes[node]
        assert old.process is not None
        old.process.send_signal(signal.SIGSTOP)
        try:
            # Its entry lapses; a second process of the same id then starts and serves.
            new = await asyncio.to_thread(start_server, cluster.envs[node])
        except BaseException:
            old.process.send_signal(signal.SIGCONT)
            raise
        try:
            room = fetch.post(
                f"{new.url}/api/rooms", json={"name": "Ann"}, headers={"X-Spectrum-Node": node}
            )
            assert room.status_code == 201, room.text
            code = room.json()["code"]
            old.process.send_signal(signal.SIGCONT)

            # The woken process stops by itself, having said why.
            try:
                exit_code = await asyncio.to_thread(old.process.wait, 120)
            except subprocess.TimeoutExpired:
                raise AssertionError("the old process served on: " + old.logs()[-3000:]) from None
            assert exit_code == -signal.SIGTERM  # as stopped by SIGTERM: drained, then ended
            assert f"node id {node} was taken by another process" in old.logs()
            # The room stays with the process that holds the id, which lost nothing.
            assert fetch.get(f"{new.url}/api/rooms/{code}").status_code == 200
            deadline = time.monotonic() + 30
            while fetch.get(f"{new.url}/readyz").status_code != 200:
                assert time.monotonic() < deadline
                await asyncio.sleep(0.2)
            assert metric(new.url, "spectrum_rooms_lost_total") == 0
        finally:
            new.stop()
