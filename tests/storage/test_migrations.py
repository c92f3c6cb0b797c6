import asyncio

from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.config import Config
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import inspect

from app.storage.db import make_engine
from app.storage.migrations import (
    MIGRATIONS,
    _revision_of,
    current_revision,
    head_revision,
    known_revisions,
)
from app.storage.models import Base
from tests.server import ROOT


def alembic_config(url: str) -> Config:
    config = Config(str(ROOT / "alembic.ini"))
    config.attributes["database_url"] = url
    config.attributes["configure_logger"] = False
    return config


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
