"""A room the database refused at a stop is left out of the next start's restore while the
database still refuses it, and held again, with the change its players were told was waiting,
as soon as the database takes that change: a real server on PostgreSQL."""

from __future__ import annotations

import tempfile

from tests.databases import fetch_value, postgres_database
from tests.faults.table import HELD, new_server, until
from tests.rooms.client import Client, api, create_room


async def test_a_room_left_out_of_a_restart_comes_back_once_the_database_takes_its_change() -> None:
    """It stayed out until another restart: unknown to its players (404), whose tries counted
    against their address's misses until every room was refused to it."""
    with postgres_database() as url, tempfile.TemporaryDirectory() as folder:
        server = new_server(url, OUTBOX_PATH=f"{folder}/outbox", ROOM_MISSES_PER_MINUTE="3")
        server.start()
        try:
            refused, other = create_room(server, "Ann"), create_room(server, "Bob")
            code = refused["code"]
            ann = Client(server, code, refused["token"])
            await ann.connect()
            fetch_value(
                url,
                "ALTER TABLE live_room_events ADD CONSTRAINT refuse_one "
                f"CHECK (code <> '{code}') NOT VALID",
            )
            await ann.send({"type": "settings", "settings": {"rounds": 3}, "id": "held"})
            await until(lambda: "held" in ann.answers, 30, "the answer to the held change")
            assert ann.answers["held"]["code"] == HELD
            await ann.close()
            server.stop()  # SIGTERM: the held change is kept in the outbox
            server.start()
            await until(lambda: "is not restored: the database refuses" in server.logs())
            # Coming back, not unknown, and no miss of the address's: past its 3 misses a
            # minute every room would be refused to it, the other room too.
            for _ in range(6):
                answer = api(server, "GET", f"/api/rooms/{code}")
                assert (answer.status_code, answer.json()["code"]) == (503, "restoring")
            assert api(server, "GET", f"/api/rooms/{other['code']}").status_code == 200

            fetch_value(url, "ALTER TABLE live_room_events DROP CONSTRAINT refuse_one")
            await until(
                lambda: api(server, "GET", f"/api/rooms/{code}").status_code == 200,
                60,
                "the room held again",
            )
            assert api(server, "GET", f"/api/rooms/{code}").json()["settings"]["rounds"] == 3
            again = Client(server, code, refused["token"])
            await again.connect()
            assert again.view["settings"]["rounds"] == 3
            await again.act("settings", settings={"rounds": 2})  # and it plays on
            await again.close()
            assert f"room {code} is restored: the database holds its last changes" in (
                server.logs()
            )
        finally:
            server.stop()
