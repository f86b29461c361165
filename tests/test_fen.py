"""The strict FEN codec: the standard's examples, every error, en passant, interop."""

from __future__ import annotations

import pickle
import re
from pathlib import Path

import chess
import chess.pgn
import pytest

from ficsfen import fen, fenrules
from ficsfen.fen import (
    ERROR_CODES,
    FIELD_NAMES,
    STARTING_FEN,
    FenError,
    FenSyntaxError,
    InvalidPositionError,
    Position,
    emit,
    is_valid,
    parse,
    parse_syntax,
)
from ficsfen.i18n import Message

# The five example records of the PGN standard, section 16.1.
STANDARD_EXAMPLES = [
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1",
    "rnbqkbnr/pp1ppppp/8/2p5/4P3/8/PPPP1PPP/RNBQKBNR w KQkq c6 0 2",
    "rnbqkbnr/pp1ppppp/8/2p5/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2",
    "4k3/8/8/8/8/8/4P3/4K3 w - - 5 39",
]

KINGS = "4k3/8/8/8/8/8/8/4K3"


@pytest.mark.parametrize("record", STANDARD_EXAMPLES)
def test_standard_examples_round_trip(record):
    position = parse(record)
    assert emit(position) == record
    assert position.fen() == record
    assert str(position) == record
    assert is_valid(record)


def test_standard_example_fields():
    pos = parse(STANDARD_EXAMPLES[1])
    assert pos == Position(
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR", "b", "KQkq", "e3", 0, 1
    )
    last = parse(STANDARD_EXAMPLES[4])
    assert (last.turn, last.castling, last.ep, last.halfmove, last.fullmove) == (
        "w", "-", "-", 5, 39)
    assert parse(STARTING_FEN) == Position.from_fen(STANDARD_EXAMPLES[0])


def test_repr_round_trips():
    pos = parse(STANDARD_EXAMPLES[2])
    assert repr(pos) == f"Position.from_fen({STANDARD_EXAMPLES[2]!r})"
    assert eval(repr(pos), {"Position": Position}) == pos


def test_position_is_a_frozen_value():
    pos = parse(STARTING_FEN)
    with pytest.raises(AttributeError):
        pos.turn = "b"  # type: ignore[misc]
    assert hash(pos) == hash(parse(STARTING_FEN))


# ---------------------------------------------------------------------------
# En passant: written after every double push, kept when nobody can capture.


def test_ep_kept_when_no_pawn_can_capture():
    board = chess.Board()
    board.push_san("e4")
    # python-chess's default form drops the square; the standard keeps it.
    assert " - " in board.fen()
    pos = Position.from_board(board)
    assert pos.ep == "e3"
    assert pos.fen() == STANDARD_EXAMPLES[1]
    assert pos.board().ep_square == chess.E3


def test_ep_kept_when_the_capture_would_expose_the_king():
    # After e2-e4 the pawn on d4 could take en passant, but both pawns would
    # leave rank 4 and uncover the rook on h4 against the king on a4.
    record = "8/8/8/8/k2pP2R/8/8/4K3 b - e3 0 1"
    board = chess.Board(record)
    assert not any(board.is_en_passant(m) for m in board.legal_moves)
    assert board.fen() == "8/8/8/8/k2pP2R/8/8/4K3 b - - 0 1"
    pos = parse(record)
    assert pos.ep == "e3"
    assert emit(pos) == record
    assert Position.from_board(board).fen() == record


def test_ep_when_the_capture_is_legal():
    record = "4k3/8/8/8/3pP3/8/8/4K3 b - e3 0 1"
    board = parse(record).board()
    assert any(board.is_en_passant(m) for m in board.legal_moves)


