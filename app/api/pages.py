"""The browser client: static files, the pages that open it, and share-link QR codes."""

from __future__ import annotations

import asyncio
import base64
import gzip
import hashlib
import io
import json
import os
import re
from functools import cache
from http import HTTPStatus
from pathlib import Path

import anyio
from fastapi import APIRouter, Depends, FastAPI, Request
from fastapi.exception_handlers import http_exception_handler
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from fastapi.utils import is_body_allowed_for_status_code
from starlette.exceptions import HTTPException
from starlette.types import Scope

from app.api.deps import BaseUrlDep, RoomDep, count_room_miss
from app.api.errors import validation_error_handler
from app.api.etags import names_tag
from app.api.gzipped import request_header, takes_gzip, weak_text
from app.api.middleware import http_only
from app.api.rooms import INFO_ERRORS

FRONTEND = Path(__file__).resolve().parents[2] / "frontend"
# Paths the client routes itself: each serves the same page.
CLIENT_PATHS = [
    "/",
    "/history",
    "/matches/{match_id}",
    "/players/{name:path}",  # a name may hold "/", which arrives decoded
    "/calculator",
    "/rules",
]

router = APIRouter()


def page_policy(page: str) -> str:
    """The Content-Security-Policy of the client's page: its scripts and everything it loads
    from this server alone (the page's one inline script by its hash), and never framed by
    another site. Styles may be inline: the page's templates set some in attributes."""
    inline = re.findall(r"<script>(.*?)</script>", page, re.S)
    hashes = " ".join(
        "'sha256-" + base64.b64encode(hashlib.sha256(script.encode()).digest()).decode() + "'"
        for script in inline
    )
    return "; ".join(
        (
            "default-src 'self'",
            f"script-src 'self' {hashes}".strip(),
            "style-src 'self' 'unsafe-inline'",
            "img-src 'self' data:",  # the tab's icon, marked for a turn, is drawn
            "connect-src 'self'",
            "object-src 'none'",
            "base-uri 'none'",
            "form-action 'self'",
            "frame-ancestors 'none'",
        )
    )


PAGE_HEADERS = {
    "Cache-Control": "no-cache",
    "Content-Security-Policy": page_policy((FRONTEND / "index.html").read_text()),
}


@cache
def client_version() -> str:
    """A version that changes with any client file."""
    digest = hashlib.sha256()
    for path in sorted(path for path in FRONTEND.rglob("*") if path.is_file()):
        digest.update(path.relative_to(FRONTEND).as_posix().encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:16]


@cache
def page() -> bytes:
    """The client's page, which says which version of the client it is (``data-v``): a page
    open across an upgrade compares it with the server's before running a module it has not
    run yet, and loads afresh rather than mix new modules into its old ones."""
    text = (FRONTEND / "index.html").read_text()
    tag = '<html lang="en">'
    if tag not in text:
        raise RuntimeError(f"frontend/index.html has no {tag}")
    return text.replace(tag, f'<html lang="en" data-v="{client_version()}">', 1).encode()


@cache
def _gzipped(body: bytes) -> bytes:
    """One of the answers made once per process (the page, a language's service worker),
    gzipped once."""
    return gzip.compress(body, 9, mtime=0)


def text_answer(
    request: Request, body: bytes, media_type: str, headers: dict[str, str], status: int = 200
) -> Response:
    """``body``, made once per process, gzipped for a browser that takes it (about half its
    size), as ``ClientFiles`` sends the client's files: ``Vary: Accept-Encoding`` either way, and
    the gzipped answer's ``ETag`` weak."""
    headers = {**headers, "Vary": "Accept-Encoding"}
    if takes_gzip(request.headers.get("accept-encoding", "")):
        if "ETag" in headers:
            headers["ETag"] = weak_text(headers["ETag"])
        if status != 304:
            headers["Content-Encoding"] = "gzip"
            body = _gzipped(body)
    return Response(body, status, headers, media_type)


def _index(request: Request) -> Response:
    """The page; ``304 Not Modified`` to a browser whose copy is of this version."""
    tag = f'"{client_version()}"'
    asked = request.headers.get("if-none-match", "")
    headers = {**PAGE_HEADERS, "ETag": tag}
    if names_tag(asked, tag):
        return text_answer(request, b"", "text/html", headers, 304)
    return text_answer(request, page(), "text/html", headers)


for path in CLIENT_PATHS:
    router.add_api_route(path, _index, include_in_schema=False, methods=["GET"])
