"""The client's files (and the API docs' files) go gzipped to a browser that takes it."""

from __future__ import annotations

import gzip
from pathlib import Path

import httpx
import pytest

from app.api.gzipped import varied
from tests import fetch
from tests import server as servers
from tests.api.test_pages import FRONTEND, client_files
from tests.e2e.test_upgrade import Copy
from tests.server import Server, running_server

TEXT = {".js", ".css", ".html", ".md", ".svg", ".webmanifest", ".json"}


def raw(server: Server, path: str, **headers: str) -> tuple[httpx.Response, bytes]:
    """The answer and its body exactly as sent, not decoded."""
    return fetch.raw(server.url + path, **headers)


def test_every_text_file_of_the_client_goes_gzipped_and_revalidates(server: Server) -> None:
    files = [path for path in client_files() if path.suffix in TEXT]
    assert len(files) > 15
    sent = whole = 0
    for path in files:
        url = "/static/" + path.relative_to(FRONTEND).as_posix()
        answer, body = raw(server, url, **{"Accept-Encoding": "gzip, deflate, br"})
        assert answer.status_code == 200, url
        assert answer.headers["content-encoding"] == "gzip", url
        assert gzip.decompress(body) == path.read_bytes(), url
        assert int(answer.headers["content-length"]) == len(body)
        assert answer.headers["vary"] == "Accept-Encoding"
        assert answer.headers["cache-control"] == "no-cache"
        assert answer.headers["etag"].startswith('W/"')
        assert "accept-ranges" not in answer.headers
        sent, whole = sent + len(body), whole + path.stat().st_size
        # The copy a browser keeps is asked for again: unchanged, a 304 with no body.
        again, empty = raw(
            server, url, **{"Accept-Encoding": "gzip", "If-None-Match": answer.headers["etag"]}
        )
        assert (again.status_code, empty) == (304, b""), url
        assert again.headers["etag"] == answer.headers["etag"]
        assert again.headers["vary"] == "Accept-Encoding"
    assert sent < whole / 2, (sent, whole)


@pytest.mark.parametrize("path", ["/", "/r/ABCD-EFGH", "/history", "/no/such/page", "/sw.js"])
def test_the_page_and_the_service_worker_go_gzipped_too(server: Server, path: str) -> None:
    """The page every link opens and the service worker, made by the server rather than
    served from a file, went as they were: three times the bytes on a first visit."""
    plain, whole = raw(server, path, **{"Accept-Encoding": "identity"})
    answer, body = raw(server, path, **{"Accept-Encoding": "gzip, deflate, br"})
    assert answer.status_code == plain.status_code
    assert "content-encoding" not in plain.headers
    assert answer.headers["content-encoding"] == "gzip"
    assert gzip.decompress(body) == whole
    assert int(answer.headers["content-length"]) == len(body) < len(whole) / 2
    assert answer.headers["vary"] == plain.headers["vary"] == "Accept-Encoding"
    assert answer.headers["content-type"] == plain.headers["content-type"]
    assert answer.headers.get("content-security-policy") == plain.headers.get(
        "content-security-policy"
    )
    if "etag" in plain.headers:  # the page: either copy revalidates, to a 304 with no body
        assert answer.headers["etag"] == "W/" + plain.headers["etag"]
        for accept in ("gzip", "identity"):
            for tag in (plain.headers["etag"], answer.headers["etag"]):
                again, empty = raw(
                    server, path, **{"Accept-Encoding": accept, "If-None-Match": tag}
                )
                assert (again.status_code, empty) == (304, b""), (accept, tag)
                assert "content-encoding" not in again.headers
                assert again.headers["vary"] == "Accept-Encoding"


