"""While the database cannot take writes, a move is held, not shown: its sender and the whole
table are told (``not_saved``), /readyz says why, and once the database is back the move is
acknowledged and play goes on; every round shown is stored once, with the totals shown."""

from tests import fetch
from tests.databases import set_connections_allowed
from tests.faults.table import HELD, Table, ready, serving, told_held, until
from tests.rooms.client import Client


async def test_a_move_waits_for_the_database_and_is_shown_when_it_returns() -> None:
    with serving() as (url, server):
        table = Table(server, players=2, rounds=2)
        await table.connect()
        await table.start()
        await table.play_until(lambda s: s["status"] == "round_over")
        await table.step()  # everyone ready: the second round is dealt
        assert ready(server)
        before = table.views()

        set_connections_allowed(url, False)
        try:
            mover = next(client for client in table.clients if client.my_turn())
            waiting = mover.random_move(table.rng)
            await mover.send({**waiting, "id": "held"})
            await until(lambda: "held" in mover.answers, 30, "an answer to the held move")
            assert mover.answers["held"]["code"] == HELD
            for client in table.clients:
                await until(lambda c=client: told_held(c), 30, "every player told")
            assert table.views() == before  # nothing shown that is not stored
            other = next(client for client in table.clients if client is not mover)
            await other.send({"type": "ready", "id": "refused"})  # refused while held
            await until(lambda: "refused" in other.answers, 30, "the refusal")
            assert other.answers["refused"]["code"] == HELD
            await until(lambda: not ready(server), 30, "/readyz saying not ready")
            problems = fetch.get(f"{server.url}/readyz").json()["problems"]
            assert any("failing" in problem for problem in problems), problems
        finally:
            set_connections_allowed(url, True)

        await until(lambda: mover.answers["held"]["type"] == "patch", 60, "the held ack")
        await until(lambda: ready(server), 60, "/readyz saying ready again")
        await table.play_until(lambda s: s["status"] == "finished")
        table.check_history()
        stored = fetch.get(f"{server.url}/api/matches/{table.state['match_id']}").json()
        assert stored["status"] == "finished"
        await table.close()


async def test_a_join_the_database_cannot_take_gets_no_seat() -> None:
    """A join while writes fail is refused (503, not_saved), like a new room, and the seat it
    made is given up again: no token for a seat that may not be kept, and no seat left empty
    once the writes are done. A join taking a seat again (its player key's) keeps the seat's
    old token then."""
    with serving() as (url, server):
        table = Table(server, players=2, rounds=2)
        await table.connect()
        join = f"{server.url}/api/rooms/{table.code}/join"
        dee = {"name": "Dee", "key": "d" * 64}
        first = fetch.post(join, json=dee)
        assert first.status_code == 201, first.text
        set_connections_allowed(url, False)
        try:
            for body in (dee, {"name": "Cid"}):
                refused = fetch.post(join, json=body, timeout=60)
                assert refused.status_code == 503, refused.text
                assert refused.json()["code"] == HELD
                assert refused.headers["Retry-After"] == "5"
                assert "token" not in refused.json()
            unread = fetch.get(f"{server.url}/api/matches", timeout=60)
            assert unread.status_code == 503, unread.text
            assert unread.json()["code"] == "database_unavailable"
            assert unread.headers["Retry-After"] == "5"
        finally:
            set_connections_allowed(url, True)
        await until(lambda: ready(server), 60, "/readyz saying ready again")
        for client in table.clients:
            before, fresh = await client.resync()
            assert before == fresh
            assert [player["name"] for player in fresh["players"]] == ["Ann", "Bob", "Dee"]
        await table.close()
        server.stop()
        server.start()  # what was written says the same
        lobby = fetch.get(f"{server.url}/api/rooms/{table.code}").json()
        assert [player["name"] for player in lobby["players"]] == ["Ann", "Bob", "Dee"]
        dee_client = Client(server, table.code, first.json()["token"])
        await dee_client.connect()  # the old token still holds the seat
        assert dee_client.seat == 2
        await dee_client.close()
        joined = fetch.post(join, json={"name": "Cid"})
        assert joined.status_code == 201, joined.text
        assert joined.json()["seat"] == 3
