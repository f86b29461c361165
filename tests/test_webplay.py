"""The web page's playing side without a browser: chessops vendored with both
licences and the pinned releases, its bundle the one its VERSION names; every
control's id documented; every label the scripts use in both catalogs."""

from __future__ import annotations

import base64
import hashlib
import json
import re
from pathlib import Path

from ficsfen.server.webpage import STATIC_DIR

REPO = Path(__file__).resolve().parents[1]


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
