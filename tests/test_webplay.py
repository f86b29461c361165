"""The web page's playing side without a browser: chessops vendored with both
licences and the pinned releases, its bundle the one its VERSION names; the whole
page (HTML, every script it imports, CSS, one label catalog) under 300 KB
gzip-compressed; every control's id documented; every label the scripts use in both
catalogs."""

from __future__ import annotations

import base64
import gzip
import hashlib
import json
import re
from pathlib import Path

from ficsfen.server.webpage import STATIC_DIR

REPO = Path(__file__).resolve().parents[1]
PAGE_LIMIT = 300 * 1024


def test_chessops_vendored_with_its_licences_and_pinned_versions():
    vendor = STATIC_DIR / "vendor" / "chessops"
    assert "GNU GENERAL PUBLIC LICENSE" in (vendor / "LICENSE").read_text(encoding="utf-8")
    assert "MIT License" in (vendor / "LICENSE.badrap-result").read_text(encoding="utf-8")
    script = (REPO / "tools" / "web" / "build_chessops.sh").read_text(encoding="utf-8")
    pins = dict(re.findall(r"^([A-Z_]+)=(\S+)$", script, re.M))
    info = (vendor / "VERSION").read_text(encoding="utf-8")
    assert f"chessops {pins['CHESSOPS_VERSION']} " in info and pins["CHESSOPS_INTEGRITY"] in info
    assert f"@badrap/result {pins['RESULT_VERSION']} " in info and pins["RESULT_INTEGRITY"] in info
    bundle = (vendor / "chessops.js").read_bytes()
    digest = "sha256-" + base64.b64encode(hashlib.sha256(bundle).digest()).decode()
    assert f"esbuild {pins['ESBUILD_VERSION']}: {digest}" in info
    assert b"export{" in bundle and b"import " not in bundle  # one module, nothing left to fetch


def _page_files() -> list[Path]:
    """index.html, what it links, every script reached by imports, the English labels."""
    html = (STATIC_DIR / "index.html").read_text(encoding="utf-8")
    todo = [STATIC_DIR / p for p in re.findall(r'(?:src|href)="/static/([^"]+)"', html)]
    files = [STATIC_DIR / "index.html", STATIC_DIR / "i18n" / "en.json"]
    while todo:
        path = todo.pop()
        if path in files:
            continue
        files.append(path)
        if path.suffix == ".js":
            text = path.read_text(encoding="utf-8")
            todo += [STATIC_DIR / p for p in re.findall(r'from\s*"/static/([^"]+)"', text)]
    return files


def test_the_whole_page_under_300_kb_compressed():
    files = _page_files()
    names = {p.relative_to(STATIC_DIR).as_posix() for p in files}
    assert {"play.js", "vendor/chessops/chessops.js", "vendor/chessground/chessground.js"} <= names
    compressed = sum(len(gzip.compress(p.read_bytes(), 9)) for p in files)
    assert compressed < PAGE_LIMIT, compressed


def test_every_control_id_is_documented():
    html = (STATIC_DIR / "index.html").read_text(encoding="utf-8")
    docs = (REPO / "docs" / "web.md").read_text(encoding="utf-8")
    ids = re.findall(r'\bid="([\w-]+)"', html)
    assert len(ids) > 40
    assert [i for i in ids if f"`#{i}`" not in docs] == []


def test_every_label_the_scripts_use_is_in_both_catalogs():
    en = json.loads((STATIC_DIR / "i18n" / "en.json").read_text(encoding="utf-8"))
    fr = json.loads((STATIC_DIR / "i18n" / "fr.json").read_text(encoding="utf-8"))
    used = set()
    for script in STATIC_DIR.glob("*.js"):
        for key in re.findall(r'format\([\w.()]+, ([^,)]+)', script.read_text(encoding="utf-8")):
            used |= set(re.findall(r'"(\w+)"', key))  # a label, or either label of a choice
    used |= {f"offer_{kind}" for kind in ("match", "draw", "abort", "adjourn", "takeback")}
    assert {"result", "offer_from", "withdraw", "play"} <= used
    assert used <= en.keys() and used <= fr.keys()
