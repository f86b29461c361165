"""``checkfen``: the server answers what ``ficsfen check`` prints, in the session's language.

The expected text is the command line's own output for the same record (its
``main`` run in-process), so the two can never drift apart; a few answers are
also spelled out byte for byte.
"""

from __future__ import annotations

import contextlib
import io
import re

import pytest
from hypothesis import HealthCheck, given, settings

from ficsfen.cli import main as cli_main
from ficsfen.commands.checkfen import check_answer
from ficsfen.server import block
from ficsfen.server.testing import connect, make_server
from test_fen_properties import mutated

START, SEP, END = "\x15", "\x16", "\x17"
_FRAME = re.compile(f"{START}([0-9]+){SEP}([0-9]+){SEP}(.*?){END}\r\n", re.DOTALL)

E4 = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1"
BAD_CASTLING = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w QK - 0 1"
NNBSP = "\u202f"


def cli_check(record: str, *, lang: str = "en", variant: str | None = None) -> tuple[int, str]:
    """``ficsfen --lang LANG check [--variant V] RECORD``: its exit status and what it wrote."""
    out, err = io.StringIO(), io.StringIO()
    argv = ["--lang", lang, "check", *(["--variant", variant] if variant else []), record]
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = cli_main(argv)
    return status, out.getvalue() + err.getvalue()


def as_sent(text: str) -> bytes:
    """The server's bytes for lines written as the command line writes them."""
    return text.replace("\n", "\r\n").encode("utf-8")


@pytest.fixture
def server():
    return make_server(input_rate=0)


@pytest.fixture
def alice(server):
    client = connect(server)
    client.login("alice")
    return client


def answer(client, line: str) -> bytes:
    client.raw_output()
    client.send(line)
    raw = client.raw_output()
    prompt = client.server.config.prompt.encode("ascii")
    assert raw.endswith(prompt)
    return raw[: -len(prompt)]


def frame(client, line: str) -> tuple[int, int, bytes]:
    client.raw_output()
    client.send(line)
    raw = client.raw_output().decode("utf-8")
    m = _FRAME.fullmatch(raw)
    assert m is not None, raw
    return int(m.group(1)), int(m.group(2)), m.group(3).encode("utf-8")


# -- the answers, byte for byte ---------------------------------------------------------


def test_a_valid_record_comes_back_strict(alice):
    assert answer(alice, f"checkfen {E4}") == f"{E4}\r\n".encode()
    assert cli_check(E4) == (0, f"{E4}\n")


def test_an_invalid_record_names_the_field_and_the_fix_in_english(alice):
    expected = b'Invalid FEN: field 3 (castling): "QK" is out of order; write "KQ"\r\n'
    assert answer(alice, f"checkfen {BAD_CASTLING}") == expected
    assert as_sent(cli_check(BAD_CASTLING)[1]) == expected


def test_an_invalid_record_in_french(alice):
    alice.command("set lang fr")
    expected = (f"FEN invalide{NNBSP}: champ 3 (roques){NNBSP}: «{NNBSP}QK{NNBSP}» n’est pas "
                f"dans l’ordre{NNBSP}; écrivez «{NNBSP}KQ{NNBSP}»\r\n").encode()
    assert answer(alice, f"checkfen {BAD_CASTLING}") == expected
    assert as_sent(cli_check(BAD_CASTLING, lang="fr")[1]) == expected


@pytest.mark.parametrize("record", [
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -  0 1",  # a doubled space
    "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1 extra",
    "8/8/8 w - - 0 1",
    "4k3/8/8/8/8/8/8/4K3 w - e3 0 1",
    "4k3/8/8/8/8/8/8/4K3",
    "x",
])
@pytest.mark.parametrize("lang", ["en", "fr"])
def test_the_answer_is_ficsfen_checks(alice, record, lang):
    alice.command(f"set lang {lang}")
    assert answer(alice, f"checkfen {record}") == as_sent(cli_check(record, lang=lang)[1])


