"""The game-state tracker: one game, its moves, and a FEN after every ply.

Moves come in as text (SAN, coordinates, castling in its usual spellings)
and are resolved into a :class:`chess.Move` with python-chess's attack tables;
legality is always decided by python-chess (``Board.is_into_check`` on a move
that is pseudo-legal by construction, ``Board.is_legal`` otherwise).  Nothing
here generates moves.

The FEN is kept incrementally: an 8-entry table of rank strings of which only
the ranks a move touches are rebuilt, and the other five fields read off the
board's counters.  Emitting a FEN is therefore a string join, not a walk over
64 squares (python-chess's ``Board.fen`` costs about as much as the move).
"""

from __future__ import annotations

import enum
import logging
import re
from dataclasses import dataclass
from typing import Callable, Iterator, Literal, Sequence, overload

import chess
import chess.variant
from chess import Outcome, Termination

from ficsfen.fen import STARTING_FEN, Position, parse
from ficsfen.i18n import DEFAULT_LANGUAGE, LocalizedError, Message, msg, msgn
from ficsfen.variants import (Variant, VariantPosition, board_castling, convert_castling, expand_rank,
                              parse_variant, variant_named)

__all__ = [
    "AmbiguousMoveError",
    "FenBuilder",
    "GameOverError",
    "IllegalMoveError",
    "MalformedMoveError",
    "MoveError",
    "Outcome",
    "Ply",
    "PlyRangeError",
    "TakebackError",
    "Termination",
    "Tracker",
    "TrackerError",
    "PlyHistory",
    "VariantFenBuilder",
    "PlySubscribers",
    "is_move_text",
    "outcome_message",
    "resolve",
    "termination_message",
]

# Standard logging, not Twisted's: the library runs without Twisted; the
# server forwards the "ficsfen" loggers into its Twisted log.
_log = logging.getLogger(__name__)


# --------------------------------------------------------------------------
# Errors
# --------------------------------------------------------------------------


class TrackerError(LocalizedError, ValueError):
    """Base of the tracker's errors: a localizable :class:`Message`."""

    code = "tracker-error"

    @property
    def text(self) -> str:
        """The English text (what ``str()`` gives)."""
        return self.render(DEFAULT_LANGUAGE)


class MoveError(TrackerError):
    """A move was refused; the game is unchanged.  ``move_text`` is the input."""

    code = "move-error"

    def __init__(self, message: Message, *, move_text: str = "", code: str | None = None) -> None:
        self.move_text = move_text
        if code is not None:
            self.code = code
        super().__init__(message)


class MalformedMoveError(MoveError, chess.InvalidMoveError):
    """The text is not a move in any notation we read."""

    code = "malformed"


class IllegalMoveError(MoveError, chess.IllegalMoveError):
    """A well-formed move that the rules do not allow here."""

    code = "illegal"


class AmbiguousMoveError(MoveError, chess.AmbiguousMoveError):
    """SAN that fits more than one legal move; ``candidates`` are their origins."""

    code = "ambiguous"

    def __init__(self, message: Message, *, move_text: str = "", candidates: Sequence[str] = ()) -> None:
        self.candidates = tuple(candidates)
        super().__init__(message, move_text=move_text)


class GameOverError(MoveError):
    """The game has already ended (checkmate, stalemate or an automatic draw)."""

    code = "game-over"


class TakebackError(TrackerError):
    """A takeback of a negative count or of more plies than were played."""

    code = "takeback"


class PlyRangeError(TrackerError, IndexError):
    """``fen_at`` was asked for a ply that does not exist."""

    code = "ply-range"


# --------------------------------------------------------------------------
# Values
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class Ply:
    """One accepted half-move and the position after it."""

    number: int  #: 1-based index of this ply in the game
    san: str  #: standard algebraic notation, with ``+``/``#``
    uci: str  #: coordinate notation, e.g. ``e7e8q``
    fen: str  #: strict FEN after the move
    move: chess.Move
    color: chess.Color  #: who moved (``chess.WHITE`` is ``True``)
    move_number: int  #: the fullmove number this ply belongs to

    def __str__(self) -> str:
        dots = "." if self.color else "..."
        return f"{self.move_number}{dots} {self.san}"


# Outcomes are python-chess's own :class:`chess.Outcome` and
# :class:`chess.Termination`; what is ours is their text in the players' languages.
_TERMINATION_TEXT = {
    Termination.CHECKMATE: msg("checkmate"),
    Termination.STALEMATE: msg("stalemate"),
    Termination.INSUFFICIENT_MATERIAL: msg("insufficient material"),
    Termination.SEVENTYFIVE_MOVES: msg("seventy-five-move rule"),
    Termination.FIVEFOLD_REPETITION: msg("fivefold repetition"),
    Termination.FIFTY_MOVES: msg("fifty-move rule"),
    Termination.THREEFOLD_REPETITION: msg("threefold repetition"),
}

