"""The web page from a real ``ficsfen serve`` (its web side on a free loopback port),
read with http.client as a browser would: the page at ``/`` and ``/game/N`` with
its Content-Security-Policy, every file it loads with its content type and the
bytes shipped in the package, unknown paths 404, and the WebSocket still opening
beside them on the same port."""

from __future__ import annotations

import http.client
import re
import sys
from pathlib import Path

import pytest

from ficsfen.server.testing import ServerProcess
from ficsfen.server.webpage import CSP, STATIC_DIR

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_websocket_serve import SocketWsClient  # noqa: E402

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def server():
    with ServerProcess(web=True) as srv:
        yield srv


def get(server, path: str, method: str = "GET") -> tuple[int, http.client.HTTPMessage, bytes]:
    connection = http.client.HTTPConnection("127.0.0.1", server.web_port, timeout=30)
    try:
        connection.request(method, path)
        response = connection.getresponse()
        return response.status, response.headers, response.read()
    finally:
        connection.close()


def test_the_page_at_root_and_at_each_game(server):
    page = (STATIC_DIR / "index.html").read_bytes()
    for path in ("/", "/game/1", "/game/42"):
        status, headers, body = get(server, path)
        assert status == 200, path
        assert body == page
        assert headers["Content-Type"] == "text/html; charset=utf-8"
        assert headers["Content-Security-Policy"] == CSP


def test_every_file_the_page_loads_is_served(server):
    _, _, page = get(server, "/")
    assets = re.findall(r'(?:src|href)="(/static/[^"]+)"', page.decode("utf-8"))
    assets += ["/static/connection.js", "/static/i18n.js", "/static/style12.js", "/static/i18n/en.json",
               "/static/i18n/fr.json"]
    assert len(assets) >= 10
    types = {".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8",
             ".json": "application/json"}
    for path in assets:
        status, headers, body = get(server, path)
        assert status == 200, path
        assert body == (STATIC_DIR / path[len("/static/"):]).read_bytes(), path
        assert headers["Content-Type"] == types[Path(path).suffix], path
        assert headers["X-Content-Type-Options"] == "nosniff"
    # the scripts' imports are absolute /static/ paths the server answers
    for script in STATIC_DIR.glob("*.js"):
        for target in re.findall(r'from "(/static/[^"]+)"', script.read_text(encoding="utf-8")):
            assert get(server, target, "HEAD")[0] == 200, target


@pytest.mark.parametrize("path", ["/nothing", "/static/", "/static/missing.css", "/game/x", "/game/1/2"])
def test_unknown_paths_are_404(server, path):
    assert get(server, path)[0] == 404


def test_the_websocket_beside_the_page(server):
    assert get(server, "/")[0] == 200
    with SocketWsClient(server.web_port) as client:
        assert client.accepted
