"""French spacing: U+202F NARROW NO-BREAK SPACE before : ; ! ? and inside « ».

The rule (Imprimerie nationale) and its checker live in ``tools/catalogs.py``;
``python tools/catalogs.py check`` applies it too.  These tests hold every
French msgstr and help page to it, check the few documented exceptions, and
follow the character to the user: the command line (on UTF-8, Latin-1 and
ASCII terminals, and through argparse's line wrapping) and the server (in
each output charset).
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import unicodedata
from pathlib import Path

import pytest

from conftest import REPO
from ficsfen import cli
from ficsfen.fen import parse
from ficsfen.fenerrors import FenError
from ficsfen.helpcatalog import HELP_DIR, HelpCatalog, columns
from ficsfen.server.session import encode_text, transliterate
from ficsfen.server.testing import connect, make_server

pytest.importorskip("babel")

if "catalogs" in sys.modules:
    catalogs = sys.modules["catalogs"]
else:
    _spec = importlib.util.spec_from_file_location("catalogs", REPO / "tools" / "catalogs.py")
    catalogs = importlib.util.module_from_spec(_spec)
    sys.modules["catalogs"] = catalogs
    _spec.loader.exec_module(catalogs)

NNBSP, NBSP = "\u202f", "\u00a0"
BAD_CASTLING = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w QK - 0 1"


def french_pages() -> list[Path]:
    return sorted((HELP_DIR / "fr").iterdir())


# -- the rule -------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "champ 3 (roques) : « QK »",            # plain spaces, as the tree had them
        "champ 3 (roques)\u00a0: «\u00a0QK\u00a0»",  # U+00A0: we use U+202F throughout
        "Usage: set",                            # no space at all
        "Au revoir !",
        "Qui voulez-vous défier ?",
        "une ligne ; la suite",
        "«QK»",
        "«\u202fQK »",
        "{file}: {reason}",                      # a placeholder still needs the space after it
        "coupée ici\u202f:\n\u202f» suite",       # a line broken at the no-break space
        "deux\u202f \u202f: blancs",
    ],
)
def test_the_checker_flags_missing_or_wrong_spaces(text):
    assert catalogs.typography_problems(text)


@pytest.mark.parametrize(
    "text",
    [
        "Ce n'est pas un coup.",           # an elision
        "Coup des Blancs\u202f: 'e4'",    # quotes: French quotes with « »
        "aujourd'hui",
    ],
)
def test_the_checker_flags_a_straight_apostrophe(text):
    problems = catalogs.typography_problems(text)
    assert problems and all("straight apostrophe" in p for p in problems)
    assert catalogs.typography_problems(text.replace("'", "\u2019")) == []


def test_one_apostrophe_in_every_french_text():
    """The catalogues, the help pages and what the FEN library reports all use ’."""
    from babel.messages.pofile import read_po

    typographic = 0
    for po in sorted((REPO / "ficsfen" / "locale" / "fr" / "LC_MESSAGES").glob("*.po")):
        with po.open("rb") as fp:
            for m in read_po(fp, locale="fr"):
                strings = m.string if isinstance(m.string, tuple) else (m.string,)
                typographic += sum(s.count("\u2019") for s in strings)
    pages = [page.read_text(encoding="utf-8") for page in french_pages()]
    assert typographic > 100 and sum(page.count("\u2019") for page in pages) > 500
    assert all("'" not in page for page in pages)
    with pytest.raises(FenError) as info:
        parse(BAD_CASTLING)
    assert "n\u2019est pas dans l\u2019ordre" in info.value.render("fr")


@pytest.mark.parametrize(
    "text",
    [
        "champ 3 (roques)\u202f: «\u202fQK\u202f»",
        "Au revoir\u202f! Vraiment\u202f?!",
        "pendule à 3:00, coup pris en (0:05)",             # times
        "par exemple tcp:5000:interface=127.0.0.1\u202f;",  # a Twisted endpoint
        "voir https://www.freechess.org/ ou file:///tmp",   # URLs
        "{{Game {number} ({white} vs. {black}) {reason}}} {score}",  # placeholders, escaped braces
        "(minutes:secondes)",
    ],
)
def test_the_checker_lets_tokens_and_correct_text_through(text):
    assert catalogs.typography_problems(text) == []


def test_verbatim_pieces_are_not_checked_but_the_rest_is():
    text = "la forme «\u202fhmvc 0; fmvn 1;\u202f» ; voilà"
    problems = catalogs.typography_problems(text, ("hmvc 0; fmvn 1;",))
    assert len(problems) == 1 and "voil" in problems[0]
    assert len(catalogs.typography_problems(text)) == 3


# -- every French text ------------------------------------------------------------


def test_every_french_msgstr_has_french_spacing():
    assert catalogs.french_catalog_problems() == []


@pytest.mark.parametrize("page", french_pages(), ids=lambda p: p.name)
def test_every_french_help_page_has_french_spacing(page):
    text = page.read_text(encoding="utf-8")
    assert catalogs.typography_problems(text, catalogs.HELP_VERBATIM.get(page.name, ())) == []


def test_the_help_allow_list_names_text_that_exists():
    # An allow-list entry that no longer matches would silently allow nothing;
    # one that matches must be code, not prose: no U+202F inside it.
    for topic, pieces in catalogs.HELP_VERBATIM.items():
        text = (HELP_DIR / "fr" / topic).read_text(encoding="utf-8")
        for piece in pieces:
            assert piece in text, (topic, piece)
            assert NNBSP not in piece


def test_kept_english_lines_are_exempt_only_when_marked_and_copied(tmp_path):
    (tmp_path / "x.po").write_text(
        'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n\n'
        "#. First line kept as in English: ICS clients parse it.\n"
        'msgid "Challenge: {terms}.\\nYou can: accept."\n'
        'msgstr "Challenge: {terms}.\\nVous pouvez : accepter."\n\n'
        "#. Kept as in English: ICS clients parse this line.\n"
        'msgid "Issuing: {terms}."\n'
        'msgstr "Issuing: {terms}."\n\n'
        'msgid "Creating: {game}"\n'
        'msgstr "Creating: {game}"\n',
        encoding="utf-8",
    )
    problems = catalogs.french_catalog_problems(tmp_path)
    # the translated second line is checked, the unmarked copy is too
    assert len(problems) == 2
    assert "Vous pouvez : accepter" in problems[0]
    assert "'Creating: {game}'" in problems[1]


def test_the_shipped_exceptions_are_the_ics_lines():
    """The catalog entries that keep English text are the login dialogue's lines."""
    from babel.messages.pofile import read_po

    kept = set()
    for po in sorted((REPO / "ficsfen" / "locale" / "fr" / "LC_MESSAGES").glob("*.po")):
        with po.open("rb") as fp:
            for m in read_po(fp, locale="fr"):
                if m.id and any("kept as in english" in c.lower() for c in m.auto_comments):
                    ids = m.id if isinstance(m.id, tuple) else (m.id,)
                    strings = m.string if isinstance(m.string, tuple) else (m.string,)
                    kept.add(ids[0].split("\n")[0])
                    for mid, text in zip(ids, strings):
                        assert text.split("\n")[0] == mid.split("\n")[0]
    # Only the login dialogue: a session is not known as an interface before it
    # begins (xboard names itself after "Starting FICS session"), so those lines
    # are FICS's for everyone.  Every other line clients parse is translated and
    # read in English by interfaces only (ficsfen/server/parsed.py).
    assert kept == {
        "**** Starting FICS session as {name} ****",
        '"{name}" is a registered name.  If it is yours, type the password.',
        '"{name}" is not a registered name.  You may play unrated games as a guest.',
        'Press return to enter the server as "{handle}":',
        "**** Invalid password! ****",
        "#Ivars set.",
        "**** {handle} has arrived - you can't both be logged in. ****",
        "**** {handle} is already logged in - kicking them out. ****",
    }