# winner -> the sentence (functions, so that each text is a literal the catalogs extract)
_OUTCOME_TEXT: dict[chess.Color | None, Callable[[Message], Message]] = {
    None: lambda reason: msg("Draw by {reason}.", reason=reason),
    chess.WHITE: lambda reason: msg("White wins by {reason}.", reason=reason),
    chess.BLACK: lambda reason: msg("Black wins by {reason}.", reason=reason),
}


def termination_message(termination: Termination) -> Message:
    """Why a game ended, as a localizable phrase (``checkmate``, ``fifty-move rule``)."""
    return _TERMINATION_TEXT[termination]


def outcome_message(outcome: Outcome) -> Message:
    """``White wins by checkmate.``, ``Draw by stalemate.``: an outcome as a sentence."""
    return _OUTCOME_TEXT[outcome.winner](_TERMINATION_TEXT[outcome.termination])


class PlyHistory(Sequence[Ply]):
    """A read-only live view of a tracker's plies (no copy per access).

    It follows the game: after a move or a takeback it shows the new list.
    Slicing returns a tuple (a snapshot); it compares equal to any sequence
    holding the same plies, as the tuple it replaces did.
    """

    __slots__ = ("_plies",)

    def __init__(self, plies: list[Ply]) -> None:
        self._plies = plies

    @overload
    def __getitem__(self, index: int) -> Ply: ...
    @overload
    def __getitem__(self, index: slice) -> tuple[Ply, ...]: ...
    def __getitem__(self, index: int | slice) -> Ply | tuple[Ply, ...]:
        if isinstance(index, slice):
            return tuple(self._plies[index])
        return self._plies[index]

    def __len__(self) -> int:
        return len(self._plies)

    def __iter__(self) -> Iterator[Ply]:
        return iter(self._plies)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (PlyHistory, tuple, list)):
            return len(self) == len(other) and all(a == b for a, b in zip(self, other))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"PlyHistory({self._plies!r})"


class PlySubscribers:
    """Callbacks told of each ply; one that raises is logged and skipped.

    The tracker keeps one (told as a move is made); games keep another
    (told once they have finished the move: clocks stopped, increment added).
    """

    __slots__ = ("_callbacks",)

    def __init__(self) -> None:
        self._callbacks: list[Callable[[Ply], None]] = []

    def __len__(self) -> int:
        return len(self._callbacks)

    def add(self, callback: Callable[[Ply], None]) -> Callable[[], None]:
        """Call ``callback(ply)`` from now on; returns an unsubscriber."""
        self._callbacks.append(callback)

        def unsubscribe() -> None:
            try:
                self._callbacks.remove(callback)
            except ValueError:
                pass

        return unsubscribe

    def notify(self, ply: Ply) -> None:
        for callback in tuple(self._callbacks):
            try:
                callback(ply)
            except Exception:
                _log.exception("FEN subscriber %r raised on ply %d", callback, ply.number)


# --------------------------------------------------------------------------
# Incremental FEN
# --------------------------------------------------------------------------

class _Unknown(enum.Enum):
    """An outcome not computed yet for this ply (a sentinel type checkers can narrow)."""

    UNKNOWN = enum.auto()


_UNKNOWN = _Unknown.UNKNOWN

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


# --------------------------------------------------------------------------
# Reading a move
# --------------------------------------------------------------------------

# piece letter, from file, from rank, capture mark, destination, promotion
_MOVE_RE = re.compile(r"([NBRQK])?([a-h])?([1-8])?([x:-])?([a-h][1-8])(?:=?([NBRQnbrq]))?")
_CASTLE_RE = re.compile(r"([O0o])-\1(-\1)?")
_DROP_RE = re.compile(r"([PNBRQpnbrq])?@([a-h][1-8])")
_SUFFIX_RE = re.compile(r"[+#]?[!?]{0,2}$")
_SQUARE = {name: sq for sq, name in enumerate(chess.SQUARE_NAMES)}
_PIECE_FROM_LETTER = {"N": chess.KNIGHT, "B": chess.BISHOP, "R": chess.ROOK, "Q": chess.QUEEN, "K": chess.KING}
_PROMOTION = {c: chess.PIECE_SYMBOLS.index(c.lower()) for c in "NBRQnbrq"}
_BB_FILES = chess.BB_FILES
_BB_RANKS = chess.BB_RANKS
_KNIGHT = chess.BB_KNIGHT_ATTACKS
_KING = chess.BB_KING_ATTACKS
_DIAG_MASKS = chess.BB_DIAG_MASKS
_DIAG = chess.BB_DIAG_ATTACKS
_RANK_MASKS = chess.BB_RANK_MASKS
_RANK_ATT = chess.BB_RANK_ATTACKS
_FILE_MASKS = chess.BB_FILE_MASKS
_FILE_ATT = chess.BB_FILE_ATTACKS
_BB = chess.BB_SQUARES
_Move = chess.Move

