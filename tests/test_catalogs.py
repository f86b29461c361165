"""The gettext catalogs: compiled files current, every marked string translated."""

from __future__ import annotations

import importlib.util
import re
import sys

import pytest

from conftest import REPO, missing
from ficsfen import i18n

try:  # tools/catalogs.py compiles the catalogs with Babel, a test dependency
    import babel  # noqa: F401
except ImportError:
    missing("babel is not installed: pip install '.[test]'")

_spec = importlib.util.spec_from_file_location("catalogs", REPO / "tools" / "catalogs.py")
catalogs = importlib.util.module_from_spec(_spec)
sys.modules["catalogs"] = catalogs
_spec.loader.exec_module(catalogs)

PLACEHOLDER = re.compile(r"\{(\w+)[^{}]*\}")
ESCAPED_BRACE = re.compile(r"\{\{|\}\}")  # a literal brace, "{{Game 1 ...}}"


def placeholders(text: str) -> set[str]:
    return set(PLACEHOLDER.findall(ESCAPED_BRACE.sub("", text)))


def test_compiled_catalogs_are_current():
    stale = [po.name for po in catalogs.po_files()
             if po.with_suffix(".mo").read_bytes() != catalogs.compiled(po)]
    assert stale == [], "run: python tools/catalogs.py compile"


@pytest.mark.slow
def test_every_marked_string_has_french():
    fr = catalogs.catalog_msgids("fr")
    missing = sorted(m for m in catalogs.source_msgids() if not fr.get(m))
    assert missing == []


def test_french_keeps_the_placeholders():
    # a plural form may spell its count out ("un seul coup"), so {count} may go
    fr = catalogs.catalog_msgids("fr")
    for msgid, text in fr.items():
        if text:
            want = placeholders(msgid) - {"count"}
            assert want == placeholders(text) - {"count"}, msgid


def test_messages_render_per_recipient_without_install():
    import builtins

    assert not hasattr(builtins, "_")
    m = i18n.msg("{who} is not logged in.", who="alice")
    assert m.render("en") == "alice is not logged in."
    # an unknown language falls back to the English msgid
    assert m.render("xx") == "alice is not logged in."


def test_language_resolution():
    assert i18n.resolve_language("fr") == "fr"
    assert i18n.resolve_language("FRANÇAIS") == "fr"
    assert i18n.resolve_language("french") == "fr"
    assert i18n.resolve_language("Eng") == "en"
    assert i18n.resolve_language("klingon") is None
    assert i18n.language_from_locale("fr_FR.UTF-8") == "fr"
    assert i18n.language_from_locale("C") == "en"
