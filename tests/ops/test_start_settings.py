"""Settings a host can get wrong, given to the real start (``python -m app.scripts.start``, as
``make run`` and the image run it): each is refused in one line naming it, with exit status 2
(1 for what the start alone can find), leaving nothing made on disk; none lets the server start
and then fail its requests."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from sqlalchemy.engine import make_url

from app.config import Settings
from tests import fetch
from tests.ops.test_start import _end_what_was_started, start, stop, wait_until_ready  # noqa: F401
from tests.server import ROOT, free_port, server_env


def refused(folder: Path, dotenv: bytes | None = None, status: int = 2, **env: str) -> str:
    """The one line a start with ``env`` (in a working folder of its own, empty but for the
    .env file ``dotenv`` if given, its SQLite database in ``folder``) says as it refuses; the
    start must have left both folders as they were."""
    here = folder / "working"
    here.mkdir()
    if dotenv is not None:
        (here / ".env").write_bytes(dotenv)
    settings = {
        "DATABASE_URL": f"sqlite+aiosqlite:///{folder}/spectrum.db",
        "HOST": "127.0.0.1",
        "PORT": str(free_port()),
        "BOT_WORKERS": "0",
        "PYTHONPATH": str(ROOT),  # this checkout's server, from whatever folder
        **env,
    }
    result = subprocess.run(
        [sys.executable, "-m", "app.scripts.start"],
        cwd=here,
        env=server_env(**settings),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    said = result.stdout + result.stderr
    assert result.returncode == status, said
    (line,) = said.splitlines()
    assert sorted(path.name for path in folder.iterdir()) == ["working"]
    assert [path.name for path in here.iterdir()] == ([] if dotenv is None else [".env"])
    return line


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"ROOM_IDLE_SECONDS": "inf"}, "ROOM_IDLE_SECONDS: Input should be a finite number"),
        ({"ROOM_IDLE_SECONDS": "1e99"}, "ROOM_IDLE_SECONDS: Input should be less than or equal"),
        ({"API_REQUESTS_PER_SECOND": "inf"}, "API_REQUESTS_PER_SECOND: Input should be a finite"),
        ({"API_REQUEST_BURST": "1" + "0" * 400}, "API_REQUEST_BURST: Input should be less than"),
        ({"MESSAGES_PER_SECOND": "nan"}, "MESSAGES_PER_SECOND: Input should be a finite number"),
        ({"MESSAGE_BURST": "1" + "0" * 400}, "MESSAGE_BURST: Input should be less than or equal"),
        ({"MAX_ROOMS": "1" + "0" * 30}, "MAX_ROOMS: Input should be less than or equal to 1000000"),
        ({"SEND_QUEUE_FRAMES": "1" + "0" * 30}, "SEND_QUEUE_FRAMES: Input should be less than"),
    ],
)
def test_numbers_past_any_use_are_refused(
    tmp_path: Path, env: dict[str, str], message: str
) -> None:
    """An infinite or a huge number used to start a server that failed later: a room made with
    ROOM_IDLE_SECONDS=inf could not set its idle timer (500), and with a burst past what a float
    holds every request, /readyz too, was answered 500."""
    line = refused(tmp_path, **env)
    assert "cannot start; fix these settings: " in line
    assert message in line


def test_spaces_around_values_are_no_part_of_them(tmp_path: Path) -> None:
    """A value copied with a space before or after it (a .env line, a compose file) is taken
    without it, and one of spaces alone is empty: a space at the end of DATABASE_URL made a
    database named 'spectrum.db ', OUTBOX_PATH=' ' an outbox named ' ' in the working folder,
    and PUBLIC_URL's space went into every share link."""
    here = tmp_path / "working"
    here.mkdir()
    port = free_port()
    log = tmp_path / "start.log"
    process = start(
        f"sqlite+aiosqlite:///{tmp_path}/spectrum.db ",
        port,
        log,
        cwd=here,
        PYTHONPATH=str(ROOT),  # this checkout's server, from another folder
        BOT_WORKERS="0",
        OUTBOX_PATH=" ",
        PUBLIC_URL=" https://cards.example.org ",
        HOST=" 127.0.0.1 ",
        PORT=f"{port} ",
        LOG_LEVEL="info ",
    )
    wait_until_ready(process, port, log)
    created = fetch.post(f"http://127.0.0.1:{port}/api/rooms", json={"name": "Ann"}, timeout=10)
    assert created.status_code == 201, created.text
    assert created.json()["url"].startswith("https://cards.example.org/r/")
    stop(process)
    assert list(here.iterdir()) == []
    names = [path.name for path in tmp_path.iterdir() if path.name not in ("working", "start.log")]
    assert "spectrum.db" in names
    assert all(name.startswith("spectrum.db") and " " not in name for name in names), names