_THE_PIECE = {
    chess.PAWN: msg("the pawn"),
    chess.KNIGHT: msg("the knight"),
    chess.BISHOP: msg("the bishop"),
    chess.ROOK: msg("the rook"),
    chess.QUEEN: msg("the queen"),
    chess.KING: msg("the king"),
}
_PIECES = {
    chess.PAWN: msg("pawns"),
    chess.KNIGHT: msg("knights"),
    chess.BISHOP: msg("bishops"),
    chess.ROOK: msg("rooks"),
    chess.QUEEN: msg("queens"),
    chess.KING: msg("kings"),
}


def _squares_list(squares: Sequence[str]) -> Message | str:
    if len(squares) == 1:
        return squares[0]
    return msg("{first} and {last}", first=", ".join(squares[:-1]), last=squares[-1])


def _scan(bb: int) -> list[int]:
    out = []
    while bb:
        low = bb & -bb
        out.append(low.bit_length() - 1)
        bb ^= low
    return out


def _reachers(board: chess.Board, piece_type: int, to: int) -> int:
    """Squares from which a piece of this type (on an empty ``to``) attacks ``to``."""
    occ = board.occupied
    if piece_type == chess.KNIGHT:
        return _KNIGHT[to]
    if piece_type == chess.KING:
        return _KING[to]
    att = 0
    if piece_type != chess.ROOK:  # bishop or queen
        att = _DIAG[to][_DIAG_MASKS[to] & occ]
    if piece_type != chess.BISHOP:  # rook or queen
        att |= _RANK_ATT[to][_RANK_MASKS[to] & occ] | _FILE_ATT[to][_FILE_MASKS[to] & occ]
    return att


def resolve(board: chess.Board, text: str) -> chess.Move:
    """The legal move ``text`` names on ``board``, or a :class:`MoveError`.

    Reads SAN (``Nf3``, ``exd5``, ``e8=Q+``, ``Nbd2!?``), coordinates
    (``g1f3``, ``g1-f3``, ``e7e8q``, ``e7e8=Q``) and castling (``O-O``,
    ``0-0-0``, ``o-o``).  ``board`` is not changed.
    """
    parsed = _PARSED.get(text)
    if parsed is None:
        parsed = _parse(text)
        if len(_PARSED) < _PARSED_LIMIT and len(text) <= 12:
            _PARSED[text] = parsed
    letter, file_, rank_, to, promo = parsed
    turn = board.turn
    if letter is None:
        if rank_ is not None:
            return _coordinates(board, text, _SQUARE[file_ + rank_], to, promo)  # type: ignore[operator]
        return _pawn(board, text, file_, to, promo)
    if letter == "O":
        return _castle(board, text, queenside=to == 2)
    if letter == "@":
        return _drop(board, text, to, promo)  # type: ignore[arg-type]
    if promo is not None:
        raise IllegalMoveError(msg("Illegal move: only a pawn can promote."), move_text=text, code="promotion-piece")
    piece_type = _PIECE_FROM_LETTER[letter]
    if board.occupied_co[turn] & _BB[to]:
        if piece_type == chess.KING and board.chess960 and board.rooks & _BB[to]:
            return _castle_onto(board, text, to)  # Chess960 castling as king takes rook
        raise IllegalMoveError(
            msg("Illegal move: {square} is occupied by one of your own pieces.", square=chess.SQUARE_NAMES[to]),
            move_text=text,
            code="own-piece",
        )
    ours = board.pieces_mask(piece_type, turn)
    cands = _reachers(board, piece_type, to) & ours
    if file_ is not None:
        cands &= _BB_FILES[ord(file_) - 97]
    if rank_ is not None:
        cands &= _BB_RANKS[ord(rank_) - 49]
    if cands and not cands & (cands - 1):  # exactly one candidate
        move = _Move(cands.bit_length() - 1, to)
        if not board.is_into_check(move):
            return move
        raise _into_check(board, text, move, piece_type)
    if not cands:
        if piece_type == chess.KING and board.king(turn) is not None:
            king = board.king(turn)
            if king is not None and abs((king & 7) - (to & 7)) == 2 and king >> 3 == to >> 3:
                return _castle(board, text, queenside=(to & 7) < (king & 7))
        raise _unreachable(board, text, piece_type, to, ours, file_, rank_)
    legal = [sq for sq in _scan(cands) if not board.is_into_check(_Move(sq, to))]
    if len(legal) == 1:
        return _Move(legal[0], to)
    if not legal:
        raise _into_check(board, text, _Move(_scan(cands)[0], to), piece_type)
    names = [chess.SQUARE_NAMES[sq] for sq in legal]
    raise AmbiguousMoveError(
        msg(
            'Ambiguous move "{move}": {pieces} on {squares} can go there.',
            move=text,
            pieces=_PIECES[piece_type],
            squares=_squares_list(names),
        ),
        move_text=text,
        candidates=names,
    )


