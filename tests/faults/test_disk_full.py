"""SQLite on a small filesystem that fills up mid-game: the room holds the move and tells its
players; killed with SIGKILL while full, then given room again, the server comes back with every
move that was shown, and every round shown is stored once with the totals shown.

The filesystem is a tmpfs mounted for the test, which needs the right to mount (root, or
CAP_SYS_ADMIN); without it the test is skipped and says so.
"""

import contextlib
import signal
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.faults.table import Table, new_server


@contextmanager
def small_filesystem(folder: Path, size: str = "4m") -> Iterator[Path]:
    """A tmpfs of ``size`` mounted at ``folder``, or a skip saying why it cannot be."""
    folder.mkdir()
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(folder)],
        capture_output=True,
        text=True,
        check=False,
    )
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs to fill (needs root): {mounted.stderr.strip()}")
    try:
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], check=False)


def fill(folder: Path) -> Path:
    """Write a file until the filesystem has no room left; returns it."""
    filler = folder / "filler"
    with filler.open("wb") as file, contextlib.suppress(OSError):
        while True:
            file.write(b"\0" * 65536)
            file.flush()
    return filler


async def test_a_full_disk_holds_the_move_and_loses_nothing_shown(tmp_path: Path) -> None:
    with small_filesystem(tmp_path / "small") as folder:
        server = new_server(f"sqlite+aiosqlite:///{folder}/spectrum.db")
        server.start()
        try:
            table = Table(server, players=2, rounds=1)
            await table.connect()
            await table.start()
            await table.play_until(lambda s: s["round"]["discard"]["count"] >= 2, steps=4)

            filler = fill(folder)
            # The last pages written still have room: play on until a write finds none.
            number = await table.play_until_held(knock_chance=0, tries=500)
            table.told = len(table.clients)
            table.acked += number

            server.stop(signal.SIGKILL)
            for client in table.clients:
                await client.wait_closed()
            shown = table.views()
            filler.unlink()
            server.start()
            await table.check_restored(shown)
            await table.play_until(lambda s: s["status"] == "finished")
            table.check_history()
            table.report("SQLite filesystem full, then SIGKILL")
            await table.close()
        finally:
            server.stop(signal.SIGKILL)
