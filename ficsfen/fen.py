"""The strict FEN codec: parse, validate and emit FEN records.

The rules are those of the PGN standard, section 16.1: six fields separated
by single spaces, a canonical piece placement, castling letters in ``KQkq``
order, and an en passant square written after *every* two-square pawn push,
even when no pawn can capture (python-chess writes that strict form with
``board.fen(en_passant="fen")``).  That push reset the halfmove clock, so a
record with an en passant square and a non-zero clock is refused, which
``chess.Board.status()`` lets through.

Errors are values: a :class:`FenError` names the field, a stable code, the
offending text and a lazy, translatable message, rendered per recipient.

Parsing is done with plain string operations and bitboards built while the
placement is scanned; checks are found with python-chess's attack tables, so
no :class:`chess.Board` is built (that is several times slower).
"""

from __future__ import annotations

from dataclasses import dataclass
from collections.abc import Callable, Mapping, Sequence
from typing import NoReturn

import chess

from ficsfen.i18n import DEFAULT_LANGUAGE, LocalizedError, Message, msg, msgn

__all__ = [
    "ERROR_CODES",
    "FIELD_NAMES",
    "FenError",
    "FenSyntaxError",
    "InvalidPositionError",
    "Position",
    "STARTING_FEN",
    "emit",
    "is_valid",
    "parse",
    "parse_syntax",
]

STARTING_FEN = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"

#: Field number -> its name; 0 stands for the record as a whole.
FIELD_NAMES: Mapping[int, Message] = {
    0: msg("record"),
    1: msg("placement"),
    2: msg("active colour"),
    3: msg("castling"),
    4: msg("en passant"),
    5: msg("halfmove clock"),
    6: msg("fullmove number"),
}

#: Every ``FenError.code`` the parser raises, with the field(s) it concerns.
ERROR_CODES: Mapping[str, tuple[int, ...]] = {
    "field-count": (0,),
    "blank-edge": (0,),
    "separator": (0,),
    "rank-count": (1,),
    "rank-length": (1,),
    "adjacent-digits": (1,),
    "bad-digit": (1,),
    "bad-piece": (1,),
    "king-count": (1,),
    "pawn-backrank": (1,),
    "pawn-count": (1,),
    "piece-count": (1,),
    "too-many-checkers": (1,),
    "impossible-check": (1,),
    "turn": (2,),
    "opposite-check": (2,),
    "castling-char": (3,),
    "castling-repeat": (3,),
    "castling-order": (3,),
    "castling-rights": (3,),
    "ep-square": (4,),
    "ep-rank": (4,),
    "ep-turn": (4,),
    "ep-occupied": (4,),
    "ep-origin": (4,),
    "ep-pawn": (4,),
    "ep-check": (4,),
    "ep-halfmove": (4, 5),
    "halfmove-number": (5,),
    "fullmove-number": (6,),
    "fullmove-zero": (6,),
    "leading-zero": (5, 6),
    "number-too-long": (5, 6),
}

# Longer numbers than this are refused before int() (Python limits int(str)
# to 4300 digits and would raise a plain ValueError).
MAX_DIGITS = 1000
_SHOWN_LIMIT = 100


def _shown(text: str) -> str:
    """The offending text as it is safe to print: escaped, and cut if long."""
    if len(text) > _SHOWN_LIMIT:
        text = text[:_SHOWN_LIMIT] + "\u2026"
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