# move text -> (piece letter or "O" for castling or None for pawns and
# coordinates, from file, from rank, destination square, promotion letter);
# a game's moves repeat ("Nf3", "O-O"), so the reading is cached.
_PARSED: dict[str, tuple[str | None, str | None, str | None, int, str | None]] = {}
_PARSED_LIMIT = 1 << 14


def is_move_text(text: str) -> bool:
    """Whether ``text`` is shaped like a move in a notation :func:`resolve` reads.

    It says nothing of legality; a host uses it to tell a move typed at its
    prompt from a command (the tracker's own grammar, so the two agree).
    """
    return text in _PARSED or _parts(text) is not None


def _parse(text: str) -> tuple[str | None, str | None, str | None, int, str | None]:
    """The parts of a move's text; :class:`MalformedMoveError` if it is none."""
    parts = _parts(text)
    if parts is None:
        raise MalformedMoveError(_malformed(text), move_text=text)
    return parts


def _parts(text: str) -> tuple[str | None, str | None, str | None, int, str | None] | None:
    """(piece letter, from file, from rank, destination, promotion), or ``None``."""
    body = text.strip()
    if body and body[-1] in "+#!?":
        body = _SUFFIX_RE.sub("", body, 1)
    m = _MOVE_RE.fullmatch(body)
    if m is None:
        c = _CASTLE_RE.fullmatch(body)
        if c is not None:
            return ("O", None, None, 2 if c.group(2) is not None else 6, None)
        d = _DROP_RE.fullmatch(body)
        if d is not None:  # a crazyhouse drop: "@", its square, the piece (a pawn if unnamed)
            return ("@", None, None, _SQUARE[d.group(2)], (d.group(1) or "P").upper())
        return None
    letter, file_, rank_, _mark, dest, promo = m.groups()
    if letter is None and rank_ is not None and file_ is None:
        return None
    if letter is None and rank_ is None:
        return (None, file_, None, _SQUARE[dest], promo)
    return (letter, file_, rank_, _SQUARE[dest], promo)


def _malformed(text: str) -> Message:
    if not text.strip():
        return msg("Empty move: type a move such as e4, Nf3 or g1f3.")
    return msg('Not a move: "{text}". Type a move such as e4, Nf3, O-O or g1f3.', text=text)


def _pawn(board: chess.Board, text: str, file_: str | None, to: int, promo: str | None) -> chess.Move:
    turn = board.turn
    pawns = board.pawns & board.occupied_co[turn]
    tr = to >> 3
    last = 7 if turn else 0
    if file_ is None:  # a push
        back = -8 if turn else 8
        frm = to + back
        if board.occupied & _BB[to]:
            raise IllegalMoveError(
                msg("Illegal move: no pawn can advance to {square}, it is occupied.", square=chess.SQUARE_NAMES[to]),
                move_text=text,
                code="pawn-blocked",
            )
        if not 0 <= frm < 64 or not pawns & _BB[frm]:
            frm2 = frm + back
            if tr == (3 if turn else 4) and pawns & _BB[frm2] and not board.occupied & _BB[frm]:
                frm = frm2
            else:
                raise IllegalMoveError(
                    msg("Illegal move: no pawn can reach {square}.", square=chess.SQUARE_NAMES[to]),
                    move_text=text,
                    code="no-piece",
                )
    else:
        ff = ord(file_) - 97
        tf = to & 7
        if abs(ff - tf) != 1:
            raise IllegalMoveError(
                msg("Illegal move: a pawn on the {file} file cannot capture on {square}.", file=file_,
                    square=chess.SQUARE_NAMES[to]),
                move_text=text,
                code="pawn-capture",
            )
        frm = to + (-8 if turn else 8) + (ff - tf)
        if not 0 <= frm < 64 or not pawns & _BB[frm]:
            raise IllegalMoveError(
                msg("Illegal move: no pawn can reach {square}.", square=chess.SQUARE_NAMES[to]),
                move_text=text,
                code="no-piece",
            )
        if not board.occupied_co[not turn] & _BB[to] and to != board.ep_square:
            raise IllegalMoveError(
                msg("Illegal move: there is nothing to capture on {square}.", square=chess.SQUARE_NAMES[to]),
                move_text=text,
                code="nothing-to-capture",
            )
    promotion = None
    if tr == last:
        if promo is None:
            raise IllegalMoveError(
                msg("Illegal move: a pawn reaching {square} must promote; write {example}.",
                    square=chess.SQUARE_NAMES[to], example=text.rstrip("+#!?") + "=Q"),
                move_text=text,
                code="promotion-missing",
            )
        promotion = _PROMOTION[promo]
    elif promo is not None:
        raise IllegalMoveError(
            msg("Illegal move: a pawn promotes only on the last rank."),
            move_text=text,
            code="promotion-rank",
        )
    move = _Move(frm, to, promotion)
    if board.is_into_check(move):
        raise _into_check(board, text, move, chess.PAWN)
    return move


