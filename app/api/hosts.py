"""The names the server answers to: requests whose Host header names the server by a name it was
not given are refused, so that a web page cannot reach it through DNS rebinding.

A page on a name its owner controls can make that name resolve to 127.0.0.1 (or any address
inside a network) once it has loaded: its scripts then talk to this server as their own origin,
so neither the browser's same-origin rule nor the WebSocket origin check would stop them. Only
the Host header still carries the attacker's name. Names a browser cannot be made to resolve
elsewhere (IP addresses, ``localhost`` and the names under it) are always allowed, and so are
the names the settings give (PUBLIC_URL, ALLOWED_ORIGINS, HOST and ALLOWED_HOSTS).
"""

from __future__ import annotations

import ipaddress
from urllib.parse import urlsplit

from app.config import Settings


def host_name(header: str) -> str:
    """The name in a Host header, without its port, lower-cased, without a final dot."""
    header = header.strip().lower()
    if header.startswith("["):
        return header[1:].partition("]")[0]
    if header.count(":") == 1:
        header = header.partition(":")[0]
    return header.rstrip(".")


def is_address(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


class AllowedHosts:
    """Whether a Host header names this server by a name it may be reached by."""

    def __init__(self, settings: Settings) -> None:
        self.anything = "*" in settings.allowed_hosts
        names = {name for name in settings.allowed_hosts if not name.startswith(".")}
        self.domains = tuple(name for name in settings.allowed_hosts if name.startswith("."))
        for url in [settings.public_url, *settings.allowed_origins]:
            hostname = urlsplit(url).hostname if url != "*" else None
            if hostname:
                names.add(hostname.rstrip("."))
        if not is_address(settings.host):
            names.add(settings.host.lower().rstrip("."))
        self.names = frozenset(names)

    def allows(self, header: str | None) -> bool:
        """``header`` is a Host header's value; None (no Host header) is not a browser's."""
        if header is None or self.anything:
            return True
        name = host_name(header)
        return (
            name in self.names
            or name == "localhost"
            or name.endswith(".localhost")
            or is_address(name)
            or any(name.endswith(domain) or name == domain[1:] for domain in self.domains)
        )
