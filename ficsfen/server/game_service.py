"""The games a server hosts: start, move, end, adjourn, resume, expiry and restore.

:class:`GameService` is the :class:`~ficsfen.server.game_hooks.IGameListener`
of every game the server hosts.  It owns the life of games: it creates
them (an accepted challenge or seek), numbers them in the directory,
plays moves typed at the prompt, keeps adjourned games and ends those not
resumed in time, and brings back at start the games the store had in
progress.  With a store each change goes through the
:class:`~ficsfen.server.journal.StoreJournal` first; only once it is
committed does the game tell this service, which then asks the
:class:`~ficsfen.server.broadcaster.Broadcaster` to announce it
(``docs/store.md``: a move is announced only after its commit).  It sends
nothing to sessions itself but a command's own answer (a refused move):
everything else goes out through the broadcaster.  What a new game fixes
at its start is :mod:`ficsfen.server.game_setup`'s, what a player logging
in hears of their adjourned games :mod:`ficsfen.server.adjourned_arrivals`',
and leaving an examined game :mod:`ficsfen.server.examined_leaving`'s.

A move goes down the layers once (``docs/design.md``, "Game path"):
:meth:`GameService.move` -> :meth:`PlayedGame.move` -> journal -> store;
at the commit, :meth:`GameService.board_changed` ->
:meth:`Broadcaster.show_position` -> sessions.
"""

from __future__ import annotations

import random
import time
from typing import TYPE_CHECKING, Any, Callable

from twisted.internet.defer import Deferred, DeferredList, maybeDeferred
from twisted.internet.interfaces import IReactorTime
from twisted.logger import Logger
from zope.interface import implementer

from ficsfen.i18n import LocalizedError, msg
from ficsfen.server.parsed import parsed
from ficsfen.names import fold
from ficsfen.server.adjourned_arrivals import tell_adjourned
from ficsfen.server.examined import ExaminedGame
from ficsfen.server.examined_leaving import leave_examined
from ficsfen.server.game_hooks import IGameListener, IMoveTiming
from ficsfen.server.game_keeping import GameKeeping
from ficsfen.server.game_values import GameResult
from ficsfen.server.game_setup import new_game
from ficsfen.server.games import PlayedGame
from ficsfen.server.interfaces import IExaminedGame, IGameService, IPlayedGame, IServerGame
from ficsfen.server.journal import StoreJournal
from ficsfen.server.rated_games import GameRating
from ficsfen.server.ratings import Ratings
from ficsfen.server.resumption import Resumption, tell_not_resumed

if TYPE_CHECKING:
    from ficsfen.server.reply import Reply
    from ficsfen.server.session import Session
    from ficsfen.server.broadcaster import Broadcaster
    from ficsfen.server.config import Config
    from ficsfen.server.directory import GameDirectory

__all__ = ["GameService"]


