"""The FEN kept incrementally as moves are played.

An 8-entry table of rank strings of which only the ranks a move touches are
rebuilt, and the other five fields read off the board's counters: emitting
a FEN is a string join, not a walk over 64 squares (python-chess's
``Board.fen`` costs about as much as the move).
"""

from __future__ import annotations

import chess

from ficsfen.variants import Variant, board_castling, expand_rank

__all__ = ["FenBuilder", "VariantFenBuilder", "castling_field", "compress_rank", "en_passant_field"]


_ROW_CACHE: dict[str, str] = {}
_ROW_CACHE_LIMIT = 1 << 16


def compress_rank(row: str) -> str:
    """``'rnb..k.r'`` -> ``'rnb2k1r'``: a rank (``.`` for empty squares) as FEN writes it.

    Cached, since ranks recur within and across games.
    """
    out = _ROW_CACHE.get(row)
    if out is None:
        out = row
        for run in ("........", ".......", "......", ".....", "....", "...", "..", "."):
            if run in out:
                out = out.replace(run, str(len(run)))
        if len(_ROW_CACHE) >= _ROW_CACHE_LIMIT:
            _ROW_CACHE.clear()
        _ROW_CACHE[row] = out
    return out


def _castling_fields() -> dict[int, str]:
    """Castling rights (as python-chess's mask of rook home squares) -> FEN field."""
    letters = (("K", chess.BB_H1), ("Q", chess.BB_A1), ("k", chess.BB_H8), ("q", chess.BB_A8))
    table = {}
    for bits in range(16):
        chosen = [(letter, bb) for i, (letter, bb) in enumerate(letters) if bits >> i & 1]
        mask = 0
        for _, bb in chosen:
            mask |= bb
        table[mask] = "".join(letter for letter, _ in chosen) or "-"
    return table


_CASTLING_FIELD = _castling_fields()
_CORNERS = chess.BB_A1 | chess.BB_H1 | chess.BB_A8 | chess.BB_H8
_EP_FIELD: dict[int | None, str] = {None: "-", **{sq: chess.SQUARE_NAMES[sq] for sq in chess.SQUARES}}
#: castling rights of standard chess (python-chess's mask of the rooks' corners) -> the FEN's field
castling_field: dict[int, str] = _CASTLING_FIELD
#: en passant square (``None``: none) -> the FEN's field
en_passant_field: dict[int | None, str] = _EP_FIELD
# Piece type -> its lowercase letter (python-chess's PIECE_SYMBOLS, whose 0 is None).
_LETTERS = " pnbrqk"


class FenBuilder:
    """The placement field kept as eight rank strings, updated per move.

    :meth:`push` plays a legal move on both and returns the FEN after it
    (or call :meth:`apply` *before* pushing the move on the board, then
    :meth:`fen` with the board after the push).
    """

    __slots__ = ("_rows", "_fields")

    def __init__(self, placement: str) -> None:
        ranks = placement.split("/")
        # _rows[r] is rank r+1 as 8 characters ('.' for empty squares);
        # _fields[7 - r] is the same rank as written in FEN (rank 8 first).
        self._rows = [expand_rank(ranks[7 - r]) for r in range(8)]
        self._fields = list(ranks)

    def placement(self) -> str:
        return "/".join(self._fields)

    def apply(self, move: chess.Move) -> None:
        rows = self._rows
        frm, to = move.from_square, move.to_square
        fr, ff = frm >> 3, frm & 7
        tr, tf = to >> 3, to & 7
        row = rows[fr]
        piece = row[ff]
        rows[fr] = row[:ff] + "." + row[ff + 1 :]
        if move.promotion:
            letter = _LETTERS[move.promotion]
            piece = letter.upper() if piece == "P" else letter
        elif piece in "Pp":
            if ff != tf and rows[tr][tf] == ".":  # en passant: the victim stands beside
                victim = rows[fr]
                rows[fr] = victim[:tf] + "." + victim[tf + 1 :]
        elif piece in "Kk" and (tf - ff == 2 or ff - tf == 2):
            rf, rt = (7, 5) if tf > ff else (0, 3)
            back = rows[fr]
            rook = back[rf]
            back = back[:rf] + "." + back[rf + 1 :]
            rows[fr] = back[:rt] + rook + back[rt + 1 :]
        row = rows[tr]
        rows[tr] = row[:tf] + piece + row[tf + 1 :]
        fields = self._fields
        fields[7 - fr] = compress_rank(rows[fr])
        if tr != fr:
            fields[7 - tr] = compress_rank(rows[tr])

    def push(self, board: chess.Board, move: chess.Move) -> str:
        """Play the legal ``move`` here and on ``board``; the strict FEN after it."""
        self.apply(move)
        board.push(move)
        return self.fen(board)

    def fen(self, board: chess.Board) -> str:
        return (
            f"{'/'.join(self._fields)} {'w' if board.turn else 'b'} "
            f"{_CASTLING_FIELD[board.castling_rights & _CORNERS]} {_EP_FIELD[board.ep_square]} "
            f"{board.halfmove_clock} {board.fullmove_number}"
        )


