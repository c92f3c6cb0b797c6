"""Errors of the HTTP API: refusals as ``{"detail", "code"}``; bad fields as FastAPI's 422,
whose ``detail`` lists them, with the code ``invalid_request``."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI, Request
from fastapi.encoders import jsonable_encoder
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel

from app.engine.errors import IllegalAction

# HTTP statuses of refusals other than 409 Conflict.
REFUSAL_STATUS = {"server_full": 503, "room_moved": 503, "not_saved": 503}
# Seconds a client is told to wait (Retry-After) before it asks again, for every 503: a room
# moving is soon held, a database that could not write or answer may take longer, and a full
# server frees a room only as one ends.
REFUSAL_RETRY = {"server_full": 30, "room_moved": 1, "not_saved": 5}
DATABASE_RETRY_SECONDS = 5
DATABASE_WORDS = "the database is unavailable; try again later"


class ErrorOut(BaseModel):
    """A refused request: what went wrong, for people and for programs."""

    detail: str
    code: str


# Every request under /api/ may be answered so (the API's rate per address); routers declare it.
RATE_LIMITED: dict[int | str, dict[str, Any]] = {
    429: {"model": ErrorOut, "description": "Too many requests from this address."}
}


# Every route that takes a body may be answered so (the body size limit); those routes declare it.
TOO_LARGE: dict[int | str, dict[str, Any]] = {
    413: {"model": ErrorOut, "description": "`too_large`: the body is over `MAX_BODY_BYTES`."}
}


class ApiError(Exception):
    """An HTTP error with a stable code and a human message."""

    def __init__(
        self, status: int, code: str, message: str, retry_after: int | None = None
    ) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.retry_after = retry_after  # seconds, sent as Retry-After

    @classmethod
    def refused(cls, error: IllegalAction) -> Exception:
        """The rules' refusal as the matching HTTP error (a bad name is a bad field)."""
        if error.code == "bad_name":
            return invalid(("body", "name"), error)
        status = REFUSAL_STATUS.get(error.code, 409)
        return cls(status, error.code, error.message, REFUSAL_RETRY.get(error.code))


def invalid(location: tuple[str | int, ...], error: IllegalAction) -> RequestValidationError:
    """A 422 naming the field at ``location`` and what is wrong with it."""
    return RequestValidationError([{"loc": location, "msg": error.message, "type": error.code}])


async def validation_error_handler(request: Request, error: Exception) -> JSONResponse:
    """FastAPI's 422, with pydantic's "Value error, " prefix taken off the messages."""
    assert isinstance(error, RequestValidationError)
    details = []
    for item in error.errors():
        detail = {key: value for key, value in item.items() if key in ("loc", "msg", "type")}
        detail["msg"] = str(detail.get("msg", "")).removeprefix("Value error, ")
        details.append(detail)
    return JSONResponse(
        {"detail": jsonable_encoder(details), "code": INVALID_REQUEST}, status_code=422
    )


# The code of every 422: a program reads the ``code`` of any refusal, whatever its status.
INVALID_REQUEST = "invalid_request"


def describe_invalid_requests(application: FastAPI) -> None:
    """Have the OpenAPI description of ``application`` give the 422's ``code`` too (FastAPI
    describes its own 422 body, ``detail`` alone, and optional)."""
    describe = application.openapi

    def openapi() -> dict[str, Any]:
        schema = describe()
        invalid = schema.get("components", {}).get("schemas", {}).get("HTTPValidationError")
        if invalid is not None:
            invalid["properties"]["code"] = {
                "type": "string",
                "enum": [INVALID_REQUEST],
                "title": "Code",
            }
            invalid["required"] = ["detail", "code"]
        return schema

    setattr(application, "openapi", openapi)  # noqa: B010 (a method assigned to an instance)


async def api_error_handler(request: Request, error: Exception) -> JSONResponse:
    """Render an ApiError."""
    assert isinstance(error, ApiError)
    headers = None if error.retry_after is None else {"Retry-After": str(error.retry_after)}
    return JSONResponse(
        {"detail": error.message, "code": error.code}, status_code=error.status, headers=headers
    )


async def database_error_handler(request: Request, error: Exception) -> JSONResponse:
    """The database could not answer: 503, so clients know to try again later."""
    return JSONResponse(
        {"detail": DATABASE_WORDS, "code": "database_unavailable"},
        status_code=503,
        headers={"Retry-After": str(DATABASE_RETRY_SECONDS)},
    )
