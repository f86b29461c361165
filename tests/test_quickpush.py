"""``quickpush.play`` leaves a board as ``chess.Board.push`` does, move after move."""

from __future__ import annotations

import chess
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ficsfen.pgn import read_file
from ficsfen.quickpush import play
from ficsfen.tracker import resolve


def state(board: chess.Board) -> tuple:
    return (board.pawns, board.knights, board.bishops, board.rooks, board.queens, board.kings,
            tuple(board.occupied_co), board.occupied, board.promoted, board.castling_rights, board.ep_square,
            board.halfmove_clock, board.fullmove_number, board.turn)


def check_line(fen: str, choose) -> int:
    """Play moves picked by ``choose`` on two boards, one with push and one with play."""
    pushed, played = chess.Board(fen), chess.Board(fen)
    plies = 0
    while not pushed.is_game_over(claim_draw=False) and plies < 120:
        moves = sorted(pushed.legal_moves, key=lambda m: m.uci())
        move = choose(moves)
        pushed.push(move)
        play(played, move)
        assert state(played) == state(pushed), (fen, move.uci(), pushed.fen())
        plies += 1
    return plies


# Positions with castling both ways, en passant, promotions and under-promotions ready.
STARTS = [
    chess.STARTING_FEN,
    "r3k2r/pPppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "rnbqkb1r/pp1p1pPp/8/2p1pP2/1P1P4/3P3P/P1P1P3/RNBQKBNR w KQkq e6 0 1",
    "n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1",
]


@pytest.mark.slow
@settings(max_examples=60, deadline=None)
@given(start=st.sampled_from(STARTS), data=st.data())
def test_random_games_leave_the_same_board(start, data):
    check_line(start, lambda moves: moves[data.draw(st.integers(0, len(moves) - 1))])


@pytest.mark.parametrize("start", STARTS)
def test_every_first_move_leaves_the_same_board(start):
    for move in list(chess.Board(start).legal_moves):
        pushed, played = chess.Board(start), chess.Board(start)
        pushed.push(move)
        play(played, move)
        assert state(played) == state(pushed), move.uci()


def test_real_games_leave_the_same_board(shared_pgn):
    plies = 0
    for game in read_file(shared_pgn / "lichess-2013-100games.pgn"):
        pushed, played = chess.Board(), chess.Board()
        for text in game.moves:
            move = resolve(pushed, text)
            pushed.push(move)
            play(played, move)
            assert state(played) == state(pushed)
            plies += 1
    assert plies > 6000
