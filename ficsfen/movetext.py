"""Reading a move's text on a board: SAN, coordinates, castling, drops.

Moves are resolved into a :class:`chess.Move` with python-chess's attack
tables; legality is always decided by python-chess (``Board.is_into_check``
on a move that is pseudo-legal by construction, ``Board.is_legal``
otherwise).  Nothing here generates moves.  A refusal is a
:class:`~ficsfen.trackererrors.MoveError` saying why, in the player's terms.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import chess
import chess.variant

from ficsfen.i18n import Message, msg
from ficsfen.trackererrors import AmbiguousMoveError, IllegalMoveError, MalformedMoveError

__all__ = ["is_move_text", "parsed_move", "resolve", "standard_castling"]


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


def parsed_move(text: str) -> tuple[str | None, str | None, str | None, int, str | None] | None:
    """The parts of ``text`` as :func:`resolve` reads them, ``None`` if it is no move.

    ``(piece letter, from file, from rank, destination square, promotion
    letter)``: the letter is ``None`` for a pawn's move (no from rank) and
    for coordinates (a from rank), ``"O"`` for castling (destination: the
    king's file, 2 or 6), ``"@"`` for a drop (promotion letter: the piece
    dropped).  Read once per text, as :func:`resolve` does.
    """
    parsed = _PARSED.get(text)
    if parsed is None:
        parsed = _parts(text)
        if parsed is not None and len(_PARSED) < _PARSED_LIMIT and len(text) <= 12:
            _PARSED[text] = parsed
    return parsed


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
        return standard_castling(board, move)
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


def standard_castling(board: chess.Board, move: chess.Move) -> chess.Move:
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
