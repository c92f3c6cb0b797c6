"""The compact encoding: the same documents as standard JSON Patch, in fewer bytes.

Two rooms are dealt the same seeds and played in lockstep over whole matches, one with every
connection on the standard encoding, one with every connection on the compact one (players and a
spectator in each); after every message each compact document, rebuilt by a reader written from
the protocol's documentation, must equal the standard one and a view built from scratch.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import random
import types
from typing import Any

import msgpack
import orjson
import pytest

from app.engine.actions import action_to_dict
from app.engine.cards import CARD_IDS
from app.rooms import compact, dispatch, protocol
from app.rooms.compact import CompactConnection
from app.rooms.connection import Connection
from app.rooms.live import LiveRoom, RoomConfig
from app.rooms.packed import BinaryConnection
from app.rooms.registry import hash_token
from app.rooms.settings import RoomSettings
from app.rooms.state import RoomState, Status
from app.rooms.views import ViewBuilder
from tests.patching import apply_patch
from tests.rooms.client import Client, clone, close_all, closed_with, create_room, join_room, public
from tests.rooms.decoding import Tables, decode_patch
from tests.rooms.fakes import FakeClock
from tests.server import Server


class Follower:
    """A connection's send that keeps every frame and the document they add up to."""

    def __init__(self) -> None:
        self.document: dict[str, Any] | None = None
        self.tables: Tables | None = None
        # (raw text, or the bytes of a binary frame; as a standard frame)
        self.frames: list[tuple[str | bytes, dict[str, Any]]] = []

    async def __call__(self, message: dict[str, Any]) -> None:
        text = message.get("text")
        if text is None:
            text = message["bytes"]
            frame = msgpack.unpackb(text)
            assert isinstance(frame, list), "a binary frame is a patch"
        else:
            frame = orjson.loads(text)
        if isinstance(frame, list):
            assert self.tables is not None
            frame = decode_patch(frame, self.tables)
        elif frame["type"] == "state" and "encoding" in frame:
            self.tables = frame["encoding"]
        if frame["type"] == "state":
            self.document = clone(frame["state"])  # patched in place from here on
        elif frame["type"] == "patch":
            self.document = apply_patch(self.document, frame["ops"])
        self.frames.append((text, frame))


class Seeds:
    """Stands in for ``secrets`` and ``uuid`` in the room's module: the same seeds in two rooms."""

    def __init__(self) -> None:
        self.count = itertools.count()

    def token_hex(self, size: int) -> str:
        return hashlib.sha256(b"%d" % next(self.count)).hexdigest()[: size * 2]

    def uuid4(self) -> types.SimpleNamespace:
        return types.SimpleNamespace(hex=hashlib.md5(b"%d" % next(self.count)).hexdigest())


async def _room(
    players: int, settings: RoomSettings, kind: type[Connection]
) -> tuple[LiveRoom, FakeClock, list[Follower], list[Connection]]:
    state = RoomState("ABCD-EFGH", settings, 0)
    for seat in range(players):
        state.join(f"P{seat}", hash_token(f"t{seat}"), 0)
    clock = FakeClock()
    room = LiveRoom(state, RoomConfig(bot_delay_seconds=3600), lambda room: None, clock=clock)
    followers = [Follower() for _ in range(players + 1)]
    seats: list[int | None] = [*range(players), None]
    connections = [
        kind(follower, seat, 1 << 20) for follower, seat in zip(followers, seats, strict=True)
    ]
    for connection in connections:
        await room.attach(connection)
    return room, clock, followers, connections


def _message(room: LiveRoom, rng: random.Random) -> tuple[int, bytes]:
    state = room.state
    if state.status is Status.ROUND_OVER:
        return next(i for i, seat in enumerate(state.seats) if not seat.ready), b'{"type":"ready"}'
    if state.status is Status.FINISHED:
        return 0, b'{"type":"rematch"}'
    assert state.match is not None
    assert state.match.round is not None
    current = state.match.round
    action = action_to_dict(current.random_action(rng, knock_chance=0.05))
    del action["seat"]
    return current.turn, orjson.dumps(action)


def _visible(document: dict[str, Any]) -> set[str]:
    """Cards a connection may know of: its hand, face-up tops, the round's moves, results."""
    allowed = set(document["you"]["hand"])
    current = document["round"]
    if current is not None:
        allowed.update(pile["top"] for pile in [*current["piles"], current["discard"]])
        allowed.update(card for move in current["log"] for card in move.get("cards", []))
    allowed.update(_cards_in(document["results"]))
    return allowed


def _cards_in(value: Any, key: str = "") -> set[str]:
    """Card ids in a standard value, wherever they are."""
    if isinstance(value, dict):
        return set().union(*(_cards_in(item, name) for name, item in value.items()))
    if isinstance(value, list):
        return set().union(*(_cards_in(item, key) for item in value))
    return {value} if isinstance(value, str) and value in CARD_IDS else set()


