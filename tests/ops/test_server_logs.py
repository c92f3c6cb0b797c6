"""A real server's log at its most verbose levels: no token, hand or query string, however sent."""

from __future__ import annotations

import json

import pytest
from websockets.asyncio.client import connect

from tests import fetch
from tests.rooms.client import Client, card_ids_in, close_all, create_room, join_room
from tests.server import FAST, running_server

# A client may spell the field's name with JSON escapes; the server reads it all the same.
SPELLINGS = ['"token"', '"\\u0074oken"', '"\\u0074\\u006f\\u006b\\u0065\\u006e"', '"tok\\u0065n"']


@pytest.mark.parametrize("level", ["debug", "trace"])
async def test_no_token_hand_or_query_string_reaches_the_log(level: str) -> None:
    with running_server(**{**FAST, "LOG_LEVEL": level}) as server:
        room = create_room(server, "Ann", turn_seconds=0)
        bob = join_room(server, room["code"], "Bob")
        secrets = [room["token"], bob["token"]]
        # Tokens in query strings, which the server ignores but a client may still send, and
        # the credentials a proxy in front may add (basic auth, a session's cookie).
        credentials = {
            "Authorization": "Basic QmFzaWNTZWNyZXQ=",
            "Proxy-Authorization": "Bearer ProxySecret",
            "Cookie": "session=CookieSecret",
        }
        fetch.get(f"{server.url}/api/rooms/{room['code']}?token={secrets[0]}", headers=credentials)
        url = f"{server.ws_url}/ws/rooms/{room['code']}?token={secrets[1]}&x=1"
        for spelling in SPELLINGS:
            async with connect(url, compression=None, additional_headers=credentials) as ws:
                await ws.send(f'{{"type":"hello",{spelling}:"{secrets[1]}"}}')
                assert json.loads(await ws.recv())["type"] == "state"
        players = [Client(server, room["code"], token) for token in secrets]
        for player in players:
            await player.connect()
        await players[0].act("start")
        await players[1].wait_for(lambda s: s["status"] == "playing")
        hands = {card for player in players for card in player.view["you"]["hand"]}
        mover = next(player for player in players if player.my_turn())
        await mover.act("take", piles=[0])
        await close_all()
        logs = server.logs()
    assert "WebSocket /ws/rooms/" in logs, "the access lines are there, without their queries"
    for secret in [*secrets, "QmFzaWNTZWNyZXQ=", "ProxySecret", "CookieSecret"]:
        assert secret not in logs
    assert "token=" not in logs
    assert not hands & card_ids_in(logs), "a hand reached the log"
    assert "Traceback" not in logs
