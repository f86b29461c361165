"""Played games: two players, a clock, offers and FICS-style endings.

Observers are kept by the host's game directory alone (one source of truth).

:class:`PlayedGame` is host-agnostic: it never writes to a socket, never
renders a board and never opens the store.  Actions
(:meth:`~PlayedGame.move`, :meth:`~PlayedGame.draw`, ...) raise a
:class:`~ficsfen.server.game_errors.GameError` carrying the localized
reason when refused (and then change nothing), and return the
:class:`~ficsfen.server.challenges.Notice` values meant for particular
people when accepted.  What every watcher must see goes to an
:class:`~ficsfen.server.game_hooks.IGameListener`: ``board_changed`` after
each move, takeback or resumption, and ``game_ended`` with the result,
including ends that come from the reactor (flag fall).  Each change bumps
:attr:`PlayedGame.version`, which the renderer's frame caches are keyed by
(:mod:`ficsfen.server.renderer`).

**Durability.**  A game may have an
:class:`~ficsfen.server.game_hooks.IGameJournal` (the server's store).
Each change is then made in memory at once (a second move by the same
player is refused, the clocks switch at the move's time) and written
through the journal; what the change *announces* (the listener's calls,
the move subscribers, the notices a host delivers through
:meth:`PlayedGame.after_write`) waits until the write is committed, in the
order the changes were made (:class:`~ficsfen.server.commit_order.AfterCommit`).
A write that fails takes the game back to what the journal holds and
adjourns it there (:meth:`PlayedGame.write_failed`): nobody is left looking
at a position the store does not have.  Without a journal everything is
announced at once.

The values (:class:`GameResult`, :class:`EndCode`...) are in
:mod:`ficsfen.server.game_values`, the errors in
:mod:`ficsfen.server.game_errors`, offers in :mod:`ficsfen.server.offers`,
adjourned games in :mod:`ficsfen.server.adjourned`; their names are
importable from here too.  Ends without an agreement (mate, resignation,
flag, departure, shutdown) are in :mod:`ficsfen.server.game_endings`.
"""

from __future__ import annotations

from typing import Any, Callable

import chess
from twisted.internet.interfaces import IReactorTime
from twisted.logger import Logger
from zope.interface import implementer

from ficsfen.i18n import msg, msgn
from ficsfen.server.parsed import parsed
from ficsfen.server.adjourned import AdjournedGames
from ficsfen.server.challenges import Notice
from ficsfen.server.clock import ChessClock, TimeControl
from ficsfen.server.commit_order import AfterCommit
from ficsfen.server.game_durability import DurableGame
from ficsfen.server.game_endings import GameEndings
from ficsfen.server.game_errors import (BadTakebackError, GameError, GameFinishedError,
                                        MoveRefusedError, NoOfferError, NotAdjournableError,
                                        NotOutOfTimeError, NotPlayingError, NotYourMoveError,
                                        OfferPendingError)
from ficsfen.server.game_hooks import IGameJournal, IGameListener, IMoveTiming, NullListener
from ficsfen.server.game_values import (DRAW, UNFINISHED, DurableState, EndCode,
                                        GameResult, draw_result)
from ficsfen.server.interfaces import IPlayedGame
from ficsfen.server.offers import GameOffers, Offer, OfferActions
from ficsfen.tracker import MoveError, Ply, PlySubscribers, Tracker
from ficsfen.variants import Variant

__all__ = [
    "DRAW",
    "UNFINISHED",
    "AdjournedGames",
    "BadTakebackError",
    "DurableState",
    "EndCode",
    "GameError",
    "GameFinishedError",
    "GameResult",
    "IGameJournal",
    "IGameListener",
    "IMoveTiming",
    "MoveRefusedError",
    "NoOfferError",
    "NotAdjournableError",
    "NotOutOfTimeError",
    "NotPlayingError",
    "NotYourMoveError",
    "NullListener",
    "Offer",
    "OfferPendingError",
    "PlayedGame",
]


