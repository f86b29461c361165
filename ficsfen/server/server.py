"""The composition root: the services of a chess server, built and wired together.

:class:`FicsServer` knows nothing about bytes or telnet: the protocol
(:mod:`ficsfen.server.telnet`) logs players in through :attr:`FicsServer.accounts`
and :attr:`FicsServer.sessions` and hands each line typed at the prompt to
:attr:`FicsServer.dispatcher`.  The services, each taking only what it uses
(``docs/design.md`` has the map):

- :class:`~ficsfen.server.sessions.Sessions`: who is online, arrivals and departures;
- :class:`~ficsfen.server.accounts.Accounts`: names, guests, passwords (a
  credentials checker), saved settings;
- :class:`~ficsfen.server.dispatcher.Dispatcher`: the command-line grammar
  and the command table; each command answers through a
  :class:`~ficsfen.server.reply.Reply`;
- :class:`~ficsfen.server.game_service.GameService`: the games themselves
  (start, move, end, adjourn, resume, expiry, restore);
- :class:`~ficsfen.server.broadcaster.Broadcaster`: the one seam through
  which game events, boards, results, notices and talk reach sessions;
- the game directory, offers, seeks, talk and personal lists.

Time comes from an injected ``IReactorTime`` (a
:class:`twisted.internet.task.Clock` in tests): game clocks and flag fall
run on it.  With a store (``ficsfen.server.store.IStore``) the played games
write each change through a :class:`ficsfen.server.journal.StoreJournal` and
are announced once it is committed (``docs/store.md``; ``docs/design.md``,
"Game path", follows a move); accounts and saved settings are read from the
store at each login; :meth:`FicsServer.restore` brings back, adjourned, the
games the store had in progress.  Without one nothing is written and
everything is announced at once.
"""

from __future__ import annotations

import random
import threading
import time
from typing import Any, Callable, Mapping

from twisted.internet.defer import Deferred
from twisted.internet.interfaces import IReactorTime
from twisted.logger import Logger

from ficsfen.commands.checkfen import CheckFenCommand
from ficsfen.commands.fen import FenCommand
from ficsfen.commands.help import HelpCommand, NextCommand, Pager
from ficsfen.helpcatalog import HelpCatalog
from ficsfen.names import fold
from ficsfen.i18n import load_catalogs, msg
from ficsfen.server import wholist
from ficsfen.server.accounts import ACCOUNT_RATINGS, Accounts
from ficsfen.server.broadcaster import Broadcaster
from ficsfen.server.challenges import Challenges, OfferLimiter
from ficsfen.server.command_table import CommandTable
from ficsfen.server.commands import (board_cmds, client_hooks, examine, follow, info, interface,
                                     lists, messages, moretime, news, notify_cmds, observe,
                                     operator_cmds, play, players, seek, server_info, statistics,
                                     session_cmds, settings, talk)
from ficsfen.server.commands import history as history_cmds
from ficsfen.server.commands import journal_cmds
from ficsfen.server.config import Config
from ficsfen.server.directory import GameDirectory
from ficsfen.server.dispatcher import Dispatcher, check_command_names
from ficsfen.server.following import Following
from ficsfen.server.game_service import GameService
from ficsfen.server.interfaces import IServerCaller
from ficsfen.server.limits import AddressLimits
from ficsfen.server.logon_log import LogonLog
from ficsfen.server.notify import Notifier
from ficsfen.server.operators import Operators
from ficsfen.server.rates import AddressRate
from ficsfen.server.rating_view import RatingView
from ficsfen.server.ratings import Ratings
from ficsfen.server.reads import StoreReads
from ficsfen.server.seeks import SeekBoard
from ficsfen.server.server_stats import ServerStats
from ficsfen.server.session import Services, Session
from ficsfen.server.sessions import Sessions
from ficsfen.server.system_aliases import SystemAliases
from ficsfen.server.talk import Talk, TalkLimiter

__all__ = ["FicsServer", "build_command_table", "check_command_names"]


