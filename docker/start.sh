#!/bin/sh
# The container's start: wait for the database, bring it to the newest migration, then serve.
set -eu
python -m app.wait_for_database
alembic upgrade head
exec python -m app
