"""The variant FEN codec: Chess960 (X-FEN, Shredder-FEN) and crazyhouse (holdings, ``~``)."""

from __future__ import annotations

import random

import chess
import chess.variant
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import ficsfen
from ficsfen.fen import FenError, FenSyntaxError, InvalidPositionError
from ficsfen.variants import (CHESS960, CRAZYHOUSE, CastlingRightsError, HoldingsError,
                              PromotedMarkError, TooManyPiecesError, UnknownVariantError,
                              VariantPosition, chess960_fen, convert_castling, is_valid_variant, parse_variant, variant_named)

NNBSP = "\u202f"
START_960 = "bqnrkrnb/pppppppp/8/8/8/8/PPPPPPPP/BQNRKRNB w KQkq - 0 1"
ZH_START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[] w KQkq - 0 1"


# -- Chess960 castling ---------------------------------------------------------


def test_x_fen_and_shredder_fen_of_a_start_position():
    position = parse_variant(START_960, "chess960")
    assert position.fen() == START_960
    assert position.fen(shredder=True) == START_960.replace("KQkq", "FDfd")
    assert parse_variant(START_960.replace("KQkq", "FDfd"), "chess960").fen() == START_960


def test_x_fen_names_an_inner_rook_by_its_file():
    # Two White rooks on the h-side: the one with the right is not the outermost.
    fen = "4k3/8/8/8/8/8/8/R3KR1R w F - 0 1"
    position = parse_variant(fen, "chess960")
    assert position.castling == "F" and position.shredder == "F"
    board = position.board()
    assert board.fen(en_passant="fen") == fen
    assert board.castling_rights == chess.BB_F1
    # The outermost one is K in X-FEN, H in Shredder-FEN, both read back the same.
    outer = parse_variant("4k3/8/8/8/8/8/8/R3KR1R w KQ - 0 1", "chess960")
    assert outer.fen(shredder=True) == "4k3/8/8/8/8/8/8/R3KR1R w HA - 0 1"
    assert parse_variant("4k3/8/8/8/8/8/8/R3KR1R w HA - 0 1", "fr").castling == "KQ"
    assert parse_variant("4k3/8/8/8/8/8/8/R3KR1R w HQ - 0 1", "fr").castling == "KQ"


@pytest.mark.parametrize("number", [0, 1, 100, 518, 959])
def test_chess960_starts_agree_with_python_chess(number):
    board = chess.Board.from_chess960_pos(number)
    fen = chess960_fen(number)
    assert fen == board.fen()
    position = parse_variant(fen, CHESS960)
    assert position.fen(shredder=True) == board.fen(shredder=True)
    assert convert_castling(fen, shredder=True) == board.fen(shredder=True)
    assert convert_castling(board.fen(shredder=True), shredder=False) == fen


@pytest.mark.parametrize("castling, code, error_class, suggestion", [
    ("KCkq", "castling-rook", CastlingRightsError, "Kkq"),  # no White rook on c1
    ("KQkb", "castling-rook", CastlingRightsError, "KQk"),
    ("KFkq", "castling-repeat", FenSyntaxError, "Kkq"),  # F is the outermost h-side rook
    ("QKkq", "castling-order", FenSyntaxError, "KQkq"),
    ("KQqk", "castling-order", FenSyntaxError, "KQkq"),
    ("kqKQ", "castling-order", FenSyntaxError, "KQkq"),
    ("KQk-", "castling-char", FenSyntaxError, None),
    ("KQkx", "castling-char", FenSyntaxError, None),
])
def test_chess960_castling_errors(castling, code, error_class, suggestion):
    with pytest.raises(error_class) as info:
        parse_variant(START_960.replace("KQkq", castling), "chess960")
    err = info.value
    assert (err.field, err.code, err.suggestion) == (3, code, suggestion)
    assert err.render("en").startswith("field 3 (castling): ")
    assert err.render("fr").startswith(f"champ 3 (roques){NNBSP}: ")
    assert err.render("en") != err.render("fr")


def test_castling_with_the_king_off_its_back_rank():
    with pytest.raises(CastlingRightsError) as info:
        parse_variant("4k3/8/8/8/8/8/4K3/R6R w KQ - 0 1", "chess960")
    assert info.value.code == "castling-king"
    assert info.value.render("en") == (
        'field 3 (castling): "K" needs the White king on rank 1; write "-"')
    assert "roi blanc sur la 1re rangée" in info.value.render("fr")


def test_two_rooks_on_one_side_of_the_king():
    with pytest.raises(CastlingRightsError) as info:
        parse_variant("4k3/8/8/8/8/8/8/R3KR1R w HF - 0 1", "chess960")
    assert info.value.code == "castling-side"
    assert "only one rook on each side" in info.value.render("en")
    assert "les Blancs ne peuvent roquer" in info.value.render("fr")


