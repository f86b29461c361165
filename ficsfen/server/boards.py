"""Board displays: FICS style 1 (ASCII diagram) and style 12 (the ``<12>`` line).

A move in a game watched by a thousand people must not be formatted a
thousand times.  Everything that depends only on the game is computed once
per position into a :class:`Style12Frame`; what differs between viewers (the
relation code and the flip flag) is spliced in by :meth:`Style12Frame.line`,
which memoizes the at most twelve distinct lines.  Style 1 depends on the
viewer only through orientation and language, so :func:`style1_diagram`
results are cached the same way, per game version, by
:class:`ficsfen.server.renderer.BoardRenderer`, which also caches the frames.

The functions accept any :class:`ficsfen.interfaces.IGame`; clocks, time
control and move times are read from games that provide
:class:`ficsfen.interfaces.IClockedGame`, and are zero otherwise.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import chess
import chess.variant
from chess.variant import CrazyhouseBoard

from ficsfen.i18n import Message, msg
from ficsfen.interfaces import IClockedGame, IGame
from ficsfen.server.clock import format_clock, format_move_time, round_seconds
from ficsfen.server.variant_games import category_letter, fics_type, holdings_text
from ficsfen.tracker import Tracker, compress_rank

__all__ = [
    "RELATION_EXAMINER",
    "RELATION_STARTING_POSITION",
    "RELATION_ISOLATED",
    "RELATION_MY_MOVE",
    "RELATION_OBSERVING",
    "RELATION_OBSERVING_EXAMINED",
    "RELATION_OPPONENT_MOVE",
    "Style12Error",
    "Style12Frame",
    "category",
    "fen_from_style12",
    "flip_for",
    "format_move_time_ms",
    "game_info_line",
    "game_line_header",
    "material",
    "relation_for",
    "style1",
    "style12",
    "style12_frame",
    "style1_diagram",
    "played_listing",
    "verbose_move",
]

RELATION_ISOLATED = -3
RELATION_OBSERVING_EXAMINED = -2
RELATION_EXAMINER = 2
RELATION_OPPONENT_MOVE = -1
RELATION_MY_MOVE = 1
RELATION_OBSERVING = 0
#: A board at the head of a move list (FICS's ``startpos`` ivar).
RELATION_STARTING_POSITION = -4



class Style12Error(ValueError):
    """A ``<12>`` line that cannot be read back."""


def material(board: chess.Board, color: chess.Color) -> int:
    """FICS material strength of ``color`` (39 in the starting position): pawn 1,
    knight 3, bishop 3, rook 5, queen 9; in crazyhouse the pieces in hand count too."""
    mine = board.occupied_co[color]
    # Read from the bitboards directly: every board shown after a move asks for both sides.
    total = ((board.pawns & mine).bit_count() + 3 * ((board.knights | board.bishops) & mine).bit_count()
             + 5 * (board.rooks & mine).bit_count() + 9 * (board.queens & mine).bit_count())
    if type(board) is not chess.Board and isinstance(board, CrazyhouseBoard):
        pocket = board.pockets[color]
        total += (pocket.count(chess.PAWN) + 3 * (pocket.count(chess.KNIGHT) + pocket.count(chess.BISHOP))
                  + 5 * pocket.count(chess.ROOK) + 9 * pocket.count(chess.QUEEN))
    return total


def verbose_move(board_after: chess.Board, move: chess.Move, san: str | None = None) -> str:
    """FICS verbose notation (``P/e2-e4``, ``o-o``, ``P/e7-e8=Q``, ``N/@@-f7``) from the board
    after it; ``san`` (the move's SAN) tells a Chess960 castling, written king-takes-rook."""
    if move.drop:
        return f"{chess.piece_symbol(move.drop).upper()}/@@-{chess.square_name(move.to_square)}"
    if san is not None and san[:1] == "O":
        return "o-o-o" if san.startswith("O-O-O") else "o-o"
    piece = board_after.piece_at(move.to_square)
    if piece is None:  # cannot happen after a legal move; stay total anyway
        return chess.square_name(move.from_square) + "-" + chess.square_name(move.to_square)
    if piece.piece_type == chess.KING and abs(chess.square_file(move.from_square)
                                              - chess.square_file(move.to_square)) == 2:
        return "o-o" if chess.square_file(move.to_square) == 6 else "o-o-o"
    letter = "P" if move.promotion else piece.symbol().upper()
    text = f"{letter}/{chess.square_name(move.from_square)}-{chess.square_name(move.to_square)}"
    if move.promotion:
        text += "=" + chess.piece_symbol(move.promotion).upper()
    return text


def _game_clocks(game: IGame) -> tuple[float, float, bool]:
    """White's and Black's time left, and whether a clock runs (a game that ended stopped it)."""
    clocked = IClockedGame(game, None)
    if clocked is None:
        return 0.0, 0.0, False
    clock = clocked.clock
    return clock.remaining(chess.WHITE), clock.remaining(chess.BLACK), clock.running is not None


def _move_times(game: IGame) -> list[float]:
    clocked = IClockedGame(game, None)
    return clocked.move_times if clocked is not None else []


def _time_control(game: IGame) -> tuple[int, int]:
    clocked = IClockedGame(game, None)
    if clocked is None:
        return 0, 0
    return clocked.time_control.minutes, clocked.time_control.increment


def format_move_time_ms(seconds: float) -> str:
    """How long a move took with milliseconds, ``m:ss.mmm`` (FICS's ``(0:01.234)`` with ivar ms)."""
    millis = max(int(round(seconds * 1000)), 0)
    whole, rest = divmod(millis, 1000)
    return f"{whole // 60}:{whole % 60:02d}.{rest:03d}"


def _clock_field(seconds: float, ms: bool) -> int:
    return int(round(seconds * 1000)) if ms else round_seconds(seconds)


@dataclass
class Style12Frame:
    """The per-position part of a ``<12>`` line, shared by all viewers.

    ``head`` runs from ``<12>`` to Black's name, ``middle`` from the initial
    time to the pretty move, ``tail`` is the clock-ticking field.  Build it
    with :meth:`for_game` once per move (and per clock unit: ``ms`` gives
    clocks in milliseconds, as clients ask with ``iset ms 1``), then call
    :meth:`line` per viewer.
    """

    head: str
    middle: str
    tail: str
    _lines: dict = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def for_game(cls, game: IGame, *, ms: bool = False,
                 clocks: tuple[float, float, bool] | None = None) -> Style12Frame:
        """The frame of ``game`` now; ``clocks`` (White's, Black's seconds, ticking)
        replace the clocks' current reading (a move's, read at its instant)."""
        clocked = IClockedGame(game, None)  # adapted once: a frame is built per move
        if clocked is None:
            return cls._build(game, game.tracker, 0, 0, 0.0, 0.0, False, [], ms)
        tc = clocked.time_control
        if clocks is None:
            clock = clocked.clock
            clocks = (clock.remaining(chess.WHITE), clock.remaining(chess.BLACK),
                      clock.running is not None)
        return cls._build(game, game.tracker, tc.minutes, tc.increment, *clocks,
                          clocked.move_times, ms)

    @classmethod
    def starting_position(cls, game: IGame, *, ms: bool = False) -> Style12Frame:
        """The frame of the position ``game`` started from, clocks full, no move played.

        FICS's ``startpos`` ivar puts it (relation -4) at the head of a move list.
        """
        minutes, increment = _time_control(game)
        start = Tracker(game.tracker.initial_fen, variant=game.tracker.variant)
        return cls._build(game, start, minutes, increment, minutes * 60.0, minutes * 60.0,
                          False, [], ms)

    @classmethod
    def _build(cls, game: IGame, tracker: Tracker, minutes: int, increment: int, wtime: float,
               btime: float, ticking: bool, times: list[float], ms: bool) -> Style12Frame:
        board: chess.Board = tracker.board
        fen_fields = tracker.fen.split(" ")
        ranks = fen_fields[0].translate(_RANKS)
        if ranks[-1] == "]":  # crazyhouse holdings: on the <b1> line, not in the board
            ranks = ranks[:ranks.index("[")].replace("~", "")
        ep = fen_fields[3]
        double_push = ord(ep[0]) - ord("a") if ep != "-" else -1
        # a Chess960 field naming rook files is read from the board
        flags = _CASTLING_FLAGS.get(fen_fields[2]) or _rook_flags(board)
        head = (f"<12> {ranks} {'W' if board.turn else 'B'} {double_push} "
                f"{flags} {fen_fields[4]} {game.number} {game.white} "
                f"{game.black}")
        took_format = format_move_time_ms if ms else format_move_time
        last = tracker.last_ply
        if last is not None:
            plies = last.number
            verbose = verbose_move(board, last.move, last.san)
            took = took_format(times[plies - 1] if len(times) >= plies else 0)
            pretty = last.san
            if pretty[0] == "@":  # FICS names the pawn of a drop: P@e4
                pretty = "P" + pretty
        else:
            verbose, took, pretty = "none", took_format(0), "none"
        middle = (f"{minutes} {increment} {material(board, chess.WHITE)} "
                  f"{material(board, chess.BLACK)} {_clock_field(wtime, ms)} "
                  f"{_clock_field(btime, ms)} {fen_fields[5]} {verbose} ({took}) {pretty}")
        return cls(head, middle, "1" if ticking else "0")

    def line(self, relation: int, flip: bool | int, lag: int = 0) -> str:
        """The full ``<12>`` line for one viewer (memoized).

        ``lag`` is the last field: the lag in milliseconds of the player who
        made the last move, as FICS reports it (0 when unknown).
        """
        key = (relation, 1 if flip else 0, lag)
        text = self._lines.get(key)
        if text is None:
            text = f"{self.head} {relation} {self.middle} {key[1]} {self.tail} {lag}"
            self._lines[key] = text
        return text


_DIGITS = str.maketrans({str(n): "-" * n for n in range(1, 9)})
#: A FEN placement field to style 12's eight ranks in one ``translate``.
_RANKS = str.maketrans({**{str(n): "-" * n for n in range(1, 9)}, "/": " "})
#: A FEN castling field (``KQkq``, ``Kq``, ``-``...) to style 12's four flags.
_CASTLING_FLAGS = {
    "".join(c for c, on in zip("KQkq", bits) if on) or "-": " ".join("1" if on else "0" for on in bits)
    for bits in ((n >> 3 & 1, n >> 2 & 1, n >> 1 & 1, n & 1) for n in range(16))
}


def _rook_flags(board: chess.Board) -> str:
    """Style 12's four flags of a Chess960 position whose castling field names rook files."""
    flags = []
    for color in (chess.WHITE, chess.BLACK):
        king = board.king(color)
        rooks = board.castling_rights & board.occupied_co[color] & chess.BB_BACKRANKS
        king_file = chess.square_file(king) if king is not None else 4
        files = [chess.square_file(sq) for sq in chess.scan_forward(rooks)]
        flags += ["1" if any(f > king_file for f in files) else "0",
                  "1" if any(f < king_file for f in files) else "0"]
    return " ".join(flags)


def _castling_flags(field: str) -> str:
    flags = _CASTLING_FLAGS.get(field)
    if flags is None:  # letters in another order, or other letters (which mean no flag)
        flags = " ".join("1" if c in field else "0" for c in "KQkq")
    return flags


def relation_for(game: IGame, viewer: str) -> int:
    """The FICS relation code of ``viewer`` to ``game``."""
    if game.examined:
        return RELATION_EXAMINER if viewer in game.players() else RELATION_OBSERVING_EXAMINED
    board = game.tracker.board
    if viewer == game.white:
        return RELATION_MY_MOVE if board.turn == chess.WHITE else RELATION_OPPONENT_MOVE
    if viewer == game.black:
        return RELATION_MY_MOVE if board.turn == chess.BLACK else RELATION_OPPONENT_MOVE
    return RELATION_OBSERVING


def flip_for(game: IGame, viewer: str) -> bool:
    """Whether ``viewer`` sees the board with Black at the bottom (Black's player)."""
    return viewer == game.black and viewer != game.white and not game.examined


def style12_frame(game: IGame, ms: bool = False) -> Style12Frame:
    """The frame of ``game`` as its boards show it now, built now (uncached: the
    server's :class:`ficsfen.server.renderer.BoardRenderer` caches them per version).

    A game with ``shown_clocks()`` (ours) gives the clocks of its last move as read
    at the move's instant; other games' clocks are read now.
    """
    shown = getattr(game, "shown_clocks", None)
    return Style12Frame.for_game(game, ms=ms, clocks=shown() if shown is not None else None)


def style12(game: IGame, *, viewer: str, ms: bool = False, lag: int = 0) -> str:
    """The ``<12>`` line of ``game`` as ``viewer`` receives it."""
    return style12_frame(game, ms).line(relation_for(game, viewer), flip_for(game, viewer), lag)


def played_listing(game: Any, ratings: tuple[str, str]) -> str:
    """A played game's ``games`` line: number, players with ``ratings`` (FICS's four
    characters each, White's first), private mark (``p``: ``set private``), time
    control, clocks, material, move."""
    board = game.tracker.board
    tc = game.time_control
    kind = category_letter(category(game))
    private = "p" if getattr(game, "private", False) else " "
    return (f"{game.number:>3} {ratings[0]:>4} {game.white:<11} {ratings[1]:>4} {game.black:<10} "
            f"[{private}{kind}{'r' if is_rated(game) else 'u'}{tc.minutes:>3} {tc.increment:>3}] "
            f"{format_clock(game.clock.remaining(chess.WHITE)):>6} -"
            f"{format_clock(game.clock.remaining(chess.BLACK)):>6} "
            f"({material(board, chess.WHITE):>2}-{material(board, chess.BLACK):>2}) "
            f"{'W' if board.turn else 'B'}: {board.fullmove_number:>2}")


def category(game: IGame) -> str:
    """FICS's category of ``game``: lightning, blitz, standard, or untimed (no clock);
    its variant (``crazyhouse``, ``wild/fr``) for a game in one."""
    kind = fics_type(game.tracker.variant)  # None for standard chess
    if kind is not None:
        return kind
    clocked = IClockedGame(game, None)
    return clocked.time_control.category if clocked is not None else "untimed"


def game_line_header(game: IGame, ratings: tuple[str, str], lang: str = "en") -> str:
    """``alice (1500) bob (----) unrated blitz 5 0``: a game as ``observe`` and ``Creating:``
    name it, with both players' ``ratings`` (FICS's four characters, White's first).

    ICS clients parse it: ``lang`` is the reader's language of parsed texts
    (FICS's English by default).
    """
    minutes, increment = _time_control(game)
    return msg("{white} ({white_rating}) {black} ({black_rating}) {rated} {category} {minutes} "
               "{increment}", white=game.white, white_rating=ratings[0], black=game.black,
               black_rating=ratings[1], rated=rated_word(game), category=category(game),
               minutes=minutes, increment=increment).render(lang)


def is_rated(game: IGame) -> bool:
    """Whether ``game`` is played rated (an examined game, or one without the flag, is not)."""
    return bool(getattr(game, "rated", False))


def rated_word(game: IGame) -> Message:
    """``rated`` or ``unrated``, as FICS's game lines name ``game``."""
    return msg("rated") if is_rated(game) else msg("unrated")


def game_info_line(game: IGame, *, registered: tuple[bool, bool],
                   timeseal: tuple[bool, bool], ratings: tuple[str, str]) -> str:
    """FICS's ``<g1>`` line (ivar ``gameinfo``) for ``game``.

    ``it=`` carries White's initial time in seconds and increment, ``i=``
    Black's (FICS sends them that way, whatever its help page says); ``p=``
    says whether the game is private (``set private``), ``r=`` whether it is rated.
    ``rt=`` carries both ``ratings`` as FICS writes them there (the value and
    its provshow mark, ``1500P``: :attr:`.rating_view.Shown.marked`).
    ``u=`` says whether each player is registered, ``ts=`` whether each uses timeseal.
    """
    minutes, increment = _time_control(game)
    seconds = minutes * 60
    private = int(bool(getattr(game, "private", False)))
    return (f"<g1> {game.number} p={private} t={category(game)} r={int(is_rated(game))} "
            f"u={int(registered[0])},{int(registered[1])} it={seconds},{increment} "
            f"i={seconds},{increment} pt=0 rt={ratings[0]},{ratings[1]} ts={int(timeseal[0])},{int(timeseal[1])} "
            "m=2 n=0")


def fen_from_style12(line: str) -> str:
    """Rebuild the FEN of a ``<12>`` line (en passant square after every double push)."""
    fields = line.split()
    if len(fields) < 27 or fields[0] != "<12>":
        raise Style12Error("not a style 12 line")
    rows = fields[1:9]
    placement = []
    for row in rows:
        if len(row) != 8:
            raise Style12Error(f"bad rank {row!r}")
        bad = row.strip("PNBRQKpnbrqk-")
        if bad:
            raise Style12Error(f"bad piece {bad[0]!r}")
        placement.append(compress_rank(row.replace("-", ".")))
    turn = fields[9]
    if turn not in ("W", "B"):
        raise Style12Error(f"bad side to move {turn!r}")
    try:
        double_push = int(fields[10])
        flags = [int(f) for f in fields[11:15]]
        halfmove = int(fields[15])
        fullmove = int(fields[26])
    except ValueError as exc:
        raise Style12Error(str(exc)) from None
    castling = "".join(s for s, f in zip("KQkq", flags) if f) or "-"
    if 0 <= double_push <= 7:
        ep = "abcdefgh"[double_push] + ("3" if turn == "B" else "6")
    else:
        ep = "-"
    return (f"{'/'.join(placement)} {'w' if turn == 'W' else 'b'} {castling} {ep} "
            f"{halfmove} {fullmove}")


# -- style 1 ----------------------------------------------------------------

_TOP = "\t---------------------------------"
_MID = "\t|---+---+---+---+---+---+---+---|"
_FILES = "\t  a   b   c   d   e   f   g   h"
_FILES_FLIPPED = "\t  h   g   f   e   d   c   b   a"

# The labels are Messages (so the catalogs see them), rendered per language
# with their parameters (the games cache a diagram per move and language).
_SIDE: dict[bool, Message] = {chess.WHITE: msg("White"), chess.BLACK: msg("Black")}
_HEADER = msg("Game {number} ({white} vs. {black})")
_MOVE_NUMBER = msg("Move # : {number} ({side})")
_LAST_MOVE = msg("{side} Moves : '{move}'")
_BLACK_CLOCK = msg("Black Clock : {time}")
_WHITE_CLOCK = msg("White Clock : {time}")
_BLACK_STRENGTH = msg("Black Strength : {points}")
_WHITE_STRENGTH = msg("White Strength : {points}")
_HOLDING = msg("{side} holding: [{pieces}]")


# One style 1 cell per FEN character ('-' is an empty square after expansion).
_CELLS = {c: (f" {c} |" if c.isupper() else f" *{c.upper()}|") for c in "PNBRQKpnbrqk"}
_CELLS["-"] = "   |"


@lru_cache(maxsize=4096)
def _row_cells(row: str) -> str:
    return "".join([_CELLS[c] for c in row])


def style1(game: IGame, *, viewer: str, lang: str) -> str:
    """The FICS style 1 diagram of ``game`` from ``viewer``'s side, in ``lang``.

    Returns several lines joined by ``\\n`` (no trailing newline).  Clocks
    are read now; :meth:`ficsfen.server.renderer.BoardRenderer.style1` caches per version.
    """
    return style1_diagram(game, flipped=flip_for(game, viewer), lang=lang)


def style1_diagram(game: IGame, *, flipped: bool, lang: str) -> str:
    """The style 1 diagram of ``game`` with Black at the bottom when ``flipped``, in ``lang``."""
    tracker = game.tracker
    board: chess.Board = tracker.board
    wtime, btime, _ = _game_clocks(game)
    fields = tracker.fen.split(" ")
    to_move = board.turn

    def label(message: Message, **params: Any) -> str:
        return Message(message.msgid, params).render(lang)

    notes: list[str] = [
        label(_MOVE_NUMBER, number=fields[5], side=_SIDE[to_move]),
        "",
        "",
        label(_BLACK_CLOCK, time=format_clock(max(btime, 0))),
        label(_WHITE_CLOCK, time=format_clock(max(wtime, 0))),
        label(_BLACK_STRENGTH, points=material(board, chess.BLACK)),
        label(_WHITE_STRENGTH, points=material(board, chess.WHITE)),
        "",
    ]
    last = tracker.last_ply
    if last is not None:
        plies = last.number
        times = _move_times(game)
        took = times[plies - 1] if len(times) >= plies else 0
        notes[1] = label(_LAST_MOVE, side=_SIDE[last.color],
                         move=f"{last.san:<7} ({format_move_time(took)})")
    placement = fields[0]
    held: list[str] = []
    if placement[-1] == "]" and isinstance(board, chess.variant.CrazyhouseBoard):
        # crazyhouse: FICS shows each side's hand above and below
        placement = placement[:placement.index("[")].replace("~", "")
        held = [label(_HOLDING, side=_SIDE[color], pieces=holdings_text(board.pockets[color]))
                for color in ((chess.WHITE, chess.BLACK) if flipped else (chess.BLACK, chess.WHITE))]
    # Rows of the placement field, rank 8 first, '-' for empty squares.
    rows = placement.translate(_DIGITS).split("/")
    if flipped:
        rows = [row[::-1] for row in reversed(rows)]
    lines = [label(_HEADER, number=game.number, white=game.white, black=game.black), "",
             *held[:1], _TOP]
    for i, row in enumerate(rows):
        rank = i + 1 if flipped else 8 - i
        cells = _row_cells(row)
        note = notes[i]
        lines.append(f"     {rank}  |{cells}" + (f"     {note}" if note else ""))
        lines.append(_MID if i < 7 else _TOP)
    lines.append(_FILES_FLIPPED if flipped else _FILES)
    lines += held[1:]
    return "\n".join(lines)
