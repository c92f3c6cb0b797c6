"""The cluster's compose file publishes nginx's port as the single-server file publishes the
server's: on every address, IPv4 and IPv6, unless BIND_ADDRESS names one (0.0.0.0 alone left
IPv6 clients out). Read by `docker compose config`, as Compose reads it."""

from __future__ import annotations

import pytest

from tests.ops.test_container import configured


@pytest.mark.parametrize(
    ("bind", "host_ip"), [(None, None), ("127.0.0.1", "127.0.0.1"), ("::1", "::1")]
)
def test_the_cluster_publishes_nginx_on_every_address_unless_one_is_named(
    bind: str | None, host_ip: str | None
) -> None:
    [port] = configured("docker-compose.cluster.yml", bind)["services"]["nginx"]["ports"]
    assert (port["published"], port["target"]) == ("8000", 80)
    assert port.get("host_ip") == host_ip
