"""Maintain the gettext catalogs in ficsfen/locale.

    python tools/catalogs.py compile   # .po -> .mo (run after editing a .po)
    python tools/catalogs.py check     # exit 1 if a .mo is stale, a msgid lacks French,
                                       # or French text breaks French spacing

Needs Babel (a test dependency).  The .mo files are committed so that a plain
``pip install`` ships compiled catalogs without a build step.

French spacing follows the Imprimerie nationale: a NARROW NO-BREAK SPACE
(U+202F) before ``: ; ! ?`` and inside ``« »``.  U+202F even before ``:``,
where the older rule wants the wider U+00A0: on a fixed-width terminal both
take one column, so the distinction buys nothing and one character keeps
the rule and its check simple.  One apostrophe: the typographic ``’``
(U+2019), never the straight ``'``.  The server turns U+202F into U+00A0 for
Latin-1 clients and into a plain space for ASCII ones; the command line does
the same on terminals whose encoding lacks it.  :func:`typography_problems`
checks every French msgstr and help page; what is *not* French prose is let
through in three documented ways:

* placeholders (``{name}``) and a mark inside a token (``3:00``,
  ``tcp:5000``, ``http://``: no blank after it) are never punctuation;
* a msgstr line kept word for word from its msgid, in an entry whose
  extracted comment (``#.``) says "kept as in English": FICS lines that ICS
  clients parse;
* :data:`HELP_VERBATIM`: literal examples quoted in a help page.
"""

from __future__ import annotations

import io
import re
import sys
from datetime import datetime, timezone
from pathlib import Path

from babel.messages.extract import extract_from_dir
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

ROOT = Path(__file__).resolve().parent.parent
LOCALE = ROOT / "ficsfen" / "locale"
HELP = ROOT / "ficsfen" / "help"
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


# -- French typography -------------------------------------------------------

NNBSP = "\u202f"
NBSP = "\u00a0"

# Literal text quoted in French help pages that is typed or read by
# programs, not written in French: it keeps its own punctuation.  Each entry
# must still occur in its page (the tests check), so the list cannot go stale.
HELP_VERBATIM: dict[str, tuple[str, ...]] = {
    # EPD operations end with a semicolon glued to the operand (EPD syntax).
    "fen": ("opcode opérande...;", "hmvc 0; fmvn 1;"),
    # Move annotations are glued to the move, and listed bare.
    "notation": ("(! ? !! ?? !? ?!)", "Qxf7!"),
    # FICS lines ICS clients parse, quoted in English.
    "moves": ("Movelist for game 3:", "initial time: 5 minutes, increment: 0 seconds."),
    "observe": ("Game 12: alice",),
    "history": ("History for alice:", " 0: + 0"),
    "smoves": ("Initial position:",),
    "journal": ("Journal for alice:", "%01:"),
    "news": ("Index of the last few news items:",),
    "announce": ("**ANNOUNCEMENT** from alice:",),
    # What is typed at the prompt "login:", quoted as the server writes it.
    "ban": ("login:",),
    # The punctuation aliases, listed bare, and one glued to its text.
    "system_alias": ("!   shout", "!bonjour"),
}

# A format placeholder, or an escaped brace, is never punctuation.
_PLACEHOLDER = re.compile(r"\{\{|\}\}|\{[^{}]*\}")
_MARK = re.compile(r"[:;!?\u00ab\u00bb]")
# After a mark that ends a clause comes a blank, a closing bracket or quote,
# or the end; any other character means the mark sits inside a token.
_AFTER_CLAUSE = frozenset(" \n" + NNBSP + NBSP + ")]\u00bb.,")
_LOOSE_NNBSP = re.compile(r"(?:^|\s)\u202f|\u202f(?:\s|$)")
_STRAIGHT_APOSTROPHE = re.compile("'")
_KEPT_ENGLISH = re.compile(r"kept as in english", re.IGNORECASE)


