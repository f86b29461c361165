"""The web page's HTTP side (ficsfen.server.webpage): ``/``, ``/game/N`` and
``/static/...`` through a web connection's whole stack (StringTransport, fake
clock), and the page's files themselves: no inline script, no HTML built from
text, both label catalogs complete, chessground vendored with its licence.

HEAD requests are answered at once (a GET's body is written by a producer the
reactor pulls: test_webpage_serve.py reads bodies from a real server)."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from twisted.internet.address import IPv4Address
from twisted.internet.testing import StringTransport

from ficsfen.server.testing import make_server
from ficsfen.server.webpage import CSP, STATIC_DIR, page_resources
from ficsfen.server.websocket import WebFactory

REPO = Path(__file__).resolve().parents[1]


def http(method: bytes, path: bytes) -> tuple[int, dict[str, str], bytes]:
    """One request to a web connection: (status, headers lower-cased, the rest)."""
    server = make_server()
    factory = WebFactory(server)
    factory.doStart()
    transport = StringTransport(peerAddress=IPv4Address("TCP", "10.9.9.9", 1))
    protocol = factory.buildProtocol(None)
    protocol.makeConnection(transport)
    protocol.dataReceived(method + b" " + path + b" HTTP/1.1\r\nHost: localhost\r\n\r\n")
    while protocol.input_waiting:
        server.clock.advance(0)
    head, _, body = transport.value().partition(b"\r\n\r\n")
    status_line, *header_lines = head.decode("latin-1").split("\r\n")
    headers = {}
    for line in header_lines:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    return int(status_line.split()[1]), headers, body


@pytest.mark.parametrize("path", [b"/", b"/game/1", b"/game/123456"])
def test_page_paths_answer_the_page_with_the_csp(path):
    status, headers, _ = http(b"HEAD", path)
    assert status == 200
    assert headers["content-type"] == "text/html; charset=utf-8"
    assert headers["content-security-policy"] == CSP
    assert "script-src 'self'" in CSP and "unsafe-inline" not in CSP and "unsafe-eval" not in CSP
    assert headers["x-content-type-options"] == "nosniff"
    assert int(headers["content-length"]) == (STATIC_DIR / "index.html").stat().st_size


@pytest.mark.parametrize("path, content_type", [
    (b"/static/app.js", "text/javascript; charset=utf-8"),
    (b"/static/page.css", "text/css; charset=utf-8"),
    (b"/static/i18n/fr.json", "application/json"),
    (b"/static/vendor/chessground/chessground.js", "text/javascript; charset=utf-8"),
    (b"/static/vendor/chessground/chessground.cburnett.css", "text/css; charset=utf-8"),
])
def test_static_files_with_their_content_types(path, content_type):
    status, headers, _ = http(b"HEAD", path)
    assert status == 200
    assert headers["content-type"] == content_type
    assert headers["content-security-policy"] == CSP
    assert int(headers["content-length"]) == (STATIC_DIR / path.decode()[len("/static/"):]).stat().st_size


@pytest.mark.parametrize("path", [b"/game", b"/game/", b"/game/1/x", b"/game/-1", b"/game/1234567890",
                                  b"/static", b"/static/", b"/static/vendor/", b"/static/nothing.js",
                                  b"/static/../web.py", b"/static/%2e%2e/web.py", b"/favicon.ico"])
def test_unknown_paths_and_directories_are_404(path):
    for method in (b"GET", b"HEAD"):
        status, _, _ = http(method, path)
        assert status == 404, (method, path)


def test_a_missing_page_is_said_at_start(tmp_path):
    with pytest.raises(FileNotFoundError, match="index.html"):
        page_resources(tmp_path)


class _PageScan(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.scripts: list[dict[str, str | None]] = []
        self.inline: list[str] = []
        self.attributes: list[str] = []
        self._in_script = False

    def handle_starttag(self, tag, attrs):
        named = dict(attrs)
        self.attributes += [name for name in named if name.startswith("on") or name == "style"]
        if tag == "style":
            self.attributes.append("<style>")
        if tag == "script":
            self.scripts.append(named)
            self._in_script = True

    def handle_endtag(self, tag):
        if tag == "script":
            self._in_script = False

    def handle_data(self, data):
        if self._in_script and data.strip():
            self.inline.append(data)


def test_the_page_has_no_inline_script_or_style():
    scan = _PageScan()
    scan.feed((STATIC_DIR / "index.html").read_text(encoding="utf-8"))
    assert scan.scripts == [{"type": "module", "src": "/static/app.js"}]
    assert scan.inline == [] and scan.attributes == []


def test_the_scripts_never_build_html_from_text():
    sinks = re.compile(r"\b(innerHTML|outerHTML|insertAdjacentHTML|document\.write|eval)\b|new Function")
    for script in STATIC_DIR.glob("*.js"):
        assert not sinks.search(script.read_text(encoding="utf-8")), script.name


def test_label_catalogs_english_and_french_complete():
    en = json.loads((STATIC_DIR / "i18n" / "en.json").read_text(encoding="utf-8"))
    fr = json.loads((STATIC_DIR / "i18n" / "fr.json").read_text(encoding="utf-8"))
    assert en.keys() == fr.keys()
    used = set()
    for source in [STATIC_DIR / "index.html", *STATIC_DIR.glob("*.js")]:
        text = source.read_text(encoding="utf-8")
        used |= set(re.findall(r'data-i18n="(\w+)"', text))
        used |= set(re.findall(r'(?:format\(catalog, |showStatus\()"(\w+)"', text))
    assert used and used <= en.keys()
    for key, text in fr.items():
        assert not re.search(r" [:;!?]", text), key  # no-break space before : ; ! ?
        assert "'" not in text, key  # the typographic apostrophe


def test_chessground_vendored_with_its_licence_and_pinned_version():
    vendor = STATIC_DIR / "vendor" / "chessground"
    assert "GNU GENERAL PUBLIC LICENSE" in (vendor / "LICENSE").read_text(encoding="utf-8")
    script = (REPO / "tools" / "web" / "build_chessground.sh").read_text(encoding="utf-8")
    version = re.search(r"^VERSION=(\S+)$", script, re.M).group(1)
    integrity = re.search(r"^INTEGRITY=(\S+)$", script, re.M).group(1)
    info = (vendor / "VERSION").read_text(encoding="utf-8")
    assert f"chessground {version} " in info and integrity in info
    assert "export{" in (vendor / "chessground.js").read_text(encoding="utf-8").replace(" ", "")