class FenError(LocalizedError, ValueError):
    """A FEN record broke a rule.

    ``field`` is the field number (1-6, or 0 for the record as a whole),
    ``code`` a stable identifier such as ``"castling-order"``, ``text`` the
    offending text, ``message`` the lazy detail and ``suggestion`` the
    corrected text of that field (or record) when the fix is obvious.
    """

    field_names: Mapping[int, Message] = FIELD_NAMES

    def __init__(
        self,
        field: int,
        code: str,
        text: str,
        message: Message,
        *,
        suggestion: str | None = None,
    ) -> None:
        super().__init__(message, field, code, text)
        self.field = field
        self.code = code
        self.text = text
        self.suggestion = suggestion

    @property
    def field_name(self) -> Message:
        return self.field_names[self.field]

    def describe(self) -> Message:
        """The full error as a lazy message naming the field, to embed in others."""
        if self.field == 0:
            return msg("{name}: {detail}", name=self.field_name, detail=self.message)
        return msg(
            "field {number} ({name}): {detail}",
            number=self.field,
            name=self.field_name,
            detail=self.message,
        )

    def render(self, lang: str = DEFAULT_LANGUAGE) -> str:
        """The full error for one reader, e.g. ``field 3 (castling): ...``."""
        return self.describe().render(lang)

    def __repr__(self) -> str:
        extra = f", suggestion={self.suggestion!r}" if self.suggestion is not None else ""
        return (
            f"{type(self).__name__}({self.field!r}, {self.code!r}, {self.text!r}, "
            f"{self.message!r}{extra})"
        )

    def __reduce__(self) -> tuple[Callable[..., FenError], tuple[object, ...]]:
        # keep the keyword-only suggestion when pickled
        return (_rebuild_error, (type(self), self.field, self.code, self.text,
                                 self.message, self.suggestion))


def _rebuild_error(cls: type[FenError], field: int, code: str, text: str, message: Message,
                   suggestion: str | None) -> FenError:
    return cls(field, code, text, message, suggestion=suggestion)


class FenSyntaxError(FenError):
    """The record is not well-formed FEN text."""


class InvalidPositionError(FenError):
    """The record is well-formed but describes an impossible position."""


@dataclass(frozen=True, repr=False)
class Position:
    """One FEN record's six fields, as values.

    Build one with :func:`parse` (checked) rather than directly: the
    constructor trusts its arguments.
    """

    placement: str
    turn: str
    castling: str
    ep: str
    halfmove: int
    fullmove: int

    def fen(self) -> str:
        """The record, exactly per the standard."""
        return (
            f"{self.placement} {self.turn} {self.castling} {self.ep} "
            f"{self.halfmove} {self.fullmove}"
        )

    __str__ = fen

    def __repr__(self) -> str:
        return f"Position.from_fen({self.fen()!r})"

    @classmethod
    def from_fen(cls, text: str) -> Position:
        """Parse and validate ``text`` (raises :class:`FenError`)."""
        return parse(text)

    @classmethod
    def from_board(cls, board: chess.Board) -> Position:
        """The position of a python-chess board, keeping the strict en passant square."""
        return parse(board.fen(en_passant="fen"))

    def board(self) -> chess.Board:
        """A python-chess board for this position (its ``ep_square`` is kept)."""
        return chess.Board(self.fen())


def emit(position: Position) -> str:
    """The FEN record of ``position``."""
    return position.fen()


def is_valid(text: str) -> bool:
    """Whether ``text`` is a valid FEN record of a possible position."""
    try:
        parse(text)
    except FenError:
        return False
    return True


def parse(text: str) -> Position:
    """Parse ``text`` strictly and validate the position it describes.

    Raises :class:`FenSyntaxError` or :class:`InvalidPositionError` (both
    :class:`FenError`) for the first problem in field order.
    """
    return _parse(text, True)


def parse_syntax(text: str) -> Position:
    """Parse ``text`` strictly, without checking that the position is possible."""
    return _parse(text, False)


# ---------------------------------------------------------------------------
# Tables

_SQUARE_NAMES = chess.SQUARE_NAMES
# Placement characters: 0-11 index a piece bitboard, -1..-8 are empty runs.
_PLACEMENT: dict[str, int] = {c: i for i, c in enumerate("PNBRQKpnbrqk")}
_PLACEMENT.update({str(d): -d for d in range(1, 9)})