def _coordinates(board: chess.Board, text: str, frm: int, to: int, promo: str | None) -> chess.Move:
    turn = board.turn
    piece = board.piece_at(frm)
    origin = chess.SQUARE_NAMES[frm]
    if piece is None:
        raise IllegalMoveError(msg("Illegal move: there is no piece on {square}.", square=origin), move_text=text,
                               code="empty-square")
    if piece.color != turn:
        raise IllegalMoveError(
            msg("Illegal move: the piece on {square} is not yours.", square=origin), move_text=text, code="not-yours"
        )
    promotion = _PROMOTION[promo] if promo is not None else None
    if piece.piece_type == chess.PAWN and to >> 3 == (7 if turn else 0) and promotion is None:
        example = origin + chess.SQUARE_NAMES[to] + "q"
        raise IllegalMoveError(
            msg("Illegal move: a pawn reaching {square} must promote; write {example}.",
                square=chess.SQUARE_NAMES[to], example=example),
            move_text=text,
            code="promotion-missing",
        )
    move = _Move(frm, to, promotion)
    if board.is_legal(move):
        return _standard_castling(board, move)
    if promotion is not None and piece.piece_type != chess.PAWN:
        raise IllegalMoveError(msg("Illegal move: only a pawn can promote."), move_text=text, code="promotion-piece")
    if promotion is not None and to >> 3 != (7 if turn else 0):
        raise IllegalMoveError(msg("Illegal move: a pawn promotes only on the last rank."), move_text=text,
                               code="promotion-rank")
    if board.is_pseudo_legal(move):
        raise _into_check(board, text, move, piece.piece_type)
    if board.occupied_co[turn] & _BB[to]:
        raise IllegalMoveError(
            msg("Illegal move: {square} is occupied by one of your own pieces.", square=chess.SQUARE_NAMES[to]),
            move_text=text,
            code="own-piece",
        )
    if (piece.piece_type == chess.KING and frm >> 3 == to >> 3 and abs((frm & 7) - (to & 7)) == 2
            and (frm & 7 == 4 or not board.chess960)):
        return _castle(board, text, queenside=(to & 7) < (frm & 7))
    raise IllegalMoveError(
        msg("Illegal move: {piece} on {origin} cannot reach {square}.",
            piece=_THE_PIECE[piece.piece_type], origin=origin, square=chess.SQUARE_NAMES[to]),
        move_text=text,
        code="cannot-reach",
    )


def _standard_castling(board: chess.Board, move: chess.Move) -> chess.Move:
    """Castling written king-takes-rook (``e1h1``) as the king's two-square move (``e1g1``)."""
    frm, to = move.from_square, move.to_square
    if board.kings & _BB[frm] and board.occupied_co[board.turn] & _BB[to] and not board.chess960:
        return _Move(frm, (frm & 56) | (6 if to & 7 > frm & 7 else 2))
    return move


def _castle(board: chess.Board, text: str, *, queenside: bool) -> chess.Move:
    turn = board.turn
    king = board.king(turn)
    rank = 0 if turn else 7
    side = msg("queenside") if queenside else msg("kingside")
    if board.chess960:
        return _castle960(board, text, king, queenside, side)
    rook_home = chess.square(0 if queenside else 7, rank)
    if king is not None and king == chess.square(4, rank):
        move = _Move(king, chess.square(2 if queenside else 6, rank))
        if board.is_legal(move):
            return move
    if king != chess.square(4, rank) or not board.castling_rights & _BB[rook_home]:
        raise _no_castling(text, side)
    raise _castling_refused(board, text, side)


def _no_castling(text: str, side: Message) -> IllegalMoveError:
    return IllegalMoveError(
        msg("Illegal move: you can no longer castle {side}.", side=side), move_text=text, code="castling-rights"
    )


