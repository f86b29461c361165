"""Page weight: the bytes of HTML, JavaScript, CSS and JSON the web page loads.

Starting at ``/``, the files the page loads are followed as a browser
would: ``index.html``'s stylesheets and scripts, each script's static and
dynamic imports (``import ... from "X"``, ``import "X"``, ``import("X")``,
``export ... from "X"``) and the catalogs it fetches (``fetch(`...${lang}...`)``:
one per language of the page, en and fr, both counted), each stylesheet's
``@import`` and ``url(...)`` (``data:`` URIs are inside the stylesheet
already).  Each file's size is given raw and gzip-compressed (level 9, one
file at a time, as HTTP compresses each answer), then the totals.

By default a real ``ficsfen serve`` is started (its web side on a free
loopback port) and every file is read from it over HTTP; ``--package``
reads the files from the package instead (``ficsfen/web/static``), which is
what ``tests/test_page_weight.py`` does to hold the compressed total under
:data:`LIMIT`.

    python bench/page_weight.py
    python bench/page_weight.py --package --json
"""

from __future__ import annotations

import argparse
import gzip
import http.client
import json
import posixpath
import re
import sys
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from web_observers import start_with_web  # noqa: E402

from ficsfen.server.webpage import STATIC_DIR  # noqa: E402

#: The goal for the page's compressed weight, in bytes (300 KB).
LIMIT = 300_000
#: The page's languages: what ``${lang}`` in a fetched path stands for.
LANGUAGES = ("en", "fr")

_HTML_LINKS = re.compile(r'<(?:link|script)\b[^>]*?\b(?:href|src)="([^"]+)"', re.I)
_JS_IMPORTS = re.compile(r'''(?:\bimport|\bexport)\s*(?:[\w*{}\s,$]+?\s*from\s*)?["']([^"']+)["']'''
                         r'''|\bimport\s*\(\s*["']([^"']+)["']\s*\)''')
_JS_FETCHES = re.compile(r'''\bfetch\s*\(\s*[`"']([^`"']+)[`"']''')
_CSS_URLS = re.compile(r'''@import\s+["']([^"']+)["']|url\(\s*["']?([^"')]+)["']?\s*\)''')


def _references(path: str, body: bytes) -> list[str]:
    """The paths a file of the page loads (absolute, as written, ``${...}`` expanded)."""
    text = body.decode("utf-8", "replace")
    suffix = Path(path.split("?")[0]).suffix or ".html"
    found: list[str] = []
    if suffix == ".html":
        found = [m for m in _HTML_LINKS.findall(text) if not m.startswith("data:")]
    elif suffix == ".js":
        found = [a or b for a, b in _JS_IMPORTS.findall(text)]
        for target in _JS_FETCHES.findall(text):
            if "${" in target:
                found += [re.sub(r"\$\{[^}]*\}", lang, target) for lang in LANGUAGES]
            else:
                found.append(target)
    elif suffix == ".css":
        found = [a or b for a, b in _CSS_URLS.findall(text)]
        found = [f for f in found if not f.startswith("data:")]
    base = path.rsplit("/", 1)[0] + "/"
    return [f if f.startswith("/") else posixpath.normpath(base + f) for f in found]


def walk(read: Callable[[str], bytes], start: str = "/") -> dict[str, bytes]:
    """Every file the page at ``start`` loads, by path, ``start`` first.

    ``read(path)`` gives a file's bytes.
    :raises KeyError: a file the page loads that ``read`` does not have.
    """
    files: dict[str, bytes] = {}
    queue = [start]
    while queue:
        path = queue.pop(0)
        if path in files:
            continue
        body = files[path] = read(path)
        queue += [p for p in _references(path, body) if p not in files]
    return files


def read_package(path: str) -> bytes:
    """A path of the site read from the package: ``/`` is ``index.html``.

    :raises KeyError: not a file of ``ficsfen/web/static``.
    """
    if path == "/":
        return (STATIC_DIR / "index.html").read_bytes()
    if not path.startswith("/static/"):
        raise KeyError(path)
    file = STATIC_DIR / path[len("/static/"):]
    if not file.is_file():
        raise KeyError(path)
    return file.read_bytes()


def weigh(files: dict[str, bytes]) -> dict:
    """Raw and gzip sizes, per file and in total."""
    rows = [{"path": p, "raw": len(b), "gzip": len(gzip.compress(b, 9, mtime=0))} for p, b in files.items()]
    return {"files": rows, "raw": sum(r["raw"] for r in rows), "gzip": sum(r["gzip"] for r in rows),
            "limit": LIMIT}


def read_server(host: str, port: int) -> tuple[Callable[[str], bytes], dict[str, str]]:
    """A reader of the server's files over HTTP, and the Content-Encoding each came with."""
    encodings: dict[str, str] = {}

    def read(path: str) -> bytes:
        connection = http.client.HTTPConnection(host, port, timeout=30)
        try:
            connection.request("GET", path, headers={"Accept-Encoding": "gzip"})
            response = connection.getresponse()
            body = response.read()
            if response.status != 200:
                raise KeyError(f"{path}: HTTP {response.status}")
            encodings[path] = response.headers.get("Content-Encoding", "identity")
            return gzip.decompress(body) if encodings[path] == "gzip" else body
        finally:
            connection.close()

    return read, encodings


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--package", action="store_true", help="read the package's files, no server")
    p.add_argument("--json", action="store_true", help="print the results as JSON")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--python", default=sys.executable)
    p.add_argument("--server-arg", action="append", default=[])
    p.add_argument("--server-log", default="")
    p.add_argument("--server-cpu", type=int, default=None)
    p.add_argument("--start-timeout", type=float, default=20.0)
    return p.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    encodings: dict[str, str] = {}
    if args.package:
        files = walk(read_package)
    else:
        server, web = start_with_web(args)
        try:
            read, encodings = read_server(args.host, web)
            files = walk(read)
        finally:
            server.stop()
    result = weigh(files)
    result["served_encodings"] = sorted(set(encodings.values()))
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    for row in result["files"]:
        print(f"{row['path']:<52} {row['raw']:>8} {row['gzip']:>8}")
    print(f"{'total, ' + str(len(result['files'])) + ' files':<52} {result['raw']:>8} {result['gzip']:>8} bytes "
          f"(raw, gzip -9); goal under {LIMIT} compressed")
    if encodings:
        print(f"served with Content-Encoding: {', '.join(result['served_encodings'])}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
