import asyncio
import random
import unicodedata
from datetime import UTC, datetime
from typing import Any

from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import JSON, DateTime, column, inspect, table, text

from app.engine.cards import card_ids
from app.engine.match import Match, MatchRules
from app.rooms.settings import RoomSettings
from app.storage.db import make_engine
from app.storage.migrations import (
    MIGRATIONS,
    _revision_of,
    current_revision,
    head_revision,
    known_revisions,
)
from app.storage.models import Base
from tests import fetch
from tests.server import ROOT, alembic_config, running_server


async def tables(url: str) -> set[str]:
    engine = make_engine(url)
    async with engine.connect() as connection:
        names = await connection.run_sync(lambda sync: set(inspect(sync).get_table_names()))
    await engine.dispose()
    return names


async def revision(url: str) -> str | None:
    engine = make_engine(url)
    try:
        return await current_revision(engine)
    finally:
        await engine.dispose()


async def differences(url: str) -> list[object]:
    engine = make_engine(url)
    async with engine.connect() as connection:
        found = await connection.run_sync(
            lambda sync: compare_metadata(
                MigrationContext.configure(sync, opts={"compare_type": True}), Base.metadata
            )
        )
    await engine.dispose()
    return list(found)


def test_upgrade_to_head_and_back(database_url: str) -> None:
    config = alembic_config(database_url)
    command.upgrade(config, "head")
    assert asyncio.run(tables(database_url)) >= set(Base.metadata.tables)
    assert asyncio.run(revision(database_url)) == head_revision()
    command.downgrade(config, "base")
    assert asyncio.run(tables(database_url)) <= {"alembic_version"}
    command.upgrade(config, "head")


def test_models_and_migrations_agree(database_url: str) -> None:
    command.upgrade(alembic_config(database_url), "head")
    assert asyncio.run(differences(database_url)) == []


def test_the_migrations_folder_is_the_one_the_server_reads() -> None:
    assert MIGRATIONS == ROOT / "migrations"
    assert head_revision() is not None


def test_the_revisions_read_without_alembic_are_alembics() -> None:
    scripts = ScriptDirectory(str(MIGRATIONS))
    assert head_revision() == scripts.get_current_head()
    assert known_revisions() == {script.revision for script in scripts.walk_revisions()}


def test_a_migration_file_is_read_for_its_revision_and_those_it_follows() -> None:
    assert _revision_of('revision: str = "0002"\ndown_revision: str | None = "0001"\n') == (
        "0002",
        ("0001",),
    )
    assert _revision_of('revision = "0003"\ndown_revision = ("0002a", "0002b")\n') == (
        "0003",
        ("0002a", "0002b"),
    )
    assert _revision_of('revision = "0001"\ndown_revision = None\n') == ("0001", ())
    assert _revision_of("x = 1\n") is None


def test_snapshots_come_and_go_without_touching_the_rooms(database_url: str) -> None:
    config = alembic_config(database_url)
    command.upgrade(config, "0002")
    assert "live_room_snapshots" not in asyncio.run(tables(database_url))
    command.upgrade(config, "0003")
    assert {"live_room_snapshots", "live_rooms"} <= asyncio.run(tables(database_url))
    command.downgrade(config, "0002")
    names = asyncio.run(tables(database_url))
    assert "live_room_snapshots" not in names
    assert {"live_rooms", "live_room_events", "matches"} <= names
    command.upgrade(config, "head")
    assert asyncio.run(revision(database_url)) == head_revision()


async def _live_rows(url: str) -> tuple[int, int]:
    """How many live rooms, and events of theirs, the database holds."""
    engine = make_engine(url)
    async with engine.connect() as connection:
        rooms = (await connection.execute(text("SELECT count(*) FROM live_rooms"))).scalar_one()
        events = await connection.execute(text("SELECT count(*) FROM live_room_events"))
        counted = events.scalar_one()
    await engine.dispose()
    return int(rooms), int(counted)


async def _add_live_room(url: str) -> None:
    engine = make_engine(url)
    async with engine.begin() as connection:
        await connection.execute(
            text("INSERT INTO live_rooms (code, settings, created_at) VALUES (:c, '{}', 1)"),
            {"c": "AAAA-AAAA"},
        )
        await connection.execute(
            text("INSERT INTO live_room_events (code, seq, event) VALUES ('AAAA-AAAA', :n, '{}')"),
            [{"n": n} for n in range(5)],
        )
    await engine.dispose()


