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
- the game directory, offers, seeks, talk and personal lists, and the games
  themselves (start, move, end, adjourn, expiry) with their boards.

Time comes from an injected ``IReactorTime`` (a
:class:`twisted.internet.task.Clock` in tests): game clocks and flag fall
run on it.  With a store (``ficsfen.server.store.IStore``) the played games
write each change through a :class:`ficsfen.server.journal.StoreJournal` and
are announced once it is committed (``docs/store.md``); accounts and saved
settings are read from the store at each login; :meth:`FicsServer.restore`
brings back, adjourned, the games the store had in progress.  Without one
nothing is written and everything is announced at once.
"""

from __future__ import annotations

import random
import threading
import time
from typing import Any, Callable

from twisted.internet.defer import Deferred, DeferredList, gatherResults, succeed
from twisted.internet.interfaces import IReactorTime
from twisted.logger import Logger
from zope.interface import implementer

from ficsfen.commands.fen import FenCommand
from ficsfen.commands.help import HelpCommand, NextCommand, Pager
from ficsfen.helpcatalog import HelpCatalog
from ficsfen.i18n import LocalizedError, Message, load_catalogs, msg, msgn
from ficsfen.names import fold
from ficsfen.server import boards, wholist
from ficsfen.server.accounts import Accounts
from ficsfen.server.challenges import Challenges, OfferLimiter
from ficsfen.server.command_table import CommandTable
from ficsfen.server.commands import (board_cmds, examine, info, interface, lists, observe,
                                     play, seek, session_cmds, settings, talk)
from ficsfen.server.commands import history as history_cmds
from ficsfen.server.config import Config
from ficsfen.server.directory import GameDirectory
from ficsfen.server.dispatcher import Dispatcher, check_command_names
from ficsfen.server.reply import Reply
from ficsfen.server.examined import ExaminedGame
from ficsfen.server.games import (AdjournedGames, GameResult, IGameListener, IMoveTiming,
                                  PlayedGame)
from ficsfen.server.journal import StoreJournal, restore_game
from ficsfen.server.limits import AddressLimits
from ficsfen.server.interfaces import IBoards, IExaminedGame, IGameService, IPlayedGame
from ficsfen.server.seeks import SeekBoard
from ficsfen.server.session import Services, Session
from ficsfen.server.sessions import Sessions
from ficsfen.server.talk import Talk, TalkLimiter
from ficsfen.server.variant_games import FICS_TYPES, holdings_line, received_line, start_fen
from ficsfen.server.store.records import EndCode, GameEnd, GameStatus

__all__ = ["FicsServer", "build_command_table", "check_command_names"]


def build_command_table(server: "FicsServer") -> CommandTable:
    """Every command, with the FICS aliases, each given the services it uses."""
    pager = Pager(server.config.help_page_lines)
    table = CommandTable()
    sessions, accounts, clock = server.sessions, server.accounts, server.clock
    for command in (
        FenCommand(),
        HelpCommand(server.catalog, pager=pager, command_names=lambda: table.names(),
                    exact_command=table.exact),
        NextCommand(pager),
        settings.SetCommand(save=server.save_settings),
        settings.StyleCommand(save=server.save_settings),
        settings.VariablesCommand(),
        session_cmds.WhoCommand(cache=server.who_cache),
        session_cmds.GamesCommand(),
        session_cmds.QuitCommand(),
        examine.ExamineCommand(store=lambda: server.store, listener=server),
        examine.UnexamineCommand(),
        examine.ForwardCommand(),
        examine.BackwardCommand(),
        examine.RevertCommand(),
        examine.BsetupCommand(),
        board_cmds.RefreshCommand(),
        board_cmds.MovesCommand(now=clock.seconds),
        info.DateCommand(now=clock.seconds),
        info.FingerCommand(now=clock.seconds, last_seen=sessions.last_seen,
                           is_registered=accounts.is_registered),
        *play.COMMANDS,
        *observe.COMMANDS,
        *interface.COMMANDS,
        *history_cmds.commands(lambda: server.store, clock=clock),
        *lists.commands(server.lists, is_registered=accounts.is_registered,
                        changed=server.list_changed, save=server.save_settings),
        *seek.commands(server.seeks),
        *talk.commands(server.talk, sessions.keys),
    ):
        check_command_names(command)
        table.register(command)
    return table


@implementer(IGameListener, IMoveTiming, IBoards, IGameService)
class FicsServer:
    """Builds the services and wires them; see the module's documentation.

    Sessions carry the services commands use (:class:`~ficsfen.server.session.Services`):
    :class:`IPlayers` is :attr:`sessions`.  Until the games have a service
    of their own, this object is also the :class:`IGameListener` of every
    game it hosts and provides :class:`IBoards` and :class:`IGameService`.
    """

    log = Logger()

    def __init__(self, config: Config | None = None, *, clock: IReactorTime,
                 rng: random.Random | None = None, catalog: HelpCatalog | None = None,
                 store: Any = None, wall: Callable[[], float] = time.time) -> None:
        self.config = config = config if config is not None else Config()
        #: The ``IStore`` keeping accounts, settings and games, or ``None`` (nothing kept).
        self.store = store
        #: Unix time: when games are adjourned, and so when they expire.
        self.wall = wall
        self.clock = clock
        self.rng = rng if rng is not None else random.SystemRandom()
        self.catalog = catalog if catalog is not None else HelpCatalog(config.help_dir)
        load_catalogs()  # every message's text read now, not first rendered amid a crowd
        #: Who is online (:class:`IPlayers` for commands).
        self.sessions = sessions = Sessions(clock=clock, language=config.language)
        #: Names, guests, passwords (the login's credentials checker), saved settings.
        self.accounts = Accounts(config, clock=clock, store=store, rng=self.rng,
                                 online=sessions.has)
        #: Connections and login attempts per address (``[limits]``).
        self.address_limits = AddressLimits(
            clock, connections=config.connections_per_address,
            logins_per_minute=config.logins_per_minute, exempt=config.exempt)
        #: Open connections (the telnet side counts them against ``max_connections``).
        self.connections = 0
        self.directory = GameDirectory(sessions.handles)
        #: Game event listeners (the ``--feed``): see :attr:`GameDirectory.listeners`.
        self.game_hooks = self.directory.listeners
        #: ``who`` answers, rendered once per change of what they list.
        self.who_cache = wholist.WhoCache(
            lambda: (sessions.listing_changes, self.directory.changes), clock=clock.seconds)
        #: The noplay and censor lists of everyone logged in (``[limits] list_size``).
        self.lists = lists.PersonalLists(size=config.list_size)
        #: Offers per sender and minute, match and in-game (``[limits] offers_per_minute``).
        self.offer_limiter = OfferLimiter(clock.seconds, per_minute=config.offers_per_minute)
        #: Pending match offers (``match``, ``accept``, ...).
        self.challenges = Challenges(handles=sessions.handles, is_busy=self._busy, rng=self.rng,
                                     refusal=self.lists.refusal, limiter=self.offer_limiter)
        #: Seeks (``seek``, ``sought``, ``play``) and who hears of them.
        self.seeks = SeekBoard(sessions=sessions.all, is_busy=self._busy,
                               refuses=lambda receiver, sender:
                               self.lists.refusal(receiver, sender) is not None,
                               tell=sessions.tell)
        #: Channels, the last told, and the fan-out of every message (``[limits] talk_*``).
        self.talk = Talk(session=sessions.get, censors=self.lists.censors,
                         censoring=self.lists.censoring,
                         limiter=TalkLimiter(clock.seconds, per_minute=config.talk_per_minute),
                         max_length=config.talk_max_length)
        #: Writes each change of a played game before it is announced (``None``: no store).
        self.journal = StoreJournal(store, wall=wall) if store is not None else None
        #: Players of games being created or resumed, not yet announced (they are busy).
        self._starting: dict[str, PlayedGame] = {}
        #: Adjourned games waiting for ``resume``, with their history and clocks.
        self.adjourned = AdjournedGames()
        #: The next look for expired adjourned games (``None``: none kept).
        self._expiry_call: Any = None
        sessions.bind(Services(players=sessions, boards=self, games=self,
                               ivars_changed=sessions.ivars_changed, prompt=config.prompt),
                      game_of=self.directory.game_of)
        self._wire_logins()
        self.table = build_command_table(self)
        #: Runs the lines typed at the prompt (aliases, ``$``, block mode, the table).
        self.dispatcher = Dispatcher(self.table, self.directory, move=self.move,
                                     max_line=config.max_line)

    def _wire_logins(self) -> None:
        """What a login and a logout do beyond the registry, service by service, in order."""
        sessions = self.sessions
        sessions.entering.extend([
            lambda session, replaced: self.accounts.release(session.handle),  # held no more
            self._restore_settings,
        ])
        sessions.on_listening("seekinfo", self.seeks.refresh)  # FICS: <sc>, then every seek
        sessions.arrivals.append(self.games_arrived)
        sessions.departures.extend([
            self.games_departed,
            lambda session: sessions.deliver(self.challenges.drop(session.handle)),
            lambda session: self.seeks.drop(session.handle),
            lambda session: self.talk.forget(session.handle),
            lambda session: self.lists.forget(session.handle),
            lambda session: self.offer_limiter.forget(session.handle),
            self.observers_departed,
        ])

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
        self.sessions.tidy()

    def start_threads(self) -> list[threading.Thread]:
        """Start the background threads (password hashing) before any connection."""
        return self.accounts.start_threads()

    # -- settings and lists across logins ------------------------------------

    def _restore_settings(self, session: Session, replaced: Session | None) -> None:
        """A registered player's saved settings and lists; a new guest's lists start empty."""
        handle = session.handle
        saved = self.accounts.load_settings(handle) if session.registered else None
        if saved is not None:
            settings.apply_saved(session, saved)
            self.lists.load(handle, saved.get("lists"))
            for channel in self.lists.of(handle).members("channel"):
                self.talk.channels.join(handle, int(channel))
        elif replaced is None and not session.registered:
            self.lists.forget(handle)  # a guest's lists last one session

    def save_settings(self, session: Session) -> None:
        """Keep a registered player's settings (``set``, ``style``, lists) for their next login."""
        if not session.registered:
            return
        data = settings.saved(session)
        data["lists"] = self.lists.of(session.handle).to_json()
        self.accounts.save_settings(session, data)

    def list_changed(self, handle: str, name: str, item: str, added: bool) -> None:
        """A personal list changed: the channel list is who hears a channel."""
        if name == "channel":
            (self.talk.channels.join if added else self.talk.channels.leave)(handle, int(item))

    # -- games: arrivals and departures -----------------------------------------

    def _busy(self, handle: str) -> bool:
        return self.directory.game_of(handle) is not None or fold(handle) in self._starting

    def games_arrived(self, session: Session) -> None:
        """A player logged in: their game in progress (when they logged in again) and
        adjourned games.  Their opponents in adjourned games are told, and so are they."""
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
            present = self.sessions.get(other)
            if present is not None:
                self.sessions.tell(other, msg("Notification: {handle}, who has an adjourned game "
                                              "with you, has arrived.", handle=session.handle))
                online.append(present.handle)
            else:
                session.notify(msg("You have an adjourned game with {handle}, who is not logged in.",
                                   handle=other))
        if online:  # FICS's words, which clients (the web ones) offer a "resume" button for
            session.notify(msgn("{count} player, who has an adjourned game with you, is online:\n{names}",
                                "{count} players, who have an adjourned game with you, are online:\n{names}",
                                len(online), names=" ".join(online)))

    def games_departed(self, session: Session) -> None:
        """A player left: they stop examining, or their game is adjourned (between
        registered players) or forfeited, as on FICS; the game end tells the others."""
        game = self.directory.game_of(session.handle)
        if IExaminedGame.providedBy(game):
            self.stop_examining(session.handle, game, quiet=True)
        elif IPlayedGame.providedBy(game):
            game.disconnect(session.handle)

    def observers_departed(self, session: Session) -> None:
        """A player left: they observe nothing any more."""
        for observed in self.directory.observed_games(session.handle):
            self.directory.unobserve(session.handle, observed)

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
            for session in list(self.sessions):
                session.notify(msg("The server is shutting down. Goodbye."))
                self.sessions.logout(session, reason="shutdown")

        return DeferredList(waits, consumeErrors=True).addCallback(goodbye)

    def restore(self) -> Deferred[list[Any]]:
        """Bring back the games the store has unfinished: those in progress when the
        server stopped (a crash) are adjourned there, clocks as at their last move.

        Run once at start, before listening.  A game with a player who has no
        account could never be resumed: it ends, aborted.
        """
        writes = []
        for stored in self.store.unfinished_games():
            start = stored.start
            if not (self.accounts.is_registered(start.white) and self.accounts.is_registered(start.black)):
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
                self.sessions.tell(handle, msgn(
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
            game.after_write(None, lambda: self.sessions.deliver(notices))
        else:
            self.sessions.deliver(notices)

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
                self.sessions.tell(handle, msg("Your game with {handle} could not be started: the server "
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
            session = self.sessions.get(handle) if fold(handle) in observing else None
            if session is None:
                self.sessions.tell(handle, announcement)
            else:
                self.sessions.tell(handle, session.render(announcement) + "\n" + session.render(removed))
        self.sessions.deliver(result.notices)
        # The allresults ivar: every game's end, not only watched ones.
        if self.sessions.listening("allresults"):
            watching = {fold(h) for h in audience}
            for other in list(self.sessions.listening("allresults")):
                if fold(other.handle) not in watching:
                    self.sessions.tell(other.handle, announcement)
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
            session = self.sessions.get(handle)
            if session is not None:
                lines = [session.render(creating), session.render(header)]
                if session.ivars["gameinfo"]:
                    lines.append(info_line)
                lines += ["", self.board_text(session, game)]
                self.sessions.tell(handle, "\n".join(lines))
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
            self.sessions.tell(handle, header)
        game.listener = self
        game.resume()

    def game_info(self, game: Any) -> str:
        """The ``<g1>`` line of ``game`` (ivar gameinfo), its players' sessions as they are now."""
        white, black = self.sessions.get(game.white), self.sessions.get(game.black)
        return boards.game_info_line(
            game, registered=(white is not None and white.registered,
                              black is not None and black.registered),
            timeseal=(white is not None and white.timeseal, black is not None and black.timeseal))

    def _logged_in_registered(self, handle: str) -> bool:
        """Whether ``handle`` is logged in with a password (only their games are adjourned)."""
        session = self.sessions.get(handle)
        return session is not None and session.registered

    def _logged_in_as(self, handle: str) -> str:
        """``handle`` as its session spells it now (the same name, maybe in another case)."""
        session = self.sessions.get(handle)
        return handle if session is None else session.handle

    def examine(self, handle: str) -> ExaminedGame:
        """Start a scratch game examined by ``handle``, number it and show it."""
        game = ExaminedGame(handle)
        game.listener = self  # told boardChanged after each move
        self.directory.add(game)
        self.show_position(game)
        return game

    # -- boards ----------------------------------------------------------

    def watchers(self, game: Any) -> list[str]:
        """Handles who see every board of ``game``: its players, then observers."""
        return list(dict.fromkeys([*game.players(), *self.directory.observers(game)]))

    def mover_lag(self, game: Any) -> int:
        """The lag (ms) of the player who made ``game``'s last move: style 12's last field."""
        if not IPlayedGame.providedBy(game) or game.tracker.last_ply is None:
            return 0
        session = self.sessions.get(game.handle_of(game.tracker.last_ply.color))
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
        sessions = self.sessions
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
            session = self.sessions.get(fold(game.handle_of(game.tracker.turn)))
            if session is not None and session.move_timer is not None:
                session.move_timer.ping()

    def charge(self, game: Any, handle: str, wall: float) -> float:
        """:class:`IMoveTiming`: a timeseal player's move costs what their stamps say."""
        session = self.sessions.get(handle)
        if session is None or session.move_timer is None:
            return wall
        return session.move_timer.charge(wall)

    def _observer_groups(self, game: Any, players: list[str]) -> list[tuple[tuple, list[Session]]]:
        """``game``'s observers (not its players) by what they receive.

        The key is (style, language, showfen, ms ivar, charset, prompt).
        """
        sessions = self.sessions
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
        session = self.sessions.get(handle)
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
            s = self.sessions.get(other)
            if s is not None and s is not session:
                s.notify(note)