# A promoted piece (crazyhouse) is one character in the rank strings, like
# any piece, and becomes its letter and "~" when the placement is written.
# (letters that are no FEN piece and no digit: str.isdigit() is true of many symbols)
_PROMOTED_IN = dict(zip("NBRQnbrq", "WXYZwxyz"))
_PROMOTED_OUT = str.maketrans({char: letter + "~" for letter, char in _PROMOTED_IN.items()})
_OWN_ROOK = {"K": "R", "k": "r"}


class VariantFenBuilder(FenBuilder):
    """:class:`FenBuilder` for Chess960 and crazyhouse boards.

    Adds what those moves do to the placement (king-takes-rook castling,
    drops, promoted pieces marked ``~``), the crazyhouse holdings (read from
    the board's pockets only after a capture or a drop) and the Chess960
    castling field in X-FEN.  Everything else is the standard builder's.
    ``white`` says who moves first (a drop's colour is the mover's).
    """

    __slots__ = ("_variant", "_holdings", "_promoted", "_white", "_stale")

    def __init__(self, placement: str, variant: Variant, white: bool = True) -> None:
        board, bracket, held = placement.partition("[")
        self._promoted = "~" in board
        for letter, char in _PROMOTED_IN.items():
            board = board.replace(letter + "~", char)
        super().__init__(board)
        self._variant = variant
        self._holdings = bracket + held
        self._white = white
        self._stale = False  # the holdings changed: read them from the board's pockets

    def placement(self) -> str:
        text = "/".join(self._fields)
        return text.translate(_PROMOTED_OUT) if self._promoted else text

    def apply(self, move: chess.Move) -> None:
        rows = self._rows
        to = move.to_square
        tr, tf = to >> 3, to & 7
        white, self._white = self._white, not self._white
        if move.drop:
            letter = _LETTERS[move.drop]
            row = rows[tr]
            rows[tr] = row[:tf] + (letter.upper() if white else letter) + row[tf + 1 :]
            self._fields[7 - tr] = compress_rank(rows[tr])
            self._stale = True
            return
        frm = move.from_square
        fr, ff = frm >> 3, frm & 7
        piece = rows[fr][ff]
        target = rows[tr][tf]
        if target != "." and _OWN_ROOK.get(piece) == target:  # Chess960 castling, king takes rook
            king_file, rook_file = (6, 5) if tf > ff else (2, 3)
            back = list(rows[fr])
            back[ff] = back[tf] = "."
            back[king_file], back[rook_file] = piece, target
            rows[fr] = "".join(back)
            self._fields[7 - fr] = compress_rank(rows[fr])
            return
        super().apply(move)
        if move.promotion and self._variant.holdings:
            row = rows[tr]
            rows[tr] = row[:tf] + _PROMOTED_IN[row[tf]] + row[tf + 1 :]
            self._fields[7 - tr] = compress_rank(rows[tr])
            self._promoted = True
        if self._holdings and (target != "." or (piece in "Pp" and ff != tf)):
            self._stale = True

    def fen(self, board: chess.Board) -> str:
        if self._stale:
            self._holdings = _held(board)
            self._stale = False
        if self._variant.chess960:
            castling = board_castling(board)[0]
        else:
            castling = _CASTLING_FIELD[board.castling_rights & _CORNERS]
        return (
            f"{self.placement()}{self._holdings} {'w' if board.turn else 'b'} {castling} "
            f"{_EP_FIELD[board.ep_square]} {board.halfmove_clock} {board.fullmove_number}"
        )


def _held(board: chess.Board) -> str:
    pockets = board.pockets  # type: ignore[attr-defined]
    return f"[{str(pockets[chess.WHITE]).upper()}{pockets[chess.BLACK]}]"
