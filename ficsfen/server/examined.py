"""Examined (scratch) games: move freely, step back and forth, set up positions.

An :class:`ExaminedGame` provides :class:`ficsfen.server.interfaces.IExaminedGame`
(an :class:`ficsfen.interfaces.IGame`), so
``fen``, ``games`` and observers treat it like any other game.  Moves go
through the game's :class:`ficsfen.tracker.Tracker`; ``backward`` keeps the
undone moves so that ``forward`` can replay them, as on FICS.  ``bsetup``
edits a draft :class:`~ficsfen.fen.Position` that becomes the new position only once
``bsetup done`` finds it valid.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Callable, Sequence

import chess
from zope.interface import implementer

from ficsfen.fen import STARTING_FEN, Position, parse, parse_syntax
from ficsfen.i18n import LocalizedError, msg
from ficsfen.server.interfaces import IExaminedGame
from ficsfen.tracker import Ply, PlySubscribers, Tracker
from ficsfen.variants import Variant, parse_variant

__all__ = ["ExaminedGame", "GameStateError", "SetupDraft", "clear_draft", "draft_with_castling",
           "draft_with_fen", "parse_setup", "start_draft"]

EMPTY_PLACEMENT = "8/8/8/8/8/8/8/8"


class GameStateError(LocalizedError, ValueError):
    """A request the game cannot take in its current state (localized)."""


#: What ``bsetup`` edits: a :class:`~ficsfen.fen.Position` built without
#: checks (it may be invalid until ``bsetup done`` parses its record).
SetupDraft = Position

# Each castling right and the home squares its king and rook must stand on.
_CASTLING_HOMES = {
    "K": (chess.E1, chess.H1, chess.WHITE),
    "Q": (chess.E1, chess.A1, chess.WHITE),
    "k": (chess.E8, chess.H8, chess.BLACK),
    "q": (chess.E8, chess.A8, chess.BLACK),
}


def parse_setup(text: str, variant: Variant | None = None) -> Position:
    """``text`` checked as a record of ``variant``'s (chess when ``None``), as a draft.

    A variant's draft keeps its holdings in the placement and its castling
    in X-FEN, so the draft's ``fen()`` is the variant's record.

    :raises FenError: the codec's error, naming the field.
    """
    if variant is None:
        return parse(text)
    found = parse_variant(text, variant)
    return Position(found.fen().split(" ", 1)[0], found.turn, found.castling, found.ep,
                    found.halfmove, found.fullmove)


def draft_with_fen(draft: Position, text: str, variant: Variant | None = None) -> Position:
    """``draft`` with ``text`` applied: a full record, or a placement alone.

    A placement alone keeps the side to move, clears the en passant square
    and keeps only the castling rights whose king and rook still stand on
    their home squares (none in Chess960: give a whole record there).
    A crazyhouse placement may carry its ``[holdings]``.

    :raises FenError: a full record that is not valid FEN, or a placement
        that is not well-formed (a placement alone is only checked for
        form: the position is checked by ``bsetup done``).
    """
    text = text.strip()
    if " " in text:
        return parse_setup(text, variant)
    if variant is not None and variant.holdings:
        text = text if "[" in text else text + "[]"
        parse_setup(f"{text} {draft.turn} - - 0 1", variant)  # the holdings' checks
        board = chess.BaseBoard(text.partition("[")[0].replace("~", ""))
    else:
        parse_syntax(f"{text} w - - 0 1")
        board = chess.BaseBoard(text)
    kept = "".join(
        right for right in draft.castling if right in _CASTLING_HOMES
        and not (variant is not None and variant.chess960)
        and board.piece_at(_CASTLING_HOMES[right][0]) == chess.Piece(chess.KING, _CASTLING_HOMES[right][2])
        and board.piece_at(_CASTLING_HOMES[right][1]) == chess.Piece(chess.ROOK, _CASTLING_HOMES[right][2])
    )
    return replace(draft, placement=text, castling=kept or "-", ep="-")


def draft_with_castling(draft: Position, color: str, which: str) -> Position:
    """Set one side's castling rights (``none|kside|qside|both``)."""
    letters = {"none": "", "kside": "K", "qside": "Q", "both": "KQ"}[which]
    if color == "b":
        letters = letters.lower()
    keep = [c for c in draft.castling if c != "-" and (c.isupper() != (color == "w"))]
    merged = "".join(c for c in "KQkq" if c in letters or c in keep)
    return replace(draft, castling=merged or "-")