def test_the_epoch_comes_and_goes_without_touching_the_live_rooms(database_url: str) -> None:
    """Adding and dropping the rooms' epoch leaves their events in place (a table copied anew
    would take them with it)."""
    config = alembic_config(database_url)
    command.upgrade(config, "0001")
    asyncio.run(_add_live_room(database_url))
    command.upgrade(config, "0002")
    assert asyncio.run(_live_rows(database_url)) == (1, 5)
    command.downgrade(config, "0001")
    assert asyncio.run(_live_rows(database_url)) == (1, 5)
    command.upgrade(config, "head")
    assert asyncio.run(_live_rows(database_url)) == (1, 5)


def _old_match(match_id: str) -> tuple[dict[str, list[dict[str, Any]]], Match]:
    """Rows of a finished one-round match as revision 0003 stored them (no moves, no keys):
    Ann against a bot."""
    match = Match(2, MatchRules(rounds=1), "old")
    rng = random.Random(4)
    current = match.start_round()
    while not current.ended:
        match.apply(current.random_action(rng, knock_chance=0.1))
    result = match.results[0]
    moment = datetime(2026, 11, 30, 12, tzinfo=UTC)
    settings = RoomSettings.model_validate({"rounds": 1}).model_dump()
    places = match.places()
    return {
        "matches": [
            {
                "id": match_id,
                "room_code": "ABCD-EFGH",
                "settings": settings,
                "rounds_planned": 1,
                "rounds_played": 1,
                "started_at": moment,
                "ended_at": moment,
            }
        ],
        "match_seats": [
            {
                "match_id": match_id,
                "seat": seat,
                "name": name,
                "name_key": name.casefold(),
                "total": result.totals[seat],
                "place": places[seat],
            }
            for seat, name in enumerate(["Ann", "Easy bot 2"])
        ],
        "rounds": [
            {
                "id": 1,
                "match_id": match_id,
                "number": 1,
                "dealer": result.dealer,
                "knocker": result.knocker,
                "ending": result.ending.value,
                "seed": result.seed,
                "commitment": result.commitment,
                "ended_at": moment,
            }
        ],
        "round_hands": [
            {
                "round_id": 1,
                "seat": seat,
                "cards": card_ids(hand),
                "points": score.points,
                "scoring": score.as_dict(),
                "total": result.totals[seat],
            }
            for seat, (hand, score) in enumerate(zip(result.hands, result.scores, strict=True))
        ],
    }, match


async def _insert(url: str, rows: dict[str, list[dict[str, Any]]]) -> None:
    kinds = {"settings": JSON, "cards": JSON, "scoring": JSON}
    engine = make_engine(url)
    async with engine.begin() as connection:
        for name, table_rows in rows.items():
            columns = [
                column(key, kinds.get(key, DateTime(timezone=True) if key[-3:] == "_at" else None))
                for key in table_rows[0]
            ]
            await connection.execute(table(name, *columns).insert(), table_rows)
    await engine.dispose()


async def _columns(url: str, name: str) -> set[str]:
    engine = make_engine(url)
    async with engine.connect() as connection:
        found = await connection.run_sync(
            lambda sync: {c["name"] for c in inspect(sync).get_columns(name)}
        )
    await engine.dispose()
    return found


async def _rows(url: str, query: str) -> list[tuple[Any, ...]]:
    engine = make_engine(url)
    async with engine.connect() as connection:
        found = [tuple(row) for row in await connection.execute(text(query))]
    await engine.dispose()
    return found


async def _seats(url: str) -> list[tuple[Any, ...]]:
    return await _rows(url, "SELECT name, bot, key_hash FROM match_seats ORDER BY seat")


def test_rounds_and_seats_stored_before_moves_and_keys(database_url: str) -> None:
    config = alembic_config(database_url)
    command.upgrade(config, "0003")
    match_id = "f" * 32
    rows, match = _old_match(match_id)
    asyncio.run(_insert(database_url, rows))
    command.upgrade(config, "0004")
    assert "moves" in asyncio.run(_columns(database_url, "rounds"))
    # The seat named as a bot is marked as one; nobody has a key.
    assert asyncio.run(_seats(database_url)) == [("Ann", None, None), ("Easy bot 2", "easy", None)]
    command.downgrade(config, "0003")
    assert not {"bot", "key_hash"} & asyncio.run(_columns(database_url, "match_seats"))
    assert "moves" not in asyncio.run(_columns(database_url, "rounds"))
    assert [name for name, *_ in asyncio.run(_seats_before(database_url))] == ["Ann", "Easy bot 2"]

    # At the newest revision, the server shows the round as before, and says it has no replay.
    with running_server(database_url) as server:
        stored = fetch.get(f"{server.url}/api/matches/{match_id}").json()
        assert stored["rounds"][0]["moves"] is None
        assert [hand["cards"] for hand in stored["rounds"][0]["hands"]] == [
            card_ids(hand) for hand in match.results[0].hands
        ]
        refused = fetch.get(f"{server.url}/api/matches/{match_id}/rounds/1/moves")
        assert refused.status_code == 409
        assert refused.json() == {
            "code": "no_moves",
            "detail": "round 1 was stored before moves were kept: it has no replay",
        }
        board = fetch.get(f"{server.url}/api/leaderboard").json()["players"]
        assert [(line["name"], line["tag"]) for line in board] == [("Ann", None)]
        ann = fetch.get(f"{server.url}/api/players/Ann").json()
        assert (ann["matches"], ann["tag"], ann["others"]) == (1, None, [])
        assert fetch.get(f"{server.url}/api/players/Ann", params={"tag": ""}).json() == ann


