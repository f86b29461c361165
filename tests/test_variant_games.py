"""Random Chess960 and crazyhouse games: the tracker's FEN after every ply is python-chess's.

The games are played on python-chess's variant boards from fresh seeds (a
failure prints its seed).  After every ply the tracker's FEN must equal
python-chess's ``board.fen(en_passant="fen")`` (X-FEN) and its Shredder-FEN,
read back through our codec to the same text, and give python-chess a valid
board of the variant with the same FEN.
"""

from __future__ import annotations

import importlib.util
import io
import random
import sys

import chess
import chess.pgn
import chess.variant
import pytest

from conftest import REPO
from ficsfen.cli import write_fens
from ficsfen.fen import FenError
from ficsfen.pgn import PgnError, read_games
from ficsfen.tracker import (GameOverError, IllegalMoveError, MalformedMoveError, Termination,
                             Tracker)
from ficsfen.variants import CHESS960, CRAZYHOUSE, chess960_fen, parse_variant

GAMES = 1000  # per variant, of 6 to 30 plies; longer ones are played below in fewer numbers


def _start(variant: str, rng: random.Random) -> tuple[chess.Board, str | None]:
    if variant == "chess960":
        fen = chess960_fen(rng.randrange(960))
        return chess.Board(fen, chess960=True), fen
    return chess.variant.CrazyhouseBoard(), None


def _move_text(board: chess.Board, move: chess.Move, rng: random.Random) -> str:
    """The move as a player might type it: SAN, coordinates, or castling spelled out."""
    if board.is_castling(move) and rng.random() < 0.5:
        return "O-O" if board.is_kingside_castling(move) else "O-O-O"
    if move.drop and rng.random() < 0.3:
        return "P@" + chess.SQUARE_NAMES[move.to_square] if move.drop == chess.PAWN else move.uci()
    return board.san(move) if rng.random() < 0.5 else move.uci()


def play(variant: str, seed: int, plies: int, *, deep: bool) -> tuple[Tracker, chess.Board]:
    """One random game, checked after every ply (``deep``: also through python-chess)."""
    rng = random.Random(seed)
    board, fen = _start(variant, rng)
    tracker = Tracker(fen, variant=variant)
    assert tracker.fen == board.fen(en_passant="fen")
    for _ in range(plies):
        moves = list(board.legal_moves)
        if not moves:
            break
        move = rng.choice(moves)
        text = _move_text(board, move, rng)
        board.push(move)
        try:
            ply = tracker.push(text)
        except GameOverError:  # an automatic end python-chess lets play on past
            board.pop()
            assert tracker.outcome() == board.outcome() is not None, f"seed {seed}"
            break
        expected = board.fen(en_passant="fen")
        where = f"seed {seed}, ply {len(board.move_stack)}, {text!r}"
        assert ply.fen == expected, where
        try:
            position = parse_variant(ply.fen, variant)
        except FenError as exc:
            raise AssertionError(f"{where}: {ply.fen}: {exc}") from exc
        assert position.fen() == ply.fen, where
        if deep or len(board.move_stack) % 4 == 0:
            shredder = position.fen(shredder=True)
            assert shredder == board.fen(en_passant="fen", shredder=True), where
            assert parse_variant(shredder, variant).fen() == ply.fen, where
        if deep:
            again = position.board()
            assert again.is_valid(), (where, again.status())
            assert again.fen(en_passant="fen") == ply.fen, where
            assert tracker.fen_at(tracker.ply, shredder=True) == shredder
    return tracker, board


@pytest.fixture(scope="module")
def base_seed() -> int:
    seed = random.SystemRandom().randrange(2**32)
    print(f"random games from seed {seed}")
    return seed


@pytest.mark.slow
@pytest.mark.parametrize("variant", ["chess960", "crazyhouse"])
def test_thousand_random_games(variant, base_seed):
    for n in range(GAMES):
        play(variant, base_seed + n, 6 + (base_seed + n) % 25, deep=n % 20 == 0)


@pytest.mark.slow
@pytest.mark.parametrize("variant", ["chess960", "crazyhouse"])
def test_long_random_games_to_their_end(variant, base_seed):
    """Games played until python-chess ends them (or 400 plies), outcome compared."""
    for n in range(12):
        tracker, board = play(variant, base_seed + 7919 * n, 400, deep=False)
        assert tracker.outcome() == board.outcome(), f"seed {base_seed + 7919 * n}"
        if tracker.outcome() is not None:
            with pytest.raises(GameOverError):
                tracker.push(next(iter(board.pseudo_legal_moves), chess.Move.null()).uci())