_CASTLING_ORDER = "KQkq"
_CASTLING_VALID = frozenset(
    "".join(c for i, c in enumerate(_CASTLING_ORDER) if mask >> i & 1) for mask in range(1, 16)
)
# Letter -> (king square, rook square, colour index in the bitboard list).
_CASTLING_HOME = {
    "K": (chess.E1, chess.H1, 0),
    "Q": (chess.E1, chess.A1, 0),
    "k": (chess.E8, chess.H8, 6),
    "q": (chess.E8, chess.A8, 6),
}
_EP_SQUARES = {
    name: sq for sq, name in enumerate(_SQUARE_NAMES) if chess.square_rank(sq) in (2, 5)
}

_KNIGHT = chess.BB_KNIGHT_ATTACKS
_KING = chess.BB_KING_ATTACKS
_PAWN_W, _PAWN_B = chess.BB_PAWN_ATTACKS[chess.WHITE], chess.BB_PAWN_ATTACKS[chess.BLACK]
_DIAG_ATT, _DIAG_MASK = chess.BB_DIAG_ATTACKS, chess.BB_DIAG_MASKS
_RANK_ATT, _RANK_MASK = chess.BB_RANK_ATTACKS, chess.BB_RANK_MASKS
_FILE_ATT, _FILE_MASK = chess.BB_FILE_ATTACKS, chess.BB_FILE_MASKS
_RAYS = chess.BB_RAYS
_BACKRANKS = chess.BB_BACKRANKS