def test_a_password_is_taken_as_it_is_written() -> None:
    """Spaces around DATABASE_PASSWORD are the password's own."""
    settings = Settings(
        database_url="postgresql+asyncpg://spectrum@db/spectrum", database_password=" p w "
    )
    assert make_url(settings.database_url).password == " p w "


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"PUBLIC_URL": "https://cards.example.org:443a"}, "its port must be a number from 1 to"),
        ({"PUBLIC_URL": "https://cards.example.org:99999"}, "its port must be a number from"),
        ({"PUBLIC_URL": "https://cards.example .org"}, "'cards.example .org' is not a host name"),
        ({"PUBLIC_URL": "https://me:secret@cards.example.org"}, "it names a user"),
        ({"PUBLIC_URL": "https://bücher.example"}, "as browsers send it: xn--bcher-kva.example"),
        ({"ALLOWED_ORIGINS": "https://a.example.org:80a"}, "its port must be a number from 1"),
        ({"ALLOWED_ORIGINS": "https://a.example.org/cards"}, "an origin has no path"),
        ({"ALLOWED_ORIGINS": "https://a.example.org,https://b example.org"}, "is not a host name"),
    ],
)
def test_a_site_that_cannot_be_one_is_refused(
    tmp_path: Path, env: dict[str, str], message: str
) -> None:
    """PUBLIC_URL and ALLOWED_ORIGINS name sites: a port that is no port or a host that is no
    name made share links that lead nowhere, an origin that never matched, or (a name not
    written as browsers send it) every request by that name refused as another site's."""
    line = refused(tmp_path, **env)
    (name,) = env
    assert f"fix these settings: {name}: " in line
    assert message in line


@pytest.mark.parametrize(
    ("redis", "message"),
    [
        ("redis://127.0.0.1:6379/abc", "REDIS_URL's path must be a database number"),
        ("redis://127.0.0.1:6379/1/5", "REDIS_URL's path must be a database number"),
        ("redis://127.0.0.1:6379a/5", "REDIS_URL's port cannot be read"),
        ("redis://127.0.0.1:6379/5?socket_timeout=5s", "Invalid value for 'socket_timeout'"),
        ("redis://127.0.0.1:6379/5?timeout_seconds=5", "timeout_seconds is not an option"),
        ("redis://127.0.0.1:6379/5?ssl_certfile=node.pem", "(TLS options need rediss://)"),
        ("unix://", "REDIS_URL names no socket"),
        ("redis://127.0.0.1:6379/0?db=3", "the database number is its path"),
    ],
)
def test_a_redis_url_redis_cannot_read_as_written_is_refused(
    tmp_path: Path, redis: str, message: str
) -> None:
    """Refused with the settings, before the database is waited for or migrated: redis-py took
    a path that is no number (/abc) for database 0, and /1/5 for database 15, where another
    cluster's keys may be; other mistakes were found only after the database was migrated."""
    line = refused(
        tmp_path,
        REDIS_URL=redis,
        NODE_ID="node-1",
        DATABASE_URL="postgresql+asyncpg://spectrum@db.invalid/spectrum",
        DATABASE_WAIT_SECONDS="0",
    )
    assert "fix these settings: settings: " in line
    assert message in line


