"""Playing rooms from test clients: random legal moves until a condition holds."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from tests.rooms.client import Client

State = dict[str, Any]


async def play_until(
    clients: list[Client],
    rng: random.Random,
    done: Callable[[State], bool],
    knock_chance: float = 0.04,
) -> None:
    """Random legal moves (and ready between rounds) until ``done`` holds for the first client."""
    while True:
        state = clients[0].state
        assert state is not None
        if done(state):
            return
        if state["status"] == "round_over":
            for client in clients:
                await client.act("ready")
            await clients[0].wait_for(lambda s: s["status"] != "round_over")
            continue
        for client in clients:
            await client.wait_for(lambda s, v=state: s["round"] == v["round"])
        mover = next(client for client in clients if client.my_turn())
        await mover.play(mover.random_move(rng, knock_chance=knock_chance))
        for client in clients:
            await client.wait_for(lambda s, v=mover.state: s["round"] == v["round"])
