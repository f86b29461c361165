"""What a game calls out to: its listener, the host's move timing, its journal.

A :class:`~ficsfen.server.games.PlayedGame` (and an examined game) never
writes to a socket nor to a file.  It tells an :class:`IGameListener`
(the server's :class:`~ficsfen.server.game_service.GameService`) when its
position changed or it ended, asks an :class:`IMoveTiming` what a move
cost, and writes each change through an :class:`IGameJournal` (the
server's store) before it announces it.  Listener methods are snake_case,
like the directory's :class:`ficsfen.server.interfaces.IGameEvents`.
"""

from __future__ import annotations

from typing import Any

from zope.interface import Interface, implementer

__all__ = ["IGameJournal", "IGameListener", "IMoveTiming", "NullListener"]


class IGameListener(Interface):
    """What a host hears from a game (all calls synchronous)."""

    def board_changed(game):
        """The position changed (move, takeback, resume): send the boards."""

    def game_ended(game, result):
        """The game ended or was adjourned: announce ``result.announcement(game)``."""


class IMoveTiming(Interface):
    """How long a player's move took, when the host knows better than its clock.

    A host whose :class:`IGameListener` also provides this (the server, for
    players whose client time-stamps its lines with timeseal) decides what
    each move costs; the game holds the answer within the wall-clock time.
    """

    def charge(game, handle, wall):
        """Seconds to charge ``handle`` for the move just made, after ``wall`` seconds."""


class IGameJournal(Interface):
    """Where a played game's changes are made durable before anyone hears of them.

    Each method is called right after the change was made in memory and
    returns a ``Deferred`` that fires once the change is committed (or
    ``None``: nothing to wait for).  The game announces the change then.
    """

    def started(game):
        """The game was created (sets ``game.record_id``)."""

    def moved(game, ply):
        """``ply`` (a :class:`ficsfen.tracker.Ply`) was played; clocks as they now are."""

    def took_back(game):
        """Plies were taken back: the game is now ``game.tracker.ply`` long."""

    def ended(game, result):
        """The game ended with ``result`` (a :class:`~ficsfen.server.game_values.GameResult`)."""

    def adjourned(game, result):
        """The game was adjourned; clocks as they now are."""

    def resumed(game):
        """The adjourned game goes on."""

    def durable(game):
        """The :class:`~ficsfen.server.game_values.DurableState` committed so far, or
        ``None`` if the start was not."""


@implementer(IGameListener)
class NullListener:
    """Hears nothing; the default until a host plugs itself in."""

    def board_changed(self, game: Any) -> None:
        pass

    def game_ended(self, game: Any, result: Any) -> None:
        pass
