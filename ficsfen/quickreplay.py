"""One fast path: a game of standard chess replayed into strict FENs, for ``ficsfen fens``.

:func:`replay_standard` yields the FEN after each of a game's moves, as
:meth:`ficsfen.pgn.PgnGame.replay` would with :func:`ficsfen.movetext.resolve`,
:meth:`chess.Board.push` and :class:`ficsfen.fenbuilder.FenBuilder`, but
with the work that a one-way replay never needs left out:

- The moves are played on the python-chess board without the undo record
  ``push`` keeps (a copy of the board's state and the move stack per move):
  a replayed game is never taken back.
- A move that the usual reading finds as the only piece of its kind that
  reaches its square (``Nf3``, ``exd5``, ``e8=Q``: a pseudo-legal move by
  construction, with python-chess's attack tables) is played first and
  asked after, with python-chess's :meth:`chess.Board.was_into_check`,
  instead of :meth:`chess.Board.is_into_check` before: the same rule, the
  same verdict on a pseudo-legal move, about half the work.  When it left
  the king in check, the position before the move is rebuilt from its FEN
  and the move resolved there the usual way, which raises the error the
  usual path raises.
- Everything else (castling, coordinates, ambiguous or unreachable pieces,
  malformed text, null moves) goes through :func:`~ficsfen.movetext.resolve`
  as before, then is played the same way.
- The FEN's placement is kept as eight rank strings of which only the ranks
  a move touches are rebuilt, and the other fields come from the values the
  move itself computed.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator

import chess

from ficsfen.fenbuilder import _ROW_CACHE as _ROWS
from ficsfen.fenbuilder import castling_field, compress_rank, en_passant_field
from ficsfen.movetext import _PARSED, parsed_move, resolve
from ficsfen.trackererrors import MoveError
from ficsfen.variants import expand_rank

__all__ = ["replay_standard"]

_BB = chess.BB_SQUARES
_RANK_1, _RANK_8 = chess.BB_RANK_1, chess.BB_RANK_8
_FILES = chess.BB_FILES
_RANKS = chess.BB_RANKS
_KNIGHT = chess.BB_KNIGHT_ATTACKS
_KING = chess.BB_KING_ATTACKS
_DIAG_MASKS, _DIAG = chess.BB_DIAG_MASKS, chess.BB_DIAG_ATTACKS
_RANK_MASKS, _RANK_ATT = chess.BB_RANK_MASKS, chess.BB_RANK_ATTACKS
_FILE_MASKS, _FILE_ATT = chess.BB_FILE_MASKS, chess.BB_FILE_ATTACKS
_PROMOTION = {c: chess.PIECE_SYMBOLS.index(c.lower()) for c in "NBRQnbrq"}
_LETTERS = " pnbrqk"


class _CastlingField(dict[int, str]):
    """Castling rights -> the FEN's field, as :data:`~ficsfen.fenbuilder.castling_field` on the corners."""

    def __missing__(self, rights: int) -> str:
        return castling_field[rights & _CORNERS]


_CORNERS = chess.BB_A1 | chess.BB_H1 | chess.BB_A8 | chess.BB_H8
_CASTLING = _CastlingField(castling_field)
_QUEEN, _KNIGHT_TYPE, _ROOK = chess.QUEEN, chess.KNIGHT, chess.ROOK
# a piece's letter in the rank strings -> its kind (lowercase)
_KIND = {letter: letter.lower() for letter in "PNBRQKpnbrqk"}
_EP = en_passant_field
_FILE_INDEX = {c: i for i, c in enumerate("abcdefgh")}
_RANK_INDEX = {c: i for i, c in enumerate("12345678")}

NullMove = Callable[[chess.Board, str], chess.Move]