@implementer(IExaminedGame)
class ExaminedGame:
    """A scratch game examined by ``examiner`` (FICS names it ``examiner vs. examiner``)."""

    examined = True

    def __init__(self, examiner: str, *, fen: str | None = None,
                 variant: Variant | None = None) -> None:
        self.number = 0
        self.white = examiner
        self.black = examiner
        self.examiners = [examiner]
        self.tracker = Tracker(fen, variant=variant)
        self.result: str | None = None
        self.setup: SetupDraft | None = None
        #: The rules of the position being set up (``bsetup fr``, ``bsetup zh``).
        self.setup_variant: Variant | None = None
        self._future: list[str] = []
        #: Told ``board_changed(game)`` after each move (an :class:`ficsfen.server.game_hooks.IGameListener`).
        self.listener: Any = None
        #: Who made the last move (several people may examine one game).
        self.last_mover: str | None = None
        self._moved = PlySubscribers()

    @classmethod
    def replaying(cls, examiner: str, *, white: str, black: str, fen: str,
                  moves: Sequence[str], variant: Variant | None = None) -> ExaminedGame:
        """A game examined from its start position ``fen``, with ``moves`` (UCI) ahead.

        ``forward`` plays them, as on FICS after ``examine HANDLE N``; the
        board names the game's players, not the examiner.  ``variant``: the
        stored game's rules (Chess960, crazyhouse).
        """
        game = cls(examiner, fen=fen, variant=variant)
        game.white, game.black = white, black
        game._future = list(moves)
        return game

    def subscribe_moves(self, callback: Callable[[Ply], object]) -> Callable[[], None]:
        """Call ``callback(ply)`` after each move or ``forward`` step (any tracker it has)."""
        return self._moved.add(callback)

    def __repr__(self) -> str:
        return f"<ExaminedGame {self.number} by {self.white!r} fen={self.tracker.fen!r}>"

    def players(self) -> tuple[str, ...]:
        return tuple(self.examiners)

    @property
    def version(self) -> tuple[int, str]:
        """The position (its length and FEN): renderers key their caches by it."""
        tracker = self.tracker
        return (tracker.ply, tracker.fen)

    def listing(self) -> str:
        """One ``games`` line, FICS layout for an examined game."""
        board = self.tracker.board
        return (f"{self.number:>3} (Exam. {0:>4} {self.white:<11} {0:>4} {self.black:<10}) "
                f"[ uu  0   0] {'W' if board.turn else 'B'}: {board.fullmove_number:>2}")

    # -- moving ------------------------------------------------------------

    def _not_in_setup(self) -> None:
        if self.setup is not None:
            raise GameStateError(msg('You are setting up a position; type "bsetup done" first.'))

    def move(self, handle: str, text: str) -> list:
        """Play ``text`` for ``handle``, as :meth:`ficsfen.server.games.PlayedGame.move` does.

        Raises the tracker's MoveError unchanged (nothing changes); tells the
        listener ``board_changed``; returns the notices to deliver (none here).
        """
        self._not_in_setup()
        ply = self.tracker.push(text)
        if self._future and self._future[0] == ply.uci:
            del self._future[0]
        else:
            self._future.clear()
        self.last_mover = handle
        self._moved.notify(ply)
        if self.listener is not None:
            self.listener.board_changed(self)
        return []

    def backward(self, n: int = 1) -> int:
        """Undo up to ``n`` plies, keeping them for :meth:`forward`; returns how many."""
        self._not_in_setup()
        n = min(n, self.tracker.ply)
        if n <= 0:
            return 0
        undone = [p.uci for p in self.tracker.history[-n:]]
        self.tracker.takeback(n)
        self._future[:0] = undone
        return n

    def forward(self, n: int = 1) -> int:
        """Replay up to ``n`` plies undone by :meth:`backward`; returns how many."""
        self._not_in_setup()
        done = 0
        while self._future and done < n:
            self._moved.notify(self.tracker.push(self._future.pop(0)))
            done += 1
        return done

    def revert(self) -> int:
        """Go back to the position the examination started from (moves kept for forward)."""
        return self.backward(self.tracker.ply)

    # -- setup ---------------------------------------------------------------

    def draft(self) -> SetupDraft:
        """The setup being edited, or a fresh one from the current position (not stored)."""
        if self.setup is not None:
            return self.setup
        return parse_setup(self.tracker.fen, self.tracker.variant)

    def start_setup(self) -> None:
        if self.setup is None:
            self.setup_variant = self.tracker.variant
        self.setup = self.draft()

    def set_up_variant(self, variant: Variant | None) -> SetupDraft:
        """Enter setup mode for ``variant``'s rules, from its usual start (``bsetup fr``)."""
        self.setup_variant = variant
        self.setup = start_draft(variant)
        return self.setup

    def finish_setup(self) -> str:
        """Validate the draft and make it the position; returns its FEN.

        :raises FenError: the draft is not a valid position (nothing changes).
        """
        if self.setup is None:
            raise GameStateError(msg("You are not setting up a position."))
        position = parse_setup(self.setup.fen(), self.setup_variant)
        self.tracker = Tracker(position.fen(), variant=self.setup_variant)
        self.setup = None
        self._future.clear()
        return position.fen()


def start_draft(variant: Variant | None = None) -> SetupDraft:
    return parse_setup(STARTING_FEN if variant is None else variant.starting_fen, variant)


def clear_draft(variant: Variant | None = None) -> SetupDraft:
    holdings = "[]" if variant is not None and variant.holdings else ""
    return Position(EMPTY_PLACEMENT + holdings, "w", "-", "-", 0, 1)