def _castling_refused(board: chess.Board, text: str, side: Message) -> IllegalMoveError:
    """Castling that the rights allow but the position does not."""
    if board.is_check():
        return IllegalMoveError(msg("Illegal move: you cannot castle out of check."), move_text=text,
                                code="castling-check")
    return IllegalMoveError(
        msg("Illegal move: you cannot castle {side} now: the way is blocked or attacked.", side=side),
        move_text=text,
        code="castling-blocked",
    )


def _castle960(board: chess.Board, text: str, king: int | None, queenside: bool,
               side: Message) -> chess.Move:
    """Chess960 castling: the king takes the rook that still has the right on that side."""
    rights = board.castling_rights & board.occupied_co[board.turn] & _BB_RANKS[0 if board.turn else 7]
    rook = None
    if king is not None:
        for square in _scan(rights):
            if (square < king) == queenside:
                rook = square
    if rook is None:
        raise _no_castling(text, side)
    move = _Move(king, rook)  # type: ignore[arg-type]
    if board.is_legal(move):
        return move
    raise _castling_refused(board, text, side)


def _castle_onto(board: chess.Board, text: str, rook: int) -> chess.Move:
    """``Kxh1`` or ``Kh1`` onto one's own rook: Chess960 castling with that rook."""
    king = board.king(board.turn)
    queenside = king is not None and rook < king
    side = msg("queenside") if queenside else msg("kingside")
    move = _castle960(board, text, king, queenside, side)
    if move.to_square != rook:
        raise _no_castling(text, side)
    return move


def _drop(board: chess.Board, text: str, to: int, letter: str) -> chess.Move:
    """A crazyhouse drop (``P@e4``, ``N@f7+``, ``@e4`` for a pawn)."""
    piece_type = _PIECE_FROM_LETTER.get(letter, chess.PAWN)
    move = _Move(to, to, drop=piece_type)
    if not isinstance(board, chess.variant.CrazyhouseBoard):
        raise IllegalMoveError(msg("Illegal move: pieces are dropped only in crazyhouse."),
                               move_text=text, code="drop-variant")
    if board.is_legal(move):
        return move
    square = chess.SQUARE_NAMES[to]
    if not board.pockets[board.turn].count(piece_type):
        raise IllegalMoveError(msg("Illegal move: you have no {pieces} in hand.", pieces=_PIECES[piece_type]),
                               move_text=text, code="drop-none")
    if board.occupied & _BB[to]:
        raise IllegalMoveError(msg("Illegal move: {square} is occupied.", square=square),
                               move_text=text, code="drop-occupied")
    if piece_type == chess.PAWN and to >> 3 in (0, 7):
        raise IllegalMoveError(msg("Illegal move: a pawn is never dropped on rank 1 or 8."),
                               move_text=text, code="drop-backrank")
    raise IllegalMoveError(
        msg('Illegal move: you are in check and "{move}" does not get you out of it.', move=text),
        move_text=text,
        code="in-check",
    )


def _into_check(board: chess.Board, text: str, move: chess.Move, piece_type: int) -> IllegalMoveError:
    square = chess.SQUARE_NAMES[move.to_square]
    if piece_type == chess.KING:
        return IllegalMoveError(
            msg("Illegal move: your king would be in check on {square}.", square=square), move_text=text,
            code="king-into-check",
        )
    if board.is_check():
        return IllegalMoveError(
            msg('Illegal move: you are in check and "{move}" does not get you out of it.', move=text),
            move_text=text,
            code="in-check",
        )
    return IllegalMoveError(
        msg("Illegal move: moving {piece} on {origin} would expose your king.",
            piece=_THE_PIECE[piece_type], origin=chess.SQUARE_NAMES[move.from_square]),
        move_text=text,
        code="pinned",
    )


def _unreachable(
    board: chess.Board, text: str, piece_type: int, to: int, ours: int, file_: str | None, rank_: str | None
) -> IllegalMoveError:
    square = chess.SQUARE_NAMES[to]
    if file_ is not None:
        ours &= _BB_FILES[ord(file_) - 97]
    if rank_ is not None:
        ours &= _BB_RANKS[ord(rank_) - 49]
    squares = _scan(ours)
    if not squares:
        if file_ is None and rank_ is None:
            return IllegalMoveError(msg("Illegal move: you have no {pieces}.", pieces=_PIECES[piece_type]),
                                    move_text=text, code="no-piece")
        return IllegalMoveError(
            msg("Illegal move: there is no {piece} of yours on {where}.",
                piece=_THE_PIECE[piece_type], where=(file_ or "") + (rank_ or "")),
            move_text=text,
            code="no-piece",
        )
    if len(squares) == 1:
        return IllegalMoveError(
            msg("Illegal move: {piece} on {origin} cannot reach {square}.",
                piece=_THE_PIECE[piece_type], origin=chess.SQUARE_NAMES[squares[0]], square=square),
            move_text=text,
            code="cannot-reach",
        )
    return IllegalMoveError(
        msg("Illegal move: none of your {pieces} can reach {square}.", pieces=_PIECES[piece_type], square=square),
        move_text=text,
        code="cannot-reach",
    )


