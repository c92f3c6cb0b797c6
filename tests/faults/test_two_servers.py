"""Two servers started on one SQLite file: the second refuses to start, saying which process
serves the file, and the first goes on untouched (a second one would fold and delete the
event-log segment the first writes to, and lose the moves it acknowledges). Once the first
has died, even by SIGKILL, the file is free."""

import signal
from pathlib import Path

import pytest

from tests import fetch
from tests.faults.table import Table, new_server


async def test_a_second_server_on_the_same_file_refuses_to_start(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path}/spectrum.db"
    first = new_server(url)
    first.start()
    second = new_server(url)
    try:
        table = Table(first, players=2, rounds=1)
        await table.connect()
        await table.start()
        await table.play_until(lambda s: False, steps=3)
        segments = sorted((tmp_path / "spectrum.db-live").iterdir())

        with pytest.raises(RuntimeError, match="server exited early"):
            second.start()
        assert second.process is not None
        assert second.process.returncode == 3
        assert f"is served by another server (process {first.process.pid})" in second.logs()

        assert sorted((tmp_path / "spectrum.db-live").iterdir()) == segments
        await table.play_until(lambda s: False, steps=3)
        shown = table.views()
        await table.close()
        first.stop(signal.SIGKILL)

        second.start()
        answer = fetch.get(f"{second.url}/api/rooms/{table.code}", timeout=10)
        assert answer.status_code == 200, answer.text
        table.server = second
        await table.check_restored(shown)
        await table.close()
    finally:
        first.stop(signal.SIGKILL)
        if second.process is not None:
            second.stop(signal.SIGKILL)
