"""The FEN codec's rules that refuse a record, and the messages that say why.

:func:`ficsfen.fen.parse` scans a record on its fast path and calls these
when a field is wrong (or, to validate, to check the position): each
function here raises the :class:`~ficsfen.fenerrors.FenError` for the first
problem of its field, with the fix when it is obvious.  Checks are found
with python-chess's attack tables (:func:`attackers`), so no
:class:`chess.Board` is built.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NoReturn

import chess

from ficsfen.fenerrors import FIELD_NAMES, MAX_DIGITS, FenSyntaxError, InvalidPositionError, shown
from ficsfen.i18n import msg, msgn

__all__ = [
    "BACKRANKS",
    "BLACK",
    "CASTLING_RIGHTS",
    "CASTLING_VALID",
    "EP_SQUARES",
    "OPPOSITE_CHECK",
    "PAWN_B",
    "PAWN_W",
    "PLACEMENT",
    "SQUARE_NAMES",
    "WHITE",
    "attackers",
    "castling_ok",
    "castling_syntax",
    "check_ep",
    "check_geometry",
    "ep_halfmove",
    "ep_syntax",
    "material_error",
    "rank_error",
    "read_number",
    "record_error",
]

SQUARE_NAMES = chess.SQUARE_NAMES
# Placement characters: 0-11 index a piece bitboard, -1..-8 are empty runs.
PLACEMENT: dict[str, int] = {c: i for i, c in enumerate("PNBRQKpnbrqk")}
PLACEMENT.update({str(d): -d for d in range(1, 9)})

_CASTLING_ORDER = "KQkq"
CASTLING_VALID = frozenset(
    "".join(c for i, c in enumerate(_CASTLING_ORDER) if mask >> i & 1) for mask in range(1, 16)
)
# Letter -> (king square, rook square, colour index in the bitboard list).
_CASTLING_HOME = {
    "K": (chess.E1, chess.H1, 0),
    "Q": (chess.E1, chess.A1, 0),
    "k": (chess.E8, chess.H8, 6),
    "q": (chess.E8, chess.A8, 6),
}
EP_SQUARES = {
    name: sq for sq, name in enumerate(SQUARE_NAMES) if chess.square_rank(sq) in (2, 5)
}

_KNIGHT = chess.BB_KNIGHT_ATTACKS
_KING = chess.BB_KING_ATTACKS
PAWN_W, PAWN_B = chess.BB_PAWN_ATTACKS[chess.WHITE], chess.BB_PAWN_ATTACKS[chess.BLACK]
_DIAG_ATT, _DIAG_MASK = chess.BB_DIAG_ATTACKS, chess.BB_DIAG_MASKS
_RANK_ATT, _RANK_MASK = chess.BB_RANK_ATTACKS, chess.BB_RANK_MASKS
_FILE_ATT, _FILE_MASK = chess.BB_FILE_ATTACKS, chess.BB_FILE_MASKS
_RAYS = chess.BB_RAYS
BACKRANKS = chess.BB_BACKRANKS


def attackers(sq: int, occ: int, pawns: int, pawn_table: Sequence[int], knights: int, diag: int,
               straight: int, king: int) -> int:
    """Pieces (given as the attacking side's bitboards) that attack ``sq``."""
    return (
        (_KNIGHT[sq] & knights)
        | (_KING[sq] & king)
        | (pawn_table[sq] & pawns)
        | (_DIAG_ATT[sq][_DIAG_MASK[sq] & occ] & diag)
        | ((_RANK_ATT[sq][_RANK_MASK[sq] & occ] | _FILE_ATT[sq][_FILE_MASK[sq] & occ])
           & straight)
    )


# Messages that differ by colour, kept whole so translators see full sentences.

WHITE, BLACK = 0, 1

_KING_COUNT = (
    lambda n: msgn("White has {count} king; there must be exactly one",
                   "White has {count} kings; there must be exactly one", n),
    lambda n: msgn("Black has {count} king; there must be exactly one",
                   "Black has {count} kings; there must be exactly one", n),
)
_PAWN_COUNT = (
    lambda n: msg("White has {count} pawns; at most 8 are possible", count=n),
    lambda n: msg("Black has {count} pawns; at most 8 are possible", count=n),
)
_PIECE_COUNT = (
    lambda n: msg("White has {count} pieces; at most 16 are possible", count=n),
    lambda n: msg("Black has {count} pieces; at most 16 are possible", count=n),
)
_TOO_MANY_CHECKERS = (
    lambda sq, n: msg("the White king on {square} is attacked by {count} pieces; "
                      "no move can give more than two checks", square=sq, count=n),
    lambda sq, n: msg("the Black king on {square} is attacked by {count} pieces; "
                      "no move can give more than two checks", square=sq, count=n),
)
_IMPOSSIBLE_CHECK = (
    lambda sq, a, b: msg("the White king on {square} is checked by {first} and {second} "
                         "along one line; no move gives such a check",
                         square=sq, first=a, second=b),
    lambda sq, a, b: msg("the Black king on {square} is checked by {first} and {second} "
                         "along one line; no move gives such a check",
                         square=sq, first=a, second=b),
)
OPPOSITE_CHECK = {
    "w": lambda sq: msg("White is to move but the Black king on {square} is in check; "
                        "the side that just moved cannot be in check", square=sq),
    "b": lambda sq: msg("Black is to move but the White king on {square} is in check; "
                        "the side that just moved cannot be in check", square=sq),
}
CASTLING_RIGHTS = {
    "K": lambda s: msg('"K" needs the White king on e1 and a White rook on h1; '
                       'write "{suggestion}"', suggestion=s),
    "Q": lambda s: msg('"Q" needs the White king on e1 and a White rook on a1; '
                       'write "{suggestion}"', suggestion=s),
    "k": lambda s: msg('"k" needs the Black king on e8 and a Black rook on h8; '
                       'write "{suggestion}"', suggestion=s),
    "q": lambda s: msg('"q" needs the Black king on e8 and a Black rook on a8; '
                       'write "{suggestion}"', suggestion=s),
}
_EP_TURN = {
    "w": lambda t: msg('"{text}" is on rank 3, but with White to move the en passant '
                       'square is on rank 6; write "-"', text=t),
    "b": lambda t: msg('"{text}" is on rank 6, but with Black to move the en passant '
                       'square is on rank 3; write "-"', text=t),
}
_EP_PAWN = {
    "w": lambda t, sq: msg('no Black pawn on {square} has just passed over "{text}"; '
                           'write "-"', text=t, square=sq),
    "b": lambda t, sq: msg('no White pawn on {square} has just passed over "{text}"; '
                           'write "-"', text=t, square=sq),
}


def record_error(text: str) -> NoReturn:
    words = text.split()
    count = len(words)
    if count != 6:
        suggestion = None
        if count == 4 and text == " ".join(words):
            suggestion = text + " 0 1"
            detail = msg(
                'found {count} fields, as in EPD; a FEN record has 6: write "{suggestion}"',
                count=count, suggestion=shown(suggestion))
        else:
            detail = msgn(
                'found {count} field; a FEN record has 6, separated by single spaces',
                'found {count} fields; a FEN record has 6, separated by single spaces', count)
        raise FenSyntaxError(0, "field-count", text, detail, suggestion=suggestion)
    suggestion = " ".join(words)
    if text != text.strip():
        raise FenSyntaxError(0, "blank-edge", text, msg(
            'found {count} fields with blanks before or after them; write "{suggestion}"',
            count=count, suggestion=shown(suggestion)), suggestion=suggestion)
    raise FenSyntaxError(0, "separator", text, msg(
        'found {count} fields, but they must be separated by single spaces; '
        'write "{suggestion}"', count=count, suggestion=shown(suggestion)),
        suggestion=suggestion)


def _adjacent_digits(rank: str, end: int) -> NoReturn:
    # Adding up each run of digits is the obvious fix when no run exceeds 8.
    parts: list[str] = []
    run = 0
    for c in rank:
        if c in "12345678":
            run += int(c)
            continue
        if run:
            parts.append(str(run))
            run = 0
        parts.append(c)
    if run:
        parts.append(str(run))
    merged = "".join(parts)
    if all(len(part) == 1 for part in parts if part.isdigit()) and "9" not in merged \
            and "0" not in merged:
        raise FenSyntaxError(1, "adjacent-digits", rank, msg(
            'rank {rank} ("{text}") has two digits in a row; write "{suggestion}"',
            rank=end // 8, text=shown(rank), suggestion=shown(merged)), suggestion=merged)
    raise FenSyntaxError(1, "adjacent-digits", rank, msg(
        'rank {rank} ("{text}") has two digits in a row; count a run of empty squares '
        'with a single digit', rank=end // 8, text=shown(rank)))


def _bad_placement_char(rank: str, end: int, c: str) -> NoReturn:
    if c in "09":
        raise FenSyntaxError(1, "bad-digit", rank, msg(
            'rank {rank} ("{text}"): "{char}" is not a count of empty squares (1 to 8)',
            rank=end // 8, text=shown(rank), char=c))
    raise FenSyntaxError(1, "bad-piece", rank, msg(
        'rank {rank} ("{text}"): "{char}" is not a piece letter '
        '(PNBRQK for White, pnbrqk for Black) nor a digit 1 to 8',
        rank=end // 8, text=shown(rank), char=shown(c)))


def rank_error(rank: str, end: int) -> NoReturn:
    """Report the first problem of one rank, in text order, then its length."""
    squares, prev_digit = 0, False
    for c in rank:
        if c in "12345678":
            if prev_digit:
                _adjacent_digits(rank, end)
            squares += int(c)
            prev_digit = True
        elif c in "PNBRQKpnbrqk":
            squares += 1
            prev_digit = False
        else:
            _bad_placement_char(rank, end, c)
    raise FenSyntaxError(1, "rank-length", rank, msgn(
        'rank {rank} ("{text}") covers {count} square; a rank has 8',
        'rank {rank} ("{text}") covers {count} squares; a rank has 8', squares,
        rank=end // 8, text=shown(rank)))


def material_error(placement: str, bbs: list[int], counts: bool = True) -> None:
    """Report the first material problem: kings, then pawns, then piece counts."""
    P, N, B, R, Q, K, p, n, b, r, q, k = bbs
    for side, kings in ((WHITE, K), (BLACK, k)):
        count = kings.bit_count()
        if count != 1:
            raise InvalidPositionError(1, "king-count", placement, _KING_COUNT[side](count))
    backrank = (P | p) & BACKRANKS
    if backrank:
        bad = SQUARE_NAMES[(backrank & -backrank).bit_length() - 1]
        raise InvalidPositionError(1, "pawn-backrank", placement, msg(
            "a pawn stands on {square}; pawns never stand on rank 1 or 8", square=bad))
    white, black = P | N | B | R | Q | K, p | n | b | r | q | k
    for side, pawns, men in ((WHITE, P, white), (BLACK, p, black)):
        count = pawns.bit_count()
        if count > 8:
            raise InvalidPositionError(1, "pawn-count", placement, _PAWN_COUNT[side](count))
        count = men.bit_count()
        if count > 16:
            raise InvalidPositionError(1, "piece-count", placement, _PIECE_COUNT[side](count))


def check_geometry(placement: str, side: int, ksq: int, checkers: int) -> None:
    count = checkers.bit_count()
    square = SQUARE_NAMES[ksq]
    if count > 2:
        raise InvalidPositionError(1, "too-many-checkers", placement,
                                   _TOO_MANY_CHECKERS[side](square, count))
    if count == 2:
        a = (checkers & -checkers).bit_length() - 1
        b = checkers.bit_length() - 1
        if _RAYS[a][b] >> ksq & 1:
            raise InvalidPositionError(1, "impossible-check", placement, _IMPOSSIBLE_CHECK[side](
                square, SQUARE_NAMES[a], SQUARE_NAMES[b]))


def castling_ok(bbs: list[int], letter: str) -> bool:
    ksq, rsq, base = _CASTLING_HOME[letter]
    return bool(bbs[base + 5] >> ksq & 1 and bbs[base + 3] >> rsq & 1)


def castling_syntax(castling: str) -> NoReturn:
    for c in castling:
        if c not in _CASTLING_ORDER:
            letters = "".join(x for x in _CASTLING_ORDER if x in castling)
            suggestion = letters if c == "-" and letters else None
            if suggestion:
                detail = msg('"{text}" mixes "-" with letters; write "{suggestion}"',
                             text=shown(castling), suggestion=suggestion)
            else:
                detail = msg('"{text}": "{char}" is not a castling letter; use K, Q, k, q '
                             'or "-" alone', text=shown(castling), char=shown(c))
            raise FenSyntaxError(3, "castling-char", castling, detail, suggestion=suggestion)
    ordered = "".join(x for x in _CASTLING_ORDER if x in castling)
    if len(castling) > len(ordered):
        # Only four letters exist, so a repeat shows within the first five.
        c = next(c for i, c in enumerate(castling) if c in castling[:i])
        raise FenSyntaxError(3, "castling-repeat", castling, msg(
            '"{text}" repeats "{char}"; write "{suggestion}"',
            text=shown(castling), char=c, suggestion=ordered), suggestion=ordered)
    raise FenSyntaxError(3, "castling-order", castling, msg(
        '"{text}" is out of order; write "{suggestion}"', text=castling, suggestion=ordered),
        suggestion=ordered)


def ep_syntax(ep: str) -> NoReturn:
    if len(ep) == 2 and ep[0] in "abcdefgh" and ep[1] in "12345678":
        raise FenSyntaxError(4, "ep-rank", ep, msg(
            '"{text}" is not on rank 3 or 6, where a pawn passes over in a two-square push',
            text=ep))
    lowered = ep.lower()
    if lowered in EP_SQUARES:
        raise FenSyntaxError(4, "ep-square", ep, msg(
            '"{text}" is not "-" or a square; write "{suggestion}"',
            text=shown(ep), suggestion=lowered), suggestion=lowered)
    raise FenSyntaxError(4, "ep-square", ep, msg(
        '"{text}" is not "-" or a square such as "e3"', text=shown(ep)))


def check_ep(ep: str, ep_sq: int, turn: str, occ: int, pushers: int, ksq: int,
              checkers: int, bbs: list[int]) -> None:
    if turn == "w":
        if ep_sq < 40:
            raise InvalidPositionError(4, "ep-turn", ep, _EP_TURN[turn](ep), suggestion="-")
        pushed, origin = ep_sq - 8, ep_sq + 8
    else:
        if ep_sq >= 40:
            raise InvalidPositionError(4, "ep-turn", ep, _EP_TURN[turn](ep), suggestion="-")
        pushed, origin = ep_sq + 8, ep_sq - 8
    if occ >> ep_sq & 1:
        raise InvalidPositionError(4, "ep-occupied", ep, msg(
            '"{text}" is occupied, but the square a pawn has just passed over is empty; '
            'write "-"', text=ep), suggestion="-")
    if occ >> origin & 1:
        raise InvalidPositionError(4, "ep-origin", ep, msg(
            '{square} is occupied, so no pawn has just left it to pass over "{text}"; '
            'write "-"', text=ep, square=SQUARE_NAMES[origin]), suggestion="-")
    if not pushers >> pushed & 1:
        raise InvalidPositionError(4, "ep-pawn", ep,
                                   _EP_PAWN[turn](ep, SQUARE_NAMES[pushed]), suggestion="-")
    if checkers:
        # The push can only have given check itself or uncovered one.
        impossible = checkers.bit_count() > 1
        if not impossible and checkers != 1 << pushed:
            before = (occ & ~(1 << pushed)) | (1 << origin)
            P, N, B, R, Q, K, p, n, b, r, q, k = bbs
            if turn == "w":
                found = attackers(ksq, before, p, PAWN_W, n, b | q, r | q, k)
            else:
                found = attackers(ksq, before, P, PAWN_B, N, B | Q, R | Q, K)
            impossible = bool(found & ~(1 << pushed))
        if impossible:
            raise InvalidPositionError(4, "ep-check", ep, msg(
                'the king on {square} is in a check that a pawn passing over "{text}" '
                'cannot have given; write "-"', square=SQUARE_NAMES[ksq], text=ep),
                suggestion="-")


def ep_halfmove(ep: str, half_text: str) -> NoReturn:
    # The two-square push that field 4 records is a pawn move: it reset the clock.
    raise InvalidPositionError(5, "ep-halfmove", half_text, msg(
        '"{text}" is not 0, but field {field} ({name}) says the last move was a two-square '
        'pawn push (over "{square}"), which resets this clock; write "0", or "-" in field {field}',
        text=shown(half_text), field=4, name=FIELD_NAMES[4], square=ep), suggestion="0")


def read_number(field: int, text: str, least: int) -> int:
    if text.isascii() and text.isdigit():
        if len(text) > 1 and text[0] == "0":
            fixed = text.lstrip("0") or "0"
            if least and fixed == "0":
                return _fullmove_zero(text)
            raise FenSyntaxError(field, "leading-zero", text, msg(
                '"{text}" starts with a zero; write "{suggestion}"',
                text=shown(text), suggestion=shown(fixed)), suggestion=fixed)
        if len(text) > MAX_DIGITS:
            raise FenSyntaxError(field, "number-too-long", text, msg(
                '"{text}" has {count} digits; at most {limit} are accepted',
                text=shown(text), count=len(text), limit=MAX_DIGITS))
        value = int(text)
        if value < least:
            return _fullmove_zero(text)
        return value
    suggestion = None
    try:
        number: int | None = int(text)  # accepts "+5", "1_0", other scripts' digits
    except ValueError:
        number = None
    if number is not None and number >= least and len(text) <= MAX_DIGITS:
        suggestion = str(number)
    code = "halfmove-number" if field == 5 else "fullmove-number"
    if field == 5:
        detail = msg('"{text}" is not a whole number of 0 or more, in digits 0-9',
                     text=shown(text))
    else:
        detail = msg('"{text}" is not a whole number of 1 or more, in digits 0-9',
                     text=shown(text))
    if suggestion is not None:
        detail = msg('{detail}; write "{suggestion}"', detail=detail, suggestion=suggestion)
    raise FenSyntaxError(field, code, text, detail, suggestion=suggestion)


def _fullmove_zero(text: str) -> NoReturn:
    raise FenSyntaxError(6, "fullmove-zero", text, msg(
        '"{text}": the fullmove number starts at 1; write "1"', text=shown(text)),
        suggestion="1")
