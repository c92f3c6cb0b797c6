"""Logging: plain lines for people, or one JSON object a line for log collectors.

Seat tokens travel only in request bodies and the WebSocket hello. Neither is logged by this
server, uvicorn's access log is off, and every record passes through a filter that blanks any
token a library might print (the WebSocket frame traces at debug level would).
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


class RedactTokens(logging.Filter):
    """Blank the value of any "token" field in a log message."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        if "token" in message:
            record.msg = _TOKEN.sub(r"\1[redacted]", message)
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


def configure_logging(level: str, json_lines: bool) -> None:
    """Send every log record (uvicorn's too) to standard error in the chosen format."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(
        JsonFormatter()
        if json_lines
        else logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s")
    )
    handler.addFilter(RedactTokens())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())
    for name in ("uvicorn", "uvicorn.error", "uvicorn.access"):
        logger = logging.getLogger(name)
        logger.handlers[:] = []
        logger.propagate = True