@pytest.mark.parametrize(
    ("dotenv", "message"),
    [
        (b'MAX_ROOMS=50\nPUBLIC_URL="https://cards.example.org\n', "line 2 of {here}/.env is not"),
        (b"MAX_ROOMS=50\nMAX_ROOMS: 50\n", "line 2 of {here}/.env is not a setting: write NAME"),
        (b"MAX_ROOMS=50\nPUBLIC_URL\n", "line 2 of {here}/.env is a name without a value"),
        (
            b"PUBLIC_URL=https://caf\xe9.example\n",
            "line 1 of {here}/.env is not UTF-8 text (byte 23)",
        ),
        (
            b"# Friends\nPORT=9000\nPUBLIC_URL=https://caf\xe9.example\n",
            "line 3 of {here}/.env is not UTF-8 text (byte 43)",
        ),
    ],
)
def test_a_dotenv_file_that_cannot_be_read_whole_is_refused(
    tmp_path: Path, dotenv: bytes, message: str
) -> None:
    """A line of .env that is no setting was passed over with python-dotenv's warning (not
    naming the file), the server serving with that setting's default; a .env that is not UTF-8
    ended the start in a traceback."""
    line = refused(tmp_path, dotenv)
    assert "cannot start; fix these settings: " in line
    assert message.format(here=tmp_path / "working") in line
    assert "cards.example.org" not in line  # a line of .env may hold a password


def test_a_dotenv_file_of_comments_and_exports_is_read(tmp_path: Path) -> None:
    """What .env.example and docker compose's .env hold (comments, blank lines, compose's own
    variables) and shell-style exports are no mistake."""
    lines = [
        "# Spectrum Online settings",
        "",
        "POSTGRES_PASSWORD='pa ss'",
        "export MAX_ROOMS=50",
        'PUBLIC_URL="https://cards.example.org"',
        "BIND_ADDRESS=",
    ]
    example = (ROOT / ".env.example").read_bytes()
    line = refused(tmp_path, example + "\n".join(lines).encode() + b"\nMAX_MESSAGE_BYTES=1\n")
    # Read to its last line, which alone is refused.
    assert line.endswith(
        "fix these settings: MAX_MESSAGE_BYTES: Input should be greater than or "
        "equal to 1024 (got '1')"
    )


@pytest.mark.parametrize(
    "beside", ["spectrum.db", "spectrum.db-wal", "spectrum.db.lock", "spectrum.db-live/outbox"]
)
def test_an_outbox_that_is_a_file_of_the_database_is_refused(tmp_path: Path, beside: str) -> None:
    """The outbox is read at a start and, if it cannot be read, moved aside at a stop: set to
    the database's own file, the server started, unpickled the database as an outbox at each
    try to restore rooms, and would have moved the database away."""
    line = refused(tmp_path, OUTBOX_PATH=f"{tmp_path}/data/../{beside}")
    assert "fix these settings: settings: OUTBOX_PATH " in line
    assert "is the SQLite database's own file or one the server keeps beside it" in line
    assert "or leave OUTBOX_PATH empty for spectrum.db-outbox beside the database" in line


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"OUTBOX_PATH": "~/spectrum-outbox"}, "OUTBOX_PATH: the path begins with '~'"),
        ({"DATABASE_URL": "sqlite+aiosqlite:///~/spectrum.db"}, "the SQLite file's path begins"),
    ],
)
def test_a_path_from_home_is_refused(tmp_path: Path, env: dict[str, str], message: str) -> None:
    """No shell expands '~' in a setting: the start made a folder named '~' in the working
    folder for the outbox, and said of the database's lock only that there was no such file."""
    line = refused(tmp_path, **env)
    assert message in line
    assert "write the full path" in line


