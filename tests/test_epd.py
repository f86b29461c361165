"""EPD: four FEN fields plus operations, parsed and emitted."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ficsfen.epd import EPD_ERROR_CODES, Epd, EpdError, emit_epd, parse_epd
from ficsfen.fen import STARTING_FEN, FenError, parse

KINGS = "4k3/8/8/8/8/8/8/4K3 w - -"

VALID = [
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -",
    "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 hmvc 0; fmvn 1;",
    # A classic test-suite line: best move, identifier.
    '2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - - bm Qg6; id "WAC.001";',
    # Unknown opcodes kept in order; strings with blanks, ";" and escaped quotes.
    f'{KINGS} zz 1 2 3; c0 "a; b \\"c\\""; noop; am Kd2 Kf2;',
    # python-chess-style operands: numbers and a trailing empty string.
    f'{KINGS} ce -15; pv Kd2 Kd7 Kd3; c1 "";',
]


@pytest.mark.parametrize("record", VALID)
def test_round_trip(record):
    epd = parse_epd(record)
    assert emit_epd(epd) == record
    assert epd.epd() == record == str(epd)
    assert eval(repr(epd), {"parse_epd": parse_epd}) == epd


def test_operations_in_order():
    epd = parse_epd(VALID[3])
    assert epd.operations == (
        ("zz", ("1", "2", "3")),
        ("c0", ('"a; b \\"c\\""',)),
        ("noop", ()),
        ("am", ("Kd2", "Kf2")),
    )
    assert epd.operands("am") == ("Kd2", "Kf2")
    assert epd.operands("bm") is None


def test_hmvc_and_fmvn_make_the_fen():
    epd = parse_epd("4k3/8/8/8/8/8/4P3/4K3 w - - id \"x\"; hmvc 5; fmvn 39;")
    assert (epd.halfmove, epd.fullmove) == (5, 39)
    assert epd.to_fen() == "4k3/8/8/8/8/8/4P3/4K3 w - - 5 39"
    assert epd.position() == parse("4k3/8/8/8/8/8/4P3/4K3 w - - 5 39")
    bare = parse_epd(VALID[0])
    assert (bare.halfmove, bare.fullmove) == (None, None)
    assert bare.to_fen() == STARTING_FEN


def test_from_position():
    position = parse("rnbqkbnr/pp1ppppp/8/2p5/4P3/8/PPPP1PPP/RNBQKBNR w KQkq c6 0 2")
    epd = Epd.from_position(position, (("id", ('"sicilian"',)),), counters=True)
    assert epd.epd() == ('rnbqkbnr/pp1ppppp/8/2p5/4P3/8/PPPP1PPP/RNBQKBNR w KQkq c6 '
                         'id "sicilian"; hmvc 0; fmvn 2;')
    assert parse_epd(epd.epd()) == epd
    assert epd.to_fen() == position.fen()
    assert Epd.from_position(position).epd() == " ".join(position.fen().split()[:4])


def test_the_en_passant_square_is_kept():
    epd = parse_epd("8/8/8/8/k2pP2R/8/8/4K3 b - e3 bm Kb3;")
    assert epd.ep == "e3"


EPD_ERRORS = [
    # (record, field, code)
    ("4k3/8/8/8/8/8/8/4K3 w -", 0, "field-count"),
    (f" {KINGS}", 0, "blank-edge"),
    (f"{KINGS} bm Kd2; ", 0, "blank-edge"),
    ("4k3/8/8/8/8/8/8/4K3 w  - -", 0, "separator"),
    (f"{KINGS}\tbm Kd2;", 0, "separator"),
    (f"{KINGS} bm Kd2;  id x;", 5, "separator"),
    (f"{KINGS} bm  Kd2;", 5, "separator"),
    (f"{KINGS} ;", 5, "separator"),
    (f'{KINGS} id "x"y;', 5, "separator"),
    (f"{KINGS} 1x 0;", 5, "opcode"),
    (f"{KINGS} abcdefghijklmno 0;", 5, "opcode"),
    (f"{KINGS} bm Kd2; bm Kf2;", 5, "opcode-repeat"),
    (f"{KINGS} bm Kd2", 5, "unterminated"),
    (f'{KINGS} id "abc;', 5, "unclosed-string"),
    (f'{KINGS} id ab"c;', 5, "unclosed-string"),
    (f"{KINGS} hmvc x;", 5, "hmvc-operand"),
    (f"{KINGS} hmvc 1 2;", 5, "hmvc-operand"),
    (f"{KINGS} hmvc 01;", 5, "hmvc-operand"),
    (f"{KINGS} fmvn 0;", 5, "fmvn-operand"),
    # Fields 1-4 follow the FEN rules and keep their FEN codes.
    ("4k3/8/8/8/8/8/8/4K3 w QK -", 3, "castling-order"),
    ("4k3/8/8/8/8/8/8/4K3 w K -", 3, "castling-rights"),
    ("4k3/8/8/8/8/8/8/4K3 w - e3", 4, "ep-turn"),
    ("4k3/8/8/8/8/8/8/4K4 w - - bm Kd2;", 1, "rank-length"),
    # First error in field order: the position before the operations.
    ("4k3/8/8/8/8/8/8/4K3 x - - bm Kd2", 2, "turn"),
]


@pytest.mark.parametrize("record,field,code", EPD_ERRORS)
def test_errors_in_both_languages(record, field, code):
    with pytest.raises(EpdError) as info:
        parse_epd(record)
    err = info.value
    assert isinstance(err, FenError)
    assert (err.field, err.code) == (field, code)
    english, french = err.render("en"), err.render("fr")
    assert english != french
    if field:
        assert english.startswith(f"field {field} (")
        assert french.startswith(f"champ {field} (")


def test_every_epd_code_is_tested():
    assert {code for _, field, code in EPD_ERRORS if field in (0, 5)} == set(EPD_ERROR_CODES)


def test_exact_epd_messages():
    with pytest.raises(EpdError) as info:
        parse_epd(f"{KINGS} bm Kd2")
    assert info.value.render("en") == (
        'field 5 (operations): the operation "bm Kd2" does not end with ";"; write "bm Kd2;"')
    assert info.value.render("fr") == (
        "champ 5 (opérations)\u202f: l’opération «\u202fbm Kd2\u202f» ne se termine pas par «\u202f;\u202f»\u202f; "
        "écrivez «\u202fbm Kd2;\u202f»")
    assert info.value.suggestion == "bm Kd2;"
    with pytest.raises(EpdError) as info:
        parse_epd("4k3/8/8/8/8/8/8/4K3 w")
    assert info.value.render("en") == (
        "record: found 2 fields; an EPD record has 4 position fields, then its operations")


def test_validate_false_skips_position_checks():
    epd = parse_epd("8/8/8/8/8/8/8/8 w KQkq e6 bm a4;", validate=False)
    assert epd.castling == "KQkq"
    with pytest.raises(EpdError):
        parse_epd("8/8/8/8/8/8/8/8 w KQkq e6 bm a4;")


@settings(max_examples=150, deadline=None)
@given(st.text())
def test_any_text_parses_or_raises(text):
    try:
        epd = parse_epd(text)
    except FenError as err:
        assert err.render("fr")
        return
    assert emit_epd(epd) == text


OPCODE = st.from_regex(r"[a-zA-Z][a-zA-Z0-9_]{0,13}", fullmatch=True).filter(
    lambda op: op not in ("hmvc", "fmvn"))
OPERAND = st.one_of(
    st.from_regex(r'[A-Za-z0-9+#=\-.!?/]{1,8}', fullmatch=True),
    st.from_regex(r'"([A-Za-z0-9 ;.,]|\\"|\\\\){0,10}"', fullmatch=True),
)


@pytest.mark.slow
@settings(max_examples=100, deadline=None)
@given(st.dictionaries(OPCODE, st.lists(OPERAND, max_size=3), max_size=5))
def test_generated_operations_round_trip(ops):
    epd = Epd("4k3/8/8/8/8/8/4P3/4K3", "w", "-", "-",
              tuple((code, tuple(operands)) for code, operands in ops.items()))
    text = emit_epd(epd)
    assert parse_epd(text) == epd


def test_hmvc_after_a_double_push_must_be_zero():
    # The push that made the en passant square reset the clock, as in FEN fields 4 and 5.
    record = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 hmvc 5; fmvn 1;"
    with pytest.raises(EpdError) as info:
        parse_epd(record)
    assert info.value.code == "ep-halfmove" and info.value.field == 5
    assert "e3" in info.value.render("en") and "e3" in info.value.render("fr")
    assert parse_epd(record, validate=False).halfmove == 5
    assert parse_epd(record.replace("hmvc 5", "hmvc 0")).halfmove == 0