@pytest.mark.slow
@pytest.mark.parametrize("variant", ["chess960", "crazyhouse"])
def test_takeback_then_play_on(variant, base_seed):
    for n in range(40):
        seed = base_seed + 31 * n
        rng = random.Random(seed)
        tracker, board = play(variant, seed, rng.randint(5, 60), deep=False)
        back = rng.randint(0, tracker.ply)
        tracker.takeback(back)
        for _ in range(back):
            board.pop()
        assert tracker.fen == board.fen(en_passant="fen"), f"seed {seed}"
        for _ in range(30):  # the rebuilt FEN keeps up
            moves = list(board.legal_moves)
            if not moves:
                break
            move = rng.choice(moves)
            text = move.uci()
            board.push(move)
            assert tracker.push(text).fen == board.fen(en_passant="fen"), f"seed {seed}"


# -- examples ------------------------------------------------------------------


def test_crazyhouse_drops_and_promotion():
    tracker = Tracker(variant="crazyhouse")
    for move in ("e4", "d5", "exd5", "Qxd5", "P@e6"):
        ply = tracker.push(move)
    assert ply.san == "@e6" and ply.move.drop == chess.PAWN
    assert ply.fen == "rnb1kbnr/ppp1pppp/4P3/3q4/8/8/PPPP1PPP/RNBQKBNR[p] b KQkq - 1 3"
    tracker.push("Bxe6")
    with pytest.raises(IllegalMoveError) as info:
        tracker.push("N@f7")
    assert info.value.code == "drop-none"
    assert info.value.render("en") == "Illegal move: you have no knights in hand."
    assert info.value.render("fr") == "Coup illégal\u202f: vous n’avez pas de cavaliers en réserve."


@pytest.mark.parametrize("text, code", [
    ("P@e4", "drop-occupied"),  # after 1. e4 e5: the pawn is there
    ("P@e8", "drop-occupied"),
    ("Q@d3", "drop-none"),
])
def test_crazyhouse_drop_errors(text, code):
    tracker = Tracker("rnbqkbnr/ppp2ppp/8/3p4/4P3/8/PPP2PPP/RNBQKBNR[Pp] w KQkq - 0 4",
                      variant="crazyhouse")
    with pytest.raises(IllegalMoveError) as info:
        tracker.push(text)
    assert info.value.code == code
    assert info.value.render("fr").startswith("Coup illégal\u202f: ")


def test_pawn_drop_on_the_back_rank_and_drops_out_of_check():
    tracker = Tracker("4k3/8/8/8/8/8/8/R3K3[Pp] b - - 0 1", variant="crazyhouse")
    with pytest.raises(IllegalMoveError) as info:
        tracker.push("P@a1")
    assert info.value.code == "drop-occupied"
    tracker = Tracker("4k3/8/8/8/8/8/8/4K3[Pp] w - - 0 1", variant="crazyhouse")
    with pytest.raises(IllegalMoveError) as info:
        tracker.push("P@d8")
    assert info.value.code == "drop-backrank"
    tracker = Tracker("r3k3/8/8/8/8/8/8/4K3[NPn] b - - 0 1", variant="crazyhouse")
    tracker.push("Ra1+")
    with pytest.raises(IllegalMoveError) as info:
        tracker.push("P@h4")
    assert info.value.code == "in-check"
    # python-chess's clock counts drops as moves that are not pawn moves
    assert tracker.push("N@c1").fen == "4k3/8/8/8/8/8/8/r1N1K3[Pn] b - - 2 2"


def test_drop_in_standard_chess_is_refused():
    with pytest.raises(IllegalMoveError) as info:
        Tracker().push("P@e4")
    assert info.value.code == "drop-variant"
    assert "crazyhouse" in info.value.render("fr")
    with pytest.raises(MalformedMoveError):
        Tracker(variant="crazyhouse").push("K@e4")


def test_promoted_piece_goes_back_as_a_pawn():
    fen = "4k3/1P6/8/8/8/8/r7/4K3[] w - - 0 40"
    tracker = Tracker(fen, variant="zh")
    assert tracker.push("b8=Q+").fen == "1Q~2k3/8/8/8/8/8/r7/4K3[] b - - 0 40"
    tracker.push("Ke7")
    assert tracker.push("Qb2").fen == "8/4k3/8/8/8/8/rQ~6/4K3[] b - - 2 41"
    ply = tracker.push("Rxb2")
    assert ply.fen == "8/4k3/8/8/8/8/1r6/4K3[p] w - - 0 42"
    board = chess.variant.CrazyhouseBoard(fen)
    for step in tracker.history:
        board.push(step.move)
    assert board.fen(en_passant="fen") == ply.fen