def test_ep_square_needs_a_halfmove_clock_of_zero():
    # The two-square push that field 4 records is a pawn move, which reset the clock.
    record = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 5 1"
    with pytest.raises(InvalidPositionError) as info:
        parse(record)
    err = info.value
    assert (err.field, err.code, err.text, err.suggestion) == (5, "ep-halfmove", "5", "0")
    assert err.render("en") == (
        'field 5 (halfmove clock): "5" is not 0, but field 4 (en passant) says the last move '
        'was a two-square pawn push (over "e3"), which resets this clock; write "0", or "-" in '
        "field 4")
    french = err.render("fr")
    assert french.startswith("champ 5 (demi-coups)")
    assert "\u00ab\u202f5\u202f\u00bb" in french and "champ 4 (en passant)" in french
    assert "\u00ab\u202fe3\u202f\u00bb" in french and "z\u00e9ro\u202f; " in french
    assert not is_valid(record)
    assert parse_syntax(record).fen() == record  # well-formed, only impossible
    # Either fix is accepted: the clock at 0, or no en passant square.
    assert parse(record.replace(" 5 1", " 0 1")).halfmove == 0
    assert parse(record.replace(" e3 5 ", " - 5 ")).halfmove == 5
    # A syntax error in field 5 is still reported as such, first.
    assert parse_error(record.replace(" 5 1", " 05 1")).code == "leading-zero"


def parse_error(record: str) -> FenError:
    with pytest.raises(FenError) as info:
        parse(record)
    return info.value


def test_board_interop():
    board = chess.Board()
    for san in ("e4", "c5", "Nf3"):
        board.push_san(san)
        assert Position.from_board(board).fen() == board.fen(en_passant="fen")
    assert Position.from_board(board).fen() == STANDARD_EXAMPLES[3]
    assert parse(STANDARD_EXAMPLES[3]).board() == board


def test_from_board_rejects_an_impossible_board():
    board = chess.Board(None)
    with pytest.raises(FenError) as info:
        Position.from_board(board)
    assert info.value.code == "king-count"


# ---------------------------------------------------------------------------
# Errors: one example record per code.

ERROR_EXAMPLES = {
    "field-count": "4k3/8/8/8/8/8/8/4K3 w - - 0",
    "blank-edge": f"{KINGS} w - - 0 1 ",
    "separator": f"{KINGS} w -\t- 0 1",
    "rank-count": "4k3/8/8/8/8/8/4K3 w - - 0 1",
    "rank-length": "4k4/8/8/8/8/8/8/4K3 w - - 0 1",
    "adjacent-digits": "4k3/8/8/8/8/44/8/4K3 w - - 0 1",
    "bad-digit": "4k3/8/8/8/8/8/9/4K3 w - - 0 1",
    "bad-piece": "4k3/8/8/8/8/8/8/4X3 w - - 0 1",
    "king-count": "4kk2/8/8/8/8/8/8/4K3 w - - 0 1",
    "pawn-backrank": "4k2P/8/8/8/8/8/8/4K3 w - - 0 1",
    "pawn-count": "4k3/8/8/8/8/P7/PPPPPPPP/4K3 w - - 0 1",
    "piece-count": "4k3/8/8/8/8/NNNNNNNN/PPPPPPPP/NNN1K3 w - - 0 1",
    "too-many-checkers": "4r2k/8/8/b7/8/3n4/8/4K3 w - - 0 1",
    "impossible-check": "4k3/8/8/8/8/8/8/r3K2r w - - 0 1",
    "turn": f"{KINGS} W - - 0 1",
    "opposite-check": "4k3/8/8/8/8/8/8/4R1K1 w - - 0 1",
    "castling-char": f"{KINGS} w X - 0 1",
    "castling-repeat": "r3k2r/8/8/8/8/8/8/R3K2R w KKq - 0 1",
    "castling-order": "r3k2r/8/8/8/8/8/8/R3K2R w QK - 0 1",
    "castling-rights": f"{KINGS} w K - 0 1",
    "ep-square": f"{KINGS} w - z9 0 1",
    "ep-rank": f"{KINGS} w - e4 0 1",
    "ep-turn": "4k3/8/8/8/4P3/8/8/4K3 w - e3 0 1",
    "ep-occupied": "4k3/8/8/8/4P3/4n3/8/4K3 b - e3 0 1",
    "ep-origin": "4k3/8/8/8/4P3/8/4N3/4K3 b - e3 0 1",
    "ep-pawn": f"{KINGS} b - e3 0 1",
    "ep-check": "4r2k/8/8/3p4/8/8/8/4K3 w - d6 0 1",
    "ep-halfmove": "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 5 1",
    "halfmove-number": f"{KINGS} w - - -1 1",
    "fullmove-number": f"{KINGS} w - - 0 x",
    "fullmove-zero": f"{KINGS} w - - 0 0",
    "leading-zero": f"{KINGS} w - - 07 1",
    "number-too-long": f"{KINGS} w - - {'1' * (fen.MAX_DIGITS + 1)} 1",
}


