"""The chess service behind the telnet protocol: sessions, games, commands.

:class:`FicsServer` knows nothing about bytes or telnet: the protocol
(:mod:`ficsfen.server.telnet`) hands it decoded lines, and it answers through
:class:`ficsfen.server.session.Session` objects.  Commands reach games only through
the :class:`ficsfen.interfaces.IGameDirectory` it owns, exactly as in a host
server.  Time comes from an injected ``IReactorTime`` (a
:class:`twisted.internet.task.Clock` in tests): game clocks and flag fall
run on it.

Played games (:class:`ficsfen.server.games.PlayedGame`) and examined ones share
one move entry point, ``game.move(handle, text)``; both tell the server
(their :class:`ficsfen.server.games.IGameListener`) when the board changed, and it
sends every player and observer their board, built once per distinct view
(:meth:`FicsServer.show_position`).

With a store (``ficsfen.server.store.IStore``) the played games write each
change through a :class:`ficsfen.server.journal.StoreJournal` and are
announced once it is committed (``docs/store.md``: a move is announced only
after its write); accounts and saved settings are read from the store at
each login; :meth:`FicsServer.restore` brings back, adjourned, the games the
store had in progress.  Without one nothing is written and everything is
announced at once.
"""

from __future__ import annotations

import random
import string
import threading
import time
from typing import Any, Callable

from twisted.internet.defer import Deferred, DeferredList, gatherResults, succeed
from twisted.internet.interfaces import IReactorThreads, IReactorTime
from twisted.logger import Logger
from zope.interface import implementer

from ficsfen.commands.fen import FenCommand
from ficsfen.commands.help import HelpCommand, NextCommand, Pager
from ficsfen.helpcatalog import HelpCatalog
from ficsfen.i18n import LocalizedError, Message, load_catalogs, msg, msgn
from ficsfen.names import NameIndex, fold, resolve_handle
from ficsfen.server import boards, wholist
from ficsfen.server.challenges import Challenges, OfferLimiter
from ficsfen.server.command_table import CommandTable
from ficsfen.server.commands import (board_cmds, examine, info, interface, lists, observe,
                                     play, seek, session_cmds, settings, talk)
from ficsfen.server.commands import history as history_cmds
from ficsfen.server.background import BackgroundPool
from ficsfen.server.config import Config, verify_password
from ficsfen.server.directory import GameDirectory
from ficsfen.server.dispatcher import Dispatcher, check_command_names
from ficsfen.server.reply import Reply
from ficsfen.server.examined import ExaminedGame
from ficsfen.server.games import (AdjournedGames, GameResult, IGameListener, IMoveTiming,
                                  PlayedGame)
from ficsfen.server.journal import StoreJournal, restore_game
from ficsfen.server.limits import AddressLimits, LoginThrottle, compact
from ficsfen.server.interfaces import (IBoards, IExaminedGame, IGameService, IPlayedGame,
                                       IPlayers)
from ficsfen.server.seeks import SeekBoard
from ficsfen.server.session import Services, Session
from ficsfen.server.talk import Talk, TalkLimiter
from ficsfen.server.variant_games import FICS_TYPES, holdings_line, received_line, start_fen
from ficsfen.server.store.records import EndCode, GameEnd, GameStatus

__all__ = ["FicsServer", "build_command_table", "check_command_names"]

def build_command_table(server: "FicsServer") -> CommandTable:
    """Every command, with the FICS aliases."""
    pager = Pager(server.config.help_page_lines)
    table = CommandTable()
    for command in (
        FenCommand(),
        HelpCommand(server.catalog, pager=pager, command_names=lambda: table.names(),
                    exact_command=table.exact),
        NextCommand(pager),
        settings.SetCommand(),
        settings.StyleCommand(),
        settings.VariablesCommand(),
        session_cmds.WhoCommand(),
        session_cmds.GamesCommand(),
        session_cmds.QuitCommand(),
        examine.ExamineCommand(store=lambda: server.store, listener=server),
        examine.UnexamineCommand(),
        examine.ForwardCommand(),
        examine.BackwardCommand(),
        examine.RevertCommand(),
        examine.BsetupCommand(),
        board_cmds.RefreshCommand(),
        board_cmds.MovesCommand(now=server.clock.seconds),
        info.DateCommand(now=server.clock.seconds),
        info.FingerCommand(now=server.clock.seconds, last_seen=server.last_seen,
                           is_registered=server.is_registered),
        *play.COMMANDS,
        *observe.COMMANDS,
        *interface.COMMANDS,
        *history_cmds.commands(lambda: server.store, clock=server.clock),
        *lists.commands(server.lists, is_registered=server.is_registered,
                        changed=server.list_changed),
        *seek.commands(server.seeks),
        *talk.commands(server.talk, server._sessions.keys),
    ):
        check_command_names(command)
        table.register(command)
    return table