def test_a_rook_letter_of_the_wrong_colour():
    with pytest.raises(CastlingRightsError) as info:
        parse_variant("r3k2r/8/8/8/8/8/8/4K3 w A - 0 1", "chess960")
    assert info.value.code == "castling-rook"
    assert info.value.render("en") == 'field 3 (castling): "A" needs a White rook on a1; write "-"'
    assert parse_variant("r3k2r/8/8/8/8/8/8/4K3 w kq - 0 1", "chess960").shredder == "ha"


def test_other_fields_keep_the_standard_rules():
    # strict en passant square and the clocks, as for standard FEN
    fen = "bqnrkrnb/pppp1ppp/8/8/4p3/8/PPPPPPPP/BQNRKRNB w KQkq e6 0 2"
    with pytest.raises(InvalidPositionError) as info:
        parse_variant(fen, "chess960")
    assert info.value.field == 4
    with pytest.raises(FenSyntaxError) as info:
        parse_variant(START_960.replace(" 0 1", " 0 0"), "chess960")
    assert info.value.code == "fullmove-zero"
    # a Chess960 position has the standard material limits
    with pytest.raises(InvalidPositionError) as info:
        parse_variant("bqnrkrnb/pppppppp/8/8/8/P7/PPPPPPPP/BQNRKRNB w KQkq - 0 1", "chess960")
    assert info.value.code == "pawn-count"


# -- crazyhouse ----------------------------------------------------------------


def test_crazyhouse_start_and_holdings():
    position = parse_variant(ZH_START, "crazyhouse")
    assert position.holdings == "" and position.fen() == ZH_START
    # holdings are read in any order and written QRBNP then qrbnp, as python-chess writes them
    fen = "r1bqk2r/pppp1ppp/2n5/4p3/4P3/8/PPP2PPP/RNB1KB1R[NPb] w KQkq - 0 6"
    shuffled = fen.replace("[NPb]", "[bPN]")
    position = parse_variant(shuffled, "zh")
    assert position.holdings == "NPb" and position.fen() == fen
    board = position.board()
    assert isinstance(board, chess.variant.CrazyhouseBoard)
    assert board.fen(en_passant="fen") == fen
    assert position.fen(shredder=True) == fen.replace("KQkq", "HAha")


def test_promoted_markers():
    fen = "r3k2r/8/8/8/8/8/8/R2Q~K2R[P] w KQkq - 0 1"
    position = parse_variant(fen, "crazyhouse")
    assert position.fen() == fen
    board = position.board()
    assert board.promoted == chess.BB_D1
    assert board.fen(en_passant="fen") == fen


@pytest.mark.parametrize("placement, code, error_class", [
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR/Pk", "holdings-king", HoldingsError),  # a ninth rank
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[Pp", "holdings-bracket", HoldingsError),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQ[P]KBNR[p]", "holdings-bracket", HoldingsError),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[Pk]", "holdings-king", HoldingsError),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[P1]", "holdings-char", HoldingsError),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQK~BNR[]", "promoted-mark", PromotedMarkError),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/~RNBQKBNR[]", "promoted-mark", PromotedMarkError),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPP~P/RNBQKBNR[]", "promoted-mark", PromotedMarkError),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[P]", "piece-total", TooManyPiecesError),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[NN]", "piece-total", TooManyPiecesError),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKQNR[]", "piece-total", TooManyPiecesError),
])
def test_crazyhouse_placement_errors(placement, code, error_class):
    with pytest.raises(error_class) as info:
        parse_variant(f"{placement} w KQkq - 0 1", "crazyhouse")
    err = info.value
    assert (err.field, err.code) == (1, code)
    english, french = err.render("en"), err.render("fr")
    assert english.startswith("field 1 (placement): ")
    assert french.startswith(f"champ 1 (placement){NNBSP}: ") and french != english


def test_crazyhouse_allows_more_than_sixteen_men_of_one_colour():
    # White has captured and dropped Black's pieces: 17 White men on the board is fine.
    fen = "4k3/8/8/8/8/NNBB4/PPPPPPPP/RNBQKBNR[] b KQ - 0 30"
    position = parse_variant(fen, "crazyhouse")
    assert position.fen() == fen
    with pytest.raises(InvalidPositionError):
        ficsfen.parse(fen.replace("[]", ""))


def test_holdings_without_brackets_are_read_and_written_in_brackets():
    for placement in ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR/"):
        position = parse_variant(f"{placement} w KQkq - 0 1", "crazyhouse")
        assert position.fen() == "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[] w KQkq - 0 1"


# -- names, facade -------------------------------------------------------------


@pytest.mark.parametrize("name, variant", [
    ("chess960", CHESS960), ("Chess960", CHESS960), ("fr", CHESS960), ("wild/fr", CHESS960),
    ("Fischerandom", CHESS960), ("crazyhouse", CRAZYHOUSE), ("Crazyhouse", CRAZYHOUSE),
    ("zh", CRAZYHOUSE),
])
def test_variant_names(name, variant):
    assert variant_named(name) is variant


def test_unknown_variant():
    with pytest.raises(UnknownVariantError) as info:
        variant_named("atomic")
    assert 'unknown variant "atomic"' in info.value.render("en")
    assert f"variante inconnue «{NNBSP}atomic{NNBSP}»" in info.value.render("fr")


