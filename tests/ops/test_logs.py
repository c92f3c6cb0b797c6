"""The log filter: no token, hand or query string reaches a log line, however it is spelled."""

import logging
import sys

import pytest
from websockets.frames import Frame, Opcode

from app.logs import RedactTokens

SECRET = "s3cr3t-seat-token"


def passed(msg: str, *args: object, name: str = "uvicorn.error") -> str:
    record = logging.LogRecord(name, logging.DEBUG, __file__, 1, msg, args, None)
    assert RedactTokens().filter(record)
    return record.getMessage()


@pytest.mark.parametrize(
    "spelling",
    [
        f'{{"type": "hello", "token": "{SECRET}"}}',
        f'{{"type":"hello","\\u0074oken":"{SECRET}"}}',
        f'{{"type":"hello","\\u0074\\u006f\\u006b\\u0065\\u006e" : "{SECRET}"}}',
        f'"{{\\"type\\":\\"hello\\",\\"token\\":\\"{SECRET}',
    ],
)
def test_a_token_is_blanked_however_its_name_is_spelled(spelling: str) -> None:
    line = passed("received %s", spelling)
    assert SECRET not in line
    assert "[redacted]" in line


def test_request_lines_lose_their_query_strings() -> None:
    line = passed(
        '%s - "WebSocket %s" [accepted]', "127.0.0.1:5000", f"/ws/rooms/ABCD?token={SECRET}"
    )
    assert line == '127.0.0.1:5000 - "WebSocket /ws/rooms/ABCD" [accepted]'
    line = passed('"GET /api/matches?player=Ann&cursor=x HTTP/1.1" 200')
    assert line == '"GET /api/matches HTTP/1.1" 200'
    line = passed("< %s", f"GET /ws/rooms/ABCD?token={SECRET} HTTP/1.1")
    assert line == "< GET /ws/rooms/ABCD HTTP/1.1"


def test_frame_traces_keep_only_kind_and_size() -> None:
    hand = b'{"type":"state","state":{"you":{"hand":["1-circle-violet","2-star-red"]}}}'
    for direction in ("< %s", "> %s"):
        line = passed(direction, Frame(Opcode.TEXT, hand))
        assert line == f"{direction[0]} TEXT [{len(hand)} bytes]"
    hello = f'{{"type":"hello","token":"{SECRET}"}}'.encode()
    assert SECRET not in passed("< %s", Frame(Opcode.TEXT, hello))


def test_a_clients_bad_bytes_are_one_warning_without_a_traceback() -> None:
    try:
        b"\xff".decode()
    except UnicodeDecodeError:
        record = logging.LogRecord(
            "uvicorn.error",
            logging.ERROR,
            __file__,
            1,
            "Invalid UTF-8 sequence received from client.",
            (),
            sys.exc_info(),
        )
    assert RedactTokens().filter(record)
    assert (record.levelname, record.exc_info) == ("WARNING", None)
    assert "Traceback" not in logging.Formatter().format(record)


def test_other_lines_are_untouched() -> None:
    assert passed("restored %d rooms", 3) == "restored 3 rooms"
    assert passed("what? nothing here") == "what? nothing here"


def test_traced_scopes_lose_their_query_strings() -> None:
    scope = {"type": "websocket", "path": "/ws/rooms/ABCD", "query_string": f"token={SECRET}"}
    for query in (f"token={SECRET}".encode(), f"token={SECRET}'x".encode()):
        line = passed(
            "%s - ASGI [%d] Started scope=%s", "127.0.0.1:5000", 1, {**scope, "query_string": query}
        )
        assert SECRET not in line
        assert "'query_string': '<...>'" in line


def test_credentials_in_traced_scopes_are_blanked_whatever_their_quotes() -> None:
    """Python writes bytes holding both quotes as b'...\\'...': the pair is blanked whole."""
    headers = [
        (b"cookie", b'a="x\'y"; sid=' + SECRET.encode()),
        (b"authorization", b"Basic " + SECRET.encode()),
    ]
    scope = {"type": "http", "headers": headers}
    line = passed("%s - ASGI [%d] Started scope=%s", "127.0.0.1:5000", 1, scope)
    assert SECRET not in line
    assert line.count("'[redacted]'") == 2
