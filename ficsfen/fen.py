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
no :class:`chess.Board` is built (that is several times slower).  The
errors are :mod:`ficsfen.fenerrors`', the rules that refuse a field and
their messages :mod:`ficsfen.fenrules`'; their public names are also this
module's.
"""

from __future__ import annotations

from dataclasses import dataclass

import chess

from ficsfen.fenerrors import (ERROR_CODES, FIELD_NAMES, MAX_DIGITS, FenError, FenSyntaxError,
                               InvalidPositionError, shown)
from ficsfen.fenrules import (BACKRANKS, BLACK, CASTLING_RIGHTS, CASTLING_VALID, EP_SQUARES, OPPOSITE_CHECK,
                              PAWN_B, PAWN_W, PLACEMENT, SQUARE_NAMES, WHITE, attackers, castling_ok,
                              castling_syntax, check_ep, check_geometry, ep_halfmove, ep_syntax, material_error,
                              rank_error, read_number, record_error)
from ficsfen.i18n import msg, msgn

__all__ = [
    "ERROR_CODES",
    "FIELD_NAMES",
    "MAX_DIGITS",
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

# The names the EPD and variant codecs call, under their names of before.
_shown = shown
_record_error = record_error
_ep_halfmove = ep_halfmove


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
# The parser


def _parse(text: str, validate: bool, counts: bool = True) -> Position:
    # ``counts`` off: a variant with pieces in hand checks its own material totals.
    fields = text.split(" ")
    if len(fields) != 6 or "" in fields:
        record_error(text)
    if not text.isprintable() and any(c.isspace() and c != " " for c in text):
        record_error(text)  # tabs, no-break spaces...: a separator problem
    placement, turn, castling, ep, half_text, full_text = fields

    # Field 1: placement, scanned once into twelve piece bitboards.
    ranks = placement.split("/")
    if len(ranks) != 8:
        n = len(ranks)
        raise FenSyntaxError(1, "rank-count", placement, msgn(
            'found {count} rank; a placement has 8, separated by "/"',
            'found {count} ranks; a placement has 8, separated by "/"', n))
    bbs = [0] * 12
    table = PLACEMENT
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
                        rank_error(rank, end)
                    sq -= v
                else:
                    if sq >= end:
                        rank_error(rank, end)
                    bbs[v] |= 1 << sq
                    sq += 1
                prev = v
            if sq != end:
                rank_error(rank, end)
            sq = end - 16
    except KeyError:
        rank_error(rank, end)

    P, N, B, R, Q, K, p, n, b, r, q, k = bbs
    white = P | N | B | R | Q | K
    black = p | n | b | r | q | k
    occ = white | black
    wk = bk = -1
    w_checkers = b_checkers = 0
    if validate:
        if (K.bit_count() != 1 or k.bit_count() != 1 or (P | p) & BACKRANKS
                or (counts and (P.bit_count() > 8 or p.bit_count() > 8
                                or white.bit_count() > 16 or black.bit_count() > 16))):
            material_error(placement, bbs, counts)
        wk = K.bit_length() - 1
        bk = k.bit_length() - 1
        # Who attacks each king, from python-chess's precomputed attack tables.
        w_checkers = attackers(wk, occ, p, PAWN_W, n, b | q, r | q, k)
        b_checkers = attackers(bk, occ, P, PAWN_B, N, B | Q, R | Q, K)
        if w_checkers:
            check_geometry(placement, WHITE, wk, w_checkers)
        if b_checkers:
            check_geometry(placement, BLACK, bk, b_checkers)

    # Field 2: active colour.
    if turn != "w" and turn != "b":
        lowered = turn.lower()
        suggestion = {"w": "w", "b": "b", "white": "w", "black": "b"}.get(lowered)
        detail = (msg('"{text}" is not "w" or "b"; write "{suggestion}"',
                      text=shown(turn), suggestion=suggestion)
                  if suggestion else
                  msg('"{text}" is not "w" (White to move) or "b" (Black to move)',
                      text=shown(turn)))
        raise FenSyntaxError(2, "turn", turn, detail, suggestion=suggestion)
    if validate and (b_checkers if turn == "w" else w_checkers):
        ksq = bk if turn == "w" else wk
        raise InvalidPositionError(2, "opposite-check", turn,
                                   OPPOSITE_CHECK[turn](SQUARE_NAMES[ksq]))

    # Field 3: castling availability.
    if castling != "-":
        if castling not in CASTLING_VALID:
            castling_syntax(castling)
        if validate:
            for letter in castling:
                if not castling_ok(bbs, letter):
                    kept = "".join(c for c in castling if castling_ok(bbs, c)) or "-"
                    raise InvalidPositionError(3, "castling-rights", castling,
                                               CASTLING_RIGHTS[letter](kept), suggestion=kept)

    # Field 4: en passant target square.
    if ep != "-":
        ep_sq = EP_SQUARES.get(ep)
        if ep_sq is None:
            ep_syntax(ep)
        if validate:
            check_ep(ep, ep_sq, turn, occ, P if turn == "b" else p,
                      wk if turn == "w" else bk, w_checkers if turn == "w" else b_checkers,
                      bbs)

    # Fields 5 and 6: the clocks.
    if (half_text.isdigit() and half_text.isascii() and len(half_text) <= MAX_DIGITS
            and (half_text[0] != "0" or half_text == "0")):
        halfmove = int(half_text)
    else:
        halfmove = read_number(5, half_text, 0)
    if halfmove and validate and ep != "-":
        ep_halfmove(ep, half_text)
    if (full_text.isdigit() and full_text.isascii() and len(full_text) <= MAX_DIGITS
            and full_text[0] != "0"):
        fullmove = int(full_text)
    else:
        fullmove = read_number(6, full_text, 1)
    return Position(placement, turn, castling, ep, halfmove, fullmove)
