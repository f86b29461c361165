"""FEN for the variants FICS plays: Chess960 (X-FEN, Shredder-FEN) and crazyhouse.

Chess960 keeps FEN's six fields, but the castling field must say which rook
may still castle: X-FEN writes ``K``/``Q`` (``k``/``q``) when that rook is the
outermost of its colour on that side of the king and the rook's file letter
otherwise; Shredder-FEN always writes the file letter (``HAha`` for the usual
corners).  Both are read here, in any mix, and either is written.

Crazyhouse FEN appends the pieces in hand to the placement in brackets
(``.../RNBQKBNR[QNPbp]``, White's in capitals) and marks a piece that was a
pawn with ``~`` after its letter (``Q~``): captured, it goes into the hand as
a pawn.  Holdings are read in any order and written ``QRBNP`` for White then
``qrbnp`` for Black, as python-chess and lichess write them.  Two other
forms are read, never written: the pieces in hand as a ninth rank
(``.../RNBQKBNR/QNPbp``, as lichess's scalachess writes them) and with no
brackets after the last rank's eighth square (``.../RNBQKBNRQNPbp``).

The rest is standard FEN, checked by :mod:`ficsfen.fen` with its strict en
passant rule (the square is written after every two-square push).  The rules
of play are python-chess's variant boards (:class:`chess.Board` with
``chess960=True``, :class:`chess.variant.CrazyhouseBoard`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Mapping

import chess
import chess.variant

from ficsfen import fen as _fen
from ficsfen.fen import FenError, FenSyntaxError, InvalidPositionError
from ficsfen.i18n import LocalizedError, Message, msg

__all__ = [
    "CHESS960",
    "CRAZYHOUSE",
    "CastlingRightsError",
    "HoldingsError",
    "PromotedMarkError",
    "TooManyPiecesError",
    "UnknownVariantError",
    "VARIANTS",
    "Variant",
    "VariantPosition",
    "board_castling",
    "convert_castling",
    "chess960_fen",
    "emit_variant",
    "expand_rank",
    "is_valid_variant",
    "parse_variant",
    "variant_named",
    "variant_of_board",
]


# ---------------------------------------------------------------------------
# Errors


class HoldingsError(FenSyntaxError):
    """The crazyhouse holdings (``[...]`` after the placement) are not well-formed."""


class PromotedMarkError(FenSyntaxError):
    """A ``~`` promoted marker that does not follow a knight, bishop, rook or queen."""


class CastlingRightsError(InvalidPositionError):
    """A Chess960 castling letter with no king or no rook where it needs one."""


class TooManyPiecesError(InvalidPositionError):
    """More pieces of one kind, counting those in hand, than the variant's game has."""


class UnknownVariantError(LocalizedError, ValueError):
    """A variant name we do not play (``name`` is what was given)."""

    def __init__(self, name: str) -> None:
        self.name = name
        super().__init__(msg('unknown variant "{name}"; ficsfen knows {choices}',
                             name=_fen._shown(name), choices="chess960, crazyhouse"))


# ---------------------------------------------------------------------------
# The variants


@dataclass(frozen=True)
class Variant:
    """One variant: its name, its python-chess board, and what its FEN adds."""

    name: str  #: ``chess960`` or ``crazyhouse``
    title: str  #: as a PGN ``Variant`` tag writes it
    board_class: type[chess.Board]
    chess960: bool  #: castling with any rook, king-takes-rook
    holdings: bool  #: pieces in hand, ``[...]`` after the placement
    starting_fen: str
    aliases: tuple[str, ...] = ()

    def board(self, fen: str | None = None) -> chess.Board:
        """A python-chess board of this variant (strict en passant square kept)."""
        return self.board_class(self.starting_fen if fen is None else fen, chess960=self.chess960)


CHESS960 = Variant(
    "chess960", "Chess960", chess.Board, True, False, _fen.STARTING_FEN,
    ("chess960", "chess 960", "960", "fischerandom", "fischer random", "fischer random chess",
     "fr", "wild/fr", "frc"))
CRAZYHOUSE = Variant(
    "crazyhouse", "Crazyhouse", chess.variant.CrazyhouseBoard, False, True,
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[] w KQkq - 0 1",
    ("crazyhouse", "crazy house", "zh", "house"))

#: Variant name -> :class:`Variant`.
VARIANTS: Mapping[str, Variant] = {v.name: v for v in (CHESS960, CRAZYHOUSE)}
_ALIASES = {alias: v for v in VARIANTS.values() for alias in v.aliases}


