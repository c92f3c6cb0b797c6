"""Play a room of the compose stack from inside its network namespace (run under nsenter).

    python -m tests.ops.compose_play first-round          -> JSON: code, tokens, totals
    python -m tests.ops.compose_play rest-of-match JSON   -> JSON: totals, rounds, match id
    python -m tests.ops.compose_play history MATCH        -> JSON: rounds in the history

The stack's server is at 127.0.0.1:8000 in that namespace; nothing outside it can reach it.
"""

from __future__ import annotations

import asyncio
import json
import random
import sys
from typing import Any

from tests import fetch
from tests.play import play_until
from tests.rooms.client import Client, close_all, open_table
from tests.server import Server

SERVER = Server({}, 8000)


async def first_round() -> dict[str, Any]:
    """A two-round match between two people, played to the end of its first round."""
    table = await open_table(SERVER, players=2, rounds=2, turn_seconds=0)
    await table.host.act("start")
    await play_until(table.players, random.Random(7), lambda s: s["status"] == "round_over", 0.2)
    totals = _totals(table.host.view)
    await close_all()
    return {"code": table.code, "tokens": table.tokens, "totals": totals}


async def rest_of_match(first: dict[str, Any]) -> dict[str, Any]:
    """The same room after a restart: as it was left, then played to the end of the match."""
    clients = [Client(SERVER, first["code"], token) for token in first["tokens"]]
    for client in clients:
        await client.connect()
    state = clients[0].state
    assert state is not None
    assert state["status"] == "round_over", state["status"]
    assert _totals(state) == first["totals"]
    await play_until(clients, random.Random(8), lambda s: s["status"] == "finished", 0.2)
    final = clients[0].state
    assert final is not None
    await close_all()
    listing = fetch.get(f"{SERVER.url}/api/matches", params={"player": "P0"}).json()
    (match,) = listing["matches"]
    detail = fetch.get(f"{SERVER.url}/api/matches/{match['id']}").json()
    return {"totals": _totals(final), "rounds": len(detail["rounds"]), "match": match["id"]}


def history(match_id: str) -> dict[str, Any]:
    """What the history holds of a match."""
    detail = fetch.get(f"{SERVER.url}/api/matches/{match_id}").json()
    return {"rounds": len(detail["rounds"])}


def _totals(state: dict[str, Any]) -> list[int]:
    return [player["total"] for player in state["players"]]


def main() -> None:
    """Run one step and print its result as JSON."""
    step = sys.argv[1]
    if step == "first-round":
        result = asyncio.run(first_round())
    elif step == "rest-of-match":
        result = asyncio.run(rest_of_match(json.loads(sys.argv[2])))
    elif step == "history":
        result = history(sys.argv[2])
    else:
        raise SystemExit(f"unknown step {step!r}")
    print(json.dumps(result))


if __name__ == "__main__":
    main()