# The client says when a room does not exist; the page still counts a miss against the address.
router.add_api_route(
    "/r/{code}",
    _index,
    include_in_schema=False,
    methods=["GET"],
    dependencies=[Depends(count_room_miss)],
)


# Not kept under /static/: the service worker itself, and the page (kept as "/").
NOT_SHELL = {"sw.js", "index.html"}
# The interface's words, a table per language: a browser keeps only its reader's.
LANGUAGES = FRONTEND / "js" / "lang"


def languages() -> list[str]:
    """The languages the interface speaks, English first."""
    return sorted((path.stem for path in LANGUAGES.glob("*.js")), key=lambda name: name != "en")


@cache
def service_worker(language: str) -> bytes:
    """frontend/sw.js with the shell it keeps: the page, every client file but the other
    languages' words, and a version that changes with any client file and with the language
    (so a new client, or another language, replaces the old copy once no page uses it)."""
    files = sorted(path for path in FRONTEND.rglob("*") if path.is_file())
    kept = [
        path
        for path in files
        if path.relative_to(FRONTEND).as_posix() not in NOT_SHELL
        and (path.parent != LANGUAGES or path.stem == language)
    ]
    shell = ["/", "/manifest.webmanifest"]
    shell += [f"/static/{path.relative_to(FRONTEND).as_posix()}" for path in kept]
    version = f"{client_version()}-{language}"
    head = f"const SHELL = {json.dumps(shell)};\nconst VERSION = '{version}';\n"
    return head.encode() + (FRONTEND / "sw.js").read_bytes()


@router.get("/sw.js", include_in_schema=False)
def sw(request: Request, lang: str = "en") -> Response:
    """The service worker, at the root so that its scope is every page; ``lang``: the reader's
    language, whose words it keeps (an unknown one keeps English)."""
    return text_answer(
        request,
        service_worker(lang if lang in languages() else "en"),
        "text/javascript",
        {"Cache-Control": "no-cache", "Service-Worker-Allowed": "/"},
    )


@router.get("/manifest.webmanifest", include_in_schema=False)
def manifest() -> FileResponse:
    """The web app manifest, which lets a phone install the client (too small to gain by
    gzip)."""
    return FileResponse(
        FRONTEND / "manifest.webmanifest",
        media_type="application/manifest+json",
        headers={"Cache-Control": "no-cache"},
    )


@router.get(
    "/api/rooms/{code}/qr.svg",
    tags=["rooms"],
    response_class=Response,
    responses={
        200: {"content": {"image/svg+xml": {}}, "description": "The room's link as a QR code."},
        **INFO_ERRORS,
    },
)
async def room_qr(room: RoomDep, base: BaseUrlDep) -> Response:
    """The room's share link as an SVG QR code, for phones in the same room."""
    import segno  # only when a QR code is asked for: not on the way to a first game

    image = io.BytesIO()
    segno.make(f"{base}/r/{room.code}", error="m").save(
        image,
        kind="svg",
        scale=6,
        border=2,
        xmldecl=False,
        dark="#1d2433",
        title=f"Link to room {room.code}",
    )
    return Response(image.getvalue(), media_type="image/svg+xml")


# Paths whose answers are for programs: a miss there stays JSON.
MACHINE_PREFIXES = ("/api/", "/static/", "/ws/", "/docs/static/")


async def not_found(request: Request, error: Exception) -> Response:
    """A miss on a page's path is the client's "not found" page (status 404); elsewhere, and
    for every other HTTP error (a method a path does not take, 405), the API's refusal:
    ``{"detail", "code"}``, the code the status's name (``not_found``,
    ``method_not_allowed``), so that a program reads every refusal the same way."""
    assert isinstance(error, HTTPException)
    if isinstance(error.__cause__, UnicodeDecodeError):
        # FastAPI's 400 for a JSON body that is not UTF-8: refused as any body that is not
        # JSON is, 422 at "body".
        reason = "JSON decode error: the body is not UTF-8 text"
        invalid = [{"type": "json_invalid", "loc": ("body", error.__cause__.start), "msg": reason}]
        return await validation_error_handler(request, RequestValidationError(invalid))
    if isinstance(error.__cause__, RecursionError):
        # FastAPI's 400 for JSON nested deeper than the parser goes: not JSON this reads.
        reason = "JSON decode error: nested too deeply"
        invalid = [{"type": "json_invalid", "loc": ("body",), "msg": reason}]
        return await validation_error_handler(request, RequestValidationError(invalid))
    if error.status_code == 404 and not request.url.path.startswith(MACHINE_PREFIXES):
        return text_answer(request, page(), "text/html", PAGE_HEADERS, 404)
    if not is_body_allowed_for_status_code(error.status_code):
        return await http_exception_handler(request, error)
    code = HTTPStatus(error.status_code).phrase.lower().replace(" ", "_").replace("-", "_")
    headers = error.headers
    allowed = (headers or {}).get("Allow", "").split(", ")
    if "GET" in allowed and "HEAD" not in allowed:  # a GET's path answers HEAD too
        headers = {**(headers or {}), "Allow": ", ".join([*allowed, "HEAD"])}
    return JSONResponse(
        {"detail": error.detail, "code": code}, status_code=error.status_code, headers=headers
    )


