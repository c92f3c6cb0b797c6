# syntax=docker/dockerfile:1
# Spectrum Online: a small image that waits for its database, migrates it, then serves.

FROM python:3.11.11-slim-bookworm AS dependencies
ENV PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1
COPY requirements.lock /tmp/requirements.lock
RUN python -m venv /opt/venv \
    && /opt/venv/bin/pip install --no-cache-dir --require-virtualenv -r /tmp/requirements.lock

FROM python:3.11.11-slim-bookworm
RUN groupadd --system --gid 10001 spectrum \
    && useradd --system --uid 10001 --gid spectrum --home-dir /srv/spectrum --no-create-home spectrum
WORKDIR /srv/spectrum
COPY --from=dependencies /opt/venv /opt/venv
COPY alembic.ini ./
COPY migrations ./migrations
COPY frontend ./frontend
COPY app ./app
COPY docker/start.sh /usr/local/bin/spectrum-start
ENV PATH=/opt/venv/bin:$PATH \
    PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    HOST=0.0.0.0 \
    PORT=8000 \
    FORWARDED_ALLOW_IPS=* \
    LOG_JSON=true
USER 10001:10001
EXPOSE 8000
HEALTHCHECK --interval=15s --timeout=5s --start-period=60s --retries=3 \
    CMD ["python", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/healthz', timeout=4)"]
ENTRYPOINT ["spectrum-start"]