@implementer(IGameListener, IMoveTiming, IGameService)
class GameService:
    """Hosted games, from their start to their end; see the module's documentation.

    ``session(handle)`` finds a logged-in session (any case); ``is_registered``
    whether a name has an account.  ``config`` gives ``adjourned_per_player`` and
    ``adjourned_expiry_days``.  The composition root sets :attr:`challenges`,
    :attr:`seeks` and :attr:`talk` once they exist.
    """

    log = Logger()

    def __init__(self, *, directory: GameDirectory, broadcaster: Broadcaster, clock: IReactorTime,
                 session: Callable[[str], Any], is_registered: Callable[[str], bool],
                 config: Config, rng: random.Random | None = None, store: Any = None,
                 wall: Callable[[], float] = time.time, offer_limiter: Any = None,
                 read: Callable[..., Deferred] = maybeDeferred,
                 ratings: Ratings | None = None) -> None:
        self.directory = directory
        #: Runs a store read off the reactor thread (restore reads the unfinished games).
        self._read = read
        self.broadcaster = broadcaster
        self.clock = clock
        self._session = session
        self._is_registered = is_registered
        self.config = config
        self.rng = rng if rng is not None else random.SystemRandom()
        self.store = store
        #: Unix time: when games are adjourned, and so when they expire.
        self.wall = wall
        self.offer_limiter = offer_limiter
        #: Writes each change of a played game before it is announced (``None``: no store).
        self.journal = StoreJournal(store, wall=wall) if store is not None else None
        #: Rated games: who plays rated, both new ratings at the end (written with it).
        self.rating = GameRating(ratings if ratings is not None
                                 else Ratings(config.ratings, registered=lambda handle: False),
                                 wall=wall)
        if self.journal is not None:
            self.journal.rate = self.rating.rate
            self.journal.start_values = self.rating.start_values
        #: Adjourned games, their expiry and their restoration at start.
        self.keeping = GameKeeping(clock=clock, wall=wall,
                                   expiry_days=lambda: config.adjourned_expiry_days,
                                   journal=self.journal, tell=broadcaster.tell)
        #: Adjourned games waiting for ``resume``, with their history and clocks.
        self.adjourned = self.keeping.adjourned
        #: Pending match offers (:class:`ficsfen.server.challenges.Challenges`).
        self.challenges: Any = None
        #: Seeks (a player who starts a game seeks no more), and talk (``say``
        #: reaches the last opponent): set by the composition root.
        self.seeks: Any = None
        self.talk: Any = None
        #: Players of games being created or resumed, not yet announced (they are busy).
        self._starting: dict[str, PlayedGame] = {}

    #: ``anywhere(handle)``: a player logged in on any node of a cluster (what the
    #: adjourned-game notice at a login names as online), or None: :meth:`find_sessions`'s.
    anywhere: Callable[[str], Any] | None = None
    #: ``arrival_elsewhere(opponent, handle)``: tell ``opponent``, on another node of a
    #: cluster, that ``handle`` arrived with their adjourned game; whether it did.
    arrival_elsewhere: Callable[[str, str], bool] | None = None

    def find_sessions(self, session: Callable[[str], Session | None]) -> None:
        """Find a player's session with ``session(handle)`` from now on (a cluster adds the
        seats of the players of other nodes)."""
        self._session = session

    def player(self, handle: str) -> Any:
        """:meth:`IGameService.player`."""
        return self._session(handle)

    def busy(self, handle: str) -> bool:
        """Whether ``handle`` plays or examines a game, or one is being started for them."""
        return self.playing(handle) is not None

    def playing(self, handle: str) -> Any:
        """The game ``handle`` plays or examines here, or that is being started or resumed
        for them; ``None``: none."""
        return self._starting.get(fold(handle)) or self.directory.game_of(handle)

    def examining(self, handle: str) -> bool:
        """Whether ``handle`` examines a game."""
        return IExaminedGame.providedBy(self.directory.game_of(handle))

    # -- moves -----------------------------------------------------------

    def move(self, session: Session, text: str, reply: Reply | None = None) -> None:
        """A move typed at the prompt, for the game ``session`` plays or examines.

        Played and examined games share one entry point, ``game.move(handle,
        text)``: it raises a localized refusal (told to ``session``; nothing
        changes), or makes the move (the game tells :meth:`board_changed`, at
        once or once the move is committed) and returns notices for particular
        people (offers the move withdrew), delivered after the move's board.

        When the move waits for its commit, the mover's board, announced then,
        ends with the prompt: the command's own is left out
        (``reply.defer_prompt()``, ``reply`` being the command's
        :class:`~ficsfen.server.reply.Reply`).
        """
        game = IServerGame(self.directory.game_of(session.handle), None)  # ours are all IServerGame
        if game is None:
            session.send(msg("You are not playing or examining a game."))
            return
        try:
            notices = game.move(session.handle, text)
        except LocalizedError as e:
            # Refusals (illegal move, not your turn, setup mode...) carry
            # their localized reason; anything else is a bug, logged by the caller.
            session.send(e.message)
            return
        if reply is not None and IPlayedGame.providedBy(game) and game.announcing:
            # One write for the mover, as on FICS: the board then the prompt.
            reply.defer_prompt()
        if notices:
            self.deliver_after(game, notices)

    def deliver_after(self, game: Any, notices: Any) -> None:
        """Deliver ``notices`` once what ``game`` changed before is stored and announced."""
        if IPlayedGame.providedBy(game):
            game.after_write(None, lambda: self.broadcaster.deliver(notices))
        else:
            self.broadcaster.deliver(notices)

    def charge(self, game: PlayedGame, handle: str, wall: float) -> float:
        """:class:`IMoveTiming`: a timeseal player's move costs what their stamps say."""
        session = self._session(handle)
        if session is None or session.move_timer is None:
            return wall
        return session.move_timer.charge(wall)

    # -- IGameListener ---------------------------------------------------

    def board_changed(self, game: IServerGame) -> None:
        """A move, takeback or resumption (committed): feed listeners, then everyone's board."""
        self.directory.position_changed(game)  # a position listeners already know is skipped
        note = None
        if IExaminedGame.providedBy(game) and game.last_mover:
            last = game.tracker.last_ply
            if last is not None:
                note = parsed(msg("Game {number}: {handle} moves: {san}", number=game.number,
                           handle=game.last_mover, san=last.san))
        self.broadcaster.show_position(game, note=note, note_to_caller=False, received=True)

    def game_ended(self, game: PlayedGame, result: GameResult) -> None:
        """The end (or adjournment) is committed: free the number, keep an adjourned game,
        and have players and observers told."""
        for handle in game.players():
            if self._starting.get(fold(handle)) is game:
                del self._starting[fold(handle)]
        if self.directory.by_number(game.number) is not game and not result.adjourned:
            self.broadcaster.start_failed(game)  # never announced: only its players knew
            return
        audience = self.broadcaster.watchers(game)
        observers = self.directory.observers(game)
        if self.talk is not None:
            self.talk.game_over(game.white, game.black)
        self.directory.remove(game, result)
        if result.adjourned:
            if self.journal is None:
                game.adjourned_at = self.wall()
            self.keep_adjourned(game)
        elif self.journal is None:  # with a store, rated with the end's write
            game.rated_end = self.rating.rate(game, result)
        lines = self.rating.committed(game, result)
        self.broadcaster.game_over(game, result, audience=audience, observers=observers,
                                   players=lines)
        self.log.info("game {number} {white} vs. {black} ended: {score}", number=game.number,
                      white=game.white, black=game.black, score=result.score)

    # -- starting and resuming -------------------------------------------

    def start_game(self, challenge: Any) -> PlayedGame | None:
        """Create the game an accepted ``challenge`` describes and show both players the board.

        An accepted resumption (``challenge.adjourned``) continues the adjourned game
        instead.  With a store the game is announced once its start is stored.
        """
        for handle in (challenge.challenger, challenge.receiver):
            if self.seeks is not None:
                self.seeks.drop(handle)  # a player who starts a game seeks no more
        if challenge.adjourned:
            adjourned = self.adjourned.between(challenge.challenger, challenge.receiver)
            if adjourned is not None:
                self.resume_game(adjourned)
            return adjourned
        game = new_game(challenge, rng=self.rng, clock=self.clock, listener=self,
                        journal=self.journal, session=self._session, adjourned=self.adjourned,
                        most_adjourned=self.config.adjourned_per_player,
                        limiter=self.offer_limiter)
        self.rating.start(game, rated=bool(getattr(challenge, "rated", False)),
                          variant=challenge.variant)
        written = self.journal.started(game) if self.journal is not None else None
        self._start(game, written, lambda number: self._announce_start(game, number))
        return game

    def _start(self, game: PlayedGame, written: Deferred[Any] | None,
               announce: Callable[[int | None], None],
               refused: Callable[[], bool] = lambda: False) -> None:
        """``announce`` ``game`` once ``written`` (``None``: at once) and, in a cluster, a
        number is reserved for it (:attr:`GameDirectory.reserve_number`: at once but when
        more games start on this node than it has numbers at hand); its players are busy
        meanwhile.  ``refused()`` true once written: nothing to number."""
        for handle in game.players():
            self._starting[fold(handle)] = game

        def numbered(number: int | None) -> None:
            for handle in game.players():
                if self._starting.get(fold(handle)) is game:
                    del self._starting[fold(handle)]
            announce(number)

        def started() -> None:
            reserve = self.directory.reserve_number
            if reserve is None or refused():
                numbered(None)
            else:
                reserve().addCallback(numbered)

        if written is None:
            started()
        else:
            game.after_write(written, started)

    def _announce_start(self, game: PlayedGame, number: int | None = None) -> None:
        """Number the new ``game`` and show both players the board."""
        self.directory.add(game, number)
        self.broadcaster.game_created(game)

    def resume_game(self, game: PlayedGame) -> None:
        """Continue an adjourned ``game`` under a new number, from the same position and clocks.

        Both players agreed (an accepted resumption).  With a store it goes on
        once the resumption is stored.
        """
        self.adjourned.take(game.white, game.black)
        # The same names, possibly typed in another case when logging in again.
        game.white = self._logged_in_as(game.white)
        game.black = self._logged_in_as(game.black)
        game.listener = self
        game.limiter = self.offer_limiter
        self.rating.resumed(game)
        if self.journal is None:
            self._start(game, None, lambda number: self._continue(game, number))
            return
        claim = Resumption(game, self.journal, self.store, self._read)
        self._start(game, claim.written,
                    lambda number: self._not_resumed(game) if claim.lost else self._continue(
                        game, number),
                    refused=lambda: claim.lost)

    def _not_resumed(self, game: PlayedGame) -> None:
        """The store refused to resume ``game``: it is kept no more here."""
        self.log.info("game {white} vs. {black} was resumed by another server",
                      white=game.white, black=game.black)
        tell_not_resumed(self.broadcaster, game)

    def _continue(self, game: PlayedGame, number: int | None = None) -> None:
        self.directory.add(game, number)
        self.broadcaster.game_continued(game)
        game.listener = self
        game.resume()

    def _logged_in_as(self, handle: str) -> str:
        """``handle`` as its session spells it now (the same name, maybe in another case)."""
        session = self._session(handle)
        return handle if session is None else session.handle

    # -- examined games --------------------------------------------------

    def examine(self, handle: str) -> ExaminedGame:
        """Start a scratch game examined by ``handle``, number it and show it."""
        game = ExaminedGame(handle)
        game.listener = self  # told board_changed after each move
        self.directory.add(game)
        self.broadcaster.show_position(game)
        return game

    def stop_examining(self, handle: str, game: IExaminedGame, *, quiet: bool = False) -> None:
        """``handle`` leaves the examined ``game`` (:func:`leave_examined`)."""
        leave_examined(handle, game, directory=self.directory, broadcaster=self.broadcaster,
                       session_of=self._session, quiet=quiet)

    # -- players arriving and leaving ------------------------------------

    def arrived(self, session: Session) -> None:
        """``session`` logged in: the game they still play (they logged in again), and
        their adjourned games (their opponents here are told, and so are they)."""
        game = self.directory.game_of(session.handle)
        if IPlayedGame.providedBy(game):
            self.broadcaster.still_playing(session, game)
        tell_adjourned(session, self.adjourned.of(session.handle),
                       session_of=self.anywhere or self._session, broadcaster=self.broadcaster,
                       elsewhere=self.arrival_elsewhere)

    def departed(self, session: Session) -> None:
        """``session`` logged out: they stop examining, or their game is adjourned (between
        registered players) or forfeited, as on FICS; ``game_ended`` tells the others."""
        handle = session.handle
        game = self.directory.game_of(handle)
        if IExaminedGame.providedBy(game):
            self.stop_examining(handle, game, quiet=True)
        elif IPlayedGame.providedBy(game):
            game.disconnect(handle)

    def stop(self) -> Deferred[Any]:
        """The server stops: no more expiry; every played game adjourned or aborted.

        The Deferred fires once every game's changes are stored and announced.
        """
        self.keeping.stop()
        for game in self.directory.games():
            if IPlayedGame.providedBy(game):
                game.stop()
        waits = [game.settled() for game in (*self.directory.games(), *self._starting.values())
                 if IPlayedGame.providedBy(game)]
        return DeferredList(waits, consumeErrors=True)

    # -- the store: restore and expiry -------------------------------------

    def restore(self, keep_out: frozenset[int] = frozenset()) -> Deferred[list[Any]]:
        """Bring back, adjourned, the games the store has unfinished
        (:meth:`GameKeeping.restore`), but those whose ids are in ``keep_out`` (in play on
        another node of a cluster); run once at start, before listening."""
        return self.keeping.restore(self.store, read=self._read, listener=self,
                                    is_registered=self._is_registered,
                                    limiter=self.offer_limiter, keep_out=keep_out)

    def keep_adjourned(self, game: PlayedGame) -> None:
        """Keep ``game`` for ``resume`` (:meth:`GameKeeping.keep`)."""
        self.keeping.keep(game)

    def expire_adjourned(self) -> Deferred[Any]:
        """End the adjourned games not resumed in time (:meth:`GameKeeping.expire`)."""
        return self.keeping.expire()