@implementer(IGameListener, IMoveTiming, IPlayers, IBoards, IGameService)
class FicsServer:
    """Sessions by handle, the game directory and the command table.

    It is the :class:`ficsfen.server.games.IGameListener` of every game it hosts:
    games tell it when their position changes or they end, and it sends the
    boards and announcements.  Commands see it only through the narrow
    services each :class:`Session` carries (:class:`IPlayers`,
    :class:`IBoards`, :class:`IGameService`).
    """

    log = Logger()

    def __init__(self, config: Config | None = None, *, clock: IReactorTime,
                 rng: random.Random | None = None, catalog: HelpCatalog | None = None,
                 store: Any = None, wall: Callable[[], float] = time.time) -> None:
        self.config = config if config is not None else Config()
        #: The ``IStore`` keeping accounts, settings and games, or ``None`` (nothing kept).
        self.store = store
        #: Unix time: when games are adjourned, and so when they expire.
        self.wall = wall
        #: Writes each change of a played game before it is announced (``None``: no store).
        self.journal = StoreJournal(store, wall=wall) if store is not None else None
        #: Players of games being created or resumed, not yet announced (they are busy).
        self._starting: dict[str, PlayedGame] = {}
        self.clock = clock
        self.rng = rng if rng is not None else random.SystemRandom()
        self.catalog = catalog if catalog is not None else HelpCatalog(self.config.help_dir)
        load_catalogs()  # every message's text read now, not first rendered amid a crowd
        self._sessions: dict[str, Session] = {}
        self._handles = NameIndex()  # the handles of _sessions
        self._reserved: set[str] = set()
        #: Where passwords are hashed with a real reactor (inline with a test clock):
        #: its threads start with :meth:`start_threads`, or else at the first check.
        self._password_pool: BackgroundPool | None = None
        if IReactorThreads.providedBy(clock):
            self._password_pool = BackgroundPool(
                clock, threads=self.config.password_threads, nice=self.config.password_nice,
                name="ficsfen-passwords")
        self.directory = GameDirectory(self.handles)
        #: Logins, logouts and ``open`` changes so far: with the directory's
        #: changes, the version of what ``who`` lists.
        self._listing_changes = 0
        #: ``who`` answers, rendered once per change of what they list.
        self.who_cache = wholist.WhoCache(
            lambda: (self._listing_changes, self.directory.changes), clock=clock.seconds)
        #: The noplay and censor lists of everyone logged in (``[limits] list_size``).
        self.lists = lists.PersonalLists(size=self.config.list_size)
        #: Offers per sender and minute, match and in-game (``[limits] offers_per_minute``).
        self.offer_limiter = OfferLimiter(clock.seconds, per_minute=self.config.offers_per_minute)
        #: Pending match offers (``match``, ``accept``, ...).
        self.challenges = Challenges(handles=self.handles, is_busy=self._busy, rng=self.rng,
                                     refusal=self.lists.refusal, limiter=self.offer_limiter)
        #: Seeks (``seek``, ``sought``, ``play``) and who hears of them.
        self.seeks = SeekBoard(sessions=self._sessions.values, is_busy=self._busy,
                               refuses=lambda receiver, sender:
                               self.lists.refusal(receiver, sender) is not None,
                               tell=self.tell)
        #: Channels, the last told, and the fan-out of every message (``[limits] talk_*``).
        self.talk = Talk(session=self._sessions.get, censors=self.lists.censors,
                         censoring=self.lists.censoring,
                         limiter=TalkLimiter(clock.seconds, per_minute=self.config.talk_per_minute),
                         max_length=self.config.talk_max_length)
        #: Adjourned games waiting for ``resume``, with their history and clocks.
        self.adjourned = AdjournedGames()
        #: The next look for expired adjourned games (``None``: none kept).
        self._expiry_call: Any = None
        #: Game event listeners (the ``--feed``): see :attr:`GameDirectory.listeners`.
        self.game_hooks = self.directory.listeners
        self.connections = 0
        config = self.config
        #: Growing delays and lockouts after wrong passwords (``[limits] password_*``).
        self.throttle = LoginThrottle(
            clock, delay=config.password_delay, max_delay=config.password_delay_max,
            failures=config.password_failures, window=config.password_window,
            lockout=config.password_lockout, exempt=config.exempt)
        #: Connections and login attempts per address (``[limits]``).
        self.address_limits = AddressLimits(
            clock, connections=config.connections_per_address,
            logins_per_minute=config.logins_per_minute, exempt=config.exempt)
        #: When each player who left logged out (reactor time), for ``finger``.
        self.last_seen: dict[str, float] = {}
        self.table = build_command_table(self)
        #: Sessions with the ``pin`` / ``allresults`` ivar on (told of every
        #: arrival, departure and game end): kept here so that a login does
        #: not look at every session.
        self._listening: dict[str, set[Session]] = {"pin": set(), "allresults": set(),
                                                    "seekinfo": set()}
        #: What every session carries for its commands.
        self.services = Services(players=self, boards=self, games=self,
                                 ivars_changed=self.ivars_changed, prompt=self.config.prompt)
        #: Runs the lines typed at the prompt (aliases, ``$``, block mode, the table).
        self.dispatcher = Dispatcher(self.table, self.directory, move=self.move,
                                     max_line=self.config.max_line)

    def __repr__(self) -> str:
        return f"<FicsServer sessions={len(self._sessions)} games={len(self.directory)}>"

    # -- sessions --------------------------------------------------------

    def handles(self) -> NameIndex:
        """The handles online, kept up to date: typed names resolve against it by bisection."""
        return self._handles

    def session(self, handle: str) -> Session | None:
        return self._sessions.get(fold(handle))

    def named(self, word: str) -> Session:
        return self._sessions[fold(resolve_handle(word, self.handles()))]

    def sessions_sorted(self) -> list[Session]:
        return sorted(self._sessions.values(), key=lambda s: fold(s.handle))

    def __len__(self) -> int:
        return len(self._sessions)

    def tidy(self) -> None:
        """Drop what the limits no longer count and resize the tables a crowd grew.

        Run by the memory trimmer after a burst of disconnections: entries
        and dict tables left from thousands of connections would otherwise
        live on, each keeping CPython's allocator from giving an arena back.
        """
        self.throttle.sweep()
        self.address_limits.sweep()
        self.offer_limiter.sweep()
        self.talk.limiter.sweep()
        compact(self._sessions)

    def listing_changed(self) -> None:
        """Something ``who`` shows changed outside the game directory (``open``, for one)."""
        self._listing_changes += 1

    def _busy(self, handle: str) -> bool:
        return self.directory.game_of(handle) is not None or fold(handle) in self._starting

    def in_use(self, name: str) -> bool:
        key = fold(name)
        return key in self._sessions or key in self._reserved

    def check_name(self, name: str) -> Message | None:
        """Why ``name`` cannot be used as a login name now, or ``None``."""
        if not (name.isascii() and name.isalpha()):
            return msg("Sorry, names can only consist of lower and upper case letters. Try again.")
        if len(name) < 3:
            return msg("A name should be at least 3 characters long! Try again.")
        if len(name) > 17:
            return msg("Sorry, names may be at most 17 characters long. Try again.")
        if fold(name).startswith("guest"):
            return msg("Names starting with \"Guest\" are given to guests; type \"{word}\" to get one.",
                       word=self.config.guest_login)
        if self.in_use(name):
            return msg("Sorry, {name} is already logged in. Try another name.", name=name)
        return None

    def is_guest_name(self, name: str) -> bool:
        """Whether ``name`` was handed out by the guest login (nobody can choose it again)."""
        return fold(name).startswith("guest") and not self.is_registered(name)

    def is_registered(self, name: str) -> bool:
        """Whether ``name`` has an account: in the store when there is one (read at each
        call, so an account an operator adds or removes counts at once), else in the
        configuration's ``[accounts]``."""
        if self.store is not None:
            return self.store.get_account(name) is not None
        return fold(name) in self.config.accounts

    def _password_hash(self, name: str) -> str:
        if self.store is not None:
            account = self.store.get_account(name)
            return "" if account is None else account.password_hash
        return self.config.accounts.get(fold(name), "")

    def check_password(self, name: str, password: str) -> Deferred:
        """Whether ``password`` is ``name``'s, as a Deferred.

        The caller asks :attr:`throttle` first: a throttled attempt must
        never get here (the hash is what an attacker wants us to spend).

        The hash is read from the store at each login (never cached).
        Hashing takes a good fraction of a second by design, so it runs in
        a thread pool of its own at a lower CPU priority when the clock is a
        real reactor (inline with a test clock), never blocking other
        players nor taking the reactor's CPU (:mod:`ficsfen.server.background`).
        """
        stored = self._password_hash(name)
        if self._password_pool is not None:
            return self._password_pool.run(verify_password, password, stored)
        return succeed(verify_password(password, stored))

    def start_threads(self) -> list[threading.Thread]:
        """Start the password pool's threads now (with a real reactor); returns them.

        Called as the server starts: threads started later, during a crowd of
        logins, are born among the crowd's objects and keep memory of it.
        """
        if self._password_pool is None:
            return []
        self._password_pool.start()
        return self._password_pool.threads

    def allocate_guest(self) -> str:
        """A fresh, unused ``GuestXXXX`` handle (reserved until entered or released)."""
        letters = string.ascii_uppercase
        while True:
            handle = "Guest" + "".join(self.rng.choice(letters) for _ in range(4))
            if not self.in_use(handle):
                self.reserve(handle)
                return handle

    def reserve(self, name: str) -> None:
        """Hold an unregistered or guest ``name`` while its login is confirmed.

        Registered names are never held: a password prompt does not keep
        the real player out (whoever gives the right password first gets in).
        """
        self._reserved.add(fold(name))

    def release(self, name: str) -> None:
        self._reserved.discard(fold(name))

    def enter(self, handle: str, *, write: Callable[[bytes], None], close: Callable[[], None],
              registered: bool = False, peer: str = "") -> Session:
        """Log ``handle`` in; the name must have been reserved by the login.

        A registered player who is logged in already is replaced, as on FICS:
        the old session is told and closed, and the new one takes over what
        is kept by handle (the game in progress, observed games, offers).
        """
        self.release(handle)
        key = fold(handle)
        old = self._sessions.get(key)
        if old is not None:
            handle = old.handle  # the spelling its games know
        session = Session(self.services, handle, write=write, close=close, lang=self.config.language,
                          registered=registered, peer=peer)
        session.login_time = self.clock.seconds()
        if registered and self.store is not None:
            saved = self.store.load_settings(handle)
            settings.apply_saved(session, saved)
            self.lists.load(handle, saved.get("lists"))
            for channel in self.lists.of(handle).members("channel"):
                self.talk.channels.join(handle, int(channel))
        elif old is None:
            self.lists.forget(handle)  # a guest's lists last one session
        self._sessions[key] = session
        self._handles.add(handle)
        self.listing_changed()
        if old is not None:
            old.write_text("\n" + old.render(msg(
                "**** {handle} has arrived - you can't both be logged in. ****", handle=handle)))
            old.disconnect()  # its connection's logout finds the new session and does nothing
            for listeners in self._listening.values():
                listeners.discard(old)
            session.send(msg("**** {handle} is already logged in - kicking them out. ****",
                             handle=handle))
            self.log.info("{handle} logged in again from {peer}; old session closed",
                          handle=handle, peer=peer)
        self.log.info("login {handle} from {peer}", handle=handle, peer=peer)
        return session

    def logout(self, session: Session, *, reason: str = "") -> None:
        """Take ``session`` out of the server (its games and observations too) and close it."""
        key = fold(session.handle)
        if self._sessions.get(key) is not session:
            return
        del self._sessions[key]
        self._handles.discard(session.handle)
        self.listing_changed()
        if session.registered:  # only registered players are fingered offline
            self.last_seen[key] = self.clock.seconds()
        game = self.directory.game_of(session.handle)
        if IExaminedGame.providedBy(game):
            self.stop_examining(session.handle, game, quiet=True)
        elif IPlayedGame.providedBy(game):
            # Adjourned between registered players, else forfeited (FICS);
            # gameEnded tells the opponent and the observers.
            game.disconnect(session.handle)
        self.deliver(self.challenges.drop(session.handle))
        self.seeks.drop(session.handle)
        self.talk.forget(session.handle)
        self.lists.forget(session.handle)
        self.offer_limiter.forget(session.handle)
        for observed in self.directory.observed_games(session.handle):
            self.directory.unobserve(session.handle, observed)
        self.log.info("logout {handle} ({reason})", handle=session.handle, reason=reason)
        session.disconnect()
        for members in self._listening.values():
            members.discard(session)
        self._tell_pin(f"<wd> {session.handle}", session)

    def shutdown(self) -> Deferred[None]:
        """Stop every game, then tell everyone the server stops and close every session.

        Games between registered players are adjourned ("Game adjourned by
        server shutdown"), the others aborted; players and observers are told
        once that is stored.  The Deferred fires when the sessions are closed.
        """
        if self._expiry_call is not None and self._expiry_call.active():
            self._expiry_call.cancel()
        self._expiry_call = None
        for game in self.directory.games():
            if IPlayedGame.providedBy(game):
                game.stop()
        waits = [game.settled() for game in (*self.directory.games(), *self._starting.values())
                 if IPlayedGame.providedBy(game)]

        def goodbye(_: object) -> None:
            for session in list(self._sessions.values()):
                session.notify(msg("The server is shutting down. Goodbye."))
                self.logout(session, reason="shutdown")

        return DeferredList(waits, consumeErrors=True).addCallback(goodbye)

    def save_settings(self, session: Session) -> None:
        """Keep a registered player's settings (``set``, ``style``) for their next login."""
        if self.store is None or not session.registered:
            return
        data = settings.saved(session)
        data["lists"] = self.lists.of(session.handle).to_json()
        d = self.store.save_settings(session.handle, data)
        d.addErrback(lambda failure: self.log.failure(
            "could not save the settings of {handle}", failure, handle=session.handle))

    def restore(self) -> Deferred[list[Any]]:
        """Bring back the games the store has unfinished: those in progress when the
        server stopped (a crash) are adjourned there, clocks as at their last move.

        Run once at start, before listening.  A game with a player who has no
        account could never be resumed: it ends, aborted.
        """
        writes = []
        for stored in self.store.unfinished_games():
            start = stored.start
            if not (self.is_registered(start.white) and self.is_registered(start.black)):
                writes.append(self.store.end_game(stored.id, GameEnd(
                    "*", "Game aborted by server shutdown", EndCode.ABORTED, time.time())))
                continue
            reason = msg("Game adjourned by server shutdown")
            game = restore_game(stored, reactor=self.clock, reason=reason, listener=self,
                                journal=self.journal)
            game.limiter = self.offer_limiter
            if stored.status is GameStatus.PLAYING:
                game.adjourned_at = self.wall()
                writes.append(self.journal.adjourned(game, game.result))
            self._keep_adjourned(game)
        writes.append(self.expire_adjourned())
        return gatherResults(writes, consumeErrors=True)

    # -- adjourned games: expiry -------------------------------------------

    #: The longest wait between two looks for expired adjourned games, in seconds.
    EXPIRY_INTERVAL = 3600.0

    def _keep_adjourned(self, game: PlayedGame) -> None:
        """Keep ``game`` for ``resume``; look for expired games periodically while any is kept."""
        self.adjourned.keep(game)
        expiry = self.config.adjourned_expiry_days * 86400
        if expiry > 0 and self._expiry_call is None:
            self._expiry_call = self.clock.callLater(min(expiry, self.EXPIRY_INTERVAL),
                                                     self._expire_periodically)

    def _expire_periodically(self) -> None:
        self._expiry_call = None
        self.expire_adjourned()
        if len(self.adjourned):
            expiry = self.config.adjourned_expiry_days * 86400
            self._expiry_call = self.clock.callLater(min(expiry, self.EXPIRY_INTERVAL),
                                                     self._expire_periodically)

    def expire_adjourned(self) -> Deferred[Any]:
        """End, aborted, the adjourned games not resumed for ``[limits] adjourned_expiry_days``.

        Each ends in the store like any aborted game (it leaves the players'
        ``stored`` lists and enters no history), its players are told if
        they are here, and the operator's log has a line.  The Deferred fires
        once the ends are written.
        """
        days = self.config.adjourned_expiry_days
        if days <= 0:
            return succeed([])
        writes = []
        for game in self.adjourned.expire(self.wall() - days * 86400):
            result = GameResult("*", msg("Game adjourned too long; aborted"),
                                code=EndCode.ABORTED)
            game.result = result
            if self.journal is not None and game.record_id is not None:
                writes.append(self.journal.ended(game, result))
            self.log.info("adjourned game {white} vs. {black} expired: not resumed for "
                          "{days:g} days", white=game.white, black=game.black, days=days)
            for handle in game.players():
                self.tell(handle, msgn(
                    "Your adjourned game with {handle} has expired: it was not resumed within "
                    "{count} day.",
                    "Your adjourned game with {handle} has expired: it was not resumed within "
                    "{count} days.", int(days), handle=game.opponent_of(handle)))
        return gatherResults(writes, consumeErrors=True)

    # -- commands --------------------------------------------------------

    def move(self, session: Session, text: str, reply: Reply) -> None:
        """A move typed at the prompt, for the game ``session`` plays or examines.

        Played and examined games share one entry point, ``game.move(handle,
        text)``: it raises a localized refusal (and changes nothing), or makes
        the move, tells this server ``boardChanged`` (and ``gameEnded``), and
        returns notices for particular people (offers the move withdrew).
        """
        game = self.directory.game_of(session.handle)
        if game is None:
            session.send(msg("You are not playing or examining a game."))
            return
        try:
            notices = game.move(session.handle, text)
        except LocalizedError as e:
            # Refusals (illegal move, not your turn, setup mode...) carry
            # their localized reason; anything else is a bug, logged by execute.
            session.send(e.message)
            return
        if IPlayedGame.providedBy(game) and game.announcing:
            # One write for the mover, as on FICS: the board then the prompt.
            reply.defer_prompt()
        if notices:
            self.deliver_after(game, notices)

    def deliver_after(self, game: Any, notices: Any) -> None:
        """:meth:`deliver` once what ``game`` changed before is stored and announced."""
        if IPlayedGame.providedBy(game):
            game.after_write(None, lambda: self.deliver(notices))
        else:
            self.deliver(notices)

    # -- messages to people ----------------------------------------------

    def tell(self, handle: str, message: Message | str) -> None:
        """``message`` for ``handle``: in the answer to their command if it is running,
        else a notification (:meth:`Session.inform`)."""
        session = self.session(handle)
        if session is not None:
            session.inform(message)

    def deliver(self, notices: Any) -> None:
        """Send :class:`ficsfen.server.challenges.Notice` values, one notification per person."""
        grouped: dict[str, list[Any]] = {}
        for notice in notices:
            grouped.setdefault(notice.handle, []).append(notice)
        for handle, wanted in grouped.items():
            session = self.session(handle)
            if session is None:
                continue
            # Notices for an interface variable (pendinfo) reach only those who set it.
            messages = [n.message for n in wanted if n.ivar is None or session.ivars.get(n.ivar)]
            if messages:
                self.tell(handle, "\n".join(session.render(m) for m in messages))

    # -- played games: IGameListener ---------------------------------------

    def boardChanged(self, game: Any) -> None:
        """A move, takeback or resumption: feed listeners, then everyone's board."""
        self.directory.position_changed(game)  # a position listeners already know is skipped
        note = None
        if IExaminedGame.providedBy(game) and game.last_mover:
            last = game.tracker.last_ply
            if last is not None:
                note = msg("Game {number}: {handle} moves: {san}", number=game.number,
                           handle=game.last_mover, san=last.san)
        self.show_position(game, note=note, note_to_caller=False, received=True)

    def gameEnded(self, game: Any, result: Any) -> None:
        """Announce the end (or adjournment) to players and observers, free the number."""
        for handle in game.players():
            if self._starting.get(fold(handle)) is game:
                del self._starting[fold(handle)]
        if self.directory.by_number(game.number) is not game and not result.adjourned:
            # Its start was never stored, so never announced: only its players knew.
            for handle in game.players():
                self.tell(handle, msg("Your game with {handle} could not be started: the server "
                                      "could not save it.", handle=game.opponent_of(handle)))
            return
        audience = self.watchers(game)
        observers = self.directory.observers(game)
        self.talk.game_over(game.white, game.black)
        self.directory.remove(game, result)
        if result.adjourned:
            if self.journal is None:
                game.adjourned_at = self.wall()
            self._keep_adjourned(game)
        announcement = result.announcement(game)
        # As FICS, observers also read that the game left their list, under the result
        # and before one prompt (pychess frees its state for the game on that line).
        removed = msg("Removing game {number} from observation list.", number=game.number)
        observing = {fold(h) for h in observers}
        for handle in audience:
            session = self.session(handle) if fold(handle) in observing else None
            if session is None:
                self.tell(handle, announcement)
            else:
                self.tell(handle, session.render(announcement) + "\n" + session.render(removed))
        self.deliver(result.notices)
        # The allresults ivar: every game's end, not only watched ones.
        if self._listening["allresults"]:
            watching = {fold(h) for h in audience}
            for other in list(self._listening["allresults"]):
                if fold(other.handle) not in watching:
                    self.tell(other.handle, announcement)
        self.log.info("game {number} {white} vs. {black} ended: {score}", number=game.number,
                      white=game.white, black=game.black, score=result.score)

    def start_game(self, challenge: Any) -> PlayedGame | None:
        """Create the game an accepted ``challenge`` describes and show both players the board.

        An accepted resumption (``challenge.adjourned``) continues the adjourned game
        instead.  With a store the game is announced once its start is stored.
        """
        for handle in (challenge.challenger, challenge.receiver):
            self.seeks.drop(handle)  # a player who starts a game seeks no more
        if challenge.adjourned:
            adjourned = self.adjourned.between(challenge.challenger, challenge.receiver)
            if adjourned is not None:
                self.resume_game(adjourned)
            return adjourned
        white, black = challenge.colours(self.rng)
        tc = challenge.time_control
        variant = challenge.variant
        extra = {} if variant is None else {
            "variant": FICS_TYPES[variant], "fen": start_fen(variant, self.rng)}
        game = PlayedGame(white, black, reactor=self.clock, time_control=tc, listener=self,
                          journal=self.journal, **extra,
                          adjournable=self._logged_in_registered(white)
                          and self._logged_in_registered(black))
        game.limiter = self.offer_limiter
        most = self.config.adjourned_per_player
        crowded = [h for h in (white, black) if most and len(self.adjourned.of(h)) >= most]
        if game.adjournable and crowded:
            game.adjournable = False
            game.not_adjournable = msgn(
                "{handle} has {count} adjourned game, the most allowed: this game cannot be "
                "adjourned.  Use \"abort\".",
                "{handle} has {count} adjourned games, the most allowed: this game cannot be "
                "adjourned.  Use \"abort\".", most, handle=crowded[0])
        if self.journal is None:
            self._announce_start(game)
        else:
            self._start(game, self.journal.started(game), lambda: self._announce_start(game))
        return game

    def _start(self, game: PlayedGame, written: Deferred[Any], announce: Callable[[], None]) -> None:
        """``announce`` ``game`` once ``written``; its players are busy meanwhile."""
        for handle in game.players():
            self._starting[fold(handle)] = game

        def started() -> None:
            for handle in game.players():
                if self._starting.get(fold(handle)) is game:
                    del self._starting[fold(handle)]
            announce()

        game.after_write(written, started)

    def _announce_start(self, game: PlayedGame) -> None:
        """Number the new ``game`` and show both players the board."""
        white, black, tc = game.white, game.black, game.time_control
        self.directory.add(game)
        kind = boards.category(game)
        creating = msg("Creating: {white} (----) {black} (----) unrated {category} {minutes} {increment}",
                       white=white, black=black, category=kind, minutes=tc.minutes,
                       increment=tc.increment)
        header = msg("{{Game {number} ({white} vs. {black}) Creating unrated {category} match.}}",
                     number=game.number, white=white, black=black, category=kind)
        info_line = self.game_info(game)
        # FICS's bytes: "Creating:", "{Game N ...}", a blank line, then the board, in one
        # message.  pychess reads a game's start as four consecutive lines (the third
        # any line): one more line, or a prompt, before the board and it opens no board.
        for handle in (white, black):
            session = self.session(handle)
            if session is not None:
                lines = [session.render(creating), session.render(header)]
                if session.ivars["gameinfo"]:
                    lines.append(info_line)
                lines += ["", self.board_text(session, game)]
                self.tell(handle, "\n".join(lines))
        self._ping_to_move(game)

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
        if self.journal is None:
            self._continue(game)
        else:
            self._start(game, self.journal.resumed(game), lambda: self._continue(game))

    def _continue(self, game: PlayedGame) -> None:
        self.directory.add(game)
        header = msg("{{Game {number} ({white} vs. {black}) Continuing unrated {category} match.}}",
                     number=game.number, white=game.white, black=game.black,
                     category=boards.category(game))
        for handle in game.players():
            self.tell(handle, header)
        game.listener = self
        game.resume()

    def game_info(self, game: Any) -> str:
        """The ``<g1>`` line of ``game`` (ivar gameinfo), its players' sessions as they are now."""
        white, black = self.session(game.white), self.session(game.black)
        return boards.game_info_line(
            game, registered=(white is not None and white.registered,
                              black is not None and black.registered),
            timeseal=(white is not None and white.timeseal, black is not None and black.timeseal))

    def _logged_in_registered(self, handle: str) -> bool:
        """Whether ``handle`` is logged in with a password (only their games are adjourned)."""
        session = self.session(handle)
        return session is not None and session.registered

    def _logged_in_as(self, handle: str) -> str:
        """``handle`` as its session spells it now (the same name, maybe in another case)."""
        session = self.session(handle)
        return handle if session is None else session.handle

    def examine(self, handle: str) -> ExaminedGame:
        """Start a scratch game examined by ``handle``, number it and show it."""
        game = ExaminedGame(handle)
        game.listener = self  # told boardChanged after each move
        self.directory.add(game)
        self.show_position(game)
        return game

    def arrived(self, session: Session) -> None:
        """A player logged in: ``<wa>`` for ``pin`` sessions, their game in progress
        (when they logged in again) and adjourned games.

        Their opponents in adjourned games are told, and so are they.
        """
        self.ivars_changed(session)  # %b at the login prompt may have set them
        self._tell_pin(self.pin_arrival(session), session)
        game = self.directory.game_of(session.handle)
        if IPlayedGame.providedBy(game):
            other = game.opponent_of(session.handle)
            session.notify("\n".join([
                session.render(msg("You are still playing game {number} against {handle}.",
                                   number=game.number, handle=other)),
                self.board_text(session, game, fresh=True)]))
            self._ping_to_move(game)
        online = []
        for game in self.adjourned.of(session.handle):
            other = game.black if fold(game.white) == fold(session.handle) else game.white
            present = self.session(other)
            if present is not None:
                self.tell(other, msg("Notification: {handle}, who has an adjourned game with you, "
                                     "has arrived.", handle=session.handle))
                online.append(present.handle)
            else:
                session.notify(msg("You have an adjourned game with {handle}, who is not logged in.",
                                   handle=other))
        if online:  # FICS's words, which clients (the web ones) offer a "resume" button for
            session.notify(msgn("{count} player, who has an adjourned game with you, is online:\n{names}",
                                "{count} players, who have an adjourned game with you, are online:\n{names}",
                                len(online), names=" ".join(online)))

    def pin_arrival(self, session: Session) -> str:
        """The ``<wa>`` line of ``session``'s arrival, as FICS's ``pin`` ivar shows it:
        ``who I``'s line for the nine rating categories (:mod:`.wholist`).
        """
        game = self.directory.game_of(session.handle)
        status = wholist.status_char(game, open_=bool(session.variables.get("open", True)))
        return "<wa> " + wholist.interface_entry(session.handle, status, session.registered,
                                                 tuple(wholist.RATING_CATEGORIES))

    def _tell_pin(self, line: str, about: Session) -> None:
        """``line`` to every other session with the ``pin`` ivar on."""
        for other in list(self._listening["pin"]):
            if other is not about:
                other.notify(line)

    def ivars_changed(self, session: Session) -> None:
        """Note whether ``session`` now listens to arrivals and game ends."""
        if self._sessions.get(fold(session.handle)) is not session:
            return
        seeking = session in self._listening["seekinfo"]
        for name, members in self._listening.items():
            if session.ivars[name]:
                members.add(session)
            else:
                members.discard(session)
        if session.ivars["seekinfo"] and not seeking:  # FICS: <sc>, then every seek
            self.seeks.refresh(session)

    def list_changed(self, handle: str, name: str, item: str, added: bool) -> None:
        """A personal list changed: the channel list is who hears a channel."""
        if name == "channel":
            (self.talk.channels.join if added else self.talk.channels.leave)(handle, int(item))

    # -- boards ----------------------------------------------------------

    def watchers(self, game: Any) -> list[str]:
        """Handles who see every board of ``game``: its players, then observers."""
        return list(dict.fromkeys([*game.players(), *self.directory.observers(game)]))

    def mover_lag(self, game: Any) -> int:
        """The lag (ms) of the player who made ``game``'s last move: style 12's last field."""
        if not IPlayedGame.providedBy(game) or game.tracker.last_ply is None:
            return 0
        session = self.session(game.handle_of(game.tracker.last_ply.color))
        return session.lag_ms if session is not None else 0

    def board_text(self, session: Session, game: Any, *, fresh: bool = False,
                   lag: int | None = None, relation: int | None = None,
                   received: bool = False) -> str:
        """The board as ``session`` wants it (style 1 or 12), with the FEN if showfen.

        ``fresh`` reads the clocks now (``refresh``) instead of as of the last move.
        Style 12 follows the session's ``ms`` ivar; ``lag`` is the mover's
        (:meth:`mover_lag`, looked up when not given), ``relation`` the
        session's to ``game`` (:func:`boards.relation_for`, when not given).
        ``received``: the board announces a move (a crazyhouse capture then adds
        FICS's ``<b1> ... <- WP`` line).
        """
        handle = session.handle
        if session.style == 12:
            ms = session.ivars["ms"]
            lag = self.mover_lag(game) if lag is None else lag
            relation = boards.relation_for(game, handle) if relation is None else relation
            if fresh:
                frame = boards.Style12Frame.for_game(game, ms=ms)
            else:
                frame = boards.style12_frame(game, ms=ms)
            text = frame.line(relation, boards.flip_for(game, handle), lag)
            if game.tracker.variant is not None and game.tracker.variant.holdings:
                text = self._with_holdings(game, text, received)
        else:
            if IPlayedGame.providedBy(game) and not fresh:  # it caches its diagrams
                text = game.style1(flipped=boards.flip_for(game, handle), lang=session.lang)
            else:
                text = boards.style1(game, viewer=handle, lang=session.lang)
        if session.showfen:
            text = f"{text}\n{game.tracker.fen}"
        return text

    @staticmethod
    def _with_holdings(game: Any, text: str, received: bool) -> str:
        """A crazyhouse ``<12>`` line as FICS sends it: the ``<b1>`` holdings line after it,
        and, for a move that put a piece in hand, the ``<b1> ... <- WP`` line before it."""
        text = f"{text}\n{holdings_line(game)}"
        line = received_line(game) if received else None
        return text if line is None else f"{line}\n{text}"

    def send_board(self, session: Session, game: Any) -> None:
        session.write_text(self.board_text(session, game, fresh=True))

    def show_position(self, game: Any, *, note: Message | None = None,
                      note_to_caller: bool = True, received: bool = False) -> None:
        """Send the board to everyone watching ``game``.

        The session running the current command gets it as command output;
        everyone else gets it as an asynchronous message with a prompt.  A
        text is built once per distinct (style, relation, orientation,
        language, showfen) and its bytes once per group of observers, so a
        thousand observers cost a thousand writes of the same bytes, not a
        thousand formattings.
        """
        texts: dict[tuple, str] = {}
        sessions = self._sessions
        players = game.players()
        lag = self.mover_lag(game)

        def text_for(session: Session, key: tuple, noted: bool) -> str:
            text = texts.get(key)
            if text is None:
                text = self.board_text(session, game, lag=lag, relation=key[1], received=received)
                if noted:
                    text = f"{session.render(note)}\n{text}"
                texts[key] = text
            return text

        for handle in dict.fromkeys(players):
            session = sessions.get(fold(handle))
            if session is None:
                continue
            is_caller = session.reply is not None  # the board its command's answer
            noted = note is not None and (note_to_caller or not is_caller)
            key = (session.style, boards.relation_for(game, handle), boards.flip_for(game, handle),
                   session.lang if noted or session.style == 1 else "", session.showfen,
                   session.ivars["ms"])
            text = text_for(session, key, noted)
            if is_caller:
                session.write_text(text)
            else:
                session.notify(text)
        # Observers all see the same relation and orientation: what differs
        # between them is style, language, showfen and charset only, so each
        # group's bytes are built once and written to every member.
        if not self.directory.observer_keys(game):
            self._ping_to_move(game)
            return
        relation = boards.relation_for(game, "")
        noted = note is not None
        groups = self._observer_groups(game, players)
        for (style, lang, showfen, ms, charset, prompt), members in groups:
            key = (style, relation, False, lang if noted or style == 1 else "", showfen, ms)
            text = text_for(members[0], key, noted)
            answered = [m for m in members if m.reply is not None]
            if answered:  # an observer's own command: its answer, without the prompt
                for member in answered:
                    member.write_text(text)
                members = [m for m in members if m.reply is None]
            Session.emit_all(members, Session.notification(text, charset, prompt))
        self._ping_to_move(game)

    def _ping_to_move(self, game: Any) -> None:
        """A timeseal player to move asks their client when the board arrived (FICS's [G])."""
        if IPlayedGame.providedBy(game) and game.result is None:
            session = self._sessions.get(fold(game.handle_of(game.tracker.turn)))
            if session is not None and session.move_timer is not None:
                session.move_timer.ping()

    def charge(self, game: Any, handle: str, wall: float) -> float:
        """:class:`IMoveTiming`: a timeseal player's move costs what their stamps say."""
        session = self.session(handle)
        if session is None or session.move_timer is None:
            return wall
        return session.move_timer.charge(wall)

    def _observer_groups(self, game: Any, players: list[str]) -> list[tuple[tuple, list[Session]]]:
        """``game``'s observers (not its players) by what they receive.

        The key is (style, language, showfen, ms ivar, charset, prompt).
        """
        sessions = self._sessions
        folded_players = {fold(h) for h in players}
        groups: dict[tuple, list[Session]] = {}
        for key in self.directory.observer_keys(game):
            session = sessions.get(key)
            if session is None or key in folded_players:
                continue
            groups.setdefault((session.style, session.lang, session.showfen, session.ivars["ms"],
                               session.charset, session.prompt_text), []).append(session)
        return list(groups.items())

    def stop_examining(self, handle: str, game: Any, *, quiet: bool = False) -> None:
        """``handle`` leaves the examined ``game``; the game ends when nobody examines it."""
        if handle in game.examiners:
            game.examiners.remove(handle)
        self.directory.leave(handle)
        session = self.session(handle)
        if session is not None and not quiet:
            session.send(msg("You are no longer examining game {number}.", number=game.number))
        if game.examiners:
            note = msg("{handle} has stopped examining game {number}.", handle=handle,
                       number=game.number)
            targets = self.watchers(game)
        else:
            note = msg("Game {number} has no examiners left and is over.", number=game.number)
            targets = self.directory.observers(game)
            self.directory.remove(game)
        for other in targets:
            s = self.session(other)
            if s is not None and s is not session:
                s.notify(note)
