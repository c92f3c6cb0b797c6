"""Errors of the HTTP API: refusals as ``{"detail", "code"}``, bad fields as FastAPI's 422."""

from __future__ import annotations

from typing import Any

from fastapi import Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ValidationError

from app.engine.errors import IllegalAction

# HTTP statuses of refusals other than 409 Conflict.
REFUSAL_STATUS = {"server_full": 503}


class ErrorOut(BaseModel):
    """A refused request: what went wrong, for people and for programs."""

    detail: str
    code: str


class ApiError(Exception):
    """An HTTP error with a stable code and a human message."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message

    @classmethod
    def refused(cls, error: IllegalAction) -> Exception:
        """The rules' refusal as the matching HTTP error (a bad name is a bad field)."""
        if error.code == "bad_name":
            return invalid(("body", "name"), error)
        return cls(REFUSAL_STATUS.get(error.code, 409), error.code, error.message)

    @staticmethod
    def invalid(location: tuple[str | int, ...], error: ValidationError) -> RequestValidationError:
        """A pydantic error in part of the body as FastAPI's 422."""
        details: list[dict[str, Any]] = []
        for item in error.errors(include_url=False):
            message = str(item["msg"]).removeprefix("Value error, ")
            details.append({"loc": [*location, *item["loc"]], "msg": message, "type": item["type"]})
        return RequestValidationError(details)


def invalid(location: tuple[str | int, ...], error: IllegalAction) -> RequestValidationError:
    """A 422 naming the field at ``location`` and what is wrong with it."""
    return RequestValidationError([{"loc": location, "msg": error.message, "type": error.code}])


async def api_error_handler(request: Request, error: Exception) -> JSONResponse:
    """Render an ApiError."""
    assert isinstance(error, ApiError)
    return JSONResponse({"detail": error.message, "code": error.code}, status_code=error.status)