def test_every_code_has_an_example():
    assert set(ERROR_EXAMPLES) == set(ERROR_CODES)


def test_every_raised_code_is_listed():
    # the parser and the rules that refuse a field (ficsfen.fenrules)
    source = "".join(Path(module.__file__).read_text(encoding="utf-8") for module in (fen, fenrules))
    raised = set(re.findall(r'Error\(\s*\w+,\s*"([a-z-]+)"', source))
    assert raised and raised <= set(ERROR_CODES)


@pytest.mark.parametrize("code", sorted(ERROR_EXAMPLES))
def test_error_code_in_both_languages(code):
    record = ERROR_EXAMPLES[code]
    with pytest.raises(FenError) as info:
        parse(record)
    err = info.value
    assert err.code == code
    assert err.field in ERROR_CODES[code]
    assert isinstance(err, ValueError)
    assert isinstance(err.message, Message)
    assert err.text and err.text in record
    english, french = err.render("en"), err.render("fr")
    assert str(err) == english
    assert french != english
    if err.field:
        assert english.startswith(f"field {err.field} ({FIELD_NAMES[err.field].render('en')}): ")
        assert french.startswith(f"champ {err.field} ({FIELD_NAMES[err.field].render('fr')})\u202f: ")
    else:
        # A whole-record error says how many fields it found.
        found = str(len(record.split()))
        assert english.startswith("record: found " + found)
        assert french.startswith("enregistrement\u202f: " + found)
    if err.suggestion is not None:
        assert err.suggestion in english and err.suggestion in french
    # A syntax error is found by the syntax pass too; a position error is not.
    if isinstance(err, InvalidPositionError):
        assert parse_syntax(record).fen() == record
    else:
        assert isinstance(err, FenSyntaxError)
        with pytest.raises(FenSyntaxError):
            parse_syntax(record)


EXACT = [
    ("r3k2r/8/8/8/8/8/8/R3K2R w QK - 0 1",
     'field 3 (castling): "QK" is out of order; write "KQ"',
     "champ 3 (roques)\u202f: «\u202fQK\u202f» n’est pas dans l’ordre\u202f; écrivez «\u202fKQ\u202f»"),
    ("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0",
     "record: found 5 fields; a FEN record has 6, separated by single spaces",
     "enregistrement\u202f: 5 champs trouvés\u202f; un enregistrement FEN en a 6, "
     "séparés par une seule espace"),
    ("4k3/8/8/8/8/8/4P3/4K3 w - -",
     'record: found 4 fields, as in EPD; a FEN record has 6: '
     'write "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1"',
     "enregistrement\u202f: 4 champs trouvés, comme en EPD\u202f; un enregistrement FEN en a 6\u202f: "
     "écrivez «\u202f4k3/8/8/8/8/8/4P3/4K3 w - - 0 1\u202f»"),
    ("4k3/8/8/8/8/44/8/4K3 w - - 0 1",
     'field 1 (placement): rank 3 ("44") has two digits in a row; write "8"',
     "champ 1 (placement)\u202f: la rangée 3 («\u202f44\u202f») a deux chiffres qui se suivent\u202f; "
     "écrivez «\u202f8\u202f»"),
    ("4kk2/8/8/8/8/8/8/4K3 w - - 0 1",
     "field 1 (placement): Black has 2 kings; there must be exactly one",
     "champ 1 (placement)\u202f: les Noirs ont 2 rois\u202f; il en faut exactement un"),
    ("4k3/8/8/8/8/8/8/8 w - - 0 1",
     "field 1 (placement): White has 0 kings; there must be exactly one",
     "champ 1 (placement)\u202f: les Blancs ont 0 roi\u202f; il en faut exactement un"),
    (f"{KINGS} W - - 0 1",
     'field 2 (active colour): "W" is not "w" or "b"; write "w"',
     "champ 2 (trait)\u202f: «\u202fW\u202f» n’est ni «\u202fw\u202f» ni «\u202fb\u202f»\u202f; écrivez «\u202fw\u202f»"),
    ("4k3/8/8/8/8/8/8/4R1K1 w - - 0 1",
     "field 2 (active colour): White is to move but the Black king on e8 is in check; "
     "the side that just moved cannot be in check",
     "champ 2 (trait)\u202f: les Blancs ont le trait mais le roi noir en e8 est en échec\u202f; "
     "le camp qui vient de jouer ne peut pas être en échec"),
    ("r3k3/8/8/8/8/8/8/4K2R w KQkq - 0 1",
     'field 3 (castling): "Q" needs the White king on e1 and a White rook on a1; write "Kq"',
     "champ 3 (roques)\u202f: «\u202fQ\u202f» exige le roi blanc en e1 et une tour blanche en a1\u202f; "
     "écrivez «\u202fKq\u202f»"),
    (f"{KINGS} b - e3 0 1",
     'field 4 (en passant): no White pawn on e4 has just passed over "e3"; write "-"',
     "champ 4 (en passant)\u202f: aucun pion blanc en e4 ne vient de franchir «\u202fe3\u202f»\u202f; "
     "écrivez «\u202f-\u202f»"),
    (f"{KINGS} w - - +5 1",
     'field 5 (halfmove clock): "+5" is not a whole number of 0 or more, in digits 0-9; write "5"',
     "champ 5 (demi-coups)\u202f: «\u202f+5\u202f» n’est pas un nombre entier positif ou nul écrit avec "
     "les chiffres 0 à 9\u202f; écrivez «\u202f5\u202f»"),
    (f"{KINGS} w - - 0 \u0663",
     'field 6 (fullmove number): "\u0663" is not a whole number of 1 or more, in digits 0-9; '
     'write "3"',
     "champ 6 (numéro de coup)\u202f: «\u202f\u0663\u202f» n’est pas un nombre entier d’au moins 1 écrit avec "
     "les chiffres 0 à 9\u202f; écrivez «\u202f3\u202f»"),
]


