"""The tracker's errors: every refusal is a localizable message and a stable code.

:class:`MoveError` and its subclasses are also python-chess's own move
errors (``chess.IllegalMoveError``...), so code written against either
catches them.
"""

from __future__ import annotations

from collections.abc import Sequence

import chess

from ficsfen.i18n import DEFAULT_LANGUAGE, LocalizedError, Message

__all__ = [
    "AmbiguousMoveError",
    "GameOverError",
    "IllegalMoveError",
    "MalformedMoveError",
    "MoveError",
    "PlyRangeError",
    "TakebackError",
    "TrackerError",
]


class TrackerError(LocalizedError, ValueError):
    """Base of the tracker's errors: a localizable :class:`Message`."""

    code = "tracker-error"

    @property
    def text(self) -> str:
        """The English text (what ``str()`` gives)."""
        return self.render(DEFAULT_LANGUAGE)


class MoveError(TrackerError):
    """A move was refused; the game is unchanged.  ``move_text`` is the input."""

    code = "move-error"

    def __init__(self, message: Message, *, move_text: str = "", code: str | None = None) -> None:
        self.move_text = move_text
        if code is not None:
            self.code = code
        super().__init__(message)


class MalformedMoveError(MoveError, chess.InvalidMoveError):
    """The text is not a move in any notation we read."""

    code = "malformed"


class IllegalMoveError(MoveError, chess.IllegalMoveError):
    """A well-formed move that the rules do not allow here."""

    code = "illegal"


class AmbiguousMoveError(MoveError, chess.AmbiguousMoveError):
    """SAN that fits more than one legal move; ``candidates`` are their origins."""

    code = "ambiguous"

    def __init__(self, message: Message, *, move_text: str = "", candidates: Sequence[str] = ()) -> None:
        self.candidates = tuple(candidates)
        super().__init__(message, move_text=move_text)


class GameOverError(MoveError):
    """The game has already ended (checkmate, stalemate or an automatic draw)."""

    code = "game-over"


class TakebackError(TrackerError):
    """A takeback of a negative count or of more plies than were played."""

    code = "takeback"


class PlyRangeError(TrackerError, IndexError):
    """``fen_at`` was asked for a ply that does not exist."""

    code = "ply-range"
