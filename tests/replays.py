"""Matches played to the end over a real server, by protocol clients and the server's bots, for
the replay and leaderboard tests; and a replay of a stored round in Python, from the recipe in
docs/rules.md, to compare with what the history stored."""

from __future__ import annotations

import hashlib
import random
from collections.abc import Sequence
from typing import Any

from app.engine.cards import CARD_IDS
from tests.rooms.client import Client, api, close_all, converge, public
from tests.server import Server


def new_key(seed: int) -> str:
    """A player key as a browser makes one (64 lowercase hex characters)."""
    return random.Random(seed).randbytes(32).hex()


async def play_match(
    server: Server,
    names: list[str],
    settings: dict[str, Any],
    bots: Sequence[str] = (),
    keys: list[str | None] | None = None,
    seed: int = 3,
    knock_chance: float = 0.2,
    away: Sequence[int] = (),
) -> str:
    """A match played to its end by ``names`` (each with their key) and ``bots``; its id. The
    seats ``away`` never connect: stand-ins play their turns."""
    keys = keys or [None] * len(names)
    try:
        body: dict[str, Any] = {"name": names[0], "settings": settings}
        if keys[0]:
            body["key"] = keys[0]
        response = api(server, "POST", "/api/rooms", body)
        assert response.status_code == 201, response.text
        room = response.json()
        code, tokens = room["code"], [room["token"]]
        for name, key in zip(names[1:], keys[1:], strict=True):
            joined = api(server, "POST", f"/api/rooms/{code}/join", {"name": name, "key": key})
            assert joined.status_code == 201, joined.text
            tokens.append(joined.json()["token"])
        players = [Client(server, code, token) for i, token in enumerate(tokens) if i not in away]
        for client in players:
            await client.connect()
        host = players[0]
        for level in bots:
            await host.act("add_bot", level=level)
        await host.act("start")
        seats = {client.seat: client for client in players}
        rng = random.Random(seed)
        while True:
            target = await converge(players)
            match_id = str(target["match_id"])
            if target["status"] == "finished":
                return match_id
            if target["status"] == "round_over":
                for client in players:
                    if client.view["status"] == "round_over":
                        await client.act("ready")
                await host.wait_for(lambda s: s["status"] != "round_over")
                continue
            turn = target["round"]["turn"]["seat"]
            if turn not in seats:
                # A bot's or a stand-in's turn: the server moves; wait until something changed.
                await host.wait_for(lambda s, target=target: public(s) != target)
                continue
            mover = seats[turn]
            await mover.play(mover.random_move(rng, knock_chance=knock_chance))
    finally:
        await close_all()


def replayed_hands(
    seed: str, dealer: int, players: int, hand_size: int, moves: list[dict[str, Any]]
) -> list[list[str]]:
    """The hands at the end of a round, dealt from ``seed`` and played move by move as
    docs/rules.md says, checking every card taken against the pile it came from."""
    prefix = seed.encode() + b":"
    deck = sorted(CARD_IDS, key=lambda card: hashlib.sha256(prefix + card.encode()).digest())
    dealt = players * hand_size
    hands = [
        [deck[i] for i in range(dealt) if i % players == (seat - dealer - 1) % players]
        for seat in range(players)
    ]
    rest = deck[dealt:]
    base, extra = divmod(len(rest), 4)
    piles, start = [], 0
    for index in range(4):
        size = base + (index < extra)
        piles.append(rest[start : start + size])  # top first
        start += size
    discard: list[str] = []
    for move in moves:
        hand = hands[move["seat"]]
        if move["type"] == "take":
            for pile, card in zip(move["piles"], move["cards"], strict=True):
                top = discard.pop() if pile == 4 else piles[pile].pop(0)
                assert top == card, f"{card} taken from pile {pile}, whose top is {top}"
                hand.append(top)
        elif move["type"] == "discard":
            for card in move["cards"]:
                hand.remove(card)
                discard.append(card)
        else:
            assert move["type"] == "knock"
    return hands
