"""Reading PGN game scores and replaying their main lines into FENs.

:func:`iter_games` reads games one at a time from text, bytes, a stream or
a file (:func:`iter_file`), in time linear in the input whatever its bytes
(the tokens come from :mod:`ficsfen.pgnlex`).  Variations are skipped (the
main line is followed).  Moves may be SAN or coordinates; each is resolved
by :func:`ficsfen.tracker.resolve` and the FEN kept by
:class:`ficsfen.tracker.FenBuilder` (standard games through
:func:`ficsfen.quickreplay.replay_standard`, which gives the same FENs and
errors with less work), so legality always comes from python-chess.  A
null move (``--`` or ChessBase's ``Z0``) passes the turn as python-chess
plays it.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import chess

from ficsfen.fen import STARTING_FEN, FenError, parse
from ficsfen.fenbuilder import VariantFenBuilder
from ficsfen.i18n import LocalizedError, Message, msg
from ficsfen.movetext import resolve
from ficsfen.pgnlex import ScanCount, Source, lines_of, tokens
from ficsfen.quickreplay import replay_standard
from ficsfen.trackererrors import IllegalMoveError, MoveError
from ficsfen.variants import UnknownVariantError, Variant, parse_variant, variant_named

__all__ = ["NULL_MOVES", "PgnError", "PgnGame", "ScanCount", "decode", "iter_file", "iter_games", "read_file",
           "read_games"]

_STANDARD_NAMES = frozenset(("standard", "chess", "normal", "from position"))
_RESULTS = frozenset(("1-0", "0-1", "1/2-1/2", "*", "\u00bd-\u00bd"))  # some files write ½-½
#: the null move as PGN files write it: pgn-extract and python-chess "--", ChessBase "Z0"
NULL_MOVES = frozenset(("--", "Z0"))
_IGNORED_FIRST = frozenset("!?.$;%")
_MOVE_FIRST = frozenset("abcdefghNBRQKOo")
_LONGEST_MOVE = 24  # e.g. "exd8=Q+!?" is 9; anything much longer is not a move
_SHOWN_LENGTH = 40  # longest token quoted in an error


class PgnError(LocalizedError, ValueError):
    """A game that cannot be read or replayed, located by game number and ply.

    ``ply`` is the 1-based half-move at fault (0 for the start position or
    the tags); ``move_text`` the move as written, when there is one.
    """

    def __init__(self, reason: Message, *, game: int, ply: int, move_text: str | None = None) -> None:
        self.reason = reason
        self.game = game
        self.ply = ply
        self.move_text = move_text
        if move_text is not None:
            self.message = msg(
                'Game {game}, ply {ply} ("{move}"): {reason}', game=game, ply=ply, move=move_text, reason=reason
            )
        elif ply:
            self.message = msg("Game {game}, ply {ply}: {reason}", game=game, ply=ply, reason=reason)
        else:
            self.message = msg("Game {game}: {reason}", game=game, reason=reason)
        super().__init__(self.message)

    def __reduce__(self) -> tuple[object, ...]:
        # keyword-only fields: pickled (e.g. from a worker process) by a function that takes them
        return (_pgn_error, (self.reason, self.game, self.ply, self.move_text))


def _pgn_error(reason: Message, game: int, ply: int, move_text: str | None) -> PgnError:
    return PgnError(reason, game=game, ply=ply, move_text=move_text)


@dataclass
class PgnGame:
    """One game as written: its tags and its main-line moves (not yet checked)."""

    number: int  #: 1-based position in its file
    headers: dict[str, str] = field(default_factory=dict)
    moves: list[str] = field(default_factory=list)
    result: str | None = None
    #: a syntax problem found while reading (replay raises it at its ply)
    syntax_error: Message | None = None
    syntax_error_ply: int = 0

    @property
    def variant(self) -> Variant | None:
        """The ``Variant`` tag's variant (``None`` for standard chess); :class:`PgnError` if unknown."""
        name = self.headers.get("Variant")
        if name is None or name.strip().casefold() in _STANDARD_NAMES:
            return None
        try:
            return variant_named(name)
        except UnknownVariantError as exc:
            raise PgnError(exc.message, game=self.number, ply=0) from exc

    @property
    def initial_fen(self) -> str:
        """The ``FEN`` tag when present (``SetUp`` other than ``0``), else the start."""
        tag = self.headers.get("FEN")
        if tag is not None and self.headers.get("SetUp", "1") != "0":
            return tag
        variant = self.variant
        return STARTING_FEN if variant is None else variant.starting_fen

    def fens(self) -> list[str]:
        """The initial FEN then the FEN after every ply; :class:`PgnError` on failure."""
        return list(self.replay())

    def replay(self) -> Iterator[str]:
        """Yield the initial FEN then the FEN after every ply (X-FEN for Chess960)."""
        variant = self.variant
        try:
            position = parse(self.initial_fen) if variant is None else parse_variant(
                self.initial_fen, variant)
        except FenError as exc:
            raise PgnError(msg("bad FEN tag: {error}", error=exc.describe()), game=self.number, ply=0) from exc
        fen = position.fen()
        yield fen
        board = position.board()
        placement, turn = fen.split(" ", 2)[:2]
        ply = 0
        text = ""
        try:
            if variant is None:  # the fast path, for standard chess
                for after in replay_standard(board, fen, self.moves, NULL_MOVES, _null_move):
                    ply += 1
                    yield after
            else:
                step = VariantFenBuilder(placement, variant, turn == "w").push
                for ply, text in enumerate(self.moves, 1):  # noqa: B007 - ply: the except clause's
                    try:
                        move = resolve(board, text)
                    except MoveError:
                        if text not in NULL_MOVES:
                            raise
                        move = _null_move(board, text)
                    yield step(board, move)
        except MoveError as exc:
            if variant is None:
                ply += 1
                text = self.moves[ply - 1]
            raise PgnError(exc.message, game=self.number, ply=ply, move_text=text) from exc
        if self.syntax_error is not None:
            raise PgnError(self.syntax_error, game=self.number, ply=self.syntax_error_ply)


