"""A first message that is not a JSON object closes the socket saying what a message is."""

from __future__ import annotations

import pytest

from tests.rooms.client import closed_with, create_room
from tests.server import Server

pytestmark = pytest.mark.usefixtures("closing_clients")


@pytest.mark.parametrize("first", ["[1, 2]", "5", "null", '"hello"'])
async def test_a_first_message_not_an_object_closes_4002_saying_so(
    rooms_server: Server, first: str
) -> None:
    room = create_room(rooms_server)
    code, reason = await closed_with(rooms_server, room["code"], first)
    assert code == 4002
    assert reason == "the first message must be hello: a message is a JSON object with a type"