def test_facade_exports():
    assert ficsfen.parse_variant is parse_variant
    assert ficsfen.VariantPosition is VariantPosition
    assert ficsfen.emit_variant(parse_variant(START_960, "fr"), shredder=True).endswith("FDfd - 0 1")
    assert ficsfen.is_valid_variant(ZH_START, "crazyhouse")
    assert not is_valid_variant(ZH_START, "chess960")
    for name in ("CastlingRightsError", "HoldingsError", "PromotedMarkError",
                 "TooManyPiecesError", "UnknownVariantError", "VARIANTS"):
        assert name in ficsfen.__all__


def test_from_board():
    board = chess.variant.CrazyhouseBoard()
    for san in ("e4", "d5", "exd5", "Qxd5"):
        board.push_san(san)
    position = VariantPosition.from_board(board)
    assert position.fen() == board.fen(en_passant="fen")
    assert position.holdings == "Pp"
    board960 = chess.Board(START_960, chess960=True)
    board960.push_san("e4")
    assert VariantPosition.from_board(board960).fen() == board960.fen(en_passant="fen")
    assert VariantPosition.from_board(board960).ep == "e3"


# -- properties ----------------------------------------------------------------

SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
SEEDS = [
    START_960,
    "4k3/8/8/8/8/8/8/R3KR1R w F - 0 1",
    "rk2r3/8/8/8/8/8/8/1K1R2R1 b GDea - 3 20",
    ZH_START,
    "r1bqk2r/pppp1ppp/2n5/4p3/4P3/8/PPP2PPP/RNB1KB1R[NPb] w KQkq - 0 6",
    "r3k2r/8/8/8/8/8/8/R2Q~K2R[P] w KQkq - 0 1",
]
NOISE = "PNBRQKpnbrqk0123456789/-wb[]~@ KQkqABCDEFGHabcdefgh\t\x00\u00a0"


def _check(text: str, variant: str) -> None:
    """parse_variant returns a position that emits ``text`` or raises FenError: nothing else."""
    try:
        position = parse_variant(text, variant)
    except FenError as err:
        assert 0 <= err.field <= 6
        assert err.render("en") and err.render("fr")
        return
    assert position.fen() == text or position.fen(shredder=True) == text or (
        # holdings in another order, or a mix of X-FEN and Shredder-FEN letters
        parse_variant(position.fen(), variant) == position)
    # python-chess reads both forms to the same board, and calls it valid
    board = position.board()
    assert board.is_valid(), (text, board.status())
    assert board.fen(en_passant="fen") == position.fen()
    assert board.fen(en_passant="fen", shredder=True) == position.fen(shredder=True)


@st.composite
def mutated(draw):
    text = draw(st.sampled_from(SEEDS))
    for _ in range(draw(st.integers(1, 3))):
        kind = draw(st.sampled_from(["replace", "delete", "insert"]))
        i = draw(st.integers(0, max(0, len(text) - 1)))
        if kind == "replace" and text:
            text = text[:i] + draw(st.sampled_from(NOISE)) + text[i + 1:]
        elif kind == "delete":
            text = text[:i] + text[i + 1:]
        else:
            text = text[:i] + draw(st.sampled_from(NOISE)) + text[i:]
    return text


@pytest.mark.slow
@SETTINGS
@given(mutated(), st.sampled_from(["chess960", "crazyhouse"]))
def test_near_valid_mutations(text, variant):
    _check(text, variant)


@SETTINGS
@given(st.text(), st.sampled_from(["chess960", "crazyhouse"]))
def test_any_text(text, variant):
    _check(text, variant)


@SETTINGS
@given(st.text(alphabet="KQkqABCDEFGHabcdefgh-x", max_size=6), st.sampled_from(SEEDS[:3]))
def test_castling_fields(castling, seed):
    fields = seed.split(" ")
    fields[2] = castling
    _check(" ".join(fields), "chess960")


@pytest.mark.slow
@SETTINGS
@given(st.text(alphabet="PNBRQKpnbrqk~[]1", max_size=8), st.sampled_from(SEEDS[3:]))
def test_holdings_fields(holdings, seed):
    placement, rest = seed.split(" ", 1)
    _check(f"{placement.partition('[')[0]}[{holdings}] {rest}", "crazyhouse")
    _check(f"{placement.partition('[')[0]}{holdings} {rest}", "crazyhouse")


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 959), st.integers(0, 2**32 - 1))
def test_random_chess960_positions_round_trip(number, seed):
    rng = random.Random(seed)
    board = chess.Board.from_chess960_pos(number)
    for _ in range(rng.randint(0, 60)):
        moves = list(board.legal_moves)
        if not moves:
            break
        board.push(rng.choice(moves))
    for shredder in (False, True):
        fen = board.fen(en_passant="fen", shredder=shredder)
        position = parse_variant(fen, "chess960")
        assert position.fen(shredder=shredder) == fen
        assert position.fen(shredder=not shredder) == board.fen(en_passant="fen",
                                                                 shredder=not shredder)