# -- output charsets ------------------------------------------------------------------


def french_strings() -> list[str]:
    return [s for s in catalogs.catalog_msgids("fr").values() if NNBSP in s]


def test_latin1_clients_get_a_no_break_space():
    assert encode_text("champ 3 (roques)\u202f: «\u202fQK\u202f»", "latin1") == (
        b"champ 3 (roques)\xa0: \xab\xa0QK\xa0\xbb")
    # with a character Latin-1 lacks too (the apostrophe is transliterated)
    assert encode_text("n\u2019est pas\u202f; écrivez", "latin1") == b"n'est pas\xa0; \xe9crivez"
    for text in french_strings():
        data = encode_text(text, "latin1")
        assert data.count(b"\xa0") == text.count(NNBSP)
        assert data.count(b"?") == text.count("?")  # nothing became a replacement mark


def test_ascii_clients_get_what_plain_spaces_gave():
    assert transliterate("champ 3 (roques)\u202f: «\u202fQK\u202f»\u202f; fin\u202f!") == (
        'champ 3 (roques) : "QK" ; fin !')
    for text in french_strings():
        ascii_text = transliterate(text)
        assert ascii_text.isascii()
        assert ascii_text == transliterate(text.replace(NNBSP, " "))
        assert encode_text(text, "ascii") == ascii_text.encode("ascii")


# -- end to end: the command line -----------------------------------------------------------


