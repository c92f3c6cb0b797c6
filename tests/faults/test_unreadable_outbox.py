"""An outbox that cannot be read at a start (damaged, or written by a version that cannot be
read) is never passed over: the rooms wait for it, /readyz says why, and once it is put right
(here, moved aside by the host) they come back, with no restart."""

import signal
from pathlib import Path

from tests import fetch
from tests.faults.table import OUTBOX_NOT_WRITTEN, new_server, ready, until, waits_for_its_outbox
from tests.rooms.client import create_room


async def test_rooms_wait_for_an_outbox_that_cannot_be_read(tmp_path: Path) -> None:
    server = new_server(f"sqlite+aiosqlite:///{tmp_path}/spectrum.db")
    server.start()
    try:
        code = create_room(server, "Ann")["code"]
        server.stop()
        outbox = tmp_path / "spectrum.db-outbox"
        outbox.write_bytes(b"not what a server writes")

        server.start()
        room = f"{server.url}/api/rooms/{code}"
        waits_for_its_outbox(server)
        assert fetch.get(room, timeout=10).json()["code"] == "restoring"
        # Tried again and again: still waiting, never restored without it.
        await until(lambda: server.logs().count(OUTBOX_NOT_WRITTEN) >= 3, 60, "two tries more")
        assert fetch.get(room, timeout=10).json()["code"] == "restoring"

        outbox.rename(tmp_path / "damaged-outbox")
        await until(lambda: fetch.get(room, timeout=10).status_code == 200, 90, "restored")
        await until(lambda: ready(server), 60, "/readyz ready")
    finally:
        server.stop(signal.SIGKILL)
