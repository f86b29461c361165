"""What a tracker hands out: plies, their live history, their subscribers, outcome texts.

Outcomes are python-chess's own :class:`chess.Outcome` and
:class:`chess.Termination`; what is ours is their text in the players'
languages (:func:`outcome_message`, :func:`termination_message`).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import overload

import chess
from chess import Outcome, Termination

from ficsfen.i18n import Message, msg

__all__ = ["Ply", "PlyHistory", "PlySubscribers", "outcome_message", "termination_message"]

# Standard logging, not Twisted's: the library runs without Twisted; the
# server forwards the "ficsfen" loggers into its Twisted log.  The name is the
# tracker's, whose subscribers these are.
_log = logging.getLogger("ficsfen.tracker")


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
        self._callbacks: list[Callable[[Ply], object]] = []

    def __len__(self) -> int:
        return len(self._callbacks)

    def add(self, callback: Callable[[Ply], object]) -> Callable[[], None]:
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
