"""``quickreplay.replay_standard`` gives what the usual path gives: FENs, boards and errors.

The usual path: :func:`ficsfen.movetext.resolve`, then :meth:`chess.Board.push`
with :class:`ficsfen.fenbuilder.FenBuilder` keeping the FEN.
"""

from __future__ import annotations

import chess
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ficsfen.fenbuilder import FenBuilder
from ficsfen.movetext import resolve
from ficsfen.pgn import NULL_MOVES, _null_move, read_file
from ficsfen.quickreplay import replay_standard
from ficsfen.trackererrors import MoveError

# Positions with castling both ways, en passant, promotions and under-promotions ready.
STARTS = [
    chess.STARTING_FEN,
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "rnbqkb1r/pp1p1pPp/8/2p1pP2/1P1P4/7P/P1P1P3/RNBQKBNR w KQkq e6 0 1",
    "n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1",
    "1k6/8/8/8/8/8/N1N5/1K1N1N2 w - - 0 1",
    "8/8/8/K2pP2r/8/8/8/7k w - d6 0 1",
]


def state(board: chess.Board) -> tuple:
    return (board.pawns, board.knights, board.bishops, board.rooks, board.queens, board.kings,
            tuple(board.occupied_co), board.occupied, board.promoted, board.castling_rights, board.ep_square,
            board.halfmove_clock, board.fullmove_number, board.turn)


def usual(fen: str, texts: list[str]) -> tuple[list[str], list[tuple], MoveError | None]:
    """FENs and board states after each move the usual way, and the error that stopped it."""
    board = chess.Board(fen)
    builder = FenBuilder(fen.split()[0])
    fens: list[str] = []
    states: list[tuple] = []
    for text in texts:
        try:
            move = resolve(board, text)
        except MoveError as exc:
            if text not in NULL_MOVES:
                return fens, states, exc
            try:
                board.push(_null_move(board, text))
            except MoveError as exc2:
                return fens, states, exc2
            fens.append(builder.fen(board))
        else:
            fens.append(builder.push(board, move))
        states.append(state(board))
    return fens, states, None


def quick(fen: str, texts: list[str]) -> tuple[list[str], list[tuple], MoveError | None]:
    board = chess.Board(fen)
    fens: list[str] = []
    states: list[tuple] = []
    try:
        for after in replay_standard(board, fen, texts, NULL_MOVES, _null_move):
            fens.append(after)
            states.append(state(board))
    except MoveError as exc:
        return fens, states, exc
    return fens, states, None


def same(fen: str, texts: list[str]) -> int:
    ours, their_states, error = usual(fen, texts)
    fast, fast_states, fast_error = quick(fen, texts)
    assert fast == ours, (fen, texts)
    assert fast_states == their_states, (fen, texts)
    if error is None:
        assert fast_error is None
    else:
        assert fast_error is not None, (fen, texts, str(error))
        assert (type(fast_error), fast_error.code, str(fast_error.message)) == (
            type(error), error.code, str(error.message))
    return len(ours)


def piece_texts(board: chess.Board, move: chess.Move) -> list[str]:
    """Ways of writing ``move`` (legal or not): SAN-like without and with the origin, coordinates."""
    piece = board.piece_at(move.from_square)
    assert piece is not None
    to = chess.SQUARE_NAMES[move.to_square]
    promo = "=" + chess.piece_symbol(move.promotion).upper() if move.promotion else ""
    origin = chess.SQUARE_NAMES[move.from_square]
    if piece.piece_type == chess.PAWN:
        if move.from_square & 7 == move.to_square & 7:
            return [to + promo, move.uci()]
        return [origin[0] + "x" + to + promo, origin[0] + to + promo, move.uci()]
    letter = piece.symbol().upper()
    return [letter + to, letter + origin[0] + to, letter + origin + to, move.uci()]


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(start=st.sampled_from(STARTS), data=st.data())
def test_random_games_with_illegal_and_odd_moves_give_the_same_fens_boards_and_errors(start, data):
    board = chess.Board(start)
    texts: list[str] = []
    for _ in range(data.draw(st.integers(0, 80))):
        legal = sorted(board.legal_moves, key=lambda m: m.uci())
        if not legal:
            break
        kind = data.draw(st.integers(0, 19))
        if kind == 0:  # a pseudo-legal move that may leave the king in check, or any other text
            pseudo = sorted(board.pseudo_legal_moves, key=lambda m: m.uci())
            text = data.draw(st.sampled_from(piece_texts(board, data.draw(st.sampled_from(pseudo))) + [
                "--", "Z0", "O-O", "O-O-O", "Kd4", "e5", "Nxe5", "h8=Q", "xx"]))
            texts.append(text)
            same(start, texts)
            return
        move = data.draw(st.sampled_from(legal))
        text = board.san(move) if kind > 3 else data.draw(st.sampled_from(piece_texts(board, move)))
        texts.append(text)
        board.push(move)
    same(start, texts)


@pytest.mark.parametrize("start", STARTS)
def test_every_pseudo_legal_first_move_written_every_way(start):
    board = chess.Board(start)
    for move in board.pseudo_legal_moves:
        for text in piece_texts(board, move):
            same(start, [text])
    for move in board.legal_moves:
        same(start, [board.san(move)])


@pytest.mark.slow
def test_real_games_give_the_same_fens_as_the_usual_path_and_python_chess(shared_pgn):
    plies = 0
    for game in read_file(shared_pgn / "lichess-2013-100games.pgn"):
        plies += same(chess.STARTING_FEN, game.moves)
        board = chess.Board()
        expected = []
        for text in game.moves:
            board.push_san(text)
            expected.append(board.fen(en_passant="fen"))
        assert list(replay_standard(chess.Board(), chess.STARTING_FEN, game.moves, NULL_MOVES,
                                    _null_move)) == expected
    assert plies > 6000


def test_a_move_into_check_is_refused_with_the_usual_error_after_the_fens_before_it():
    pinned = ["Kf2", "Kd8", "Ke1", "Kc8", "Nc3"]
    fens, _, error = quick("4k3/4r3/8/8/8/8/4N3/4K3 w - - 0 1", pinned)
    assert len(fens) == 4
    assert error is not None and error.code == "pinned"
    assert same("4k3/4r3/8/8/8/8/4N3/4K3 w - - 0 1", pinned) == 4
    fens, _, error = quick(chess.STARTING_FEN, ["e4", "f5", "Qh5+", "Nf6"])
    assert len(fens) == 3
    assert error is not None and error.code == "in-check"
