"""The web page's weight (``bench/page_weight.py``): the files it loads, followed from
``index.html`` through the scripts' imports and the stylesheets, stay under 300 KB
gzip-compressed.  A size, not a time: computed from the package's files."""

from __future__ import annotations

import gzip
import importlib.util
import sys
from types import ModuleType

import pytest

from conftest import REPO
from ficsfen.server.webpage import STATIC_DIR


@pytest.fixture(scope="module")
def page_weight() -> ModuleType:
    spec = importlib.util.spec_from_file_location("_bench_page_weight", REPO / "bench" / "page_weight.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_the_page_loads_under_300_kb_compressed(page_weight):
    files = page_weight.walk(page_weight.read_package)
    shipped = {f"/static/{p.relative_to(STATIC_DIR).as_posix()}": p.read_bytes() for p in STATIC_DIR.rglob("*")
               if p.suffix in (".html", ".js", ".css", ".json")}
    assert set(files) - {"/"} <= set(shipped)
    for path in ("/static/app.js", "/static/connection.js", "/static/vendor/chessground/chessground.js",
                 "/static/vendor/chessground/chessground.cburnett.css", "/static/i18n/en.json",
                 "/static/i18n/fr.json"):
        assert path in files
    weight = page_weight.weigh(files)
    assert weight["gzip"] == sum(len(gzip.compress(b, 9, mtime=0)) for b in files.values())
    assert weight["gzip"] < page_weight.LIMIT == 300_000, weight
    # every page file the package ships, loaded or not, fits too
    assert page_weight.weigh(shipped)["gzip"] < page_weight.LIMIT


def test_the_walk_follows_imports_fetches_and_stylesheets(page_weight):
    site = {
        "/": b'<link rel="stylesheet" href="/static/a.css"><script type="module" src="/static/m.js"></script>',
        "/static/a.css": b"@import 'b.css'; .x { background: url(\"data:image/svg+xml;base64,AA\") }",
        "/static/b.css": b".y { background: url(img/p.svg) }",
        "/static/img/p.svg": b"<svg/>",
        "/static/m.js": b'import { f } from "/static/f.js";\nexport * from "./g.js";\nimport("/static/lazy.js");',
        "/static/f.js": b"const r = await fetch(`/static/i18n/${lang}.json`);",
        "/static/g.js": b"",
        "/static/lazy.js": b"",
        "/static/i18n/en.json": b"{}",
        "/static/i18n/fr.json": b"{}",
        "/static/unused.js": b"",
    }
    files = page_weight.walk(site.__getitem__)
    assert set(files) == set(site) - {"/static/unused.js"}
    assert list(files)[0] == "/"
    with pytest.raises(KeyError):
        page_weight.walk({"/": b'<script src="/static/missing.js"></script>'}.__getitem__)
