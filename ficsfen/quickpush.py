"""One fast path: a legal move of standard chess played on a python-chess board without its move stack.

:func:`play` exists for ``ficsfen fens`` and nothing else: replaying a PGN
game never takes a move back, so the undo record that
:meth:`chess.Board.push` keeps for every move (a copy of the board's state,
the move stack, the Chess960 conversion of castling) is work thrown away.
"""

from __future__ import annotations

import chess

__all__ = ["play"]

_BB = chess.BB_SQUARES
_RANK_1, _RANK_8 = chess.BB_RANK_1, chess.BB_RANK_8
_PIECE_ATTRS = {chess.KNIGHT: "knights", chess.BISHOP: "bishops", chess.ROOK: "rooks", chess.QUEEN: "queens"}


def play(board: chess.Board, move: chess.Move) -> None:
    """Play ``move`` on ``board`` as :meth:`chess.Board.push` does, but keep no move stack.

    For a plain :class:`chess.Board` of standard chess (not Chess960, not a
    variant) and a *legal* move that is not a null move; legality is the
    caller's (``ficsfen.tracker.resolve``).  Afterwards the board's pieces,
    turn, castling rights, en passant square, clocks and promoted mask are
    those ``push`` gives (``tests/test_quickpush.py`` checks it on random
    games), but ``move_stack`` stays empty, so ``pop``, repetition and
    outcome queries are not to be used on that board.

    Justified by ``bench/bench_fens.py --commands`` (``ficsfen fens`` beside
    pgn-extract and python-chess on 4.3 MB of Lichess games): ``push`` was a
    third of the single-core profile of ``fens``; the figures before and
    after are in docs/benchmarks/pgn-fens.md.
    """
    frm = move.from_square
    to = move.to_square
    fbb = _BB[frm]
    tbb = _BB[to]
    both = fbb | tbb
    turn = board.turn
    co = board.occupied_co
    ep = board.ep_square
    board.ep_square = None
    clock = board.halfmove_clock + 1
    if not turn:
        board.fullmove_number += 1
    rights = board.castling_rights
    if rights & both:
        rights &= ~both
    promoted = board.promoted
    captured = co[not turn] & tbb
    if captured:
        clock = 0
        if board.pawns & tbb:
            board.pawns ^= tbb
        elif board.knights & tbb:
            board.knights ^= tbb
        elif board.bishops & tbb:
            board.bishops ^= tbb
        elif board.rooks & tbb:
            board.rooks ^= tbb
        else:
            board.queens ^= tbb
        co[not turn] ^= tbb
        if promoted & tbb:
            promoted ^= tbb
    if board.pawns & fbb:
        clock = 0
        diff = to - frm
        if diff == 16 or diff == -16:
            board.ep_square = frm + (diff >> 1)
        elif to == ep and not captured and diff not in (8, -8):  # en passant
            victim = _BB[to - 8 if turn else to + 8]
            board.pawns ^= victim
            co[not turn] ^= victim
        board.pawns ^= fbb
        if move.promotion:
            name = _PIECE_ATTRS[move.promotion]
            setattr(board, name, getattr(board, name) | tbb)
            promoted |= tbb
        else:
            board.pawns |= tbb
    elif board.kings & fbb:
        rights &= ~(_RANK_1 if turn else _RANK_8)
        board.kings ^= both
        if to - frm == 2 or frm - to == 2:  # castling: the rook jumps over the king
            rooks = _BB[frm + 3] | _BB[frm + 1] if to > frm else _BB[frm - 4] | _BB[frm - 1]
            board.rooks ^= rooks
            co[turn] ^= rooks
    elif board.knights & fbb:
        board.knights ^= both
    elif board.bishops & fbb:
        board.bishops ^= both
    elif board.rooks & fbb:
        board.rooks ^= both
    else:
        board.queens ^= both
    if promoted & fbb:
        promoted ^= both
    co[turn] ^= both
    board.occupied = co[0] | co[1]
    board.promoted = promoted
    board.castling_rights = rights
    board.halfmove_clock = clock
    board.turn = not turn