def variant_named(name: str | Variant) -> Variant:
    """The variant a name stands for: ours, a PGN tag's (``Chess960``), FICS's (``fr``, ``zh``)."""
    if isinstance(name, Variant):
        return name
    found = _ALIASES.get(name.strip().casefold())
    if found is None:
        raise UnknownVariantError(name)
    return found


def variant_of_board(board: chess.Board) -> Variant | None:
    """The variant a python-chess board plays (``None`` for standard chess)."""
    if isinstance(board, chess.variant.CrazyhouseBoard):
        return CRAZYHOUSE
    if board.chess960:
        return CHESS960
    return None


# ---------------------------------------------------------------------------
# Positions


def chess960_fen(number: int) -> str:
    """The starting record of Chess960 position ``number`` (0-959; 518 is the usual one), in X-FEN."""
    board = chess.Board.from_chess960_pos(number)
    return f"{board.board_fen()} w {board.castling_xfen()} - 0 1"


@dataclass(frozen=True, repr=False)
class VariantPosition:
    """One variant FEN record, as values (build one with :func:`parse_variant`).

    ``castling`` is the X-FEN field, ``shredder`` the Shredder-FEN one (the
    same for crazyhouse); ``holdings`` is ``None`` for Chess960.
    """

    variant: Variant
    placement: str  #: the board, with ``~`` markers for crazyhouse
    holdings: str | None
    turn: str
    castling: str
    shredder: str
    ep: str
    halfmove: int
    fullmove: int

    def fen(self, *, shredder: bool = False) -> str:
        """The record: X-FEN castling, or Shredder-FEN with ``shredder=True``."""
        board = self.placement if self.holdings is None else f"{self.placement}[{self.holdings}]"
        castling = self.shredder if shredder else self.castling
        return f"{board} {self.turn} {castling} {self.ep} {self.halfmove} {self.fullmove}"

    def __str__(self) -> str:
        return self.fen()

    def __repr__(self) -> str:
        return f"parse_variant({self.fen()!r}, {self.variant.name!r})"

    def board(self) -> chess.Board:
        """A python-chess board of the variant for this position."""
        return self.variant.board(self.fen())

    @classmethod
    def from_board(cls, board: chess.Board) -> VariantPosition:
        """The position of a python-chess variant board, strict en passant square kept."""
        variant = variant_of_board(board)
        if variant is None:
            raise UnknownVariantError("standard")
        return parse_variant(board.fen(en_passant="fen"), variant)


def emit_variant(position: VariantPosition, *, shredder: bool = False) -> str:
    """The FEN record of ``position`` (X-FEN castling unless ``shredder``)."""
    return position.fen(shredder=shredder)


def is_valid_variant(text: str, variant: str | Variant) -> bool:
    """Whether ``text`` is a valid FEN record of a possible position of ``variant``."""
    try:
        parse_variant(text, variant)
    except FenError:
        return False
    return True


def parse_variant(text: str, variant: str | Variant) -> VariantPosition:
    """Parse ``text`` strictly as a FEN record of ``variant`` and validate the position.

    Raises a :class:`~ficsfen.fen.FenError` naming the field (the holdings
    are part of field 1): :class:`HoldingsError`, :class:`PromotedMarkError`,
    :class:`CastlingRightsError`, :class:`TooManyPiecesError` or one of the
    standard codec's errors.
    """
    v = variant_named(variant)
    fields = text.split(" ")
    if len(fields) != 6 or "" in fields or (
            not text.isprintable() and any(c.isspace() and c != " " for c in text)):
        _fen._record_error(text)
    placement, turn, castling, ep, half, full = fields
    board_part = marked = placement
    holdings = None
    if v.holdings:
        marked, held = _split_holdings(placement)
        board_part = _promoted_marks(marked)
        holdings = _holdings(held)
    if v.chess960:
        # Fields 1 and 2, then castling, then the rest, so errors come in field order.
        _fen._parse(f"{board_part} {turn} - - 0 1", True)
        xfen, shredder = _castling960(board_part, castling)
        position = _fen._parse(f"{board_part} {turn} - {ep} {half} {full}", True)
    else:
        castling = castling.translate(_XFEN_CORNERS)  # Shredder-FEN's corner files
        position = _fen._parse(f"{board_part} {turn} {castling} {ep} {half} {full}", True, False)
        xfen = position.castling
        shredder = xfen.translate(_SHREDDER_CORNERS)
        _check_totals(marked, holdings or "")
    return VariantPosition(v, marked, holdings, turn, xfen, shredder, position.ep,
                           position.halfmove, position.fullmove)