def test_chess960_castling_spellings():
    # King on b1, rooks on a1 and h1: O-O-O leaves the king on c1 and the rook on d1.
    fen = "rk5r/pppppppp/8/8/8/8/PPPPPPPP/RK5R w KQkq - 0 1"
    for text in ("O-O-O", "0-0-0", "b1a1", "Kxa1", "Ka1"):
        tracker = Tracker(fen, variant="chess960")
        ply = tracker.push(text)
        assert ply.fen == "rk5r/pppppppp/8/8/8/8/PPPPPPPP/2KR3R b kq - 1 1", text
        assert ply.san == "O-O-O"
        assert ply.uci == "b1a1"
    for text in ("O-O", "b1h1", "Kxh1"):
        tracker = Tracker(fen, variant="chess960")
        assert tracker.push(text).fen == "rk5r/pppppppp/8/8/8/8/PPPPPPPP/R4RK1 b kq - 1 1", text
    # A king already on g1 castles h-side by moving the rook only.
    tracker = Tracker("1r4kr/8/8/8/8/8/8/1R4KR w KQkq - 0 1", variant="chess960")
    assert tracker.push("O-O").fen == "1r4kr/8/8/8/8/8/8/1R3RK1 b kq - 1 1"
    assert tracker.fen_at(1, shredder=True) == "1r4kr/8/8/8/8/8/8/1R3RK1 b hb - 1 1"
    assert tracker.fen_at(0, shredder=True) == "1r4kr/8/8/8/8/8/8/1R4KR w HBhb - 0 1"


def test_chess960_castling_refused():
    tracker = Tracker("rk5r/pppppppp/8/8/8/8/PPPPPPPP/RKN4R w Kkq - 0 1", variant="chess960")
    with pytest.raises(IllegalMoveError) as info:
        tracker.push("O-O-O")
    assert info.value.code == "castling-rights"
    with pytest.raises(IllegalMoveError) as info:
        tracker.push("O-O")
    assert info.value.code == "castling-blocked"
    # e1g1 on a Chess960 board whose king is on b1 is no castling
    with pytest.raises(IllegalMoveError):
        tracker.push("b1d1")


def test_crazyhouse_has_no_seventy_five_move_rule():
    tracker = Tracker("4k3/8/8/8/8/8/8/4K3[Nn] w - - 160 200", variant="crazyhouse")
    assert tracker.outcome() is None
    tracker.push("Ke2")
    standard = Tracker("4k3/8/8/8/8/8/8/3QK3 w - - 160 200")
    assert standard.outcome().termination == Termination.SEVENTYFIVE_MOVES


# -- PGN -----------------------------------------------------------------------


def _bench_module():
    spec = importlib.util.spec_from_file_location("_bench_variants_t", REPO / "bench" / "bench_variants.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow
def test_pgn_with_variant_tags_replays_like_python_chess(base_seed):
    bench = _bench_module()
    for variant in ("chess960", "crazyhouse"):
        text = bench.games_text(variant, 20, base_seed, 80)
        ours = io.StringIO()
        plies, bad = write_fens(text, ours, source="random")
        assert bad == 0
        theirs = io.StringIO()
        assert bench.python_chess_fens(text, theirs) == plies
        assert ours.getvalue() == theirs.getvalue()


def test_pgn_drop_moves_and_lichess_tags():
    text = """[Event "Rated Crazyhouse game"]
[Variant "Crazyhouse"]

1. e4 d5 2. exd5 Qxd5 3. Nc3 Qa5 4. P@b4 Qxb4 5. a3 @e4 6. axb4 P@d3 7. Bxd3 *
"""
    fens = read_games(text)[0].fens()
    assert fens[0] == CRAZYHOUSE.starting_fen
    board = chess.variant.CrazyhouseBoard()
    for san in ("e4 d5 exd5 Qxd5 Nc3 Qa5 P@b4 Qxb4 a3 @e4 axb4 P@d3 Bxd3").split():
        board.push_san(san)
    assert fens[-1] == board.fen(en_passant="fen")


def test_pgn_unknown_variant_is_a_game_error():
    with pytest.raises(PgnError) as info:
        read_games('[Variant "Atomic"]\n\n1. e4 *\n')[0].fens()
    assert "atomic" in info.value.render("en").lower()


def test_pgn_chess960_without_fen_starts_from_the_usual_position():
    fens = read_games('[Variant "Chess960"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bc4 Bc5 4. O-O *\n')[0].fens()
    assert fens[0] == CHESS960.starting_fen
    assert fens[-1] == "r1bqk1nr/pppp1ppp/2n5/2b1p3/2B1P3/5N2/PPPP1PPP/RNBQ1RK1 b kq - 5 4"