@pytest.mark.parametrize("word, variant, record", [
    ("zh", "crazyhouse", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"),
    ("crazyhouse", "crazyhouse", "rnb1kbnr/ppp1pppp/8/3q4/8/8/PPPP1PPP/RNBQKBNR/Pp w KQkq - 0 3"),
    ("zh", "crazyhouse", "r3k2r/8/8/8/8/8/8/R2Q~K2R[P] w KQkq - 0 1"),
    ("fr", "chess960", "bqnrkrnb/pppppppp/8/8/8/8/PPPPPPPP/BQNRKRNB w FDfd - 0 1"),
    ("chess960", "chess960", "4k3/8/8/8/8/8/8/R3KR1R w F - 0 1"),
    ("fr", "chess960", "4k3/8/8/8/8/8/8/R3KR1R w K - 0 1"),
    ("zh", "crazyhouse", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[X] w KQkq - 0 1"),
])
def test_a_variant_word_checks_as_ficsfen_check_variant(alice, word, variant, record):
    for lang in ("en", "fr"):
        alice.command(f"set lang {lang}")
        expected = as_sent(cli_check(record, lang=lang, variant=variant)[1])
        assert answer(alice, f"checkfen {word} {record}") == expected


def test_without_a_variant_word_holdings_are_refused(alice):
    record = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[] w KQkq - 0 1"
    assert answer(alice, f"checkfen {record}").startswith(b"Invalid FEN: field 1 (placement)")


def test_no_record_is_the_usage_line(alice):
    assert answer(alice, "checkfen") == b"Usage: checkfen [VARIANT] FEN\r\n"
    alice.command("set lang fr")
    assert answer(alice, "checkfen   ") == f"Usage{NNBSP}: checkfen [VARIANTE] FEN\r\n".encode()


def test_a_prefix_runs_it(alice):
    assert answer(alice, f"checkf {E4}") == f"{E4}\r\n".encode()


# -- block mode ------------------------------------------------------------------------


def test_block_mode_codes_200_and_513_and_the_persons_language(alice):
    alice.command("set lang fr")
    assert alice.command("iset block 1") == "block set.\n"
    assert frame(alice, f"4 checkfen {E4}") == (4, 200, f"{E4}\r\n".encode())
    ident, code, text = frame(alice, f"5 checkfen {BAD_CASTLING}")
    assert (ident, code) == (5, block.BAD_PARAMS)
    assert text == as_sent(cli_check(BAD_CASTLING, lang="fr")[1])
    assert frame(alice, "6 checkfen")[:2] == (6, block.BAD_PARAMS)
    assert block.code_for("checkfen") == 200 and block.code_for("fen") == block.NULL


# -- bad input -------------------------------------------------------------------------


def test_an_overlong_line_is_refused_and_the_session_goes_on(server, alice):
    long_record = E4 + " " + "x" * server.config.max_line
    out = answer(alice, f"checkfen {long_record}").decode()
    assert out.startswith("Your line was longer than")
    assert answer(alice, f"checkfen {E4}") == f"{E4}\r\n".encode()


def test_bytes_that_are_not_utf8_are_an_invalid_record(alice):
    alice.raw_output()
    alice.send_bytes(b"checkfen \xff\xfe/8/8 w - - 0 1\r\n")
    out = alice.output()
    assert out.startswith("Invalid FEN: ") and out.endswith("fics% ")
    assert answer(alice, f"checkfen {E4}") == f"{E4}\r\n".encode()


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(mutated())
def test_near_valid_records_get_ficsfen_checks_answer(alice, text):
    record = text.replace("\n", "").replace("\x00", "").strip()
    if not record:
        return
    line = f"checkfen {record}"
    expected = cli_check(record)[1]
    assert answer(alice, line) == as_sent(expected)
    rendered = check_answer(record)
    assert (rendered if isinstance(rendered, str) else rendered.render("en")) + "\n" == expected


def test_a_french_session_in_block_mode_gets_help_and_checkfen_in_french(server, alice):
    """The web page's session: block mode (an interface) keeps parsed texts English,
    while the texts for persons, help pages and checkfen's answers, follow ``set lang``."""
    assert alice.command("iset block 1") == "block set.\n"
    ident, code, text = frame(alice, "1 set lang fr")
    assert (ident, code) == (1, block.code_for("set"))
    assert alice.session.lang == "fr" and alice.session.parsed_lang == "en"
    ident, code, text = frame(alice, "2 help fen")
    page = server.catalog.lookup("fen", "fr").text.split("\n")
    size = server.config.help_page_lines
    more = "Tapez [next] pour voir la page suivante."
    assert (ident, code) == (2, block.code_for("help"))
    assert text.decode() == "\r\n".join([*page[:size], more]) + "\r\n"
    ident, code, text = frame(alice, f"3 checkfen {BAD_CASTLING}")
    assert text.decode().startswith(f"FEN invalide{NNBSP}: champ 3 (roques)")
