"""The container's health check: this server, on its own port, answers /healthz.

Run: python -m app.scripts.healthcheck   (exit 0 healthy, 1 not)

It asks the address and port the server was told to listen on (HOST and PORT), so a changed
port is followed and another program on the default port is never mistaken for this server.
It never goes through a proxy (HTTP_PROXY and the like, which Docker's client settings add to
every container): the server is asked directly, at its own address.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import sys
import urllib.request
from collections.abc import Mapping

from pydantic import TypeAdapter

# Addresses that mean "every interface" of a family: the server is then reached on its loopback
# (listening on "::", the server takes IPv6 alone).
_ANY = {"": "127.0.0.1", "0.0.0.0": "127.0.0.1", "::": "[::1]", "[::]": "[::1]"}  # noqa: S104


def health_url(environ: Mapping[str, str]) -> str:
    """Where this server's /healthz is, from its HOST and PORT settings (PORT read as the
    server reads it: "8000.0" is 8000)."""
    host = environ.get("HOST", "").strip()
    port = environ.get("PORT", "").strip() or "8000"
    with contextlib.suppress(ValueError):  # a port the server refuses: said as it is
        port = str(TypeAdapter(int).validate_python(port))
    if host in _ANY:
        host = _ANY[host]
    elif ":" in host and not host.startswith("["):
        host = f"[{host}]"
    return f"http://{host}:{port}/healthz"


# No proxy, whatever the environment says: the server is at an address of this machine.
_DIRECT = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def main() -> None:
    """Exit 0 when the server answers as Spectrum Online does, else 1 with the reason."""
    url = health_url(os.environ)
    try:
        with _DIRECT.open(url, timeout=4) as answer:
            body = json.loads(answer.read())
    except (OSError, ValueError, http.client.HTTPException) as error:
        print(f"unhealthy: {url}: {error}", file=sys.stderr)
        sys.exit(1)
    if body != {"status": "ok"}:
        print(f"unhealthy: {url} answered {body!r}", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