# ---------------------------------------------------------------------------
# Crazyhouse: holdings and promoted pieces

_HELD_ORDER = "QRBNPqrbnp"
_HELD_RANK = {c: i for i, c in enumerate(_HELD_ORDER)}


def _split_holdings(placement: str) -> tuple[str, str]:
    """The board (``~`` marks kept) and the pieces in hand of a crazyhouse placement.

    Read in three forms: in brackets after the board (``.../RNBQKBNR[Pp]``,
    the one we write), as a ninth rank (``.../RNBQKBNR/Pp``, as lichess's
    scalachess writes them) and with no brackets, right after the eighth
    square of the last rank (``.../RNBQKBNRPp``); with neither, nothing is
    in hand.  A board that is not well-formed is left whole, for the
    standard codec to say what is wrong with it.
    """
    opening = placement.find("[")
    if opening < 0:
        if placement.count("/") == 8:  # the pieces in hand as a ninth rank
            board, _, held = placement.rpartition("/")
            return board, held
        return _unbracketed(placement)
    if not placement.endswith("]") or placement.count("[") != 1 or placement.count("]") != 1:
        raise HoldingsError(1, "holdings-bracket", placement, msg(
            '"{text}": the pieces in hand go in one pair of brackets at the end of the placement',
            text=_fen._shown(placement)))
    return placement[:opening], placement[opening + 1:-1]


def _unbracketed(placement: str) -> tuple[str, str]:
    """Split after the eighth square of the last rank: the letters after it are in hand."""
    start = placement.rfind("/") + 1
    squares = 0
    for index in range(start, len(placement)):
        c = placement[index]
        if c != "~":
            if squares == 8:
                held = placement[index:]
                if held.isalpha() and held.isascii():
                    return placement[:index], held
                break
            squares += int(c) if c in "12345678" else 1
    return placement, ""


def _holdings(held: str) -> str:
    for c in held:
        if c not in _HELD_RANK:
            if c in "Kk":
                raise HoldingsError(1, "holdings-king", held, msg(
                    '"[{text}]": a king is never in hand', text=_fen._shown(held)))
            raise HoldingsError(1, "holdings-char", held, msg(
                '"[{text}]": "{char}" is not a piece letter that can be in hand '
                '(QRBNP for White, qrbnp for Black)', text=_fen._shown(held), char=_fen._shown(c)))
    return "".join(sorted(held, key=_HELD_RANK.__getitem__))


def _promoted_marks(board: str) -> str:
    """The placement without its ``~`` markers, each checked to follow N, B, R or Q."""
    if "~" not in board:
        return board
    for index, rank in enumerate(board.split("/")):
        previous = ""
        for c in rank:
            if c == "~" and (not previous or previous not in "NBRQnbrq"):
                raise PromotedMarkError(1, "promoted-mark", rank, msg(
                    'rank {rank} ("{text}"): "~" marks a promoted piece and follows '
                    'its letter (N, B, R or Q)', rank=8 - index, text=_fen._shown(rank)))
            previous = c
    return board.replace("~", "")


# (piece type, how many a game has, the message)
_TOTALS: tuple[tuple[int, int, Callable[[int], Message]], ...] = (
    (chess.PAWN, 16, lambda n: msg(
        "{count} pawns, counting promoted pieces and pawns in hand; a game has 16", count=n)),
    (chess.KNIGHT, 4, lambda n: msg(
        "{count} knights that are not promoted pawns, counting those in hand; a game has 4",
        count=n)),
    (chess.BISHOP, 4, lambda n: msg(
        "{count} bishops that are not promoted pawns, counting those in hand; a game has 4",
        count=n)),
    (chess.ROOK, 4, lambda n: msg(
        "{count} rooks that are not promoted pawns, counting those in hand; a game has 4",
        count=n)),
    (chess.QUEEN, 2, lambda n: msg(
        "{count} queens that are not promoted pawns, counting those in hand; a game has 2; "
        'mark a promoted queen "Q~"', count=n)),
)


