"""A room restored after the server was killed: a stand-in plays for a player who stays away.

The stand-ins a room keeps are not in the journal; after a restart a player who is away when
their turn comes is stood in for again, whatever step of the turn the journal left them at.
"""

from __future__ import annotations

import random
import signal
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from tests.play import play_until
from tests.rooms.client import Client, create_room, join_room
from tests.server import FAST, Server, migrate, server_env, start_server

State = dict[str, Any]


pytestmark = pytest.mark.usefixtures("closing_clients")


@pytest.fixture
def server(database_url: str) -> Iterator[Server]:
    """A server whose stand-ins play at once for a player away on their turn."""
    migrate(database_url)
    settings = {**FAST, "STANDIN_SECONDS": "0", "BOT_DELAY_SECONDS": "0", "BOT_WORKERS": "0"}
    started = start_server(server_env(HOST="127.0.0.1", DATABASE_URL=database_url, **settings))
    try:
        yield started
    finally:
        started.stop()


def moves(state: State) -> int:
    """How many moves of the round everyone has seen."""
    return len(state["round"]["log"])


def moves_of(state: State, seat: int) -> int:
    """How many of the round's moves were ``seat``'s."""
    return sum(move["seat"] == seat for move in state["round"]["log"])


async def play_others(
    clients: list[Client], rng: random.Random, done: Callable[[State], bool]
) -> None:
    """Random moves by these clients, each waiting out the turns a stand-in plays, until ``done``
    holds for the first client."""
    first = clients[0]
    while not done(first.view):
        assert first.view["status"] == "playing"
        count = moves(first.view)
        seat = first.view["round"]["turn"]["seat"]
        mover = next((client for client in clients if client.seat == seat), None)
        if mover is not None:
            await mover.wait_for(lambda s, n=count: moves(s) == n)
            await mover.play(mover.random_move(rng, knock_chance=0))
        # A stand-in's turn: only the room plays it, so waiting is all the test can do.
        await first.wait_for(lambda s, n=count: moves(s) > n, timeout=30)


def stood_in_for_ann(since: int) -> Callable[[State], bool]:
    """A stand-in played a whole turn of Ann's (seat 0) after ``since`` moves of hers."""
    return lambda s: (
        moves_of(s, 0) > since
        and (s["round"]["turn"]["seat"] != 0 or s["status"] != "playing")
        and s["players"][0]["standin"]
        and not s["players"][0]["connected"]
    )


@pytest.mark.parametrize(
    "case", ["her_take", "her_discard_back_and_gone", "stood_in_before", "round_over"]
)
async def test_a_stand_in_plays_for_the_creator_who_stays_away_after_a_restart(
    server: Server, case: str
) -> None:
    rounds = 2 if case == "round_over" else 1
    # Ann's stand-in may knock on the turn it plays before the restart, and then the round ends
    # without another turn of hers: that deal is dealt again in a new room.
    for _ in range(10):
        room = create_room(server, "Ann", rounds=rounds, turn_seconds=0)
        seats = [room] + [join_room(server, room["code"], name) for name in ("Bob", "Cy")]
        clients = [Client(server, room["code"], seat["token"]) for seat in seats]
        for client in clients:
            await client.connect()
        await clients[0].act("start")
        rng = random.Random(3)
        if case != "stood_in_before":
            break
        # Ann goes before her turn; a stand-in plays it; the server dies on Bob's turn.
        await play_until(clients, rng, lambda s: s["round"]["turn"]["seat"] == 1, knock_chance=0)
        await clients[0].close()
        await play_others(clients[1:], rng, stood_in_for_ann(moves_of(clients[1].view, 0)))
        if clients[1].view["round"]["knocker"] != 0:
            await play_others(clients[1:], rng, lambda s: s["round"]["turn"]["seat"] == 1)
            break
        for client in clients[1:]:
            await client.close()
    else:
        raise AssertionError("Ann's stand-in knocked on its first turn in ten rooms")
    if case == "round_over":
        await play_until(clients, rng, lambda s: s["status"] == "round_over", knock_chance=0.1)
    elif case != "stood_in_before":
        # The server dies on Ann's turn, at its take or at its discard.
        pending = case == "her_discard_back_and_gone"
        await play_until(
            clients,
            rng,
            lambda s: (
                s["round"]["turn"]["seat"] == 0 and bool(s["round"]["turn"]["pending"]) == pending
            ),
            knock_chance=0,
        )

    # Ann's moves before the kill, as counted in the newest view: once Bob is back, her
    # stand-in may play before the test reads his view (and knock, ending the round soon after).
    before = max(moves_of(client.view, 0) for client in clients)
    server.stop(signal.SIGKILL)
    server.start()

    if case == "her_discard_back_and_gone":
        # Ann is the first to come back after the restart, and leaves again on her turn.
        ann = Client(server, room["code"], seats[0]["token"])
        await ann.connect()
        assert ann.my_turn()
        await ann.close()
    back = [Client(server, room["code"], seats[seat]["token"]) for seat in (1, 2)]
    for client in back:
        await client.connect()
    if case == "round_over":
        for client in back:
            await client.act("ready")
        await back[0].wait_for(lambda s: s["status"] == "playing")
        assert back[0].view["round"]["number"] == 2
    since = 0 if case == "round_over" else before
    await play_others(back, rng, stood_in_for_ann(since))
    for client in back:
        await client.wait_for(lambda s, v=back[0].view: s["round"] == v["round"])
        assert client.view["players"][0]["host"], "the creator stays host while stood in for"
