"""Games kept across time: adjourned games, their expiry, and restore at start.

:class:`GameKeeping` holds the adjourned games
(:class:`~ficsfen.server.adjourned.AdjournedGames`) for the
:class:`~ficsfen.server.game_service.GameService`, ends those not resumed
within ``[limits] adjourned_expiry_days`` (looking periodically while any
is kept), and at start brings back, adjourned, the games the store had
unfinished.  Ends are written through the journal; players are told
through the broadcaster.
"""

from __future__ import annotations

import time
from typing import Any, Callable

from twisted.internet.defer import Deferred, gatherResults, succeed
from twisted.internet.interfaces import IReactorTime
from twisted.logger import Logger
from twisted.python.failure import Failure

from ficsfen.i18n import Message, msg, msgn
from ficsfen.server.adjourned import AdjournedGames
from ficsfen.server.game_values import EndCode, GameResult, GameStatus
from ficsfen.server.journal import StoreJournal, restore_game
from ficsfen.server.store.errors import NoSuchGameError
from ficsfen.server.store.records import GameEnd

__all__ = ["GameKeeping", "expiry_notice"]


def expiry_notice(opponent: str, days: float) -> Message:
    """What a player reads when their adjourned game with ``opponent`` expired, not resumed
    within ``days``."""
    return msgn("Your adjourned game with {handle} has expired: it was not resumed within "
                "{count} day.",
                "Your adjourned game with {handle} has expired: it was not resumed within "
                "{count} days.", int(days), handle=opponent)


