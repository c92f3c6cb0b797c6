"""Settings: all documented with their defaults; bad values stop the server with a clear message."""

import re
import subprocess
import sys
from pathlib import Path

import pytest
from sqlalchemy.engine import make_url

from app.config import Settings
from app.settings_checks import hide_password, redis_url
from tests.server import ROOT, ZYGOTE, server_env


def default_text(name: str) -> str:
    value = Settings.model_fields[name].get_default(call_default_factory=True)
    if value is None:
        return ""
    if isinstance(value, list):
        return ",".join(value)
    if isinstance(value, bool):
        return str(value).lower()
    return str(value)


@pytest.mark.parametrize("name", list(Settings.model_fields))
def test_every_setting_is_documented_with_its_default(name: str) -> None:
    variable = name.upper()
    example = (ROOT / ".env.example").read_text()
    assert re.search(rf"^# {variable}={re.escape(default_text(name))}$", example, re.M), variable
    table = (ROOT / "docs" / "configuration.md").read_text()
    shown = f"`{default_text(name)}`" if default_text(name) else "(empty)"
    assert f"| `{variable}` | {shown} |" in table


def test_copying_the_example_changes_nothing() -> None:
    """Every line of .env.example is a comment, so a copy keeps every default (and the image's)."""
    lines = (ROOT / ".env.example").read_text().splitlines()
    assert [line for line in lines if line.strip() and not line.startswith("#")] == []


def test_the_password_may_hold_any_character() -> None:
    settings = Settings(
        database_url="postgresql+asyncpg://spectrum@db:5432/spectrum",
        database_password="p@ss:w/rd#1%",
    )
    url = make_url(settings.database_url)
    assert url.password == "p@ss:w/rd#1%"
    assert (url.host, url.port, url.username, url.database) == ("db", 5432, "spectrum", "spectrum")


def test_empty_variables_keep_the_default() -> None:
    result = subprocess.run(
        [sys.executable, "-c", "from app.config import Settings; print(Settings().max_rooms)"],
        cwd=ROOT,
        env=server_env(MAX_ROOMS="", LOG_LEVEL=""),
        capture_output=True,
        text=True,
        check=True,
    )
    assert result.stdout.strip() == "10000"


# What cluster mode needs besides REDIS_URL, for a REDIS_URL to be judged.
CLUSTER = {"DATABASE_URL": "postgresql+asyncpg://spectrum@db/spectrum", "NODE_ID": "node-1"}


def start(folder: Path, **env: str) -> tuple[int, str]:
    """``python -m app`` with ``env`` (forked from the test servers' zygote): its exit status
    and what it wrote to standard error."""
    errors = folder / "stderr"
    process = ZYGOTE.spawn(server_env(**env), folder / "stdout", append=False, errors=errors)
    try:
        returncode = process.wait(30)
    except subprocess.TimeoutExpired:
        process.kill()
        raise
    return returncode, errors.read_text()


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"PORT": "70000"}, "PORT: Input should be less than or equal to 65535 (got '70000')"),
        ({"DATABASE_URL": "mysql://x"}, "DATABASE_URL: must start with sqlite+aiosqlite://"),
        ({"DATABASE_URL": "sqlite+aiosqlite://"}, "DATABASE_URL: an in-memory SQLite database"),
        ({"DATABASE_URL": "sqlite+aiosqlite:///:memory:"}, "loses every round"),
        ({"PUBLIC_URL": "example.org"}, "PUBLIC_URL: must start with http:// or https://"),
        ({"PUBLIC_URL": "https://example.org/cards/"}, "PUBLIC_URL: must be the site's root"),
        ({"PUBLIC_URL": "https://example.org/?lang=fr"}, "a query (?…) or a fragment (#…)"),
        ({"PUBLIC_URL": "https://example.org#"}, "a query (?…) or a fragment (#…)"),
        ({"PUBLIC_URL": "https://"}, "PUBLIC_URL: names no host"),
        ({"FORWARDED_ALLOW_IPS": "127.0.0.l"}, "FORWARDED_ALLOW_IPS: '127.0.0.l' is not an"),
        ({"FORWARDED_ALLOW_IPS": "10.0.0.1,10.0.0.0/33"}, "'10.0.0.0/33' is not an address"),
        ({"FORWARDED_ALLOW_IPS": "10.0.0.5/24"}, "'10.0.0.5/24' is not an address"),
        ({"FORWARDED_ALLOW_IPS": "127.0.0.1, *"}, "'*' trusts anyone only on its own"),
        ({"HOST": "999.1.1.1"}, "HOST: '999.1.1.1' is neither an IP address nor a name"),
        ({"ALLOWED_ORIGINS": "example.org"}, "ALLOWED_ORIGINS: 'example.org' is not an origin"),
        ({"ALLOWED_ORIGINS": "https://example.org#"}, "has no query (?…) or fragment (#…)"),
        ({"ALLOWED_HOSTS": "https://example.org"}, "ALLOWED_HOSTS: 'https://example.org' is not"),
        ({"ALLOWED_HOSTS": "cards.example.org:8000"}, "'cards.example.org:8000' is not a host"),
        ({"ALLOWED_HOSTS": "example.org/cards"}, "'example.org/cards' is not a host name"),
        (
            {"LOG_LEVEL": "loud"},
            "LOG_LEVEL: Input should be 'trace', 'debug', 'info', 'warning' or",
        ),
        ({"MESSAGES_PER_SECOND": "50", "MESSAGE_BURST": "10"}, "MESSAGE_BURST must be at least"),
        (
            {"API_REQUESTS_PER_SECOND": "1000", "API_REQUEST_BURST": "1"},
            "API_REQUEST_BURST must be at least API_REQUESTS_PER_SECOND",
        ),
        ({"ROOM_IDLE_SECONDS": "0.001"}, "ROOM_IDLE_SECONDS: Input should be greater than or"),
        ({"MAX_MESSAGE_BYTES": "256"}, "MAX_MESSAGE_BYTES: Input should be greater than or"),
        ({"JOURNAL_FLUSH_MS": "1000", "SHUTDOWN_GRACE_SECONDS": "1"}, "JOURNAL_FLUSH_MS must be"),
        ({"SEND_QUEUE_FRAMES": "1"}, "SEND_QUEUE_FRAMES: Input should be greater than or equal"),
        (
            {**CLUSTER, "REDIS_URL": "redis://redis:70000/0"},
            "REDIS_URL's port must be a number from 1 to 65535",
        ),
    ],
)
def test_bad_settings_refuse_to_start(env: dict[str, str], message: str, tmp_path: Path) -> None:
    returncode, stderr = start(tmp_path, **env)
    assert returncode == 2
    assert "cannot start" in stderr
    assert message in stderr