@pytest.mark.parametrize("record,english,french", EXACT)
def test_exact_messages(record, english, french):
    with pytest.raises(FenError) as info:
        parse(record)
    assert info.value.render("en") == english
    assert info.value.render("fr") == french
    assert info.value.render("xx") == english  # unknown language: English


@pytest.mark.parametrize("record,suggestion", [
    (f"{KINGS} w - - 1_0 1", "10"),
    (f"{KINGS} w - - 0 +5", "5"),
    (f"{KINGS} w - E6 0 1", "e6"),
    (f"{KINGS} b - E3 0 1", "e3"),
    (f"{KINGS} white - - 0 1", "w"),
    (f"{KINGS} w -q - 0 1", "q"),
    (f"{KINGS} w - - 0 00", "1"),
    (f"{KINGS} w - - 00 1", "0"),
    ("4k3/8/8/8/8/8/8/4K3  w - - 0 1", f"{KINGS} w - - 0 1"),
])
def test_suggestions(record, suggestion):
    with pytest.raises(FenError) as info:
        parse_syntax(record)
    assert info.value.suggestion == suggestion


def test_suggestion_fixes_the_record():
    for code, record in ERROR_EXAMPLES.items():
        try:
            parse(record)
        except FenError as err:
            if err.suggestion is None or err.field == 0:
                continue
            fields = record.split(" ")
            fields[err.field - 1] = fields[err.field - 1].replace(err.text, err.suggestion)
            fixed = " ".join(fields)
            try:
                parse(fixed)
            except FenError as again:
                # The fix removes this error; a later field may still be wrong.
                assert (again.field, again.code) != (err.field, err.code), code


@pytest.mark.parametrize("record,field,code", [
    # A position error in field 1 comes before a syntax error in field 3.
    ("4kk2/8/8/8/8/8/8/4K3 w QK - 0 1", 1, "king-count"),
    # Field 3 before field 5.
    (f"{KINGS} w QK - x 1", 3, "castling-order"),
    # The record as a whole comes first.
    ("4kk2/8/8/8/8/8/8/4K3 w QK -", 0, "field-count"),
    # Within the placement, the syntax of every rank before the position.
    ("4kk2/8/8/8/8/8/8/4K4 w - - 0 1", 1, "rank-length"),
])
def test_first_error_in_field_order(record, field, code):
    with pytest.raises(FenError) as info:
        parse(record)
    assert (info.value.field, info.value.code) == (field, code)