def ficsfen(*argv: str, encoding: str, columns: int = 80) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("LC_ALL", "LC_MESSAGES", "LANG")}
    env.update(PYTHONIOENCODING=encoding, COLUMNS=str(columns))
    return subprocess.run([sys.executable, "-m", "ficsfen", *argv], capture_output=True,
                          env=env, cwd=REPO, timeout=60)


@pytest.mark.slow
def test_check_prints_french_spacing():
    done = ficsfen("check", "--lang", "fr", BAD_CASTLING, encoding="utf-8")
    assert done.returncode == 1
    assert done.stderr.decode("utf-8") == (
        "FEN invalide\u202f: champ 3 (roques)\u202f: «\u202fQK\u202f» n’est pas dans l’ordre\u202f; "
        "écrivez «\u202fKQ\u202f»\n")


@pytest.mark.slow
def test_a_latin1_terminal_gets_no_break_spaces_not_a_crash():
    done = ficsfen("check", "--lang", "fr", BAD_CASTLING, encoding="latin-1")
    assert done.returncode == 1
    assert done.stderr.startswith(b"FEN invalide\xa0: champ 3 (roques)\xa0: \xab\xa0QK\xa0\xbb"
                                  b" n'est pas dans l'ordre")  # ’ has no Latin-1 byte
    shown = ficsfen("--lang", "fr", "--help", encoding="latin-1")
    assert (shown.returncode, shown.stderr) == (0, b"")
    assert b"locale" in shown.stdout and b"\xa0;" in shown.stdout


@pytest.mark.slow
def test_an_ascii_terminal_gets_plain_spaces():
    done = ficsfen("check", "--lang", "fr", BAD_CASTLING, encoding="ascii")
    assert done.returncode == 1
    assert done.stderr.startswith(b"FEN invalide : champ 3 (roques) : ")


def test_argparse_wrapping_never_breaks_at_the_no_break_space(capsys, monkeypatch):
    for name in ("LC_ALL", "LC_MESSAGES", "LANG"):
        monkeypatch.delenv(name, raising=False)
    for width in range(24, 61, 3):
        monkeypatch.setenv("COLUMNS", str(width))
        assert cli.main(["--lang", "fr", "check", "--help"]) == 0
        out = capsys.readouterr().out
        assert "FEN\u202f:" in out and "fr)\u202f;" in out
        for line in out.splitlines():
            assert not line.lstrip().startswith((":", ";", "!", "?", "\u00bb", NNBSP)), line
            assert not line.rstrip().endswith(("\u00ab", NNBSP)), line


# -- width ------------------------------------------------------------------------------


def test_the_no_break_space_is_one_column():
    # len() is the terminal width for it: not wide, not combining, one code point
    assert unicodedata.east_asian_width(NNBSP) == "N"
    assert unicodedata.combining(NNBSP) == 0
    assert len(unicodedata.normalize("NFC", NNBSP)) == 1


def test_columns_count_the_no_break_space_as_one_column():
    words = ["abc", "a\u202f:", "«\u202fb\u202f»", "de"]
    rows = columns(words, width=12, gap=2)
    assert rows == ["abc    «\u202fb\u202f»", "a\u202f:    de"]
    assert [row[7:] for row in rows] == ["«\u202fb\u202f»", "de"]  # one screen column


def test_the_french_help_index_fits_and_keeps_its_spaces():
    text = HelpCatalog().index("fr", width=40)
    lines = text.splitlines()
    assert lines[0] == "De l’aide est disponible sur les sujets suivants\u202f:"
    assert "«\u202fhelp SUJET\u202f»" in lines[-1]
    assert all(len(line) <= 40 for line in lines[2:-2])


def test_french_session_messages_and_boards_in_every_charset():
    server = make_server()
    client = connect(server)
    client.login()
    assert client.command("set lang fr").strip() == "Langue\u202f: Français."
    assert client.command("xyzzy").strip() == "xyzzy\u202f: commande introuvable."
    assert client.command("set style 5").strip() == (
        "Le style 5 n’existe pas\u202f; utilisez 1 (diagramme) ou 12 (clients ICS).")
    board = client.command("examine")
    assert "Coup n°\u202f: 1 (Blancs)" in board
    assert "Pendule des Blancs\u202f: " in board
    assert max(len(line) for line in board.expandtabs(8).splitlines()) <= 79
    client.command("set charset latin1")
    client.send("xyzzy")
    assert client.raw_output().startswith(b"xyzzy\xa0: commande introuvable.")
    client.command("set charset ascii")
    client.send("xyzzy")
    assert client.raw_output().startswith(b"xyzzy : commande introuvable.")
    client.send("help fen")
    raw = client.raw_output()
    assert raw.isascii() and b"QU'EST-CE QUE LA NOTATION FEN ?" in raw