def _check_totals(placement: str, holdings: str) -> None:
    """No capture or drop creates material: every piece on the board or in hand is one of the 32."""
    board = placement.partition("[")[0]
    held = holdings.lower()
    for piece_type, most, message in _TOTALS:
        letter = chess.piece_symbol(piece_type)
        upper = letter.upper()
        count = board.count(letter) + board.count(upper) + held.count(letter)
        if piece_type == chess.PAWN:
            count += board.count("~")  # a promoted piece was a pawn
        else:
            count -= board.count(letter + "~") + board.count(upper + "~")
        if count > most:
            raise TooManyPiecesError(1, "piece-total", placement, message(count))


# ---------------------------------------------------------------------------
# Chess960 castling

_FILES = "abcdefgh"
_SHREDDER_CORNERS = str.maketrans("KQkq", "HAha")
_XFEN_CORNERS = str.maketrans("HAha", "KQkq")
_CASTLING_CHARS = frozenset("KQkq" + _FILES + _FILES.upper())
_SIDE_NAMES = {True: msg("White"), False: msg("Black")}

_NEEDS_KING = {
    True: lambda letter, s: msg('"{letter}" needs the White king on rank 1; write "{suggestion}"',
                                letter=letter, suggestion=s),
    False: lambda letter, s: msg('"{letter}" needs the Black king on rank 8; write "{suggestion}"',
                                 letter=letter, suggestion=s),
}
_NEEDS_ROOK_SIDE = {
    ("K", True): lambda s: msg('"K" needs a White rook on rank 1 on the h-side of the king; '
                               'write "{suggestion}"', suggestion=s),
    ("Q", True): lambda s: msg('"Q" needs a White rook on rank 1 on the a-side of the king; '
                               'write "{suggestion}"', suggestion=s),
    ("k", False): lambda s: msg('"k" needs a Black rook on rank 8 on the h-side of the king; '
                                'write "{suggestion}"', suggestion=s),
    ("q", False): lambda s: msg('"q" needs a Black rook on rank 8 on the a-side of the king; '
                                'write "{suggestion}"', suggestion=s),
}
_NEEDS_ROOK_ON = {
    True: lambda letter, square, s: msg(
        '"{letter}" needs a White rook on {square}; write "{suggestion}"',
        letter=letter, square=square, suggestion=s),
    False: lambda letter, square, s: msg(
        '"{letter}" needs a Black rook on {square}; write "{suggestion}"',
        letter=letter, square=square, suggestion=s),
}


@dataclass(frozen=True)
class _Right:
    letter: str  # as written
    white: bool
    file: int
    h_side: bool


def _back_ranks(board: str) -> dict[bool, str]:
    ranks = board.split("/")
    return {True: expand_rank(ranks[7]), False: expand_rank(ranks[0])}


def expand_rank(rank: str) -> str:
    """``'rnb2k1r'`` -> ``'rnb..k.r'``: a FEN rank with one character per square."""
    return "".join("." * int(c) if c.isdigit() else c for c in rank)


def _castling_syntax(castling: str) -> None:
    for c in castling:
        if c not in _CASTLING_CHARS:
            if c == "-":
                detail = msg('"{text}" mixes "-" with letters; write the letters alone',
                             text=_fen._shown(castling))
            else:
                detail = msg('"{text}": "{char}" is not a castling letter; use K, Q, k, q, '
                             'a rook\'s file letter (A-H for White, a-h for Black) or "-" alone',
                             text=_fen._shown(castling), char=_fen._shown(c))
            raise FenSyntaxError(3, "castling-char", castling, detail)


def _locate(c: str, backs: dict[bool, str]) -> _Right | tuple[str, Callable[[str], Message]]:
    """The right letter ``c`` names, or (error code, message given the kept letters)."""
    white = c.isupper()
    back = backs[white]
    king_file = back.find("K" if white else "k")
    rook = "R" if white else "r"
    lower = c.lower()
    if king_file < 0:
        return "castling-king", lambda kept: _NEEDS_KING[white](c, kept)
    if lower in "kq":
        outer = range(7, king_file, -1) if lower == "k" else range(king_file)
        rook_file = next((f for f in outer if back[f] == rook), -1)
        if rook_file < 0:
            return "castling-rook", _NEEDS_ROOK_SIDE[c, white]
    else:
        rook_file = ord(lower) - 97
        if back[rook_file] != rook:
            square = lower + ("1" if white else "8")
            return "castling-rook", lambda kept: _NEEDS_ROOK_ON[white](c, square, kept)
    return _Right(c, white, rook_file, rook_file > king_file)


