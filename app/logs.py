"""Logging: plain lines for people, or one JSON object a line for log collectors.

Seat tokens travel only in request bodies and the WebSocket hello, and hands only in frames.
This server logs neither, uvicorn's access log is off, and every record passes through a filter
that keeps only the kind and size of a WebSocket frame (the protocol layer traces frames at
debug level), cuts query strings from request lines and from the connection scopes traced at
trace level, blanks any "token" field however its name is spelled and the credentials a proxy
may add to a request's headers, and turns a client's malformed bytes into one warning line
without a traceback.
"""

from __future__ import annotations

import logging
import re
import sys
import time

import orjson

# Record attributes that are not the event's own fields (uvicorn adds an ANSI-coloured copy).
_STANDARD = set(vars(logging.makeLogRecord({}))) | {"color_message"}
# "token": "...", also inside escaped JSON and up to a cut-off end.
_TOKEN = re.compile(r'(token\\?"\s*:\s*\\?")[^"\\]*')
# A JSON escape such as \u0074 ("t"), as a client may spell a field's name.
_ESCAPE = re.compile(r"\\u([0-9a-fA-F]{4})")
# "WebSocket /ws/rooms/ABCD?token=..." and "GET /path?query HTTP/1.1" in request lines (the
# protocol layer traces the handshake's request line at debug level).
_QUERY = re.compile(r'(\b(?:WebSocket|GET|HEAD|POST|PUT|PATCH|DELETE|OPTIONS) /[^"?\s]*)\?[^"\s]*')
# uvicorn's level below debug: every ASGI message event and connection scope.
TRACE = 5
# Bytes or text as Python writes them, in either quotes, with what they escape.
_QUOTED = r"""b?(?:'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")"""
# A connection's scope, as uvicorn traces it: "'query_string': b'token=...'".
_SCOPE_QUERY = re.compile(rf"('query_string': ){_QUOTED}")
# Credentials a proxy in front may add to a request (basic auth, a session's cookie): the
# protocol layer traces the handshake's headers at debug level ("< cookie: ..."), and uvicorn's
# traced scopes hold them as pairs of bytes ("(b'cookie', b'...')").
_CREDENTIAL_HEADERS = "(?:proxy-authorization|authorization|cookie|set-cookie)"
_CREDENTIAL_LINE = re.compile(rf"(?im)^([<>] {_CREDENTIAL_HEADERS}: ).*$")
_CREDENTIAL_PAIR = re.compile(rf"(?i)(\(b'{_CREDENTIAL_HEADERS}', ){_QUOTED}")
# The protocol layer's frame traces: "< %s" received, "> %s" sent.
_FRAME_TRACES = ("< %s", "> %s")
# What a client's bad bytes make the protocol layer log with a traceback: the client's fault,
# answered with a close, so one warning line, not an error anyone could fill the logs with.
_CLIENT_FAULTS = {"Invalid UTF-8 sequence received from client."}


def _frame_outline(frame: object) -> str:
    """A frame's kind and size, never its content."""
    kind = getattr(getattr(frame, "opcode", None), "name", type(frame).__name__)
    size = len(getattr(frame, "data", b""))
    return f"{kind} [{size} bytes]"


class RedactTokens(logging.Filter):
    """Keep tokens, hands and query strings out of every log record."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.msg in _CLIENT_FAULTS:
            record.exc_info = record.exc_text = None
            record.levelno, record.levelname = logging.WARNING, "WARNING"
        if (
            record.msg in _FRAME_TRACES
            and isinstance(record.args, tuple)
            and record.args
            and hasattr(record.args[0], "opcode")
        ):
            record.args = (_frame_outline(record.args[0]),)
            return True
        message = record.getMessage()
        redacted = message
        if "?" in redacted:
            redacted = _QUERY.sub(r"\1", redacted)
        if "'query_string': " in redacted:
            redacted = _SCOPE_QUERY.sub(r"\1'<...>'", redacted)
        if "\\u" in redacted:
            redacted = _ESCAPE.sub(lambda match: chr(int(match.group(1), 16)), redacted)
        lower = redacted.lower()
        if "token" in lower:
            redacted = _TOKEN.sub(r"\1[redacted]", redacted)
        if "authorization" in lower or "cookie" in lower:
            redacted = _CREDENTIAL_LINE.sub(r"\1[redacted]", redacted)
            redacted = _CREDENTIAL_PAIR.sub(r"\1'[redacted]'", redacted)
        if redacted != message:
            record.msg = redacted
            record.args = ()
        return True


class JsonFormatter(logging.Formatter):
    """A log record as one JSON object."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, object] = {
            "time": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created))
            + f".{int(record.msecs):03d}Z",
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
        }
        entry.update((key, value) for key, value in vars(record).items() if key not in _STANDARD)
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        return orjson.dumps(entry, default=str).decode()


class NameNode(logging.Filter):
    """Give every record the id of the cluster node that writes it (``node``)."""

    def __init__(self, node: str) -> None:
        super().__init__()
        self.node = node

    def filter(self, record: logging.LogRecord) -> bool:
        record.node = self.node
        return True


def configure_logging(level: str, json_lines: bool, node: str = "") -> None:
    """Send every log record (uvicorn's too) to standard error in the chosen format; in a
    cluster (``node`` given), every line names the node: a ``node`` field, or ``[node]``."""
    logging.addLevelName(TRACE, "TRACE")
    handler = logging.StreamHandler(sys.stderr)
    plain = "%(asctime)s %(levelname)s [%(node)s] %(name)s: %(message)s" if node else None
    handler.setFormatter(
        JsonFormatter()
        if json_lines
        else logging.Formatter(plain or "%(asctime)s %(levelname)s %(name)s: %(message)s")
    )
    if node:
        handler.addFilter(NameNode(node))
    handler.addFilter(RedactTokens())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())
    for name in ("uvicorn", "uvicorn.error", "uvicorn.access"):
        logger = logging.getLogger(name)
        logger.handlers[:] = []
        logger.propagate = True
