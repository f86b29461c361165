"""The game-state tracker: one game, its moves, and a FEN after every ply.

Moves come in as text (SAN, coordinates, castling in its usual spellings)
and are read by :mod:`ficsfen.movetext`; the FEN is kept incrementally by
:mod:`ficsfen.fenbuilder`; plies, their history and subscribers are
:mod:`ficsfen.plies`' and the errors :mod:`ficsfen.trackererrors`'.  This
module's names include theirs, as they were when it held them all.
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from typing import Literal

import chess
from chess import Outcome, Termination

from ficsfen.fen import STARTING_FEN, Position, parse
from ficsfen.fenbuilder import FenBuilder, VariantFenBuilder, compress_rank
from ficsfen.i18n import msg, msgn
from ficsfen.movetext import is_move_text, resolve, standard_castling
from ficsfen.plies import Ply, PlyHistory, PlySubscribers, outcome_message, termination_message
from ficsfen.trackererrors import (AmbiguousMoveError, GameOverError, IllegalMoveError, MalformedMoveError,
                                   MoveError, PlyRangeError, TakebackError, TrackerError)
from ficsfen.variants import Variant, VariantPosition, convert_castling, parse_variant, variant_named

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
    "compress_rank",
    "is_move_text",
    "outcome_message",
    "resolve",
    "termination_message",
]


class _Unknown(enum.Enum):
    """An outcome not computed yet for this ply (a sentinel type checkers can narrow)."""

    UNKNOWN = enum.auto()


_UNKNOWN = _Unknown.UNKNOWN
_BB = chess.BB_SQUARES


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
        return self._commit(standard_castling(self._board, move))

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

    def subscribe(self, callback: Callable[[Ply], object]) -> Callable[[], None]:
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