def _attackers(sq: int, occ: int, pawns: int, pawn_table: Sequence[int], knights: int, diag: int,
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
_WHITE, _BLACK = 0, 1

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
_OPPOSITE_CHECK = {
    "w": lambda sq: msg("White is to move but the Black king on {square} is in check; "
                        "the side that just moved cannot be in check", square=sq),
    "b": lambda sq: msg("Black is to move but the White king on {square} is in check; "
                        "the side that just moved cannot be in check", square=sq),
}
_CASTLING_RIGHTS = {
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


# ---------------------------------------------------------------------------
# The parser


def _parse(text: str, validate: bool, counts: bool = True) -> Position:
    # ``counts`` off: a variant with pieces in hand checks its own material totals.
    fields = text.split(" ")
    if len(fields) != 6 or "" in fields:
        _record_error(text)
    if not text.isprintable() and any(c.isspace() and c != " " for c in text):
        _record_error(text)  # tabs, no-break spaces...: a separator problem
    placement, turn, castling, ep, half_text, full_text = fields

    # Field 1: placement, scanned once into twelve piece bitboards.
    ranks = placement.split("/")
    if len(ranks) != 8:
        n = len(ranks)
        raise FenSyntaxError(1, "rank-count", placement, msgn(
            'found {count} rank; a placement has 8, separated by "/"',
            'found {count} ranks; a placement has 8, separated by "/"', n))
    bbs = [0] * 12
    table = _PLACEMENT
    sq = 56
    rank, end = "", 64
    try:
        for rank in ranks:
            end = sq + 8
            prev = 0
            for c in rank:
                v = table[c]
                if v < 0:  # a run of empty squares
                    if prev < 0:
                        _rank_error(rank, end)
                    sq -= v
                else:
                    if sq >= end:
                        _rank_error(rank, end)
                    bbs[v] |= 1 << sq
                    sq += 1
                prev = v
            if sq != end:
                _rank_error(rank, end)
            sq = end - 16
    except KeyError:
        _rank_error(rank, end)

    P, N, B, R, Q, K, p, n, b, r, q, k = bbs
    white = P | N | B | R | Q | K
    black = p | n | b | r | q | k
    occ = white | black
    wk = bk = -1
    w_checkers = b_checkers = 0
    if validate:
        if (K.bit_count() != 1 or k.bit_count() != 1 or (P | p) & _BACKRANKS
                or (counts and (P.bit_count() > 8 or p.bit_count() > 8
                                or white.bit_count() > 16 or black.bit_count() > 16))):
            _material_error(placement, bbs, counts)
        wk = K.bit_length() - 1
        bk = k.bit_length() - 1
        # Who attacks each king, from python-chess's precomputed attack tables.
        w_checkers = _attackers(wk, occ, p, _PAWN_W, n, b | q, r | q, k)
        b_checkers = _attackers(bk, occ, P, _PAWN_B, N, B | Q, R | Q, K)
        if w_checkers:
            _check_geometry(placement, _WHITE, wk, w_checkers)
        if b_checkers:
            _check_geometry(placement, _BLACK, bk, b_checkers)

    # Field 2: active colour.
    if turn != "w" and turn != "b":
        lowered = turn.lower()
        suggestion = {"w": "w", "b": "b", "white": "w", "black": "b"}.get(lowered)
        detail = (msg('"{text}" is not "w" or "b"; write "{suggestion}"',
                      text=_shown(turn), suggestion=suggestion)
                  if suggestion else
                  msg('"{text}" is not "w" (White to move) or "b" (Black to move)',
                      text=_shown(turn)))
        raise FenSyntaxError(2, "turn", turn, detail, suggestion=suggestion)
    if validate and (b_checkers if turn == "w" else w_checkers):
        ksq = bk if turn == "w" else wk
        raise InvalidPositionError(2, "opposite-check", turn,
                                   _OPPOSITE_CHECK[turn](_SQUARE_NAMES[ksq]))

    # Field 3: castling availability.
    if castling != "-":
        if castling not in _CASTLING_VALID:
            _castling_syntax(castling)
        if validate:
            for letter in castling:
                if not _castling_ok(bbs, letter):
                    kept = "".join(c for c in castling if _castling_ok(bbs, c)) or "-"
                    raise InvalidPositionError(3, "castling-rights", castling,
                                               _CASTLING_RIGHTS[letter](kept), suggestion=kept)

    # Field 4: en passant target square.
    if ep != "-":
        ep_sq = _EP_SQUARES.get(ep)
        if ep_sq is None:
            _ep_syntax(ep)
        if validate:
            _check_ep(ep, ep_sq, turn, occ, P if turn == "b" else p,
                      wk if turn == "w" else bk, w_checkers if turn == "w" else b_checkers,
                      bbs)

    # Fields 5 and 6: the clocks.
    if (half_text.isdigit() and half_text.isascii() and len(half_text) <= MAX_DIGITS
            and (half_text[0] != "0" or half_text == "0")):
        halfmove = int(half_text)
    else:
        halfmove = _number(5, half_text, 0)
    if halfmove and validate and ep != "-":
        _ep_halfmove(ep, half_text)
    if (full_text.isdigit() and full_text.isascii() and len(full_text) <= MAX_DIGITS
            and full_text[0] != "0"):
        fullmove = int(full_text)
    else:
        fullmove = _number(6, full_text, 1)
    return Position(placement, turn, castling, ep, halfmove, fullmove)


def _record_error(text: str) -> NoReturn:
    words = text.split()
    count = len(words)
    if count != 6:
        suggestion = None
        if count == 4 and text == " ".join(words):
            suggestion = text + " 0 1"
            detail = msg(
                'found {count} fields, as in EPD; a FEN record has 6: write "{suggestion}"',
                count=count, suggestion=_shown(suggestion))
        else:
            detail = msgn(
                'found {count} field; a FEN record has 6, separated by single spaces',
                'found {count} fields; a FEN record has 6, separated by single spaces', count)
        raise FenSyntaxError(0, "field-count", text, detail, suggestion=suggestion)
    suggestion = " ".join(words)
    if text != text.strip():
        raise FenSyntaxError(0, "blank-edge", text, msg(
            'found {count} fields with blanks before or after them; write "{suggestion}"',
            count=count, suggestion=_shown(suggestion)), suggestion=suggestion)
    raise FenSyntaxError(0, "separator", text, msg(
        'found {count} fields, but they must be separated by single spaces; '
        'write "{suggestion}"', count=count, suggestion=_shown(suggestion)),
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
            rank=end // 8, text=_shown(rank), suggestion=_shown(merged)), suggestion=merged)
    raise FenSyntaxError(1, "adjacent-digits", rank, msg(
        'rank {rank} ("{text}") has two digits in a row; count a run of empty squares '
        'with a single digit', rank=end // 8, text=_shown(rank)))


def _bad_placement_char(rank: str, end: int, c: str) -> NoReturn:
    if c in "09":
        raise FenSyntaxError(1, "bad-digit", rank, msg(
            'rank {rank} ("{text}"): "{char}" is not a count of empty squares (1 to 8)',
            rank=end // 8, text=_shown(rank), char=c))
    raise FenSyntaxError(1, "bad-piece", rank, msg(
        'rank {rank} ("{text}"): "{char}" is not a piece letter '
        '(PNBRQK for White, pnbrqk for Black) nor a digit 1 to 8',
        rank=end // 8, text=_shown(rank), char=_shown(c)))


def _rank_error(rank: str, end: int) -> NoReturn:
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
        rank=end // 8, text=_shown(rank)))


def _material_error(placement: str, bbs: list[int], counts: bool = True) -> None:
    """Report the first material problem: kings, then pawns, then piece counts."""
    P, N, B, R, Q, K, p, n, b, r, q, k = bbs
    for side, kings in ((_WHITE, K), (_BLACK, k)):
        count = kings.bit_count()
        if count != 1:
            raise InvalidPositionError(1, "king-count", placement, _KING_COUNT[side](count))
    backrank = (P | p) & _BACKRANKS
    if backrank:
        bad = _SQUARE_NAMES[(backrank & -backrank).bit_length() - 1]
        raise InvalidPositionError(1, "pawn-backrank", placement, msg(
            "a pawn stands on {square}; pawns never stand on rank 1 or 8", square=bad))
    white, black = P | N | B | R | Q | K, p | n | b | r | q | k
    for side, pawns, men in ((_WHITE, P, white), (_BLACK, p, black)):
        count = pawns.bit_count()
        if count > 8:
            raise InvalidPositionError(1, "pawn-count", placement, _PAWN_COUNT[side](count))
        count = men.bit_count()
        if count > 16:
            raise InvalidPositionError(1, "piece-count", placement, _PIECE_COUNT[side](count))


def _check_geometry(placement: str, side: int, ksq: int, checkers: int) -> None:
    count = checkers.bit_count()
    square = _SQUARE_NAMES[ksq]
    if count > 2:
        raise InvalidPositionError(1, "too-many-checkers", placement,
                                   _TOO_MANY_CHECKERS[side](square, count))
    if count == 2:
        a = (checkers & -checkers).bit_length() - 1
        b = checkers.bit_length() - 1
        if _RAYS[a][b] >> ksq & 1:
            raise InvalidPositionError(1, "impossible-check", placement, _IMPOSSIBLE_CHECK[side](
                square, _SQUARE_NAMES[a], _SQUARE_NAMES[b]))


def _castling_ok(bbs: list[int], letter: str) -> bool:
    ksq, rsq, base = _CASTLING_HOME[letter]
    return bool(bbs[base + 5] >> ksq & 1 and bbs[base + 3] >> rsq & 1)


def _castling_syntax(castling: str) -> NoReturn:
    for c in castling:
        if c not in _CASTLING_ORDER:
            letters = "".join(x for x in _CASTLING_ORDER if x in castling)
            suggestion = letters if c == "-" and letters else None
            if suggestion:
                detail = msg('"{text}" mixes "-" with letters; write "{suggestion}"',
                             text=_shown(castling), suggestion=suggestion)
            else:
                detail = msg('"{text}": "{char}" is not a castling letter; use K, Q, k, q '
                             'or "-" alone', text=_shown(castling), char=_shown(c))
            raise FenSyntaxError(3, "castling-char", castling, detail, suggestion=suggestion)
    ordered = "".join(x for x in _CASTLING_ORDER if x in castling)
    if len(castling) > len(ordered):
        # Only four letters exist, so a repeat shows within the first five.
        c = next(c for i, c in enumerate(castling) if c in castling[:i])
        raise FenSyntaxError(3, "castling-repeat", castling, msg(
            '"{text}" repeats "{char}"; write "{suggestion}"',
            text=_shown(castling), char=c, suggestion=ordered), suggestion=ordered)
    raise FenSyntaxError(3, "castling-order", castling, msg(
        '"{text}" is out of order; write "{suggestion}"', text=castling, suggestion=ordered),
        suggestion=ordered)


def _ep_syntax(ep: str) -> NoReturn:
    if len(ep) == 2 and ep[0] in "abcdefgh" and ep[1] in "12345678":
        raise FenSyntaxError(4, "ep-rank", ep, msg(
            '"{text}" is not on rank 3 or 6, where a pawn passes over in a two-square push',
            text=ep))
    lowered = ep.lower()
    if lowered in _EP_SQUARES:
        raise FenSyntaxError(4, "ep-square", ep, msg(
            '"{text}" is not "-" or a square; write "{suggestion}"',
            text=_shown(ep), suggestion=lowered), suggestion=lowered)
    raise FenSyntaxError(4, "ep-square", ep, msg(
        '"{text}" is not "-" or a square such as "e3"', text=_shown(ep)))


def _check_ep(ep: str, ep_sq: int, turn: str, occ: int, pushers: int, ksq: int,
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
            'write "-"', text=ep, square=_SQUARE_NAMES[origin]), suggestion="-")
    if not pushers >> pushed & 1:
        raise InvalidPositionError(4, "ep-pawn", ep,
                                   _EP_PAWN[turn](ep, _SQUARE_NAMES[pushed]), suggestion="-")
    if checkers:
        # The push can only have given check itself or uncovered one.
        impossible = checkers.bit_count() > 1
        if not impossible and checkers != 1 << pushed:
            before = (occ & ~(1 << pushed)) | (1 << origin)
            P, N, B, R, Q, K, p, n, b, r, q, k = bbs
            if turn == "w":
                attackers = _attackers(ksq, before, p, _PAWN_W, n, b | q, r | q, k)
            else:
                attackers = _attackers(ksq, before, P, _PAWN_B, N, B | Q, R | Q, K)
            impossible = bool(attackers & ~(1 << pushed))
        if impossible:
            raise InvalidPositionError(4, "ep-check", ep, msg(
                'the king on {square} is in a check that a pawn passing over "{text}" '
                'cannot have given; write "-"', square=_SQUARE_NAMES[ksq], text=ep),
                suggestion="-")


def _ep_halfmove(ep: str, half_text: str) -> NoReturn:
    # The two-square push that field 4 records is a pawn move: it reset the clock.
    raise InvalidPositionError(5, "ep-halfmove", half_text, msg(
        '"{text}" is not 0, but field {field} ({name}) says the last move was a two-square '
        'pawn push (over "{square}"), which resets this clock; write "0", or "-" in field {field}',
        text=_shown(half_text), field=4, name=FIELD_NAMES[4], square=ep), suggestion="0")


def _number(field: int, text: str, least: int) -> int:
    if text.isascii() and text.isdigit():
        if len(text) > 1 and text[0] == "0":
            fixed = text.lstrip("0") or "0"
            if least and fixed == "0":
                return _fullmove_zero(text)
            raise FenSyntaxError(field, "leading-zero", text, msg(
                '"{text}" starts with a zero; write "{suggestion}"',
                text=_shown(text), suggestion=_shown(fixed)), suggestion=fixed)
        if len(text) > MAX_DIGITS:
            raise FenSyntaxError(field, "number-too-long", text, msg(
                '"{text}" has {count} digits; at most {limit} are accepted',
                text=_shown(text), count=len(text), limit=MAX_DIGITS))
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
                     text=_shown(text))
    else:
        detail = msg('"{text}" is not a whole number of 1 or more, in digits 0-9',
                     text=_shown(text))
    if suggestion is not None:
        detail = msg('{detail}; write "{suggestion}"', detail=detail, suggestion=suggestion)
    raise FenSyntaxError(field, code, text, detail, suggestion=suggestion)


def _fullmove_zero(text: str) -> NoReturn:
    raise FenSyntaxError(6, "fullmove-zero", text, msg(
        '"{text}": the fullmove number starts at 1; write "1"', text=_shown(text)),
        suggestion="1")
