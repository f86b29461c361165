"""Maintain the gettext catalogs in ficsfen/locale.

    python tools/catalogs.py compile   # .po -> .mo (run after editing a .po)
    python tools/catalogs.py check     # exit 1 if a .mo is stale or a msgid lacks French

Needs Babel (a test dependency).  The .mo files are committed so that a plain
``pip install`` ships compiled catalogs without a build step.
"""

from __future__ import annotations

import io
import sys
from datetime import datetime, timezone
from pathlib import Path

from babel.messages.extract import extract_from_dir
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

ROOT = Path(__file__).resolve().parent.parent
LOCALE = ROOT / "ficsfen" / "locale"
KEYWORDS = {"msg": None, "msgn": (1, 2)}


def po_files() -> list[Path]:
    return sorted(LOCALE.glob("*/LC_MESSAGES/*.po"))


# Babel stamps the current time into a header that lacks these dates, which
# would make every compile differ; pin them so the .mo depends on the .po only.
_PINNED = datetime(2026, 1, 1, tzinfo=timezone.utc)


def compiled(po: Path) -> bytes:
    raw = po.read_bytes()
    catalog = read_po(io.BytesIO(raw), locale=po.parent.parent.name)
    if b"POT-Creation-Date" not in raw:
        catalog.creation_date = _PINNED
    if b"PO-Revision-Date" not in raw:
        catalog.revision_date = _PINNED
    out = io.BytesIO()
    write_mo(out, catalog, use_fuzzy=False)
    return out.getvalue()


def source_msgids() -> dict[str, tuple[str, int]]:
    """Every msgid marked in the package source, with where it was found."""
    found: dict[str, tuple[str, int]] = {}
    for filename, lineno, message, _comments, _ctx in extract_from_dir(
        str(ROOT / "ficsfen"),
        method_map=[("**.py", "python")],
        keywords=KEYWORDS,
    ):
        ids = message if isinstance(message, tuple) else (message,)
        for mid in ids:
            if mid:
                found.setdefault(mid, (filename, lineno))
    return found


def catalog_msgids(lang: str) -> dict[str, str]:
    """msgid -> translated text over all .po files of a language."""
    out: dict[str, str] = {}
    for po in sorted((LOCALE / lang / "LC_MESSAGES").glob("*.po")):
        with po.open("rb") as fp:
            catalog = read_po(fp, locale=lang)
        for m in catalog:
            if not m.id:
                continue
            ids = m.id if isinstance(m.id, tuple) else (m.id,)
            strs = m.string if isinstance(m.string, tuple) else (m.string,)
            for i, mid in enumerate(ids):
                out[mid] = strs[min(i, len(strs) - 1)] if strs else ""
    return out


def compile_all() -> None:
    for po in po_files():
        mo = po.with_suffix(".mo")
        mo.write_bytes(compiled(po))
        print(f"compiled {mo.relative_to(ROOT)}")


def check() -> int:
    problems = []
    for po in po_files():
        mo = po.with_suffix(".mo")
        if not mo.exists() or mo.read_bytes() != compiled(po):
            problems.append(f"{mo.relative_to(ROOT)} is stale: run tools/catalogs.py compile")
    fr = catalog_msgids("fr")
    for mid, (fn, line) in sorted(source_msgids().items(), key=lambda kv: kv[1]):
        if not fr.get(mid):
            problems.append(f"{fn}:{line}: no French for {mid!r}")
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    cmd = sys.argv[1] if len(sys.argv) > 1 else "check"
    if cmd == "compile":
        compile_all()
    elif cmd == "check":
        sys.exit(check())
    else:
        sys.exit(__doc__)