async def _seats_before(url: str) -> list[tuple[Any, ...]]:
    return sorted(await _rows(url, "SELECT name FROM match_seats"))


def test_names_stored_with_their_accents_apart_are_composed(database_url: str) -> None:
    config = alembic_config(database_url)
    command.upgrade(config, "0004")
    apart, together = "Jose\u0301 Ve\u0301lez", "Jos\u00e9 V\u00e9lez"
    rows: dict[str, list[dict[str, Any]]] = {"matches": [], "match_seats": []}
    for n, first in enumerate((apart, together, apart.upper())):
        match_id = f"{n}" * 32
        old, _ = _old_match(match_id)
        rows["matches"] += old["matches"]
        for seat in old["match_seats"]:
            if seat["seat"] == 0:
                seat.update(name=first, name_key=first.casefold())
            rows["match_seats"].append(seat)
    asyncio.run(_insert(database_url, rows))
    command.upgrade(config, "head")
    stored = asyncio.run(_names(database_url))
    composed = unicodedata.normalize("NFC", apart.upper())
    assert stored == [
        ("0" * 32, together, together.casefold()),
        ("1" * 32, together, together.casefold()),
        ("2" * 32, composed, composed.casefold()),
    ]
    assert composed.casefold() == together.casefold()  # one player, found by either spelling
    assert asyncio.run(_others(database_url)) == {("Easy bot 2", "easy bot 2")}  # untouched
    command.downgrade(config, "0004")  # nothing to undo: the names stay composed
    assert asyncio.run(_names(database_url)) == stored


async def _names(url: str) -> list[tuple[Any, ...]]:
    query = "SELECT match_id, name, name_key FROM match_seats WHERE seat = 0 ORDER BY match_id"
    return await _rows(url, query)


async def _others(url: str) -> set[tuple[Any, ...]]:
    return set(await _rows(url, "SELECT name, name_key FROM match_seats WHERE seat = 1"))


def test_matches_stored_before_are_listed_in_the_order_they_started(database_url: str) -> None:
    config = alembic_config(database_url)
    command.upgrade(config, "0005")
    rows: dict[str, list[dict[str, Any]]] = {"matches": []}
    starts = {"b" * 32: 3, "a" * 32: 1, "c" * 32: 2, "d" * 32: 2}  # two start together
    for match_id, hour in starts.items():
        old, _ = _old_match(match_id)
        old["matches"][0]["started_at"] = datetime(2026, 11, 30, hour, tzinfo=UTC)
        rows["matches"] += old["matches"]
    asyncio.run(_insert(database_url, rows))
    command.upgrade(config, "head")
    listed = asyncio.run(_rows(database_url, "SELECT id, listed FROM matches ORDER BY listed"))
    assert listed == [("a" * 32, 1), ("c" * 32, 2), ("d" * 32, 3), ("b" * 32, 4)]
    if database_url.startswith("postgresql"):
        # A node of a cluster not yet upgraded names no number: its match is given the next.
        old, _ = _old_match("e" * 32)
        asyncio.run(_insert(database_url, {"matches": old["matches"]}))
        newest = asyncio.run(_rows(database_url, "SELECT id, listed FROM matches WHERE listed > 4"))
        assert newest == [("e" * 32, 5)]
    command.downgrade(config, "0005")
    assert "listed" not in asyncio.run(_columns(database_url, "matches"))
    command.upgrade(config, "head")  # and again, the sequence made anew
    again = asyncio.run(_rows(database_url, "SELECT id, listed FROM matches ORDER BY listed"))
    assert again == listed + ([("e" * 32, 5)] if database_url.startswith("postgresql") else [])
