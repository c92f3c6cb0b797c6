"""The address that per-address limits count a client by.

An IPv4 address is one client's (or one network's behind its router). An IPv6 address is not:
a home or a server is given a whole /64 network, and may take any of its addresses at will, so
a limit counted by IPv6 address would not limit. Clients are counted by their IPv6 address's
/64, by an IPv4 address as such (written in IPv6 as ``::ffff:a.b.c.d`` too), and by anything
else (a name a test client gives, "unknown") as it is.
"""

from __future__ import annotations

import functools
import ipaddress


@functools.lru_cache(maxsize=4096)
def limited_as(host: str) -> str:
    """What the limits count ``host`` (a client's address) as."""
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        return host
    if isinstance(ip, ipaddress.IPv4Address):
        return host
    if ip.ipv4_mapped is not None:
        return str(ip.ipv4_mapped)
    return str(ipaddress.IPv6Network((ip, 64), strict=False))
