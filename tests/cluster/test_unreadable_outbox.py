"""A node restores rooms one by one, as players reach it, never all at its start: an outbox it
cannot read at its start does not hold it not ready (a single server waits for its outbox
before it restores its rooms; a node has none to wait for)."""

from pathlib import Path

from tests import fetch
from tests.cluster.harness import running_cluster


def test_a_node_whose_outbox_cannot_be_read_is_ready_and_serves(tmp_path: Path) -> None:
    outbox = tmp_path / "outbox"
    outbox.write_bytes(b"not what a server writes")
    settings = {0: {"OUTBOX_PATH": str(outbox)}}
    with running_cluster(count=1, node_env=lambda url: settings) as cluster:
        [node] = cluster.nodes.values()
        readiness = fetch.get(f"{node.url}/readyz", timeout=10)
        assert readiness.status_code == 200, readiness.json()
        assert "the outbox could not be written yet" in cluster.logs()
        room = cluster.create_room("Ann")
        assert cluster.api("GET", f"/api/rooms/{room['code']}").status_code == 200