class GameKeeping:
    """Adjourned games, their expiry and their restoration.

    ``expiry_days()`` is ``[limits] adjourned_expiry_days`` (0: never);
    ``wall`` Unix time; ``journal`` the store's journal or ``None``;
    ``tell(handle, message)`` reaches a player (the broadcaster).
    """

    log = Logger()

    #: The longest wait between two looks for expired adjourned games, in seconds.
    EXPIRY_INTERVAL = 3600.0

    def __init__(self, *, clock: IReactorTime, wall: Callable[[], float],
                 expiry_days: Callable[[], float], journal: StoreJournal | None,
                 tell: Callable[[str, Any], None]) -> None:
        self.clock = clock
        self.wall = wall
        self._expiry_days = expiry_days
        self.journal = journal
        self._tell = tell
        #: Adjourned games waiting for ``resume``, with their history and clocks.
        self.adjourned = AdjournedGames()
        #: The next look for expired adjourned games (``None``: none kept).
        self._expiry_call: Any = None
        #: ``expired_elsewhere(game, days)``: a cluster tells the players of ``game``
        #: logged in on its other nodes that it expired (``None``: one server).
        self.expired_elsewhere: Callable[[Any, float], None] | None = None
        #: ``expiry_refused(game)``: the store refused the expiry of ``game`` (servers sharing
        #: it: resumed, or adjourned again since this copy); ``None``: nothing to do.
        self.expiry_refused: Callable[[Any], None] | None = None

    def keep(self, game: Any) -> None:
        """Keep the adjourned ``game`` for ``resume``; look for expired games periodically
        while any is kept.

        :raises ValueError: ``game`` is not adjourned.
        """
        self.adjourned.keep(game)
        expiry = self._expiry_days() * 86400
        if expiry > 0 and self._expiry_call is None:
            self._expiry_call = self.clock.callLater(min(expiry, self.EXPIRY_INTERVAL),
                                                     self._expire_periodically)

    def stop(self) -> None:
        """No more looks for expired games (the server stops)."""
        if self._expiry_call is not None and self._expiry_call.active():
            self._expiry_call.cancel()
        self._expiry_call = None

    def _expire_periodically(self) -> None:
        self._expiry_call = None
        self.expire()
        if len(self.adjourned):
            expiry = self._expiry_days() * 86400
            self._expiry_call = self.clock.callLater(min(expiry, self.EXPIRY_INTERVAL),
                                                     self._expire_periodically)

    def expire(self) -> Deferred[Any]:
        """End, aborted, the adjourned games not resumed for ``[limits] adjourned_expiry_days``.

        Each ends in the store like any aborted game (it leaves the players'
        ``stored`` lists and enters no history), its players are told if
        they are here, and the operator's log has a line.  The Deferred fires
        once the ends are written.
        """
        days = self._expiry_days()
        if days <= 0:
            return succeed([])
        writes = []
        before = self.wall() - days * 86400
        for game in self.adjourned.expire(before):
            result = GameResult("*", msg("Game adjourned too long; aborted"),
                                code=EndCode.ABORTED)
            game.result = result
            if self.journal is not None and game.record_id is not None:
                writes.append(self.journal.expired(game, result, before).addCallbacks(
                    self._expired, self._not_expired, callbackArgs=(game, days),
                    errbackArgs=(game,)))
            else:
                self._expired(None, game, days)
        return gatherResults(writes, consumeErrors=True)

    def _expired(self, _: object, game: Any, days: float) -> None:
        """``game`` ended for not being resumed in ``days``: its players are told (and, in a
        cluster, the other nodes, for their players: :attr:`expired_elsewhere`)."""
        self.log.info("adjourned game {white} vs. {black} expired: not resumed for "
                      "{days:g} days", white=game.white, black=game.black, days=days)
        for handle in game.players():
            self._tell(handle, expiry_notice(game.opponent_of(handle), days))
        if self.expired_elsewhere is not None:
            self.expired_elsewhere(game, days)

    def _not_expired(self, failure: Failure, game: Any) -> None:
        """The store no longer had ``game`` adjourned since before the cut-off: another
        server sharing it resumed or expired it first (and told the players it hosts), or
        adjourned it again (:attr:`expiry_refused`); else the failure is logged."""
        if not failure.check(NoSuchGameError):
            self.log.failure("the expiry of {game!r} was not written", failure, game=game)
        elif self.expiry_refused is not None:
            self.expiry_refused(game)

    def restore(self, store: Any, *, read: Callable[..., Deferred[Any]], listener: Any,
                is_registered: Callable[[str], bool],
                limiter: Any = None, keep_out: frozenset[int] = frozenset()) -> Deferred[list[Any]]:
        """Bring back the games ``store`` has unfinished: those in progress when the
        server stopped (a crash) are adjourned there, clocks as at their last move.

        Run once at start, before listening; the store is read through ``read``
        (off the reactor thread).  A game with a player who has no account
        could never be resumed: it ends, aborted.  ``listener`` hears the
        restored games (the game service); ``limiter`` counts their offers.  The games
        whose ids are in ``keep_out`` are left alone (in play on another node).
        """
        def unfinished() -> list[tuple[Any, bool]]:  # in the read thread
            return [(stored, is_registered(stored.start.white)
                     and is_registered(stored.start.black))
                    for stored in store.unfinished_games() if stored.id not in keep_out]

        return read(unfinished).addCallback(self.adjourn_unfinished, store, listener, limiter)

    def adjourn_unfinished(self, unfinished: list[tuple[Any, bool]], store: Any, listener: Any,
                           limiter: Any = None) -> Deferred[list[Any]]:
        """Keep, adjourned, the stored games of ``unfinished`` (each with whether both its
        players are registered: if not, it ends aborted): those still marked in play
        (their server stopped or died) are marked adjourned in ``store``, clocks as at
        their last move.  At a start (:meth:`restore`), and on the node of a cluster
        that takes over the games of a node that died.  Fires once written."""
        writes = []
        for stored, resumable in unfinished:
            if not resumable:
                writes.append(store.end_game(stored.id, GameEnd(
                    "*", "Game aborted by server shutdown", EndCode.ABORTED, time.time())))
                continue
            reason = msg("Game adjourned by server shutdown")
            game = restore_game(stored, reactor=self.clock, reason=reason, listener=listener,
                                journal=self.journal)
            game.limiter = limiter
            journal, result = self.journal, game.result
            if stored.status is GameStatus.PLAYING and journal is not None and result is not None:
                game.adjourned_at = self.wall()  # in progress when the server stopped
                writes.append(journal.adjourned(game, result))
            self.keep(game)
        writes.append(self.expire())
        return gatherResults(writes, consumeErrors=True)