def _castling960(board: str, castling: str) -> tuple[str, str]:
    """The X-FEN and Shredder-FEN castling fields for ``castling`` on ``board``."""
    if castling == "-":
        return "-", "-"
    _castling_syntax(castling)
    backs = _back_ranks(board)
    rights: list[_Right] = []
    for c in castling:
        right = _locate(c, backs)
        if not isinstance(right, _Right):
            code, message = right
            kept = "".join(x for x in castling if isinstance(_locate(x, backs), _Right)) or "-"
            raise CastlingRightsError(3, code, castling, message(kept), suggestion=kept)
        rights.append(right)
    seen: dict[tuple[bool, bool], _Right] = {}
    for right in rights:
        other = seen.get((right.white, right.h_side))
        if other is not None:
            if other.file == right.file:
                unique = {(r.white, r.file): r for r in reversed(rights)}
                kept = "".join(r.letter for r in _ordered(list(unique.values())))
                raise FenSyntaxError(3, "castling-repeat", castling, msg(
                    '"{text}" gives the right to castle with the rook on {square} twice '
                    '("{first}" and "{second}"); write "{suggestion}"',
                    text=castling, square=_FILES[right.file] + ("1" if right.white else "8"),
                    first=other.letter, second=right.letter, suggestion=kept), suggestion=kept)
            raise CastlingRightsError(3, "castling-side", castling, msg(
                '"{text}": {side} can castle with only one rook on each side of the king, '
                'but "{first}" and "{second}" name two; keep one',
                text=castling, side=_SIDE_NAMES[right.white], first=other.letter,
                second=right.letter))
        seen[right.white, right.h_side] = right
    ordered = _ordered(rights)
    if ordered != rights:
        suggestion = "".join(r.letter for r in ordered)
        raise FenSyntaxError(3, "castling-order", castling, msg(
            '"{text}" is out of order (White before Black, each from the h-side to the a-side); '
            'write "{suggestion}"', text=castling, suggestion=suggestion), suggestion=suggestion)
    return _emit_rights(ordered, backs)


def _ordered(rights: list[_Right]) -> list[_Right]:
    return sorted(rights, key=lambda r: (not r.white, -r.file))


def _emit_rights(rights: list[_Right], backs: dict[bool, str]) -> tuple[str, str]:
    xfen, shredder = [], []
    for r in rights:
        back = backs[r.white]
        rook = "R" if r.white else "r"
        outer = back[r.file + 1:] if r.h_side else back[:r.file]
        if rook in outer:
            letter = _FILES[r.file]
        else:
            letter = "k" if r.h_side else "q"
        xfen.append(letter.upper() if r.white else letter)
        shredder.append(_FILES[r.file].upper() if r.white else _FILES[r.file])
    return "".join(xfen), "".join(shredder)


def convert_castling(fen: str, *, shredder: bool, variant: str | Variant | None = CHESS960) -> str:
    """A valid record with its castling field in Shredder-FEN or X-FEN.

    ``variant`` ``None`` is standard chess, whose castling rooks are in the corners.
    """
    placement, turn, castling, rest = fen.split(" ", 3)
    if variant is None or not variant_named(variant).chess960:  # the corners only
        castling = castling.translate(_SHREDDER_CORNERS if shredder else _XFEN_CORNERS)
        return f"{placement} {turn} {castling} {rest}"
    xfen, shredder_field = _castling960(placement, castling)
    return f"{placement} {turn} {shredder_field if shredder else xfen} {rest}"


_BOARD_CASTLING: dict[tuple[int, int, int, int], tuple[str, str]] = {}
_BACKRANKS = chess.BB_BACKRANKS


def board_castling(board: chess.Board) -> tuple[str, str]:
    """The X-FEN and Shredder-FEN castling fields of a Chess960 board (cached per back ranks)."""
    rights = board.castling_rights
    if not rights:
        return "-", "-"
    rooks = board.rooks & _BACKRANKS
    key = (rights, rooks, rooks & board.occupied_co[chess.WHITE], board.kings & _BACKRANKS)
    fields = _BOARD_CASTLING.get(key)
    if fields is None:
        if len(_BOARD_CASTLING) > 4096:
            _BOARD_CASTLING.clear()
        fields = _BOARD_CASTLING[key] = (board.castling_xfen(), board.castling_shredder_fen())
    return fields