@pytest.mark.parametrize("record", [
    "", " ", "\x00", "w", "8/8/8/8/8/8/8/8", "\ufeff" + STARTING_FEN, STARTING_FEN + "\n",
    STARTING_FEN.replace("w", "w\u00a0"), STARTING_FEN + " 0", "/".join(["8"] * 9) + " w - - 0 1",
])
def test_garbage_is_a_fen_error(record):
    assert not is_valid(record)
    with pytest.raises(FenError):
        parse(record)


def test_parse_syntax_skips_position_checks():
    pos = parse_syntax("8/8/8/8/8/8/8/8 b KQkq e3 0 1")
    assert pos.fen() == "8/8/8/8/8/8/8/8 b KQkq e3 0 1"
    assert not is_valid(pos.fen())


def test_shown_text_is_escaped_and_cut():
    with pytest.raises(FenError) as info:
        parse(f"{KINGS} w \x1b[2J - 0 1")
    assert "\x1b" not in info.value.render("en")
    assert "\\x1b" in info.value.render("en")
    with pytest.raises(FenError) as info:
        parse(f"{KINGS} w - - {'9' * 5000} 1")
    assert len(info.value.render("en")) < 300


@pytest.mark.parametrize("record,code", [
    ("P" * 100_000 + "/8/8/8/8/8/8/8 w - - 0 1", "rank-length"),
    ("1P" * 100_000 + "/8/8/8/8/8/8/8 w - - 0 1", "rank-length"),
    (f"{KINGS} w {'K' * 100_000} - 0 1", "castling-repeat"),
    (f"{KINGS} w - - {'1' * 100_000} 1", "number-too-long"),
    (f"{KINGS} w - - {chr(0x663) * 100_000} 1", "halfmove-number"),
    ("/" * 100_000 + " w - - 0 1", "rank-count"),
])
def test_huge_fields_are_refused(record, code):
    with pytest.raises(FenError) as info:
        parse(record)
    assert info.value.code == code
    assert len(info.value.render("fr")) < 400


def test_error_pickles_and_reprs():
    with pytest.raises(FenError) as info:
        parse("r3k2r/8/8/8/8/8/8/R3K2R w QK - 0 1")
    err = info.value
    again = pickle.loads(pickle.dumps(err))
    assert type(again) is FenSyntaxError
    assert (again.field, again.code, again.text, again.suggestion) == (
        3, "castling-order", "QK", "KQ")
    assert again.render("fr") == err.render("fr")
    assert "castling-order" in repr(err)


def test_field_names_in_both_languages():
    assert [FIELD_NAMES[i].render("en") for i in range(7)] == [
        "record", "placement", "active colour", "castling", "en passant",
        "halfmove clock", "fullmove number"]
    french = [FIELD_NAMES[i].render("fr") for i in range(7)]
    assert french[3] == "roques" and french[2] == "trait"
    assert all(french)


@pytest.mark.slow
def test_real_games_round_trip(shared_pgn):
    """Every position of real games parses, validates and is emitted unchanged."""
    count = 0
    with open(shared_pgn / "lichess-2013-100games.pgn", encoding="utf-8-sig") as handle:
        for _ in range(30):
            game = chess.pgn.read_game(handle)
            if game is None:
                break
            board = game.board()
            for move in game.mainline_moves():
                board.push(move)
                record = board.fen(en_passant="fen")
                assert emit(parse(record)) == record
                count += 1
    assert count > 1000


@pytest.mark.parametrize("text, field, code", [
    # a control character inside a field is that field's error, not a separator one
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBN\x1b w KQkq - 0 1", 1, "bad-piece"),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQ\x00kq - 0 1", 3, "castling-char"),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0\x7f 1", 5, "halfmove-number"),
    # other blanks between the fields are a separator error for the whole record
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -\u00a00 1", 0, "separator"),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq\t- 0 1", 0, "separator"),
])
def test_control_characters_are_blamed_on_their_field(text, field, code):
    with pytest.raises(FenError) as info:
        parse(text)
    assert (info.value.field, info.value.code) == (field, code), str(info.value)
    assert "\x1b" not in str(info.value) and "\x00" not in str(info.value)
