"""Refusals of the rules reported as HTTP 422, in the shape of FastAPI's validation errors."""

from __future__ import annotations

from fastapi.exceptions import RequestValidationError

from app.engine.errors import IllegalAction


def invalid(location: tuple[str | int, ...], error: IllegalAction) -> RequestValidationError:
    """A 422 naming the field at ``location`` and what is wrong with it."""
    return RequestValidationError([{"loc": location, "msg": error.message, "type": error.code}])