@pytest.mark.parametrize("name", ["DATABASE_URL", "DATABASE_PASSWORD", "PUBLIC_URL"])
def test_a_value_that_is_not_utf8_is_refused(tmp_path: Path, name: str) -> None:
    """A variable holding bytes of another encoding (Latin-1, say) ended the start in a
    traceback when it reached the database driver; it is refused, and never said back."""
    given = {
        "DATABASE_URL": f"sqlite+aiosqlite:///{tmp_path}/caf\udce9.db",
        "DATABASE_PASSWORD": "caf\udce9",
        "PUBLIC_URL": "https://caf\udce9.example",
    }[name]
    env = {name: given}
    if name == "DATABASE_PASSWORD":
        env["DATABASE_URL"] = "postgresql+asyncpg://spectrum@db.invalid/spectrum"
    line = refused(tmp_path, **env)
    assert line.endswith(
        f"fix these settings: settings: {name} is not UTF-8 text: write it in UTF-8"
    )


def test_a_refused_start_takes_away_the_folders_it_made(tmp_path: Path) -> None:
    """The database's folders, made before the outbox was found unusable, were left behind."""
    line = refused(
        tmp_path,
        status=1,
        DATABASE_URL=f"sqlite+aiosqlite:///{tmp_path}/new/data/spectrum.db",
        OUTBOX_PATH=str(tmp_path),  # a folder
    )
    assert f"cannot start: the outbox at {tmp_path} is a folder" in line


def test_a_password_given_twice_is_refused(tmp_path: Path) -> None:
    """DATABASE_PASSWORD took the place of the password in DATABASE_URL without a word."""
    line = refused(
        tmp_path,
        DATABASE_URL="postgresql+asyncpg://spectrum:Written@db.invalid/spectrum",
        DATABASE_PASSWORD="Another",
        DATABASE_WAIT_SECONDS="0",
    )
    assert line.endswith(
        "fix these settings: settings: DATABASE_URL has a password and DATABASE_PASSWORD is set "
        "too: give it in one place"
    )
    assert "Written" not in line
    assert "Another" not in line


@pytest.mark.parametrize(
    ("host", "meant"), [("0", "0.0.0.0"), ("127.1", "127.0.0.1"), ("10.1.1", "10.1.0.1")]
)
def test_an_address_the_system_would_read_otherwise_is_refused(
    tmp_path: Path, host: str, meant: str
) -> None:
    """HOST=0 listened on every address, unsaid (the system reads it as 0.0.0.0), and a
    dropped number (10.1.1) on another address than meant."""
    line = refused(tmp_path, HOST=host)
    assert (
        f"HOST: '{host}' is no IP address as written, though the system would take it for {meant}"
        in line
    )


@pytest.mark.parametrize(
    ("dotenv", "env"),
    [(b"LOG_JSON=true\nMAX_ROOMS=0\n", {}), (b"MAX_ROOMS=0\n", {"LOG_JSON": "t"})],
)
def test_refused_settings_are_said_as_json_when_log_json_asks(
    tmp_path: Path, dotenv: bytes, env: dict[str, str]
) -> None:
    """LOG_JSON is read as the settings read it: from .env too, in any of its true words; the
    refusal was written as plain text then, among the JSON lines a log collector expects."""
    line = refused(tmp_path, dotenv, **env)
    said = json.loads(line)
    assert said["level"] == "error"
    assert said["message"].startswith("cannot start; fix these settings: MAX_ROOMS: ")


@pytest.mark.parametrize(
    ("env", "named"),
    [
        ({"NODE_PATH": "/n/node-1"}, "NODE_PATH is"),
        ({"CLUSTER_NAME": "cards"}, "CLUSTER_NAME is"),
        ({"REDIS_WAIT_SECONDS": "5"}, "REDIS_WAIT_SECONDS is"),
        ({"LEASE_MS": "3000", "NODE_ID": "node-1"}, "NODE_ID, LEASE_MS are"),
    ],
)
def test_cluster_settings_without_redis_are_refused(
    tmp_path: Path, env: dict[str, str], named: str
) -> None:
    """A node whose REDIS_URL was left out started alone, passing over NODE_PATH, CLUSTER_NAME
    and LEASE_MS (NODE_ID alone was refused)."""
    line = refused(tmp_path, **env)
    assert line.endswith(
        f"fix these settings: settings: {named} for cluster mode: set REDIS_URL too, or unset "
        + ("it" if named.endswith(" is") else "them")
    )