# --------------------------------------------------------------------------
# The tracker
# --------------------------------------------------------------------------


class Tracker:
    """One game from a starting position: moves in, a FEN per ply out.

    ``board`` is the live :class:`chess.Board`; treat it as read-only (push
    moves through the tracker so the FEN, history and subscribers follow).

    ``variant`` (``"chess960"``, ``"crazyhouse"``, or a FICS or PGN name for
    them such as ``"fr"`` or ``"Chess960"``) plays that variant on
    python-chess's board for it; its FENs are X-FEN for Chess960 (Shredder-FEN
    from :meth:`fen_at`) and carry the holdings and ``~`` marks in crazyhouse.
    """

    def __init__(self, fen: str | None = None, *, variant: str | Variant | None = None) -> None:
        self._variant = None if variant is None else variant_named(variant)
        position: Position | VariantPosition
        if self._variant is None:
            position = parse(STARTING_FEN if fen is None else fen)
        else:
            position = parse_variant(self._variant.starting_fen if fen is None else fen, self._variant)
        self._initial_fen = position.fen()
        self._board = position.board()
        self._builder = self._new_builder(self._initial_fen)
        # crazyhouse has no fifty- or seventy-five-move rule
        self._clock_rules = self._variant is None or not self._variant.holdings
        self._history: list[Ply] = []
        self._view = PlyHistory(self._history)
        self._outcome: Outcome | None | Literal[_Unknown.UNKNOWN] = _UNKNOWN  # cached per ply by outcome()
        self._subscribers = PlySubscribers()
        # dead position (insufficient material): only a capture can make one
        self._dead = self._board.is_insufficient_material()

    def _new_builder(self, fen: str) -> FenBuilder:
        placement, turn = fen.split(" ", 2)[:2]
        if self._variant is None:
            return FenBuilder(placement)
        return VariantFenBuilder(placement, self._variant, turn == "w")

    @property
    def variant(self) -> Variant | None:
        """The variant played (``None`` for standard chess)."""
        return self._variant

    def __repr__(self) -> str:
        if self._initial_fen == STARTING_FEN:
            return f"<Tracker ply={len(self._history)} fen={self.fen!r}>"
        return f"<Tracker from {self._initial_fen!r} ply={len(self._history)} fen={self.fen!r}>"

    # -- state --------------------------------------------------------------

    @property
    def fen(self) -> str:
        """The strict FEN of the current position."""
        return self._history[-1].fen if self._history else self._initial_fen

    @property
    def initial_fen(self) -> str:
        return self._initial_fen

    @property
    def board(self) -> chess.Board:
        return self._board

    @property
    def turn(self) -> chess.Color:
        return self._board.turn

    @property
    def ply(self) -> int:
        """How many plies have been played."""
        return len(self._history)

    @property
    def history(self) -> PlyHistory:
        """Every ply so far, as a live read-only view (nothing is copied)."""
        return self._view

    @property
    def last_ply(self) -> Ply | None:
        """The last ply played, ``None`` at ply 0 (what a per-move display reads)."""
        return self._history[-1] if self._history else None

    def fen_at(self, ply: int, *, shredder: bool = False) -> str:
        """The FEN after ``ply`` plies (0 is the initial position).

        ``shredder``: the castling field in Shredder-FEN (rook files: ``HAha``
        for corner rooks, the Chess960 rooks' files in a Chess960 game).
        """
        if not isinstance(ply, int) or not 0 <= ply <= len(self._history):
            raise PlyRangeError(
                msgn(
                    "No such ply: {ply}; this game has {count} ply so far.",
                    "No such ply: {ply}; this game has {count} plies so far.",
                    len(self._history),
                    ply=ply,
                )
            )
        fen = self._history[ply - 1].fen if ply else self._initial_fen
        if shredder:
            return convert_castling(fen, shredder=True, variant=self._variant)
        return fen

    # -- moves --------------------------------------------------------------

    def push(self, text: str) -> Ply:
        """Play the move ``text`` (SAN, coordinates or castling)."""
        self._refuse_if_over(text)
        try:
            move = resolve(self._board, text)
        except MoveError:
            self._refuse_if_over(text, full=True)
            raise
        return self._commit(move)

    def push_move(self, move: chess.Move) -> Ply:
        """Play a :class:`chess.Move` after checking it is legal."""
        text = move.uci()
        self._refuse_if_over(text)
        if not self._board.is_legal(move):
            self._refuse_if_over(text, full=True)
            return self._commit(resolve(self._board, text))  # raises the precise error
        return self._commit(_standard_castling(self._board, move))

    def _commit(self, move: chess.Move) -> Ply:
        board = self._board
        color = board.turn
        move_number = board.fullmove_number
        capture = (board.occupied_co[not color] & _BB[move.to_square] or move.promotion
                   or move.to_square == board.ep_square)
        builder = self._builder
        builder.apply(move)
        # python-chess's SAN (disambiguation and +/# included), which plays the
        # move to find the suffix: keep it played rather than play it twice.
        san = board.san_and_push(move)
        fen = builder.fen(board)
        if capture:
            self._dead = board.is_insufficient_material()
        ply = Ply(len(self._history) + 1, san, move.uci(), fen, move, color, move_number)
        self._history.append(ply)
        self._outcome = _UNKNOWN
        if self._subscribers:
            self._subscribers.notify(ply)
        return ply

    def _refuse_if_over(self, text: str, *, full: bool = False) -> None:
        # The outcome of this ply when a game already asked for it; otherwise
        # the cheap signs of an automatic end first (a mate or stalemate
        # shows up as a move that resolve() refuses, then ``full``).
        outcome = self._outcome
        if outcome is _UNKNOWN:
            board = self._board
            if not (full or self._dead or (board.halfmove_clock >= 150 and self._clock_rules)
                    or (board.halfmove_clock >= 16 and board.is_fivefold_repetition())):
                return
            outcome = self.outcome()
        if outcome is not None:
            raise GameOverError(
                msg("The game is over: {outcome}", outcome=outcome_message(outcome)), move_text=text
            )

    def takeback(self, n: int = 1) -> None:
        """Undo the last ``n`` plies."""
        if isinstance(n, bool) or not isinstance(n, int) or n < 0:
            raise TakebackError(msg("Cannot take back {n}: give a whole number of plies, 0 or more.", n=repr(n)))
        if n > len(self._history):
            raise TakebackError(
                msgn(
                    "Cannot take back {n}: only {count} ply has been played.",
                    "Cannot take back {n}: only {count} plies have been played.",
                    len(self._history),
                    n=n,
                )
            )
        if n == 0:
            return
        for _ in range(n):
            self._board.pop()
        del self._history[len(self._history) - n :]
        self._outcome = _UNKNOWN
        self._builder = self._new_builder(self.fen)
        self._dead = self._board.is_insufficient_material()

    # -- subscribers --------------------------------------------------------

    def subscribe(self, callback: Callable[[Ply], None]) -> Callable[[], None]:
        """Call ``callback(ply)`` after every accepted move; returns an unsubscriber."""
        return self._subscribers.add(callback)

    # -- end of game ----------------------------------------------------------

    def outcome(self) -> Outcome | None:
        """The automatic end of the game, if it has ended (no claims).

        Computed once per ply and kept until the next move or takeback, so
        a game asking after each move and the next move's check share it.
        The tests are python-chess's, in the order of ``Board.outcome``;
        the material test is the one the tracker keeps per capture, and
        the repetition count runs only once five repetitions are possible.
        """
        outcome = self._outcome
        if outcome is _UNKNOWN:
            board = self._board
            if not any(board.generate_legal_moves()):
                if board.is_check():
                    outcome = Outcome(Termination.CHECKMATE, not board.turn)
                else:
                    outcome = Outcome(Termination.INSUFFICIENT_MATERIAL if self._dead else Termination.STALEMATE, None)
            elif self._dead:
                outcome = Outcome(Termination.INSUFFICIENT_MATERIAL, None)
            elif board.halfmove_clock >= 150 and self._clock_rules:
                outcome = Outcome(Termination.SEVENTYFIVE_MOVES, None)
            elif board.halfmove_clock >= 16 and board.is_fivefold_repetition():
                outcome = Outcome(Termination.FIVEFOLD_REPETITION, None)
            else:
                outcome = None
            self._outcome = outcome
        return outcome

    def claimable_draw(self) -> Outcome | None:
        """A draw the side to move may claim now (fifty moves, threefold), if any."""
        board = self._board
        if board.is_fifty_moves():
            return Outcome(Termination.FIFTY_MOVES, None)
        if board.is_repetition(3):
            return Outcome(Termination.THREEFOLD_REPETITION, None)
        return None