# Files sent gzipped to a browser that takes it (images other than SVG are compressed already).
COMPRESSIBLE = {".js", ".css", ".html", ".md", ".svg", ".webmanifest", ".json"}


class ClientFiles(StaticFiles):
    """The client's files, each asked for again before a browser uses its copy (``no-cache``:
    an unchanged one is a 304). Without it a browser guesses how long a file stays fresh from
    its age, and after an upgrade runs its old copies of the files it has, beside the new
    files it did not have (its service worker keeping the old ones as the new version's).

    Text files go gzipped to a browser that takes it, about a third of their size: each is
    compressed once (in a worker thread, on its first request) and kept while it is unchanged.
    The gzipped copy's ``ETag`` is the file's, weak; either revalidates to a 304."""

    def __init__(self, *, directory: Path) -> None:
        super().__init__(directory=directory)
        # Full path -> (its modification time and size when compressed, the gzipped bytes).
        self._gzipped: dict[str, tuple[tuple[int, int], bytes]] = {}
        self._compressing: dict[str, asyncio.Lock] = {}

    def file_response(
        self,
        full_path: str | os.PathLike[str],
        stat_result: os.stat_result,
        scope: Scope,
        status_code: int = 200,
    ) -> Response:
        response = super().file_response(full_path, stat_result, scope, status_code)
        response.headers["Cache-Control"] = "no-cache"
        if Path(full_path).suffix in COMPRESSIBLE:
            response.headers["Vary"] = "Accept-Encoding"
            gzipped = takes_gzip(request_header(scope, b"accept-encoding"))
            if response.status_code == 304 and gzipped:
                response.headers["ETag"] = weak_text(response.headers["ETag"])
        return response

    async def get_response(self, path: str, scope: Scope) -> Response:
        response = await super().get_response(path, scope)
        if (
            not isinstance(response, FileResponse)
            or response.status_code != 200
            or "vary" not in response.headers  # not a text file
            or request_header(scope, b"range")
            or not takes_gzip(request_header(scope, b"accept-encoding"))
        ):
            return response
        assert response.stat_result is not None  # always given by StaticFiles
        try:
            body = await self._compressed(str(response.path), response.stat_result)
        except OSError:  # gone since it was looked up: as Starlette answers it
            return response
        headers = {
            name: value
            for name, value in response.headers.items()
            if name not in ("content-length", "accept-ranges")
        }
        headers["content-encoding"] = "gzip"
        headers["etag"] = weak_text(response.headers["etag"])
        return Response(body, headers=headers)

    async def _compressed(self, full_path: str, seen: os.stat_result) -> bytes:
        """The file gzipped: compressed once for as long as its time and size stay the same,
        however many ask for it at once (Swagger UI's bundle takes a few tenths of a second)."""
        key = (seen.st_mtime_ns, seen.st_size)
        async with self._compressing.setdefault(full_path, asyncio.Lock()):
            kept = self._gzipped.get(full_path)
            if kept is not None and kept[0] == key:
                return kept[1]
            read, body = await anyio.to_thread.run_sync(_gzip_file, full_path)
            self._gzipped[full_path] = (read, body)
            return body


def _gzip_file(full_path: str) -> tuple[tuple[int, int], bytes]:
    """The file's time and size, and its bytes gzipped, as read from one opening of it."""
    with open(full_path, "rb") as file:
        seen = os.fstat(file.fileno())
        data = file.read()
    return (seen.st_mtime_ns, seen.st_size), gzip.compress(data, 9, mtime=0)


def mount_client(application: FastAPI) -> None:
    """Serve the client's files under /static, its pages at their paths, and its 404 page; a
    WebSocket's handshake for a path that serves none is answered 404 too."""
    application.mount("/static", http_only(ClientFiles(directory=FRONTEND)), name="static")
    application.include_router(router)
    application.add_exception_handler(HTTPException, not_found)
    application.router.default = http_only(application.router.default)
