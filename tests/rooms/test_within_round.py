"""A move that leaves the round going rebuilds only the round's public face.

Whole matches are played in a room driven directly (no sockets): after every message the view
the room holds, which resyncs and newcomers are sent, must equal a view built from scratch, and
every connection's patched document must equal it too. Stand-ins come and go along the way, and
the chat changes between moves (on its own fast path) until it is full and drops its oldest lines.
"""

from __future__ import annotations

import random
from typing import Any

import orjson
import pytest

from app.engine.actions import action_to_dict
from app.rooms import chat as chat_module
from app.rooms import protocol
from app.rooms.chat import REACTIONS
from app.rooms.connection import Connection
from app.rooms.live import LiveRoom, RoomConfig
from app.rooms.registry import hash_token
from app.rooms.settings import RoomSettings
from app.rooms.state import RoomState, Status
from app.rooms.views import ViewBuilder
from tests.patching import apply_patch
from tests.rooms.fakes import FakeClock

SHORT_CHAT = 6


class Follower:
    """A connection's send that keeps the document its frames add up to."""

    def __init__(self) -> None:
        self.document: dict[str, Any] | None = None

    async def __call__(self, message: dict[str, Any]) -> None:
        frame = orjson.loads(message["text"])
        if frame["type"] == "state":
            self.document = frame["state"]
        elif frame["type"] == "patch":
            self.document = apply_patch(self.document, frame["ops"])


def _message(room: LiveRoom, rng: random.Random) -> tuple[int, bytes]:
    state = room.state
    if state.status is Status.ROUND_OVER:
        return next(i for i, seat in enumerate(state.seats) if not seat.ready), b'{"type":"ready"}'
    assert state.match is not None
    assert state.match.round is not None
    current = state.match.round
    action = action_to_dict(current.random_action(rng, knock_chance=0.05))
    del action["seat"]
    return current.turn, orjson.dumps(action)


def _chatter(rng: random.Random, players: int) -> tuple[int, bytes]:
    """Someone (the last index: the spectator) chats, reacts, or the host mutes or lets
    spectators chat: the chat changes between moves, on its own fast path."""
    choice = rng.randrange(6)
    if choice == 0:
        return 0, orjson.dumps({"type": "mute", "seat": rng.randrange(1, players),
                                "muted": rng.random() < 0.5})  # fmt: skip
    if choice == 1:
        return 0, orjson.dumps({"type": "spectator_chat", "allowed": rng.random() < 0.7})
    sender = rng.randrange(players + 1)
    if choice == 2:
        return sender, orjson.dumps({"type": "react", "reaction": rng.choice(REACTIONS)})
    return sender, orjson.dumps({"type": "chat", "text": f"line {rng.randrange(1000)}"})


def _on_turn(room: LiveRoom) -> int:
    match = room.state.match
    assert match is not None
    assert match.round is not None
    return match.round.turn


@pytest.mark.parametrize(
    ("players", "multi_pickup", "ten_card"),
    [(2, False, False), (4, True, False), (3, False, True), (6, False, False)],
)
async def test_the_view_after_every_move_equals_one_built_from_scratch(
    players: int, multi_pickup: bool, ten_card: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(chat_module, "CHAT_KEPT", SHORT_CHAT)  # so that it fills up
    settings = RoomSettings(rounds=3, turn_seconds=60, multi_pickup=multi_pickup, ten_card=ten_card)
    state = RoomState("ABCD-EFGH", settings, 0)
    for seat in range(players):
        state.join(f"P{seat}", hash_token(f"t{seat}"), 0)
    clock = FakeClock()
    room = LiveRoom(state, RoomConfig(bot_delay_seconds=3600), lambda room: None, clock=clock)
    followers = [Follower() for _ in range(players + 1)]
    seats: list[int | None] = [*range(players), None]
    connections = [
        Connection(follower, seat, 1 << 20) for follower, seat in zip(followers, seats, strict=True)
    ]
    for connection in connections:
        await room.attach(connection)
    await room.handle(connections[0], protocol.parse_message(b'{"type":"start"}'))
    rng = random.Random(players)
    moves = stood_in = 0
    while room.state.status is not Status.FINISHED:
        playing = room.state.status is Status.PLAYING
        away = (moves // 40) % 2 == 1
        if playing and away and _on_turn(room) == 1:
            # Seat 1 is away for a while: the turn timer plays its turns, and after two a bot
            # stands in for it, until its player's own next move.
            assert room.turn_deadline is not None
            await clock.advance(room.turn_deadline / 1000 - clock.now())
            stood_in += 1 in room.standins()
        elif rng.random() < 0.3:
            await clock.advance(2.5)  # chat at a pace the chat limit mostly lets through
            seat, raw = _chatter(rng, players)
            await room.handle(connections[seat], protocol.parse_message(raw))
        else:
            seat, raw = _message(room, rng)
            await room.handle(connections[seat], protocol.parse_message(raw))
        moves += 1
        fresh = ViewBuilder().public(
            room.state,
            room.presence(),
            room.standins(),
            room.spectators(),
            room.turn_deadline,
            room.ready_deadline,
        )
        assert room.public == fresh
        for follower, connection in zip(followers, connections, strict=True):
            assert follower.document == {**fresh, "you": connection.you}
    assert stood_in > 0
    assert room.state.chat.count > SHORT_CHAT, "the chat filled up and dropped its oldest lines"