def decode(data: bytes) -> str:
    """Text of a PGN file: UTF-8 (BOM dropped), else Latin-1 as old files are."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return data.decode("latin-1")


def read_file(path: str | os.PathLike[str]) -> list[PgnGame]:
    """All games of a PGN file, in a list (:func:`iter_file` reads them one at a time)."""
    return list(iter_file(path))


def iter_file(path: str | os.PathLike[str], *, count: ScanCount | None = None) -> Iterator[PgnGame]:
    """The games of a PGN file, one at a time, as :func:`iter_games` reads them.

    Raises :class:`OSError` when the file cannot be opened or read.
    """
    with open(path, "rb") as stream:
        yield from iter_games(stream, count=count)


def read_games(text: str) -> list[PgnGame]:
    """All games of PGN ``text``, in a list."""
    return list(iter_games(text))


def iter_games(source: Source, *, count: ScanCount | None = None) -> Iterator[PgnGame]:
    """The games of PGN ``source``, each yielded once it is complete.

    ``source`` is text, bytes, a text or binary stream, or an iterable of
    lines (see :func:`ficsfen.pgnlex.lines_of`); it is read as games are
    taken, in time linear in its length.  Comments, NAGs and variations are
    skipped.  A new game starts at a tag pair after movetext, after a
    result, or at a ``1.`` once the current game has moves (files that omit
    results).  Syntax errors are kept on the game (:meth:`PgnGame.replay`
    raises them at their ply), never raised here.  ``count`` adds up the
    characters read and examined (see :class:`~ficsfen.pgnlex.ScanCount`).
    """
    game: PgnGame | None = None
    moves: list[str] = []
    in_movetext = False  # the current game's tags are over
    depth = 0  # variation nesting
    number = 0
    plain = False  # in a game's movetext, outside variations, with no result and no error yet
    for line in tokens(lines_of(source), count):
        for tok in line:
            if plain and tok[0] in _MOVE_FIRST and tok.__class__ is str:  # the usual case: a move
                if len(tok) <= _LONGEST_MOVE and tok.isprintable():
                    moves.append(tok)
                    continue
            if tok.__class__ is tuple:
                if game is None or in_movetext:
                    if game is not None:
                        yield _finished(game, depth)
                    number += 1
                    game = PgnGame(number)
                    moves = game.moves
                    in_movetext = plain = False
                    depth = 0
                name, value = tok
                game.headers[name] = value
                continue
            if TYPE_CHECKING:  # what the __class__ tests above say, for type checkers
                assert isinstance(tok, str)
            if tok == "1." and game is not None and moves and game.result is None and not depth:
                game.result = ""  # ends it without a result
                plain = False
            if game is None or game.result is not None:
                if tok[0] in _IGNORED_FIRST or tok == "1." or tok.isdigit() or tok in _RESULTS:
                    continue
                if game is not None:
                    yield _finished(game, depth)
                number += 1
                game = PgnGame(number)
                moves = game.moves
                depth = 0
            in_movetext = True
            if game.syntax_error is not None:
                if tok in _RESULTS and not depth:
                    game.result = tok
                continue
            first = tok[0]
            if depth:
                if first == "(":
                    depth += 1
                elif first == ")":
                    depth -= 1
                    plain = not depth
                elif first in "{[":
                    _syntax(game, first)
                continue
            plain = True
            if first in _MOVE_FIRST or (first == "0" and tok[:2] == "0-" and tok not in _RESULTS) \
                    or "@" in tok or tok in NULL_MOVES:  # "@": a crazyhouse drop, P@e4, @e4
                if len(tok) > _LONGEST_MOVE or not tok.isprintable():
                    _syntax(game, tok)  # binary noise or a run-on word: never a move
                    plain = False
                    continue
                moves.append(tok)
            elif tok in _RESULTS:
                game.result = "1/2-1/2" if tok == "\u00bd-\u00bd" else tok
                plain = False
            elif first == "(":
                depth = 1
                plain = False
            elif first in _IGNORED_FIRST or tok == "1." or tok.isdigit():
                continue
            else:
                _syntax(game, first if first in ")[{" else tok)
                plain = False
    if game is not None:
        yield _finished(game, depth)


def _finished(game: PgnGame, depth: int) -> PgnGame:
    """``game`` as it is when the next one starts or the text ends."""
    if depth and game.syntax_error is None:
        _syntax(game, "(")
    if game.result == "":
        game.result = None
    return game


def _null_move(board: chess.Board, text: str) -> chess.Move:
    """The null move ``text`` (``--``, ``Z0``): the turn passes, as python-chess plays it.

    The en passant square is cleared, the halfmove clock counts it, the
    fullmove number goes up after Black's; :class:`IllegalMoveError` when the
    side to move is in check (the position after it could not happen).
    """
    if board.is_check():
        raise IllegalMoveError(msg('Illegal move: a null move ("{move}") cannot be played in check.', move=text),
                               move_text=text, code="null-in-check")
    return chess.Move.null()


def _shown(token: str) -> str:
    """``token`` safe to print in a message: control bytes escaped, length capped."""
    if not token.isprintable():
        token = token.encode("unicode_escape").decode("ascii")
    return token if len(token) <= _SHOWN_LENGTH else token[: _SHOWN_LENGTH - 3] + "..."


def _syntax(game: PgnGame, what: str) -> None:
    if what == "{":
        reason = msg("a comment opened with a brace is never closed")
    elif what == "[":
        reason = msg("a malformed tag pair: write [Name \"value\"]")
    elif what == "(":
        reason = msg("a variation opened with ( is never closed")
    elif what == ")":
        reason = msg("a ) closes a variation that was never opened")
    else:
        reason = msg('"{token}" is not a move, a move number or a result', token=_shown(what))
    game.syntax_error = reason
    game.syntax_error_ply = len(game.moves) + 1