def replay_standard(board: chess.Board, fen: str, moves: Iterable[str], nulls: frozenset[str],
                    null_move: NullMove) -> Iterator[str]:
    """The strict FEN after each of ``moves``, played on ``board`` (standard chess) from ``fen``.

    ``board`` is a plain :class:`chess.Board` (not Chess960, not a variant)
    whose position ``fen`` is, as :func:`ficsfen.fen.parse` writes it.  Each
    move text is resolved as :func:`ficsfen.movetext.resolve` resolves it;
    a text it refuses that is in ``nulls`` is played as the move
    ``null_move(board, text)`` returns (with ``push``; that function raises
    :class:`~ficsfen.trackererrors.MoveError` to refuse it).  A refused
    move raises the :class:`~ficsfen.trackererrors.MoveError` that
    ``resolve`` raises on that position, after the FENs of the moves
    before it (:class:`AssertionError` if ``resolve`` took a move that
    ``was_into_check`` refused, which python-chess's rules rule out).
    While the generator runs, ``board`` holds the position of
    the last FEN yielded, pieces, turn, rights, en passant square, clocks
    and promoted mask as ``push`` leaves them; its ``move_stack`` is not
    kept, so ``pop``, repetition and outcome queries are not to be used on
    it.  ``tests/test_quickreplay.py`` checks FENs, boards and errors
    against the usual path on random and real games.

    Justified by ``bench/bench_fens.py --commands`` (``ficsfen fens`` beside
    pgn-extract on 4.3 MB of Lichess games; figures in
    docs/benchmarks/pgn-fens.md): the undo record of
    ``push`` was a third of the single-core profile, ``is_into_check`` most
    of another third.
    """
    fields = fen.split(" ", 1)[0].split("/")  # fields[7 - r]: rank r + 1 as FEN writes it
    rows = [expand_rank(fields[7 - r]) for r in range(8)]  # rows[r]: rank r + 1, "." for empty
    bb = _BB
    parts_of = _PARSED.get  # movetext's cache of move texts read, then its reader
    compressed = _ROWS.get  # fenbuilder's cache of compressed ranks, then compress_rank
    for text in moves:
        turn = board.turn
        co = board.occupied_co
        mine = co[turn]
        frm = -1
        promotion = 0
        parts = parts_of(text) or parsed_move(text)
        if parts is not None:
            letter, file_, rank_, to, promo = parts
            tbb = bb[to]
            if letter is None:
                if rank_ is None:  # a pawn's move, as movetext._pawn reads it
                    pawns = board.pawns & mine
                    occupied = board.occupied
                    if file_ is None:
                        if not occupied & tbb:
                            back = to - 8 if turn else to + 8
                            if 0 <= back < 64 and pawns & bb[back]:
                                frm = back
                            elif (to >> 3) == (3 if turn else 4) and not occupied & bb[back]:
                                back2 = to - 16 if turn else to + 16
                                if pawns & bb[back2]:
                                    frm = back2
                    else:
                        side = _FILE_INDEX[file_] - (to & 7)
                        if side == 1 or side == -1:
                            back = (to - 8 if turn else to + 8) + side
                            if 0 <= back < 64 and pawns & bb[back] and (co[not turn] & tbb
                                                                       or to == board.ep_square):
                                frm = back
                    if frm >= 0:
                        if (to >> 3) == (7 if turn else 0):
                            if promo is None:
                                frm = -1
                            else:
                                promotion = _PROMOTION[promo]
                        elif promo is not None:
                            frm = -1
            elif letter in "NBRQK" and promo is None and not mine & tbb:  # a piece's, as resolve reads it
                if letter == "N":
                    cands = _KNIGHT[to] & board.knights
                elif letter == "K":
                    cands = _KING[to] & board.kings
                else:
                    occupied = board.occupied
                    if letter == "B":
                        cands = _DIAG[to][_DIAG_MASKS[to] & occupied] & board.bishops
                    elif letter == "R":
                        cands = (_RANK_ATT[to][_RANK_MASKS[to] & occupied]
                                 | _FILE_ATT[to][_FILE_MASKS[to] & occupied]) & board.rooks
                    else:
                        cands = (_DIAG[to][_DIAG_MASKS[to] & occupied]
                                 | _RANK_ATT[to][_RANK_MASKS[to] & occupied]
                                 | _FILE_ATT[to][_FILE_MASKS[to] & occupied]) & board.queens
                cands &= mine
                if file_ is not None:
                    cands &= _FILES[_FILE_INDEX[file_]]
                if rank_ is not None:
                    cands &= _RANKS[_RANK_INDEX[rank_]]
                if cands and not cands & (cands - 1):  # one candidate: pseudo-legal
                    frm = cands.bit_length() - 1
        checked = frm < 0
        if checked:  # the usual path, which checks legality itself
            try:
                move = resolve(board, text)
            except MoveError:
                if text not in nulls:
                    raise
                board.push(null_move(board, text))
                fen = (f"{'/'.join(fields)} {'w' if board.turn else 'b'} "
                       f"{_CASTLING[board.castling_rights]} {_EP[board.ep_square]} "
                       f"{board.halfmove_clock} {board.fullmove_number}")
                yield fen
                continue
            frm, to, promotion = move.from_square, move.to_square, move.promotion or 0

        # -- the move played as push plays it, without the undo record ----------
        # The rank strings say which piece moves and which is taken: the
        # bitboard to change is that piece's.
        fr, ff = frm >> 3, frm & 7
        tr, tf = to >> 3, to & 7
        row = rows[fr]
        piece = row[ff]
        rows[fr] = row[:ff] + "." + row[ff + 1:]
        fbb = bb[frm]
        tbb = bb[to]
        both = fbb | tbb
        clock = board.halfmove_clock + 1
        new_ep = None
        rights = board.castling_rights
        if rights & both:
            rights &= ~both
        promoted = board.promoted
        victim = rows[tr][tf]
        if victim != ".":
            clock = 0
            kind = _KIND[victim]
            if kind == "p":
                board.pawns ^= tbb
            elif kind == "n":
                board.knights ^= tbb
            elif kind == "b":
                board.bishops ^= tbb
            elif kind == "r":
                board.rooks ^= tbb
            else:
                board.queens ^= tbb
            co[not turn] ^= tbb
            if promoted & tbb:
                promoted ^= tbb
        kind = _KIND[piece]
        if kind == "p":
            clock = 0
            diff = to - frm
            if diff == 16 or diff == -16:
                new_ep = frm + (diff >> 1)
            elif ff != tf and victim == ".":  # en passant: the pawn taken stands beside
                taken = bb[to - 8 if turn else to + 8]
                board.pawns ^= taken
                co[not turn] ^= taken
                rows[fr] = rows[fr][:tf] + "." + rows[fr][tf + 1:]
            board.pawns ^= fbb
            if promotion:
                if promotion == _QUEEN:
                    board.queens |= tbb
                elif promotion == _KNIGHT_TYPE:
                    board.knights |= tbb
                elif promotion == _ROOK:
                    board.rooks |= tbb
                else:
                    board.bishops |= tbb
                promoted |= tbb
                piece = _LETTERS[promotion].upper() if turn else _LETTERS[promotion]
            else:
                board.pawns |= tbb
        elif kind == "n":
            board.knights ^= both
        elif kind == "b":
            board.bishops ^= both
        elif kind == "r":
            board.rooks ^= both
        elif kind == "q":
            board.queens ^= both
        else:
            rights &= ~(_RANK_1 if turn else _RANK_8)
            board.kings ^= both
            if tf - ff == 2 or ff - tf == 2:  # castling: the rook jumps over the king
                rf, rt = (7, 5) if tf > ff else (0, 3)
                rooks = bb[frm - ff + rf] | bb[frm - ff + rt]
                board.rooks ^= rooks
                co[turn] ^= rooks
                row = rows[fr]
                rook = row[rf]
                row = row[:rf] + "." + row[rf + 1:]
                rows[fr] = row[:rt] + rook + row[rt + 1:]
        if promoted & fbb:
            promoted ^= both
        co[turn] ^= both
        board.occupied = co[0] | co[1]
        board.promoted = promoted
        board.castling_rights = rights
        board.halfmove_clock = clock
        board.ep_square = new_ep
        board.turn = not turn
        if turn:
            number = board.fullmove_number
        else:
            number = board.fullmove_number = board.fullmove_number + 1
        if not checked and board.was_into_check():
            # refused: the usual path on the position before it says why
            resolve(chess.Board(fen), text)
            raise AssertionError(f"{text!r} left the king in check after {fen!r} but resolve() took it")
        row = rows[tr]
        rows[tr] = row[:tf] + piece + row[tf + 1:]
        row = rows[fr]
        fields[7 - fr] = compressed(row) or compress_rank(row)
        if tr != fr:
            row = rows[tr]
            fields[7 - tr] = compressed(row) or compress_rank(row)
        fen = (f"{'/'.join(fields)} {'b' if turn else 'w'} {_CASTLING[rights]} {_EP[new_ep]} "
               f"{clock} {number}")
        yield fen
