"""The durable half of a played game: changes announced after their commit, and undone.

:class:`DurableGame` is the part of
:class:`~ficsfen.server.games.PlayedGame` that deals with its journal
(``docs/store.md``): announcements wait in order for their writes
(:class:`~ficsfen.server.commit_order.AfterCommit`), boards of a move show
the clocks as read at the move's instant, and a write that fails takes the
game back to what the journal holds, adjourned there.  It holds no state of
its own: the game's attributes are documented on ``PlayedGame``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

import chess
from twisted.internet.defer import Deferred
from twisted.python.failure import Failure

from ficsfen.server.game_values import NOT_SAVED, UNFINISHED, DurableState, GameResult

__all__ = ["DurableGame"]


class DurableGame:
    """Durability of a played game (a base of :class:`~ficsfen.server.games.PlayedGame`)."""

    # Set by PlayedGame.__init__.
    _announcements: Any
    _move_clocks: tuple[int, tuple[float, float, bool]] | None
    _turn_started: float
    version: int
    journal: Any
    listener: Any
    reactor: Any
    clock: Any
    tracker: Any
    move_times: list[float]
    result: GameResult | None
    offers: Any
    log: Any

    if TYPE_CHECKING:  # pragma: no cover - PlayedGame's
        def _changed(self) -> None: ...

    # -- durability ------------------------------------------------------------

    def after_write(self, written: Deferred[Any] | None, announce: Callable[[], None]) -> None:
        """Run ``announce`` once ``written`` (a journal write, or ``None``) and every
        write made before it are committed; at once when nothing is waiting.

        Hosts use it for what a change tells particular people (offers
        withdrawn by a move, an offer made while the move is being written),
        so that nobody hears of anything before the move itself.
        """
        self._announcements.after_write(written, announce)

    def _not_kept(self, failure: Failure) -> None:
        self.log.failure("the store could not keep a change of {game!r}; game adjourned",
                         failure, game=self)
        # Later in the reactor: a write refused at once fails inside the change itself.
        self.reactor.callLater(0, self.write_failed)

    @property
    def move_clocks(self) -> tuple[float, float]:
        """Both clocks (white, black; seconds) as at the instant of the last move: what
        its boards show and what the journal stores with it.

        :raises RuntimeError: no move was made through a journal yet.
        """
        held = self._move_clocks
        if held is None:
            raise RuntimeError(f"{self!r}: no move was written through a journal")
        white, black, _running = held[1]
        return white, black

    def shown_clocks(self) -> tuple[float, float, bool] | None:
        """The clocks boards of the current version show (White's, Black's seconds, whether
        one runs): as read at the move's instant when the move waited for its write, else
        ``None`` (read them now)."""
        held = self._move_clocks
        return held[1] if held is not None and held[0] == self.version else None

    @property
    def announcing(self) -> bool:
        """Whether a change waits for its write before it is announced."""
        return bool(self._announcements)

    def settled(self) -> Deferred[None]:
        """Fires once every change made so far is committed and announced."""
        return self._announcements.settled()

    def write_failed(self) -> None:
        """A change could not be stored: back to what the journal holds, adjourned there.

        Announcements still waiting are dropped (they told of what the store
        does not have); players and observers are told the game is adjourned
        (:data:`NOT_SAVED`) at the position they last saw.  The store still
        has the game in progress at that position, so a restart brings it
        back adjourned there too.  A game whose start was never stored ends
        at once with that reason (the host tells its two players).
        """
        self._announcements.reset()
        state = self.journal.durable(self) if self.journal is not None else None
        self.clock.stop()
        self.offers.clear()
        if state is None:
            self.result = GameResult(UNFINISHED, NOT_SAVED)
        else:
            self.load(state)
            self.clock.pause()
            self.result = GameResult(UNFINISHED, NOT_SAVED, adjourned=True)
        self._changed()
        try:
            self.listener.game_ended(self, self.result)
        finally:
            self._announcements.fire_settled()

    def load(self, state: DurableState) -> None:
        """Bring moves, move times and clocks to ``state`` (a restart, a failed write).

        The moves in common are kept; the others are taken back or played.
        """
        played = [p.san for p in self.tracker.history]
        common = 0
        for mine, kept in zip(played, state.sans):
            if mine != kept:
                break
            common += 1
        self.tracker.takeback(len(played) - common)
        for san in state.sans[common:]:
            self.tracker.push(san)
        self.move_times[:] = list(state.took)
        self.clock.set_remaining(state.white, state.black)
        self._resync_clock()
        self._turn_started = self.reactor.seconds()
        self._changed()

    def _resync_clock(self) -> None:
        first = chess.WHITE if self.tracker.initial_fen.split(" ")[1] == "w" else chess.BLACK
        plies = self.tracker.ply
        by_first = (plies + 1) // 2
        by_second = plies // 2
        white, black = (by_first, by_second) if first == chess.WHITE else (by_second, by_first)
        self.clock.resync(white_moves=white, black_moves=black, turn=self.tracker.turn)