def _masked(text: str, verbatim: tuple[str, ...] = ()) -> str:
    """``text`` with placeholders and verbatim pieces blanked out, same length."""
    text = _PLACEHOLDER.sub(lambda m: "x" * len(m.group()), text)
    for piece in verbatim:
        text = text.replace(piece, "x" * len(piece))
    return text


def typography_problems(text: str, verbatim: tuple[str, ...] = ()) -> list[str]:
    """Where French ``text`` breaks French spacing, one line each (empty if none)."""
    problems = []
    masked = _masked(text, verbatim)
    if NBSP in masked:
        problems.append("U+00A0 NO-BREAK SPACE used: use U+202F NARROW NO-BREAK SPACE")
    for m in _STRAIGHT_APOSTROPHE.finditer(masked):
        at = m.start()
        line = masked.count("\n", 0, at) + 1
        problems.append(f"line {line}: {text[max(0, at - 12):at + 12]!r}: "
                        "straight apostrophe: use \u2019")
    # A no-break space glues two visible characters: next to a blank or at a
    # line end it means a doubled space or a line broken where it must not be.
    for m in _LOOSE_NNBSP.finditer(masked):
        line = masked.count("\n", 0, masked.index(NNBSP, m.start())) + 1
        problems.append(f"line {line}: U+202F next to a blank or a line break")
    for m in _MARK.finditer(masked):
        at, mark = m.start(), m.group()
        before = masked[at - 1] if at else ""
        after = masked[at + 1] if at + 1 < len(masked) else ""
        line = masked.count("\n", 0, at) + 1
        where = f"line {line}: {text[max(0, at - 12):at + 12]!r}"
        if mark == "\u00ab":
            if after != NNBSP:
                problems.append(f"{where}: '\u00ab' must be followed by U+202F")
        elif mark == "\u00bb":
            if before != NNBSP:
                problems.append(f"{where}: '\u00bb' must be preceded by U+202F")
        elif after and after not in _AFTER_CLAUSE and not (mark in "!?" and after in "!?"):
            continue  # inside a token: 3:00, tcp:5000, http://
        elif mark in "!?" and before in ("!", "?"):
            continue  # "?!" takes one space, before its first mark
        elif before != NNBSP:
            problems.append(f"{where}: {mark!r} must be preceded by U+202F")
    return problems


def _shown(path: Path) -> str:
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)


def french_catalog_problems(folder: Path = LOCALE / "fr" / "LC_MESSAGES") -> list[str]:
    """:func:`typography_problems` over every msgstr of the ``.po`` files in ``folder``."""
    problems = []
    for po in sorted(folder.glob("*.po")):
        with po.open("rb") as fp:
            catalog = read_po(fp, locale="fr")
        for m in catalog:
            if not m.id:
                continue
            ids = m.id if isinstance(m.id, tuple) else (m.id,)
            strs = m.string if isinstance(m.string, tuple) else (m.string,)
            kept = set()
            if any(_KEPT_ENGLISH.search(c) for c in m.auto_comments):
                kept = {line for mid in ids for line in mid.split("\n")}
            # argparse writes ":" after its section headings, so those end in U+202F.
            colon = any('adds ":"' in c for c in (*m.auto_comments, *m.user_comments))
            for text in strs:
                french = "\n".join(line for line in text.split("\n") if line not in kept)
                french += ":" if colon else ""
                for p in typography_problems(french):
                    problems.append(f"{_shown(po)}: {ids[0]!r}: {p}")
    return problems


def french_help_problems(folder: Path = HELP / "fr") -> list[str]:
    """:func:`typography_problems` over every help page in ``folder``."""
    problems = []
    for page in sorted(folder.iterdir()):
        text = page.read_text(encoding="utf-8")
        for p in typography_problems(text, HELP_VERBATIM.get(page.name, ())):
            problems.append(f"{_shown(page)}: {p}")
    return problems


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
    problems += french_catalog_problems()
    problems += french_help_problems()
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
