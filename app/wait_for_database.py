"""Wait until the database named by DATABASE_URL accepts connections (the container's start).

Run: python -m app.wait_for_database [--timeout SECONDS]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time

from sqlalchemy import text
from sqlalchemy.engine import make_url

from app.config import get_settings
from app.storage.db import make_engine


async def wait(url: str, seconds: float) -> bool:
    """True once a connection succeeds; False after ``seconds`` of failures."""
    engine = make_engine(url)
    deadline = time.monotonic() + seconds
    where = make_url(url).render_as_string(hide_password=True)
    try:
        while True:
            try:
                async with engine.connect() as connection:
                    await connection.execute(text("SELECT 1"))
                print(f"database ready: {where}", file=sys.stderr)
                return True
            except Exception as error:  # not up yet, whatever the reason
                if time.monotonic() >= deadline:
                    print(
                        f"database not ready after {seconds:.0f} s: {where}: {error}",
                        file=sys.stderr,
                    )
                    return False
                print(
                    f"waiting for the database at {where} ({error.__class__.__name__})",
                    file=sys.stderr,
                )
                await asyncio.sleep(1)
    finally:
        await engine.dispose()


def main() -> None:
    """Exit 0 when the database answers, 1 when it does not within the timeout."""
    settings = get_settings()
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--timeout", type=float, default=settings.database_wait_seconds)
    arguments = parser.parse_args()
    sys.exit(0 if asyncio.run(wait(settings.database_url, arguments.timeout)) else 1)


if __name__ == "__main__":
    main()