def build_command_table(server: FicsServer) -> CommandTable:
    """Every command, with the FICS aliases, each given the services it uses."""
    pager = Pager(server.config.help_page_lines)
    table = CommandTable()
    sessions, accounts, clock = server.sessions, server.accounts, server.clock
    read = server.reads.read
    for command in (
        FenCommand(),
        CheckFenCommand(),
        HelpCommand(server.catalog, pager=pager, command_names=lambda: table.names(),
                    exact_command=table.exact),
        NextCommand(pager),
        settings.SetCommand(save=server.save_settings),
        settings.StyleCommand(save=server.save_settings),
        settings.VariablesCommand(),
        session_cmds.WhoCommand(cache=server.who_cache),
        session_cmds.GamesCommand(),
        session_cmds.QuitCommand(),
        examine.ExamineCommand(store=lambda: server.store, listener=server.games, read=read),
        examine.UnexamineCommand(),
        examine.ForwardCommand(),
        examine.BackwardCommand(),
        examine.RevertCommand(),
        examine.BsetupCommand(),
        board_cmds.RefreshCommand(),
        board_cmds.MovesCommand(now=clock.seconds),
        info.DateCommand(now=clock.seconds),
        info.FingerCommand(now=clock.seconds, last_seen=sessions.last_seen,
                           registered=accounts.registered, saved=accounts.saved_settings,
                           ratings=server.ratings.stored),
        follow.FollowCommand(server.following),
        follow.PrimaryCommand(),
        moretime.MoretimeCommand(),
        server_info.UptimeCommand(server.stats, limit=server.config.max_connections,
                                  now=clock.seconds),
        server_info.LimitsCommand(server.config),
        server_info.PingCommand(),
        *players.commands(lambda: server.store, configured=lambda: server.config.accounts,
                          read=read),
        *statistics.commands(lambda: server.store, constants=lambda: server.ratings.constants,
                             read=read, now=lambda: server.wall()),
        *play.COMMANDS,
        *observe.COMMANDS,
        *interface.COMMANDS,
        *history_cmds.commands(lambda: server.store, throttle=accounts.throttle,
                               refusals=accounts.password_refusals, hash=accounts.run_hash,
                               read=read),
        *lists.commands(server.lists, registered=accounts.registered,
                        changed=server.list_changed, save=server.save_settings),
        *seek.commands(server.seeks),
        *talk.commands(server.talk, sessions.keys),
        *client_hooks.COMMANDS,
        *journal_cmds.commands(lambda: server.store, save=server.save_settings, read=read),
        *operator_cmds.commands(server.operators),
        *news.commands(server.operators, now=server.wall),
        notify_cmds.ZnotifyCommand(server.notifier),
        *messages.commands(server.mailbox),
    ):
        check_command_names(command)
        table.register(command)
    return table