@pytest.mark.parametrize(
    ("env", "message"),
    [
        (
            {"HEARTBEAT_SECONDS": "0.1"},
            "HEARTBEAT_SECONDS: Input should be greater than or equal to 1",
        ),
        ({"HELLO_SECONDS": "0.001"}, "HELLO_SECONDS: Input should be greater than or equal to 1"),
        (
            {"CLIENT_SILENCE_SECONDS": "3"},
            "CLIENT_SILENCE_SECONDS: Input should be greater than or equal to 6",
        ),
    ],
)
def test_timings_no_client_can_keep_are_refused(
    tmp_path: Path, env: dict[str, str], message: str
) -> None:
    """With pings far more often than a second, each answered with a pong, every WebSocket was
    closed within seconds as a flood of control frames (1008 'too many pings'); no client can
    say hello within a millisecond; a browser, which pings every 5 s, was taken for dead after
    3 s of silence."""
    line = refused(tmp_path, **env)
    assert message in line


@pytest.mark.parametrize(
    ("made", "kind"),
    [("folder", "a folder"), ("pipe", "no regular file (a device, a pipe or a socket)")],
)
def test_a_database_that_is_no_file_is_refused(tmp_path: Path, made: str, kind: str) -> None:
    """A folder was said to be a database SQLite cannot open, and a device or a pipe was opened
    as one: /dev/null was waited for DATABASE_WAIT_SECONDS as a database another holds, then
    blamed on the host and port."""
    database = tmp_path / "spectrum.db"
    if made == "folder":
        database.mkdir()
    else:
        os.mkfifo(database)
    (tmp_path / "data").mkdir()
    line = refused(
        tmp_path / "data",
        status=1,
        DATABASE_URL=f"sqlite+aiosqlite:///{database}",
        DATABASE_WAIT_SECONDS="600",
    )
    assert line.endswith(
        f"cannot start: DATABASE_URL names {database}, which is {kind}: name the SQLite "
        "database's file, as in sqlite+aiosqlite:///./spectrum.db"
    )
    assert sorted(path.name for path in tmp_path.iterdir()) == ["data", "spectrum.db"]


def test_a_misspelt_setting_is_warned_of_and_the_server_starts(tmp_path: Path) -> None:
    """A variable this server does not read, named so close to a setting that it is surely
    meant for it, is logged as a warning naming that setting (from the environment and from
    .env alike); other variables, compose's own among them, are no concern of the server's."""
    (tmp_path / ".env").write_text(
        (ROOT / ".env.example").read_text() + "\nHEARTBEAT_SECOND=5\nPOSTGRES_PASSWORD=pw\n"
    )
    port = free_port()
    log = tmp_path / "start.log"
    process = start(
        f"sqlite+aiosqlite:///{tmp_path}/spectrum.db",
        port,
        log,
        cwd=tmp_path,
        PYTHONPATH=str(ROOT),
        LOG_LEVELS="debug",
        NODE_ENV="production",
    )
    wait_until_ready(process, port, log)
    stop(process)
    warned = [
        json.loads(line)["message"]
        for line in log.read_text().splitlines()
        if line.startswith("{") and json.loads(line)["level"] == "warning"
    ]
    assert warned == [
        "HEARTBEAT_SECOND is not a setting of this server and is ignored; did you mean "
        "HEARTBEAT_SECONDS?",
        "LOG_LEVELS is not a setting of this server and is ignored; did you mean LOG_LEVEL?",
    ]