@pytest.mark.parametrize(
    "accept", ["identity", "gzip;q=0", "br, *;q=0", "", "gzip;level=1;q=0", "gzip;q=0, *"]
)
def test_a_client_that_does_not_take_gzip_gets_the_file_as_it_is(
    server: Server, accept: str
) -> None:
    answer, body = raw(server, "/static/js/app.js", **{"Accept-Encoding": accept})
    assert answer.status_code == 200
    assert "content-encoding" not in answer.headers
    assert body == (FRONTEND / "js" / "app.js").read_bytes()
    assert answer.headers["vary"] == "Accept-Encoding"
    assert not answer.headers["etag"].startswith("W/")
    again, _ = raw(
        server,
        "/static/js/app.js",
        **{"Accept-Encoding": accept, "If-None-Match": answer.headers["etag"]},
    )
    assert again.status_code == 304
    assert again.headers["etag"] == answer.headers["etag"]


def test_a_range_and_a_picture_go_as_they_are(server: Server) -> None:
    part, body = raw(
        server, "/static/js/app.js", **{"Accept-Encoding": "gzip", "Range": "bytes=0-9"}
    )
    assert part.status_code == 206
    assert "content-encoding" not in part.headers
    assert body == (FRONTEND / "js" / "app.js").read_bytes()[:10]
    # The docs' icon, a PNG: compressed already.
    icon, body = raw(server, "/docs/static/favicon.png", **{"Accept-Encoding": "gzip"})
    assert icon.status_code == 200
    assert "content-encoding" not in icon.headers
    assert "vary" not in icon.headers
    assert body.startswith(b"\x89PNG")


def test_gzip_is_taken_however_the_header_says_it(server: Server) -> None:
    app_js = (FRONTEND / "js" / "app.js").read_bytes()
    for accept in ("x-gzip", "*", "br;q=1, gzip;q=0.1", "GZIP"):
        answer, body = raw(server, "/static/js/app.js", **{"Accept-Encoding": accept})
        assert answer.headers["content-encoding"] == "gzip", accept
        assert gzip.decompress(body) == app_js
    # Two lines of the header are one list: gzip is in the second.
    with httpx.Client(verify=fetch.TLS) as client:
        request = client.build_request("GET", server.url + "/static/js/app.js")
        del request.headers["Accept-Encoding"]
        request.headers.update(
            httpx.Headers([("Accept-Encoding", "br"), ("Accept-Encoding", "gzip")])
        )
        answer = client.send(request, stream=True)
        body = b"".join(answer.iter_raw())
        answer.close()
    assert answer.headers["content-encoding"] == "gzip"
    assert gzip.decompress(body) == app_js


def test_a_file_changed_on_disk_is_compressed_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file edited under a running server (a host's own change) is sent as it now is."""
    copy = Copy(tmp_path / "copy")  # a server run from a copy of the client
    monkeypatch.setattr(servers, "spawn_server", copy.spawn)
    with running_server() as started:
        first, body = raw(started, "/static/js/app.js", **{"Accept-Encoding": "gzip"})
        assert gzip.decompress(body).endswith(b"'old';\n")
        copy.change("app.js", "new")
        second, body = raw(started, "/static/js/app.js", **{"Accept-Encoding": "gzip"})
        assert gzip.decompress(body).endswith(b"'new';\n")
        assert second.headers["etag"] != first.headers["etag"]


def test_the_api_docs_scripts_go_gzipped(server: Server) -> None:
    answer, body = raw(server, "/docs/static/swagger-ui-bundle.js", **{"Accept-Encoding": "gzip"})
    assert answer.headers["content-encoding"] == "gzip"
    assert len(body) < len(gzip.decompress(body)) / 2


def test_what_an_answer_varies_by_and_its_tag() -> None:
    origin = [(b"vary", b"Origin"), (b"etag", b'"v1"')]
    both = (b"vary", b"Origin, Accept-Encoding")
    assert varied(origin, gzipped=True) == [both, (b"etag", b'W/"v1"')]
    assert varied(origin, gzipped=False) == [both, (b"etag", b'"v1"')]
    for said in (b"accept-encoding", b"Origin, Accept-Encoding", b"*"):
        assert varied([(b"vary", said)], gzipped=True) == [(b"vary", said)]
    assert varied([(b"etag", b'W/"v1"')], gzipped=True) == [
        (b"etag", b'W/"v1"'),
        (b"vary", b"Accept-Encoding"),
    ]
