"""What ``uptime`` reports: when the server started, and its players and games since.

:class:`ServerStats` is told of each arrival (``Sessions.arrivals``) and is
a listener of the game directory (:class:`~ficsfen.server.interfaces.IGameEvents`):
it keeps the most players and games seen at once, and the played games
started since the server started.  Nothing here is stored: a restart starts
the counts again, as FICS's "since last restart".
"""

from __future__ import annotations

from typing import Any, Callable

from zope.interface import implementer

from ficsfen.server.interfaces import IGameEvents, IPlayedGame

__all__ = ["ServerStats"]


@implementer(IGameEvents)
class ServerStats:
    """Counts since the start.  ``players()`` and ``games()`` count those there now;
    ``started_at`` is the start in Unix time, ``started_clock`` in the reactor's seconds."""

    def __init__(self, *, players: Callable[[], int], games: Callable[[], int],
                 started_at: float, started_clock: float) -> None:
        self._players = players
        self._games = games
        self.started_at = started_at
        self.started_clock = started_clock
        self.player_high = 0
        self.game_high = 0
        #: Played games started since the start (examined ones not counted).
        self.games_played = 0

    @property
    def players(self) -> int:
        return self._players()

    @property
    def games(self) -> int:
        return self._games()

    def arrived(self, session: object) -> None:
        """A player arrived (an ``arrivals`` hook)."""
        self.player_high = max(self.player_high, self._players())

    def game_started(self, game: Any) -> None:
        self.game_high = max(self.game_high, self._games())
        if IPlayedGame.providedBy(game):
            self.games_played += 1

    def game_ended(self, game: Any, result: object = None) -> None:
        pass

    def position_changed(self, game: Any) -> None:
        pass
