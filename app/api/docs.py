"""The API's description for people: Swagger UI at /docs and ReDoc at /redoc.

Their scripts and styles come from this server (the ``fastapi-offline`` package's copies, under
/docs/static/), never from a CDN: the pages work on a network with no way out, and come with a
Content-Security-Policy that lets them load nothing from another site.
"""

from __future__ import annotations

from functools import cache
from importlib.util import find_spec
from pathlib import Path

from fastapi import APIRouter, FastAPI, Request
from fastapi.openapi.docs import get_redoc_html, get_swagger_ui_html
from fastapi.responses import HTMLResponse

from app.api.middleware import http_only
from app.api.pages import ClientFiles, page_policy

TITLE = "Spectrum Online"
ASSETS_PATH = "/docs/static"

router = APIRouter()


def assets() -> Path:
    """The folder of Swagger UI's and ReDoc's files, found without importing the package."""
    spec = find_spec("fastapi_offline")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("the fastapi-offline package is not installed: pip install -e .")
    return Path(spec.submodule_search_locations[0]) / "static"


@cache
def _policy(body: bytes, workers: bool) -> str:
    """The client page's policy, for this page's inline script; with ``workers``, a worker may
    start from a blob (ReDoc searches in one)."""
    policy = page_policy(body.decode())
    return f"{policy}; worker-src 'self' blob:" if workers else policy


def _answer(page: HTMLResponse, workers: bool = False) -> HTMLResponse:
    page.headers["Content-Security-Policy"] = _policy(bytes(page.body), workers)
    page.headers["Cache-Control"] = "no-cache"
    return page


@router.get("/docs", include_in_schema=False)
def swagger_ui(request: Request) -> HTMLResponse:
    """Swagger UI: every path, with its requests tried from the page."""
    root = request.scope.get("root_path", "")
    return _answer(
        get_swagger_ui_html(
            openapi_url=f"{root}/openapi.json",
            title=f"{TITLE} - API",
            swagger_js_url=f"{root}{ASSETS_PATH}/swagger-ui-bundle.js",
            swagger_css_url=f"{root}{ASSETS_PATH}/swagger-ui.css",
            swagger_favicon_url=f"{root}/static/icon.svg",
        )
    )


@router.get("/redoc", include_in_schema=False)
def redoc(request: Request) -> HTMLResponse:
    """ReDoc: the same description as one long page."""
    root = request.scope.get("root_path", "")
    return _answer(
        get_redoc_html(
            openapi_url=f"{root}/openapi.json",
            title=f"{TITLE} - API",
            redoc_js_url=f"{root}{ASSETS_PATH}/redoc.standalone.js",
            redoc_favicon_url=f"{root}/static/icon.svg",
            with_google_fonts=False,
        ),
        workers=True,
    )


def mount_docs(application: FastAPI) -> None:
    """Serve /docs, /redoc and their files (FastAPI's own pages, which load from a CDN, are
    turned off where the application is made)."""
    application.mount(ASSETS_PATH, http_only(ClientFiles(directory=assets())), name="docs-static")
    application.include_router(router)
