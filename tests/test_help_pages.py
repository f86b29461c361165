"""The shipped help pages: complete in both languages, readable, accurate on FEN."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from ficsfen.helpcatalog import HELP_DIR, HelpCatalog

LANGS = ("en", "fr")

COMMANDS = (
    "help fen set variables who quit examine unexamine forward backward revert "
    "bsetup refresh moves games next match accept decline withdraw pending flag "
    "resign draw abort adjourn takeback observe unobserve allobservers style resume"
).split()
VARIABLES = ["language", "charset", "style", "showfen"]
TOPICS = ["pgn", "style12", "intro", "notation", "wild", "crazyhouse"]

EXAMPLE_RECORDS = [
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1",
    "rnbqkbnr/pp1ppppp/8/2p5/4P3/8/PPPP1PPP/RNBQKBNR w KQkq c6 0 2",
    "rnbqkbnr/pp1ppppp/8/2p5/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2",
    "4k3/8/8/8/8/8/4P3/4K3 w - - 5 39",
]

USAGE = {"en": "USAGE", "fr": "UTILISATION"}
SEE_ALSO = {"en": "SEE ALSO", "fr": "VOIR AUSSI"}


def page_files() -> list[Path]:
    return sorted(p for lang in LANGS for p in (HELP_DIR / lang).iterdir())


def read(lang: str, topic: str) -> str:
    return (HELP_DIR / lang / topic).read_bytes().decode("utf-8")


def test_the_repository_help_folder_is_the_package_one() -> None:
    top = Path(__file__).resolve().parents[1] / "help"
    if top.exists():
        assert top.resolve() == HELP_DIR.resolve()


def test_same_topics_in_every_language() -> None:
    catalog = HelpCatalog()
    english = catalog.translated("en")
    for lang in LANGS:
        assert catalog.translated(lang) == english, f"{lang} differs from en"
        assert catalog.missing(lang) == []


@pytest.mark.parametrize("topic", sorted(set(COMMANDS + VARIABLES + TOPICS)))
@pytest.mark.parametrize("lang", LANGS)
def test_every_command_variable_and_topic_has_a_page(lang: str, topic: str) -> None:
    page = HelpCatalog().lookup(topic, lang)
    assert (page.topic, page.lang, page.fallback) == (topic, lang, False)


@pytest.mark.parametrize("path", page_files(), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_page_is_clean_utf8_text_within_79_columns(path: Path) -> None:
    raw = path.read_bytes()
    text = raw.decode("utf-8")  # strict: must be valid UTF-8
    assert not raw.startswith(b"\xef\xbb\xbf"), "no BOM"
    assert text.strip(), "empty page"
    assert text.endswith("\n") and not text.endswith("\n\n")
    assert "\r" not in text and "\t" not in text
    assert text.splitlines()[0] == path.name, "the first line names the topic"
    for number, line in enumerate(text.splitlines(), 1):
        assert len(line) <= 79, f"line {number} is {len(line)} columns"
        assert line == line.rstrip(), f"line {number} has trailing blanks"
        # U+202F is French spacing (see tests/test_french_typography.py)
        assert all(c.isprintable() or c == "\u202f" for c in line), f"line {number}"


@pytest.mark.parametrize("topic", sorted(set(COMMANDS + VARIABLES)))
@pytest.mark.parametrize("lang", LANGS)
def test_command_pages_have_usage_and_see_also(lang: str, topic: str) -> None:
    text = read(lang, topic)
    assert f"\n{USAGE[lang]}\n" in text
    assert f"\n{SEE_ALSO[lang]}\n" in text


@pytest.mark.parametrize("lang", LANGS)
def test_see_also_names_existing_topics(lang: str) -> None:
    catalog = HelpCatalog()
    known = set(catalog.translated(lang))
    for topic in catalog.translated(lang):
        text = read(lang, topic)
        _, sep, tail = text.partition(f"\n{SEE_ALSO[lang]}\n")
        assert sep, f"{lang}/{topic} has no {SEE_ALSO[lang]} section"
        named = re.split(r"[,\s]+", tail.strip())
        assert named and set(named) <= known, f"{lang}/{topic}: {set(named) - known}"


@pytest.mark.parametrize("topic", sorted(set(COMMANDS + VARIABLES + TOPICS)))
def test_french_pages_are_translations(topic: str) -> None:
    en, fr = read("en", topic), read("fr", topic)
    assert en != fr
    assert re.search(r"[éèêàâçùôîœ]", fr), "French text without a single accent"
    assert "VOIR AUSSI" in fr and "SEE ALSO" not in fr


@pytest.mark.parametrize("lang", LANGS)
def test_fen_page_covers_the_facts(lang: str) -> None:
    text = read(lang, "fen")
    for record in EXAMPLE_RECORDS:
        assert record in text.splitlines() or f"    {record}" in text.splitlines()
    for fact in (
        "David Forsyth",
        "1854-1909",
        "1883",
        "Glasgow Weekly Herald",
        "Steven J. Edwards",
        "Usenet",
        "SAN Kit",
        "PGN",
        "1994",
        "16.1",
        "EPD",
        "hmvc",
        "fmvn",
        ".fen",
        ".epd",
        "80",
        "KQkq",
        "fen PLAYER" if lang == "en" else "fen JOUEUR",
        "set showfen",
        "bsetup fen",
        "ficsfen fens -o",
        "ficsfen check",
    ):
        assert fact in text, f"{lang}/fen does not mention {fact!r}"
    assert "John" not in text
    see_also = text.partition(f"\n{SEE_ALSO[lang]}\n")[2]
    for topic in ("pgn", "refresh", "style"):
        assert topic in see_also


def test_fen_pages_state_the_en_passant_rule() -> None:
    assert "EVERY two-square pawn push" in read("en", "fen")
    assert "CHAQUE avance d’un pion de deux cases" in read("fr", "fen")


@pytest.mark.parametrize("lang", LANGS)
def test_pgn_page_covers_the_facts(lang: str) -> None:
    text = read(lang, "pgn")
    for fact in (
        "Portable Game Notation",
        "Steven J. Edwards",
        "1994",
        "Seven Tag Roster",
        '[Event "',
        '[Result "1-0"]',
        "1/2-1/2",
        '[SetUp "1"]',
        '[FEN "',
        ".pgn",
        "ficsfen fens",
        "moves",
    ):
        assert fact in text, f"{lang}/pgn does not mention {fact!r}"
    for tag in ("Event", "Site", "Date", "Round", "White", "Black", "Result"):
        assert tag in text
    assert "fen" in text.partition(f"\n{SEE_ALSO[lang]}\n")[2]


@pytest.mark.parametrize("lang", LANGS)
def test_quit_page_names_its_aliases(lang: str) -> None:
    text = read(lang, "quit")
    assert "exit" in text and "bye" in text


@pytest.mark.parametrize("lang", LANGS)
def test_bsetup_page_names_every_subcommand(lang: str) -> None:
    text = read(lang, "bsetup")
    for word in ("fen", "start", "clear", "tomove", "wcastle", "bcastle", "eppos", "done",
                 "none|kside|qside|both", "white|black"):
        assert word in text


@pytest.mark.parametrize("lang", LANGS)
def test_style12_example_line_agrees_with_its_fen(lang: str) -> None:
    """The wrapped example in style12 rebuilds to the FEN the page shows."""
    text = read(lang, "style12")
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.strip().startswith("<12> "))
    fields = " ".join(lines[start : start + 3]).split()
    assert fields[0] == "<12>" and len(fields) == 33
    ranks = []
    for rank in fields[1:9]:
        ranks.append(re.sub(r"-+", lambda m: str(len(m.group())), rank))
    flags = "".join(c for c, f in zip("KQkq", fields[11:15]) if f == "1") or "-"
    side = fields[9].lower()
    ep = "-"
    if fields[10] != "-1":
        ep = "abcdefgh"[int(fields[10])] + ("3" if side == "b" else "6")
    fen = " ".join(["/".join(ranks), side, flags, ep, fields[15], fields[26]])
    assert fen == EXAMPLE_RECORDS[1]
    assert f"    {fen}" in lines


def _server_commands() -> list[object]:
    """Every command class defined under :mod:`ficsfen.commands` and :mod:`ficsfen.server.commands`.

    Both packages are walked here: relying on other test modules to have
    imported the server's commands would check three commands when this
    file runs alone.
    """
    import importlib
    import pkgutil

    import ficsfen.commands
    import ficsfen.server.commands
    from ficsfen.commands.base import Command

    for package in (ficsfen.commands, ficsfen.server.commands):
        for info in pkgutil.iter_modules(package.__path__):
            importlib.import_module(f"{package.__name__}.{info.name}")
    found, todo = [], list(Command.__subclasses__())
    while todo:
        cls = todo.pop()
        todo.extend(cls.__subclasses__())
        if cls.name:
            found.append(cls)
    return found


@pytest.mark.parametrize("lang", LANGS)
def test_every_server_command_and_variable_has_a_page(lang: str) -> None:
    """What the server really registers, not only the list above, is covered."""
    catalog = HelpCatalog()
    pages = set(catalog.translated(lang))
    commands = _server_commands()
    # the library's commands and the server's, whatever other test files imported
    assert {"fen", "help", "examine", "match", "set"} <= {c.name for c in commands}
    missing = sorted({c.topic for c in commands} - pages)
    assert not missing, f"{lang}: no help page for {missing}"
    from ficsfen.server.commands import settings

    assert sorted(v.topic for v in settings.VARIABLES.values() if v.topic not in pages) == []
