"""Why a game refuses an action: each error carries the localized reason.

A refused action changes nothing; commands show :attr:`message` to the
player who typed it.
"""

from __future__ import annotations

from ficsfen.i18n import LocalizedError
from ficsfen.tracker import MoveError

__all__ = [
    "BadTakebackError",
    "GameError",
    "GameFinishedError",
    "MoveRefusedError",
    "NoOfferError",
    "NotAdjournableError",
    "NotOutOfTimeError",
    "NotPlayingError",
    "NotYourMoveError",
    "OfferPendingError",
]


class GameError(LocalizedError):
    """A refused game action; :attr:`message` tells the player why."""


class NotPlayingError(GameError):
    """The handle is not a player of this game."""


class NotYourMoveError(GameError):
    """A move typed while the opponent is to move."""


class GameFinishedError(GameError):
    """The game has ended or is adjourned."""


class MoveRefusedError(GameError):
    """The tracker refused the move (illegal, ambiguous, malformed)."""

    def __init__(self, error: MoveError) -> None:
        super().__init__(error.message)
        self.error = error


class OfferPendingError(GameError):
    """The same offer was already made."""


class NoOfferError(GameError):
    """``accept``/``decline``/``withdraw`` with no matching offer."""


class NotOutOfTimeError(GameError):
    """``flag`` while the opponent still has time."""


class BadTakebackError(GameError):
    """A takeback of zero or more plies than were played."""


class NotAdjournableError(GameError):
    """``adjourn`` in a game with an unregistered player (it could never be resumed)."""