@pytest.mark.parametrize(
    ("env", "shown"),
    [
        (
            {"DATABASE_URL": "postgresql://spectrum:Sup3r@Secret@db:5432/spectrum"},
            "(got 'postgresql://spectrum:***@db:5432/spectrum')",
        ),
        ({"REDIS_URL": "http://:Sup3r@Secret@redis:6379/0"}, "REDIS_URL must start with"),
        # Written unescaped, a password may hold '/' or a space, which SQLAlchemy takes.
        (
            {"DATABASE_URL": "postgresql+asyncpg://spectrum:Sup3r/Secret@db/spectrum?sslmode=a"},
            "(got 'postgresql+asyncpg://spectrum:***@db/spectrum?sslmode=a')",
        ),
        (
            {"DATABASE_URL": "postgresql+asyncpg://spectrum:Sup3r Secret@db/spectrum?sslmode=a"},
            "(got 'postgresql+asyncpg://spectrum:***@db/spectrum?sslmode=a')",
        ),
        (
            {"DATABASE_URL": "postgresql+asyncpg://u@db/spectrum?password=Sup3rSecret&sslmode=a"},
            "(got 'postgresql+asyncpg://u@db/spectrum?password=***&sslmode=a')",
        ),
        # redis-py's words for a port it cannot read repeat what stood there: here the password.
        (
            {**CLUSTER, "REDIS_URL": "redis://:Sup3r/Secret@redis:6379/0"},
            "REDIS_URL's port cannot be read",
        ),
        ({**CLUSTER, "REDIS_URL": "redis://:Sup3rSecret"}, "REDIS_URL's port cannot be read"),
        # A password's '/', '?' or a look-alike character: what follows is not said back.
        (
            {**CLUSTER, "REDIS_URL": "redis://user:12/Sup3rSecret@redis/0"},
            "REDIS_URL has an '@' after its host",
        ),
        (
            {**CLUSTER, "REDIS_URL": "redis://:12?Sup3rSecret=x@redis"},
            "REDIS_URL: an option after '?' is not one redis-py takes",
        ),
        (
            {**CLUSTER, "REDIS_URL": "redis://:Sup3r\uff20Secret@redis/0"},
            "REDIS_URL is not a Redis URL redis-py can read: escape",
        ),
    ],
)
def test_a_refused_setting_never_shows_a_password(
    env: dict[str, str], shown: str, tmp_path: Path
) -> None:
    returncode, stderr = start(tmp_path, **env)
    assert returncode == 2
    assert shown in stderr
    assert "Sup3r" not in stderr
    assert "Secret" not in stderr


@pytest.mark.parametrize(
    ("url", "said"),
    [
        ("postgresql+asyncpg://u:pw@h/d", "postgresql+asyncpg://u:***@h/d"),
        ("postgresql+asyncpg://u:p/w d@x@h:5432/d", "postgresql+asyncpg://u:***@h:5432/d"),
        (
            "postgresql+asyncpg://u@h/d?ssl=require&PASSWORD=pw",
            "postgresql+asyncpg://u@h/d?ssl=require&PASSWORD=***",
        ),
        ("redis://:pw@h:6379/0", "redis://:***@h:6379/0"),
        ("redis://user:pw@h:6379/0", "redis://user:***@h:6379/0"),
        ("postgresql+asyncpg://u@h/d", "postgresql+asyncpg://u@h/d"),
        ("unix:///run/redis.sock?db=2", "unix:///run/redis.sock?db=2"),
    ],
)
def test_a_url_is_said_without_its_password(url: str, said: str) -> None:
    assert hide_password(url) == said


@pytest.mark.parametrize(
    "env",
    [
        {"DATABASE_URL": "postgresql+asyncpg://u:Sup3rSecret@db/d?ssl=bad"},
        {"DATABASE_URL": "postgresql+asyncpg://u:Sup3rSecret@db/d", "DATABASE_PASSWORD": "Sup3r"},
    ],
)
def test_migrations_run_by_hand_refuse_settings_without_saying_a_password(
    env: dict[str, str],
) -> None:
    """alembic reads the server's settings; their refusal, as pydantic words it, said the URL
    (and DATABASE_PASSWORD with it) back whole."""
    result = subprocess.run(
        [sys.executable, "-m", "alembic", "upgrade", "head"],
        cwd=ROOT,
        env=server_env(**env),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode != 0
    assert "validation error for Settings" in result.stderr
    assert "Sup3r" not in result.stdout + result.stderr


def test_an_at_sign_in_a_redis_option_is_no_password() -> None:
    """Refusing an '@' after the host (a password's '/' or '#' unescaped) leaves the options
    alone: a client's name may hold one."""
    redis_url("redis://redis:6379/0?client_name=ops@box")
