# Spectrum Online: a small image that waits for its database, migrates it when needed, then serves.

FROM python:3.11.11-slim-bookworm AS dependencies
ENV PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1
COPY requirements.lock /tmp/requirements.lock
RUN python -m venv /opt/venv \
    && /opt/venv/bin/pip install --no-cache-dir --require-virtualenv -r /tmp/requirements.lock \
    && /opt/venv/bin/pip uninstall --yes --quiet pip setuptools
# Compiled libraries carry their debugging symbols (uvloop alone 12 MB of them). binutils comes
# from Debian's archive; where that cannot be reached the image is built unstripped.
# hadolint ignore=DL3008
RUN if apt-get update -qq && apt-get install -y -qq --no-install-recommends binutils >/dev/null; then \
        find /opt/venv -name '*.so' -exec strip --strip-unneeded {} +; \
    else echo "binutils unavailable: compiled libraries left unstripped"; fi \
    && rm -rf /var/lib/apt/lists/*

FROM python:3.11.11-slim-bookworm
# The server runs as this user; /srv/spectrum/data is the one place it writes (the SQLite
# default), so a volume mounted there is writable by it.
RUN groupadd --system --gid 10001 spectrum \
    && useradd --system --uid 10001 --gid spectrum --home-dir /srv/spectrum --no-create-home spectrum \
    && mkdir -p /srv/spectrum/data \
    && chown 10001:10001 /srv/spectrum/data
WORKDIR /srv/spectrum
COPY --from=dependencies /opt/venv /opt/venv
COPY alembic.ini ./
COPY migrations ./migrations
COPY frontend ./frontend
COPY app ./app
# Compiled once here: the code is read-only at run time and every start would compile it again.
RUN /opt/venv/bin/python -m compileall -q app migrations
# HOST: listen on every interface of the container; the port mapping decides who reaches it.
# PORT: inside the container; map it to any port of the machine.
# LOG_JSON: one JSON object a line, for `docker logs` and log collectors.
# DATABASE_URL: the SQLite default, in the data volume; compose sets PostgreSQL instead.
# OUTBOX_PATH: writes the database had not taken at a stop, in the data volume too.
# FORWARDED_ALLOW_IPS is left at its default (127.0.0.1): trusting X-Forwarded-For from anyone
# would let any client choose its address and escape the per-address limits. Behind a reverse
# proxy, set it to the proxy's address.
ENV PATH=/opt/venv/bin:$PATH \
    PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    HOST=0.0.0.0 \
    PORT=8000 \
    LOG_JSON=true \
    DATABASE_URL=sqlite+aiosqlite:////srv/spectrum/data/spectrum.db \
    OUTBOX_PATH=/srv/spectrum/data/spectrum-outbox
VOLUME ["/srv/spectrum/data"]
USER 10001:10001
EXPOSE 8000
# Asks the server on its own PORT and HOST (on loopback when HOST is every interface).
HEALTHCHECK --interval=15s --timeout=5s --start-period=60s --retries=3 \
    CMD ["python", "-m", "app.scripts.healthcheck"]
# Python itself is the container's first process: SIGTERM stops the wait for the database at
# once, and then the server, which closes its rooms' sockets with 1012 and saves what is queued.
ENTRYPOINT ["python", "-m", "app.scripts.start"]