@implementer(IPlayedGame)
class PlayedGame(DurableGame, GameEndings, OfferActions):
    """A game between two handles, with clocks on ``reactor``.

    ``move_times[i]`` is how long ply ``i + 1`` took (reactor seconds since
    the previous move, as FICS shows it in ``(m:ss)``, or less if the
    listener provides :class:`IMoveTiming`: what it charged).
    """

    examined = False
    log = Logger()

    def __init__(self, white: str, black: str, *, reactor: IReactorTime, number: int = 0,
                 time_control: TimeControl = TimeControl(),
                 listener: IGameListener | None = None, fen: str | None = None,
                 journal: IGameJournal | None = None, adjournable: bool = True,
                 variant: Variant | None = None) -> None:
        self.number = number
        self.white = white
        self.black = black
        self.time_control = time_control
        # Chess960 or crazyhouse rules when ``variant`` is given (from ``fen``, else its start).
        self.tracker = Tracker(fen) if variant is None else Tracker(fen, variant=variant)
        self.reactor = reactor
        self.clock = ChessClock(time_control=time_control, reactor=reactor, on_flag=self._flag_fell)
        self.listener: IGameListener = listener if listener is not None else NullListener()
        self.move_times: list[float] = []
        self.result: GameResult | None = None
        self._offers = GameOffers()
        self._turn_started = reactor.seconds()
        #: When the game was created (reactor time): the ``moves`` header's date.
        self.started_at = reactor.seconds()
        #: Counts the changes (moves, takebacks, ends...): what renderers key their caches by.
        self.version = 0
        #: (version, clocks) read at a move's instant: its boards, built when it is
        #: announced after the commit, show the clocks as at the move.
        self._move_clocks: tuple[int, tuple[float, float, bool]] | None = None
        self._moved = PlySubscribers()
        #: Makes changes durable before they are announced (``None``: announce at once).
        self.journal = journal
        #: The store's id of the game (set by the journal), else ``None``.
        self.record_id: int | None = None
        #: Whether a disconnection adjourns the game (both players registered, as on
        #: FICS) rather than forfeiting it, and whether ``adjourn`` may be offered.
        self.adjournable = adjournable
        #: Why ``adjourn`` is refused when the game is not :attr:`adjournable`.
        self.not_adjournable = msg("All players must be registered to adjourn a game.  Use \"abort\".")
        #: Counts the players' offers against the host's rate limit
        #: (:class:`ficsfen.server.challenges.OfferLimiter`), or ``None``.
        self.limiter: Any = None
        #: Nobody may observe it (a player had ``set private 1`` as it started).
        self.private = False
        #: When the game was last adjourned (Unix time, set by the host), for ``stored``.
        self.adjourned_at = 0.0
        #: Rated (both players agreed, both registered: set by the host), the category it
        #: is rated in (``None``: none), both players' ratings as it started or resumed
        #: (``None`` for a guest), and its rating changes once ended rated
        #: (:mod:`ficsfen.server.rated_games`).
        self.rated = False
        self.rating_category: Any = None
        self.start_ratings: tuple[Any, Any] = (None, None)
        self.rated_end: Any = None
        self._announcements = AfterCommit(self, self._not_kept)

    def subscribe_moves(self, callback: Callable[[Ply], object]) -> Callable[[], None]:
        """Call ``callback(ply)`` once each move is complete (clocks as they now show).

        The tracker's own subscribers hear a move while it is being made,
        before the mover's clock stops; a feed that reports clocks uses this.
        """
        return self._moved.add(callback)

    def __repr__(self) -> str:
        return (f"<PlayedGame {self.number} {self.white} vs. {self.black} "
                f"{self.time_control} ply={self.tracker.ply}>")

    # -- who is who ----------------------------------------------------------

    def players(self) -> tuple[str, str]:
        return (self.white, self.black)

    def color_of(self, handle: str) -> chess.Color | None:
        if handle == self.white:
            return chess.WHITE
        if handle == self.black:
            return chess.BLACK
        return None

    def handle_of(self, color: chess.Color) -> str:
        return self.white if color == chess.WHITE else self.black

    def opponent_of(self, handle: str) -> str:
        return self.black if handle == self.white else self.white

    @property
    def adjourned(self) -> bool:
        return self.result is not None and self.result.adjourned

    def _changed(self) -> None:
        self.version += 1

    def _player(self, handle: str) -> chess.Color:
        color = self.color_of(handle)
        if color is None:
            raise NotPlayingError(parsed(msg("You are not playing game {number}.", number=self.number)))
        if self.result is not None:
            raise GameFinishedError(msg("Game {number} is not in progress.", number=self.number))
        return color

    # -- moves ---------------------------------------------------------------

    def move(self, handle: str, text: str) -> list[Notice]:
        """``handle`` plays ``text``; refused moves raise and change nothing.

        Hot path, with the journal's write behind it: ``bench/games_store.py``
        (store on against store off).
        """
        color = self._player(handle)
        if color != self.tracker.turn:
            raise NotYourMoveError(parsed(msg("It is not your move.")))
        if (self.clock.running == color and self.clock.remaining(color) <= 0):
            self._time_out(color)  # the flag fell before the move arrived
            raise GameFinishedError(msg("Your time ran out before your move arrived."))
        try:
            ply = self.tracker.push(text)
        except MoveError as exc:
            raise MoveRefusedError(exc) from None
        now = self.reactor.seconds()
        wall = now - self._turn_started
        timing = IMoveTiming(self.listener, None)
        used = None if timing is None else min(max(timing.charge(self, handle, wall), 0.0), wall)
        self.move_times.append(wall if used is None else used)
        self._turn_started = now
        self.clock.moved(color, used=used)
        notices = self._offers.moved(handle, self.opponent_of(handle), self.white, self.black)
        outcome = self.tracker.outcome()
        if outcome is not None:
            self.clock.stop()  # the last board already shows no clock running
        self._changed()
        journal = self.journal
        if journal is None:
            self._moved.notify(ply)
            self.listener.board_changed(self)
        else:
            # The boards show the clocks as at the move (what the store keeps), not as at
            # the commit: the frames, built when needed, use this same reading.
            clock = self.clock
            with clock.as_started():
                white, black = clock.remaining(chess.WHITE), clock.remaining(chess.BLACK)
            self._move_clocks = (self.version, (white, black, clock.running is not None))
            self.after_write(journal.moved(self, ply), lambda: self._announce_move(ply))
        if outcome is not None:
            self._end(self._automatic(outcome))
        return notices

    def _announce_move(self, ply: Ply) -> None:
        self._moved.notify(ply)
        self.listener.board_changed(self)

    # -- requests by agreement ------------------------------------------------

    def draw(self, handle: str) -> list[Notice]:
        """Claim a fifty-move/threefold draw, accept the opponent's offer, or offer one."""
        self._player(handle)
        claim = self.tracker.claimable_draw()
        if claim is not None:
            self._end(draw_result(claim.termination))
            return []
        if self._offers.find("draw", self.opponent_of(handle)) is not None:
            self._end(GameResult(DRAW, msg("Game drawn by mutual agreement"), code=EndCode.AGREED,
                                 preface=self._accepted("draw", handle)))
            return []
        return self._offer(handle, "draw")

    def abort(self, handle: str) -> list[Notice]:
        """Abort at once before both sides have moved, else by agreement."""
        self._player(handle)
        if self.tracker.ply < 2:
            self._end(GameResult(UNFINISHED, msg("Game aborted on move {number}",
                                                 number=self.tracker.board.fullmove_number),
                                 code=EndCode.ABORTED))
            return []
        if self._offers.find("abort", self.opponent_of(handle)) is not None:
            self._end(GameResult(UNFINISHED, msg("Game aborted by mutual agreement"),
                                 code=EndCode.ABORTED, preface=self._accepted("abort", handle)))
            return []
        return self._offer(handle, "abort")

    def adjourn(self, handle: str) -> list[Notice]:
        """Adjourn by agreement (the game is kept with its clocks for ``resume``)."""
        self._player(handle)
        if not self.adjournable:
            raise NotAdjournableError(self.not_adjournable)
        if self._offers.find("adjourn", self.opponent_of(handle)) is not None:
            self._adjourn(msg("Game adjourned by mutual agreement"),
                          preface=self._accepted("adjourn", handle))
            return []
        return self._offer(handle, "adjourn")

    def takeback(self, handle: str, plies: int = 1) -> list[Notice]:
        """Ask to take back ``plies`` half-moves; the same request from the opponent accepts."""
        self._player(handle)
        played = self.tracker.ply
        if plies < 1 or plies > played:
            raise BadTakebackError(msgn("You can take back from 1 to {count} half move.",
                                   "You can take back from 1 to {count} half moves.", played)
                              if played else msg("There are no moves to take back."))
        opponent = self.opponent_of(handle)
        theirs = self._offers.find("takeback", opponent)
        if theirs is None or theirs.plies != plies:
            return self._offer(handle, "takeback", plies)
        removed = self._drop_offers()
        self.tracker.takeback(plies)
        del self.move_times[played - plies:]
        self._turn_started = self.reactor.seconds()
        self._resync_clock()
        self._changed()
        if self.journal is None:
            self.listener.board_changed(self)
        else:
            self.after_write(self.journal.took_back(self), lambda: self.listener.board_changed(self))
        return [*self._accepted("takeback", handle), *removed]

    # -- resumption -----------------------------------------------------------

    def resume(self) -> None:
        """Continue an adjourned game, clocks as they were.

        Add it back to the host's directory first (which gives it a number),
        then call this once the resumption is stored: the listener hears
        ``board_changed``.

        :raises GameFinishedError: the game is not adjourned.
        """
        if not self.adjourned:
            raise GameFinishedError(msg("Game {number} is not adjourned.", number=self.number))
        self.result = None
        self._turn_started = self.reactor.seconds()
        self.clock.resume()
        self._changed()
        self.listener.board_changed(self)