@pytest.mark.parametrize(
    ("players", "multi_pickup", "ten_card"),
    [(2, False, False), (4, True, False), (3, False, True), (6, False, False), (2, True, True)],
)
async def test_compact_documents_equal_standard_ones_over_whole_matches(
    monkeypatch: pytest.MonkeyPatch, players: int, multi_pickup: bool, ten_card: bool
) -> None:
    settings = RoomSettings(rounds=2, turn_seconds=60, multi_pickup=multi_pickup, ten_card=ten_card)
    seeds = {kind: Seeds() for kind in ("standard", "compact", "binary")}
    rooms = {
        "standard": await _room(players, settings, Connection),
        "compact": await _room(players, settings, CompactConnection),
        "binary": await _room(players, settings, BinaryConnection),
    }
    rngs = {kind: random.Random(players) for kind in rooms}
    moves = matches = stood_in = 0

    async def step(kind: str, away: bool) -> None:
        nonlocal stood_in
        room, clock, _, connections = rooms[kind]
        monkeypatch.setattr(dispatch, "secrets", seeds[kind])
        monkeypatch.setattr(dispatch, "uuid", seeds[kind])
        if room.state.status is Status.LOBBY:
            await room.handle(connections[0], protocol.parse_message(b'{"type":"start"}'))
        elif room.state.status is Status.PLAYING and away and _turn(room) == 1:
            # Seat 1 is away for a while: the timer plays its turns, then a bot stands in.
            assert room.turn_deadline is not None
            await clock.advance(room.turn_deadline / 1000 - clock.now())
            stood_in += kind == "compact" and 1 in room.standins()
        else:
            seat, raw = _message(room, rngs[kind])
            raw = raw[:-1] + b',"id":%d}' % moves
            await room.handle(connections[seat], protocol.parse_message(raw))

    while matches < 2:
        away = (moves // 40) % 2 == 1
        finished = rooms["standard"][0].state.status is Status.FINISHED
        for kind in rooms:
            await step(kind, away)
        matches += finished
        moves += 1
        standard, compacted, packed = rooms["standard"], rooms["compact"], rooms["binary"]
        fresh = ViewBuilder().public(
            standard[0].state,
            standard[0].presence(),
            standard[0].standins(),
            standard[0].spectators(),
            standard[0].turn_deadline,
            standard[0].ready_deadline,
        )
        assert standard[0].public == compacted[0].public == packed[0].public == fresh
        for one, other, third, connection in zip(
            standard[2], compacted[2], packed[2], standard[3], strict=True
        ):
            assert one.document == {**fresh, "you": connection.you}
            assert other.document == third.document == one.document
            assert len(other.frames) == len(third.frames) == len(one.frames)
            # Frame for frame: the same version, the same ack, the same kind.
            assert [
                (frame["type"], frame["version"], frame.get("ack")) for _, frame in other.frames
            ] == [(frame["type"], frame["version"], frame.get("ack")) for _, frame in one.frames]
    assert stood_in > 0
    for compact_one, binary_one in zip(compacted[2], packed[2], strict=True):
        # A binary patch is the compact one in MessagePack; every other frame is the same text.
        for (text, _), (raw, _) in zip(compact_one.frames, binary_one.frames, strict=True):
            if isinstance(text, str) and text.startswith("["):
                assert isinstance(raw, bytes)
                assert msgpack.unpackb(raw) == orjson.loads(text)
                assert len(raw) < len(text)
            else:
                assert raw == text
    for follower in rooms["compact"][2]:
        document = None
        for text, frame in follower.frames:
            if frame["type"] == "state":
                document = clone(frame["state"])
            else:
                assert isinstance(text, str)
                assert text.startswith("["), "a compact connection got a standard patch"
                document = apply_patch(document, frame["ops"])
                # No card in a frame that its recipient may not see (another player's hand).
                shown = _cards_in([op.get("value") for op in frame["ops"]])
                assert shown <= _visible(document), shown - _visible(document)


def _turn(room: LiveRoom) -> int:
    match = room.state.match
    assert match is not None
    assert match.round is not None
    return match.round.turn


async def test_compact_patches_are_smaller_and_the_tables_come_once() -> None:
    settings = RoomSettings(rounds=2, turn_seconds=60)
    room, _, followers, connections = await _room(4, settings, CompactConnection)
    await room.handle(connections[0], protocol.parse_message(b'{"type":"start"}'))
    rng = random.Random(4)
    for _ in range(200):
        seat, raw = _message(room, rng)
        await room.handle(connections[seat], protocol.parse_message(raw))
    await room.handle(connections[2], protocol.parse_message(b'{"type":"resync"}'))
    for follower in followers:
        states = [frame for text, frame in follower.frames if frame["type"] == "state"]
        assert "encoding" in orjson.loads(follower.frames[0][0])
        assert len(states) == 1 + (follower is followers[2])
        # Only the answer to hello carries the tables: a resync's state does not.
        assert [("encoding" in orjson.loads(text)) for text, frame in follower.frames
                if frame["type"] == "state"] == [True] + [False] * (len(states) - 1)  # fmt: skip
        patches = [text for text, frame in follower.frames if frame["type"] == "patch"]
        assert sum(map(len, patches)) / len(patches) < 120


def _keys(value: Any) -> set[str]:
    if isinstance(value, dict):
        return set(value).union(*(_keys(item) for item in value.values()))
    if isinstance(value, list):
        return set().union(*(_keys(item) for item in value))
    return set()


async def test_short_keys_are_unique_and_never_a_key_of_the_view() -> None:
    shorts = set(compact.KEYS.values())
    assert len(shorts) == len(compact.KEYS)
    settings = RoomSettings(rounds=1, turn_seconds=60, ten_card=True)
    room, _, followers, connections = await _room(2, settings, CompactConnection)
    await room.handle(connections[1], protocol.parse_message(b'{"type":"chat","text":"hi"}'))
    await room.handle(connections[0], protocol.parse_message(b'{"type":"start"}'))
    rng = random.Random(2)
    while room.state.status is Status.PLAYING:
        seat, raw = _message(room, rng)
        await room.handle(connections[seat], protocol.parse_message(raw))
    # Every key of a view with chat, a round, its results and a ten-card evaluation is a long
    # name.
    view = room.public
    assert view["results"]
    assert view["chat"]["lines"]
    assert not _keys(view) & shorts
    # And the document the compact frames built is that view.
    document = followers[0].document
    assert document is not None
    assert {key: value for key, value in document.items() if key != "you"} == view
    assert _keys(view["round"]) | _keys(view["results"]) <= set(compact.KEYS)


async def test_hello_with_an_unknown_encoding_is_refused_and_changes_nothing(
    rooms_server: Server,
) -> None:
    room = create_room(rooms_server)
    watcher = Client(rooms_server, room["code"])
    await watcher.connect()
    before = json.dumps(watcher.view)
    for encoding in ("zip", "", 1, None, "COMPACT", "msgpack", "binary "):
        code, reason = await closed_with(
            rooms_server,
            room["code"],
            {"type": "hello", "token": room["token"], "encoding": encoding},
        )
        assert code == 4002
        assert "encoding" in reason
    await watcher.resync()
    assert json.dumps(watcher.view) == before  # the host still away, no spectator added
    assert watcher.view["players"][0]["connected"] is False
    await close_all()


async def test_compact_and_binary_clients_play_a_round_over_a_real_socket(
    rooms_server: Server,
) -> None:
    room = create_room(rooms_server, "Ann", rounds=1, turn_seconds=0)
    bob = join_room(rooms_server, room["code"], "Bob")
    cy = join_room(rooms_server, room["code"], "Cy")
    ann = Client(rooms_server, room["code"], room["token"])
    bob_client = Client(rooms_server, room["code"], bob["token"])
    cy_client = Client(rooms_server, room["code"], cy["token"])
    await ann.connect(hello={"type": "hello", "token": room["token"], "encoding": "compact"})
    await bob_client.connect(hello={"type": "hello", "token": bob["token"], "encoding": "standard"})
    await cy_client.connect(hello={"type": "hello", "token": cy["token"], "encoding": "binary"})
    await ann.act("start")
    rng = random.Random(1)
    clients = [ann, bob_client, cy_client]
    while True:
        state = await ann.wait_for(lambda s: s["status"] != "lobby")
        if state["status"] == "finished":
            break
        for client in clients:
            await client.wait_for(lambda s, v=ann.state: s["round"] == v["round"])
        mover = next(c for c in clients if c.my_turn())
        await mover.play(mover.random_move(rng))
        before, fresh = await mover.resync()
        assert before == fresh
    for client in (bob_client, cy_client):
        await client.wait_for(lambda s: s["status"] == "finished")
    assert public(ann.view) == public(bob_client.view) == public(cy_client.view)
    for client in (ann, cy_client):
        assert client.frames[0].startswith('{"type":"state"')
        assert '"encoding"' in client.frames[0]
    assert sum(text.startswith("[") for text in ann.frames) > 10
    assert not any(text.startswith("[") for text in bob_client.frames)
    # Cy's patches came as binary frames, each smaller than Ann's JSON for the same change.
    assert not any(text.startswith("[") for text in cy_client.frames)
    assert len(cy_client.packed) > 10
    assert not ann.packed
    assert not bob_client.packed
    ann_patches = [text.encode() for text in ann.frames if text.startswith("[")]
    assert sum(map(len, cy_client.packed)) / len(cy_client.packed) < 0.75 * (
        sum(map(len, ann_patches)) / len(ann_patches)
    )
    await close_all()
