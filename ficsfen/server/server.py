"""The chess service behind the telnet protocol: sessions, games, commands.

:class:`FicsServer` knows nothing about bytes or telnet: the protocol
(:mod:`ficsfen.server.telnet`) hands it decoded lines, and it answers through
:class:`ficsfen.server.session.Session` objects.  Commands reach games only through
the :class:`ficsfen.interfaces.IGameDirectory` it owns, exactly as in a host
server.  Time comes from an injected ``IReactorTime`` (a
:class:`twisted.internet.task.Clock` in tests): game clocks and flag fall
run on it.

Games are hosted by a :class:`ficsfen.server.game_service.GameService`
(start, move, end, adjourn, resume, expiry, restore) and everything that
reaches a session other than a command's own answer goes out through one
:class:`ficsfen.server.broadcaster.Broadcaster`; this class composes them.
With a store (``ficsfen.server.store.IStore``) the played games write each
change through the journal and are announced once it is committed
(``docs/store.md``); accounts and saved settings are read from the store at
each login.  ``docs/design.md`` ("Game path") follows a move through them.
"""

from __future__ import annotations

import random
import string
import threading
import time
from typing import Any, Callable

from twisted.internet.defer import Deferred, succeed
from twisted.internet.interfaces import IReactorThreads, IReactorTime
from twisted.logger import Logger
from zope.interface import implementer

from ficsfen.commands.fen import FenCommand
from ficsfen.commands.help import HelpCommand, NextCommand, Pager
from ficsfen.helpcatalog import HelpCatalog
from ficsfen.i18n import Message, load_catalogs, msg
from ficsfen.names import NameIndex, fold, resolve_handle
from ficsfen.server import wholist
from ficsfen.server.challenges import Challenges, OfferLimiter
from ficsfen.server.command_table import CommandTable
from ficsfen.server.commands import (board_cmds, examine, info, interface, lists, observe,
                                     play, seek, session_cmds, settings, talk)
from ficsfen.server.commands import history as history_cmds
from ficsfen.server.background import BackgroundPool
from ficsfen.server.config import Config, verify_password
from ficsfen.server.directory import GameDirectory
from ficsfen.server.broadcaster import Broadcaster
from ficsfen.server.dispatcher import Dispatcher, check_command_names
from ficsfen.server.game_service import GameService
from ficsfen.server.limits import AddressLimits, LoginThrottle, compact
from ficsfen.server.interfaces import IPlayers
from ficsfen.server.seeks import SeekBoard
from ficsfen.server.session import Services, Session
from ficsfen.server.talk import Talk, TalkLimiter

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
        examine.ExamineCommand(store=lambda: server.store, listener=server.games),
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


@implementer(IPlayers)
class FicsServer:
    """Sessions by handle, the game directory and the command table.

    Games are the :class:`~ficsfen.server.game_service.GameService`'s
    (:attr:`games`), and everything that reaches sessions other than a
    command's own answer goes through the
    :class:`~ficsfen.server.broadcaster.Broadcaster` (:attr:`broadcaster`).
    Commands see the server only through the narrow services each
    :class:`Session` carries (:class:`IPlayers`, :class:`IBoards`,
    :class:`IGameService`).
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
        #: The one way out to sessions: game events, boards, results, notices and talk.
        self.broadcaster = Broadcaster(session=self._sessions.get, directory=self.directory,
                                       allresults=lambda: self._listening["allresults"])
        #: Offers per sender and minute, match and in-game (``[limits] offers_per_minute``).
        self.offer_limiter = OfferLimiter(clock.seconds, per_minute=self.config.offers_per_minute)
        #: The games hosted: start, move, end, adjourn, resume, expiry, restore.
        self.games = GameService(directory=self.directory, broadcaster=self.broadcaster,
                                 clock=clock, session=self.session,
                                 is_registered=self.is_registered, config=self.config,
                                 rng=self.rng, store=store, wall=wall,
                                 offer_limiter=self.offer_limiter)
        #: Adjourned games waiting for ``resume`` (the game service's).
        self.adjourned = self.games.adjourned
        #: Logins, logouts and ``open`` changes so far: with the directory's
        #: changes, the version of what ``who`` lists.
        self._listing_changes = 0
        #: ``who`` answers, rendered once per change of what they list.
        self.who_cache = wholist.WhoCache(
            lambda: (self._listing_changes, self.directory.changes), clock=clock.seconds)
        #: The noplay and censor lists of everyone logged in (``[limits] list_size``).
        self.lists = lists.PersonalLists(size=self.config.list_size)
        #: Pending match offers (``match``, ``accept``, ...).
        self.challenges = Challenges(handles=self.handles, is_busy=self.games.busy, rng=self.rng,
                                     refusal=self.lists.refusal, limiter=self.offer_limiter)
        #: Seeks (``seek``, ``sought``, ``play``) and who hears of them.
        self.seeks = SeekBoard(sessions=self._sessions.values, is_busy=self.games.busy,
                               refuses=lambda receiver, sender:
                               self.lists.refusal(receiver, sender) is not None,
                               tell=self.tell)
        #: Channels, the last told, and the fan-out of every message (``[limits] talk_*``).
        self.talk = Talk(session=self._sessions.get, censors=self.lists.censors,
                         censoring=self.lists.censoring,
                         deliver=self.broadcaster.talk,
                         limiter=TalkLimiter(clock.seconds, per_minute=self.config.talk_per_minute),
                         max_length=self.config.talk_max_length)
        self.games.challenges, self.games.seeks, self.games.talk = (
            self.challenges, self.seeks, self.talk)
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
        self.services = Services(players=self, boards=self.broadcaster, games=self.games,
                                 ivars_changed=self.ivars_changed, prompt=self.config.prompt)
        #: Runs the lines typed at the prompt (aliases, ``$``, block mode, the table).
        self.dispatcher = Dispatcher(self.table, self.directory, move=self.games.move,
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
        # Adjourned between registered players, else forfeited (FICS); the
        # game service tells the opponent and the observers.
        self.games.left(session.handle)
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
        def goodbye(_: object) -> None:
            for session in list(self._sessions.values()):
                session.notify(msg("The server is shutting down. Goodbye."))
                self.logout(session, reason="shutdown")

        return self.games.stop().addCallback(goodbye)

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
        """Bring back the games the store has unfinished (:meth:`GameService.restore`)."""
        return self.games.restore()

    def arrived(self, session: Session) -> None:
        """A player logged in: ``<wa>`` for ``pin`` sessions, then their game in progress
        and adjourned games (:meth:`GameService.arrived`)."""
        self.ivars_changed(session)  # %b at the login prompt may have set them
        self._tell_pin(self.pin_arrival(session), session)
        self.games.arrived(session)

    def tell(self, handle: str, message: Message | str) -> None:
        """``message`` for ``handle`` (:meth:`Broadcaster.tell`)."""
        self.broadcaster.tell(handle, message)

    def deliver(self, notices: Any) -> None:
        """Send :class:`ficsfen.server.challenges.Notice` values (:meth:`Broadcaster.deliver`)."""
        self.broadcaster.deliver(notices)

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