class FicsServer:
    """Builds the services and wires them; see the module's documentation.

    Sessions carry the services commands use
    (:class:`~ficsfen.server.session.Services`): :class:`IPlayers` is
    :attr:`sessions`, :class:`IBoards` :attr:`broadcaster`,
    :class:`IGameService` :attr:`games`.  This object provides none of them.
    """

    log = Logger()

    def __init__(self, config: Config | None = None, *, clock: IReactorTime,
                 rng: random.Random | None = None, catalog: HelpCatalog | None = None,
                 store: Any = None, wall: Callable[[], float] = time.time,
                 stop: Callable[[], object] | None = None) -> None:
        self.config = config = config if config is not None else Config()
        #: The ``IStore`` keeping accounts, settings and games, or ``None`` (nothing kept).
        self.store = store
        #: Unix time: when games are adjourned, and so when they expire.
        self.wall = wall
        self.clock = clock
        self.rng = rng if rng is not None else random.SystemRandom()
        self.catalog = catalog if catalog is not None else HelpCatalog(config.help_dir)
        load_catalogs()  # every message's text read now, not first rendered amid a crowd
        #: Store reads, off the reactor thread with a real reactor (inline with a test clock).
        self.reads = reads = StoreReads(clock, store)
        #: Set as :meth:`shutdown` begins: from then on no login completes (the telnet side).
        self.stopping = False
        #: Who is online (:class:`IPlayers` for commands).
        self.sessions = sessions = Sessions(clock=clock, language=config.language)
        #: Names, guests, passwords (the login's credentials checker), saved settings.
        self.accounts = accounts = Accounts(config, clock=clock, store=store, rng=self.rng,
                                            online=sessions.taken, read=reads.read)
        #: Connections and login attempts per address (``[limits]``).
        self.address_limits = AddressLimits(
            clock, connections=config.connections_per_address,
            logins_per_minute=config.logins_per_minute, exempt=config.exempt)
        #: Open connections (the telnet side counts them against ``max_connections``).
        self.connections = 0
        self.directory = directory = GameDirectory(sessions.handles)
        #: Game event listeners (the ``--feed``): see :attr:`GameDirectory.listeners`.
        self.game_hooks = directory.listeners
        #: The online players' ratings (what shows a rating asks it), ``[ratings]``'s constants.
        self.ratings = Ratings(config.ratings, registered=self._registered_online)
        #: Those ratings as every line shows them, by FICS type (``who``, ``games``, seeks...).
        self.rating_view = rating_view = RatingView(self.ratings)
        sessions.rating_columns = lambda handle: [
            rating_view.shown(handle, kind).marked for kind in wholist.RATING_CATEGORIES.values()]
        #: The one way out to sessions: game events, boards, results, notices and talk.
        self.broadcaster = broadcaster = Broadcaster(
            session=sessions.by_key, directory=directory,
            allresults=lambda: sessions.listening("allresults"), ratings=rating_view)
        #: Offers per sender and minute, match and in-game (``[limits] offers_per_minute``),
        #: and per address (``address_offers_per_minute``).
        self.offer_limiter = OfferLimiter(
            clock.seconds, per_minute=config.offers_per_minute, address=sessions.host_of,
            per_address=AddressRate(clock, per_minute=config.address_offers_per_minute,
                                    burst=config.address_offer_burst, exempt=config.exempt))
        #: The games hosted: start, move, end, adjourn, resume, expiry, restore.
        self.games = games = GameService(
            directory=directory, broadcaster=broadcaster, clock=clock, session=sessions.get,
            is_registered=accounts.is_registered, config=config, rng=self.rng, store=store,
            wall=wall, offer_limiter=self.offer_limiter, read=reads.read, ratings=self.ratings)
        #: Adjourned games waiting for ``resume`` (the game service's).
        self.adjourned = games.adjourned
        #: ``who`` answers, rendered once per change of what they list.
        self.who_cache = wholist.WhoCache(
            lambda: (sessions.listing_changes, directory.changes, self.ratings.changes),
            clock=clock.seconds)
        #: The personal lists of everyone logged in (``[limits] list_size``).
        self.lists = lists.PersonalLists(size=config.list_size)
        #: Arrival, departure and game notices of the notify and gnotify lists.
        self.notifier = Notifier(self.lists, sessions.by_key,
                                 ratings=broadcaster.game_rating_texts)
        directory.listeners.append(self.notifier)
        #: Stored messages between registered players (``messages``, ``clearmessages``).
        self.mailbox = messages.Mailbox(
            lambda: self.store, read=reads.read, limit=config.messages_per_player,
            max_length=config.message_max_length, now=lambda: self.wall(),
            censors=self.lists.censors)
        #: Pending match offers (``match``, ``accept``, ...).
        self.challenges = Challenges(handles=sessions.handles, is_busy=games.busy,
                                     is_examining=games.examining, rng=self.rng,
                                     refusal=self.lists.refusal, limiter=self.offer_limiter,
                                     rating=rating_view.text)
        #: Seeks (``seek``, ``sought``, ``play``) and who hears of them.
        self.seeks = SeekBoard(sessions=sessions.all, is_busy=games.busy,
                               refuses=lambda receiver, sender:
                               self.lists.refusal(receiver, sender) is not None,
                               tell=broadcaster.tell, rating=rating_view.shown,
                               limiter=AddressRate(clock, per_minute=config.address_seeks_per_minute,
                                                   burst=config.address_seek_burst,
                                                   exempt=config.exempt))
        #: Channels, the last told, and the fan-out of every message (``[limits] talk_*``).
        self.talk = Talk(session=sessions.get, censors=self.lists.censors,
                         censoring=self.lists.censoring, deliver=broadcaster.talk,
                         limiter=TalkLimiter(
                             clock.seconds, per_minute=config.talk_per_minute,
                             address=sessions.host_of,
                             per_address=AddressRate(clock, per_minute=config.address_talk_per_minute,
                                                     burst=config.address_talk_burst,
                                                     exempt=config.exempt)),
                         max_length=config.talk_max_length)
        games.challenges, games.seeks, games.talk = self.challenges, self.seeks, self.talk
        #: Operators, bans, muzzles and the shutdown countdown, whose end stops the server
        #: with ``stop`` (``ficsfen serve``: the reactor's, as SIGTERM does; by default
        #: :meth:`shutdown` alone, in the next turn as the reactor's would).
        self.operators = Operators(
            config, clock=clock, store=store, read=reads.read, sessions=lambda: sessions,
            stop=stop if stop is not None else lambda: clock.callLater(0, self.shutdown))
        #: Who follows whom (``follow``): observes the games they start.
        self.following = Following(
            session=sessions.by_key, directory=directory,
            board_text=lambda session, game: broadcaster.board_text(session, game, fresh=True))
        #: What ``uptime`` reports: the start, the most players and games, games played.
        self.stats = ServerStats(players=lambda: len(sessions), games=lambda: len(directory),
                                 started_at=wall(), started_clock=clock.seconds())
        directory.listeners.extend([self.following, self.stats])
        #: Every login and logout, written to the store (``llogons``, ``logons``).
        self.logon_log = LogonLog(lambda: self.store, wall=lambda: self.wall())
        sessions.bind(Services(players=sessions, boards=broadcaster, games=games,
                               ivars_changed=sessions.ivars_changed, prompt=config.prompt),
                      game_of=directory.game_of, announce=broadcaster.announce)
        #: Told ``session`` when a player's settings or lists changed (``set``, ``+channel``...).
        self.player_changed: list[Callable[[IServerCaller], None]] = []
        #: The node of a cluster this server is (``ficsfen.server.cluster.node.ClusterNode``,
        #: made by ``ficsfen serve`` for ``[cluster] url``), or None: it is alone.
        self.cluster: Any = None
        self._wire_logins()
        self.table = build_command_table(self)
        #: Runs the lines typed at the prompt (aliases, ``$``, block mode, the table).
        self.dispatcher = Dispatcher(self.table, directory, move=games.move,
                                     max_line=config.max_line,
                                     system_aliases=SystemAliases(self.table.__contains__))

    def _wire_logins(self) -> None:
        """What a login and a logout do beyond the registry, service by service, in order."""
        sessions, games = self.sessions, self.games
        sessions.entering.extend([
            lambda session, replaced, saved: self.accounts.release(session.handle),  # held no more
            self._restore_settings,
            self._ratings_arrived,  # before the session is listed (who shows them)
            self.operators.entering,  # the (*) mark, muzzles: before the session is listed
        ])
        sessions.on_listening("seekinfo", self.seeks.refresh)  # FICS: <sc>, then every seek
        sessions.arrivals.extend([
            games.arrived,  # a game going on, adjourned games
            self.mailbox.arrived,  # "You have 2 messages (1 unread)."
            self.notifier.arrived,  # notify lists, both ways
            self.stats.arrived,
            self.logon_log.arrived,
        ])
        sessions.departures.extend([
            games.departed,  # their game adjourned or forfeited, as on FICS
            lambda session: self.broadcaster.deliver(self.challenges.drop(session.handle)),
            lambda session: self.seeks.drop(session.handle),
            lambda session: self.talk.forget(session.handle),
            self.notifier.departed,  # before the lists it reads are forgotten
            lambda session: self.lists.forget(session.handle),
            lambda session: self.offer_limiter.forget(session.handle),
            lambda session: self.following.forget(session.handle),
            self._stop_observing,
            self.logon_log.departed,
            lambda session: self.ratings.departed(session.handle),
        ])

    def _registered_online(self, handle: str) -> bool:
        session = self.sessions.get(handle)
        if session is None and self.sessions.elsewhere is not None:
            session = self.sessions.elsewhere.get(fold(handle))  # on another node
        return session is not None and session.registered

    def __repr__(self) -> str:
        return f"<FicsServer sessions={len(self.sessions)} games={len(self.directory)}>"

    def tidy(self) -> None:
        """Drop what the limits no longer count and resize the tables a crowd grew.

        Run by the memory trimmer after a burst of disconnections: entries
        and dict tables left from thousands of connections would otherwise
        live on, each keeping CPython's allocator from giving an arena back.
        """
        self.accounts.throttle.sweep()
        self.address_limits.sweep()
        self.offer_limiter.sweep()
        self.talk.limiter.sweep()
        if self.seeks.limiter is not None:
            self.seeks.limiter.sweep()
        self.sessions.tidy()

    def start_threads(self) -> list[threading.Thread]:
        """Start the background threads (password hashing, store reads) before any
        connection: threads started later, amid a crowd of logins, keep memory of it."""
        return [*self.accounts.start_threads(), *self.reads.start()]

    def reads_done(self) -> Deferred[Any]:
        """Fires once the store reads under way have ended (before the store closes)."""
        return self.reads.done()

    def restore(self) -> Deferred[list[Any]]:
        """Bring back the games the store has unfinished (:meth:`GameService.restore`; in a
        cluster, not those in play on the other nodes), and read the bans it keeps; fires
        with the games."""
        if self.cluster is not None:  # not the games in play on the other nodes
            d = self.cluster.live_games().addCallback(self.games.restore)
        else:
            d = self.games.restore()
        return d.addCallback(lambda games: self.operators.load().addCallback(lambda _: games))

    def shutdown(self) -> Deferred[None]:
        """Stop every game, then tell everyone the server stops and close every session.

        Games between registered players are adjourned ("Game adjourned by
        server shutdown"), the others aborted; players and observers are told
        once that is stored.  The Deferred fires when the sessions are closed.
        """
        self.stopping = True  # logins under way are refused from now on (the telnet side)
        self.operators.stopping()  # a pending shutdown's countdown ends

        def goodbye(_: object) -> None:
            for session in list(self.sessions):
                session.notify(msg("The server is shutting down. Goodbye."))
                self.sessions.logout(session, reason="shutdown")

        return self.games.stop().addCallback(goodbye)

    # -- settings, lists and observations across logins ------------------------------

    def _restore_settings(self, session: Session, replaced: Session | None,
                          saved: Mapping[str, Any] | None) -> None:
        """A registered player's saved settings and lists (read before the login entered:
        ``saved``); a new guest's lists start empty."""
        handle = session.handle
        if session.registered and self.store is not None:
            saved = dict(saved or {})
            settings.apply_saved(session, saved)
            self.lists.load(handle, saved.get("lists"))
            for channel in self.lists.of(handle).members("channel"):
                self.talk.channels.join(handle, int(channel))
        elif replaced is None:
            self.lists.forget(handle)  # a guest's lists last one session

    def _ratings_arrived(self, session: Session, replaced: Session | None,
                         saved: Mapping[str, Any] | None) -> None:
        """A registered player's ratings, read with their settings (``saved``); logging in
        again keeps those the server holds (a game of the old session may have changed
        them since the read)."""
        if replaced is not None and self.ratings.stored(session.handle) is not None:
            return
        if session.registered:
            self.ratings.arrived(session.handle, (saved or {}).get(ACCOUNT_RATINGS) or {})

    def save_settings(self, session: IServerCaller) -> None:
        """Keep a registered player's settings (``set``, ``style``, lists) for their next login;
        tell :attr:`player_changed` (every player's)."""
        for hook in self.player_changed:
            hook(session)
        if not session.registered:
            return
        if not self.sessions.is_online(session):
            return  # gone (a command's answer that waited for a read): saved at each change
        data = settings.saved(session)
        data["lists"] = self.lists.of(session.handle).to_json()
        self.accounts.save_settings(session, data)

    def list_changed(self, handle: str, name: str, item: str, added: bool) -> None:
        """A personal list changed: the channel list is who hears a channel."""
        if name == "channel":
            (self.talk.channels.join if added else self.talk.channels.leave)(handle, int(item))

    def _stop_observing(self, session: Session) -> None:
        """A player left: they observe nothing any more."""
        for observed in self.directory.observed_games(session.handle):
            self.directory.unobserve(session.handle, observed)
