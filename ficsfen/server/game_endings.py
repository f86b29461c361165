"""How a played game ends without an agreement: mate, resignation, flag, departure, shutdown.

:class:`GameEndings` is the part of :class:`~ficsfen.server.games.PlayedGame`
that ends or adjourns it on one side's word or by the rules: checkmate and
automatic draws after a move, ``resign``, a ``flag`` claim or the flag
falling, a player leaving (adjourned between registered players, else
forfeited, as on FICS) and the server stopping.  Every end goes through
:meth:`GameEndings._end` or :meth:`GameEndings._adjourn`: the clocks stop,
pending offers are dropped, and the listener hears ``game_ended`` once the
journal has the end (at once without a journal).  Ends by agreement (draw,
abort, adjourn) are ``PlayedGame``'s own, next to its offers.  It holds no
state of its own: the game's attributes are documented on ``PlayedGame``.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any, Callable

import chess
from chess import Outcome, Termination
from twisted.internet.defer import Deferred

from ficsfen.i18n import Message, msg
from ficsfen.server.challenges import Notice
from ficsfen.server.game_errors import NotOutOfTimeError
from ficsfen.server.game_hooks import IGameJournal
from ficsfen.server.game_values import (DRAW, UNFINISHED, EndCode, GameResult, draw_result,
                                        win_score)

__all__ = ["GameEndings"]


class GameEndings:
    """Ends by the rules, the clock or one side (a base of :class:`~ficsfen.server.games.PlayedGame`)."""

    # Set by PlayedGame.__init__.
    journal: IGameJournal | None
    listener: Any
    clock: Any
    tracker: Any
    time_control: Any
    result: GameResult | None
    adjournable: bool

    if TYPE_CHECKING:  # pragma: no cover - PlayedGame's
        def _player(self, handle: str) -> chess.Color: ...
        def _changed(self) -> None: ...
        def _drop_offers(self) -> list[Notice]: ...
        def color_of(self, handle: str) -> chess.Color | None: ...
        def handle_of(self, color: chess.Color) -> str: ...
        def after_write(self, written: Deferred[Any] | None,
                        announce: Callable[[], None]) -> None: ...

    # -- endings by one side -------------------------------------------------

    def resign(self, handle: str) -> list[Notice]:
        color = self._player(handle)
        self._end(GameResult(win_score(not color), msg("{handle} resigns", handle=handle),
                             code=EndCode.RESIGNATION))
        return []

    def flag(self, handle: str) -> list[Notice]:
        """Claim a win because the opponent's time is out."""
        color = self._player(handle)
        if self.time_control.untimed:
            raise NotOutOfTimeError(msg("This game is untimed."))
        if self.clock.remaining(not color) > 0:
            raise NotOutOfTimeError(msg("Your opponent is not out of time."))
        self._time_out(not color)
        return []

    def disconnect(self, handle: str, *, can_return: bool = True) -> None:
        """``handle`` left: the game is adjourned, or ``handle`` forfeits it (FICS).

        Only a game between registered players (:attr:`adjournable`) is
        adjourned; otherwise, as on FICS, the one who left loses ("forfeits
        by disconnection"): an adjourned game with a guest could never be
        resumed by the same person.  ``can_return=False`` forfeits an
        adjournable game too.  Observers are the host's business.
        """
        color = self.color_of(handle)
        if color is None or self.result is not None:
            return
        if can_return and self.adjournable:
            self._adjourn(msg("{handle} lost connection; game adjourned", handle=handle))
        else:
            self._end(GameResult(win_score(not color), msg("{handle} forfeits by disconnection",
                                                           handle=handle),
                                 code=EndCode.DISCONNECTION))

    def stop(self) -> None:
        """The server stops: adjourn the game, or abort it if it cannot be adjourned.

        The clocks are kept as at the last move: nobody is charged for the
        time the server took to stop.
        """
        if self.result is not None:
            return
        if self.adjournable:
            self._adjourn(msg("Game adjourned by server shutdown"), charge=False)
        else:
            self._end(GameResult(UNFINISHED, msg("Game aborted by server shutdown"),
                                 code=EndCode.ABORTED))

    # -- endings by the rules and the clock -----------------------------------

    def _automatic(self, outcome: Outcome) -> GameResult:
        if outcome.termination == Termination.CHECKMATE and outcome.winner is not None:
            loser = self.handle_of(not outcome.winner)
            return GameResult(win_score(outcome.winner), msg("{handle} checkmated", handle=loser),
                              code=EndCode.MATE)
        return draw_result(outcome.termination)

    def _flag_fell(self, color: chess.Color) -> None:
        if self.result is None:
            self._time_out(color)

    def _time_out(self, color: chess.Color) -> None:
        loser = self.handle_of(color)
        winner = not color
        if self.tracker.board.has_insufficient_material(winner):
            self._end(GameResult(DRAW, msg("{loser} ran out of time and {winner} has no material to mate",
                                           loser=loser, winner=self.handle_of(winner)),
                                 code=EndCode.TIME_NO_MATERIAL))
        else:
            self._end(GameResult(win_score(winner), msg("{handle} forfeits on time", handle=loser),
                                 code=EndCode.FLAG))

    def _end(self, result: GameResult) -> None:
        self.clock.stop()
        result = replace(result, notices=tuple(self._drop_offers()))
        self.result = result
        self._changed()
        self._after(lambda journal: journal.ended(self, result),
                    lambda: self.listener.game_ended(self, result))

    def _adjourn(self, reason: Message, *, charge: bool = True,
                 preface: tuple[Notice, ...] = ()) -> None:
        self.clock.pause(charge=charge)
        result = self.result = GameResult(UNFINISHED, reason, adjourned=True,
                                          notices=tuple(self._drop_offers()), preface=preface)
        self._changed()
        self._after(lambda journal: journal.adjourned(self, result),
                    lambda: self.listener.game_ended(self, result))

    def _after(self, write: Callable[[IGameJournal], Deferred[Any] | None],
               announce: Callable[[], None]) -> None:
        """``announce`` now without a journal, else once ``write(journal)`` is committed."""
        if self.journal is None:
            announce()
        else:
            self.after_write(write(self.journal), announce)
