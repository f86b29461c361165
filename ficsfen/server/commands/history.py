"""Finished games and passwords kept in the store: ``history``, ``smoves``, ``password``.

The store (:class:`ficsfen.server.store.IStore`) is reached through a
callable that returns it, or ``None`` on a server run without a data file.
Its reads run off the reactor thread, through a ``read(function, *args)``
callable that returns a Deferred (the server's ``FicsServer.read``): a
command reading the store returns that Deferred, and the server writes its
prompt once it fired.  The password check and hash, slow on purpose, run in
the server's password pool, and the check is throttled like a password login.

``history`` keeps FICS's layout, which clients parse (pychess reads the
``History for NAME:`` block, ``smoves HANDLE N`` and ``examine HANDLE N``):
number, result (``+ - =``), both ratings as the game left them (FICS's
"revised" ratings: the rating a game started with plus its change; ``0``
when none was kept, a guest's), the player's colour, the opponent, ``[ bu  5   0]`` (private flag, category,
rated, time control), the ECO code (``---`` for a game without one, see
:mod:`ficsfen.server.openings`), the end
code (``Mat``, ``Res``, ``Fla``...) and the date.
"""

from __future__ import annotations

import re
from typing import Any, Callable, Mapping

from twisted.internet.defer import Deferred, maybeDeferred, succeed
from twisted.logger import LogLevel, Logger
from twisted.python.failure import Failure

from ficsfen.commands.base import Command
from ficsfen.i18n import Message, msg
from ficsfen.server.commands.board_cmds import (STILL_IN_PROGRESS, game_move_lines, move_list_lines,
                                               movelist_ending)
from ficsfen.server.commands.info import fics_date
from ficsfen.server.commands.store_commands import (Reader, StoreCommand, StoreGetter,
                                                    for_player, whose)
from ficsfen.server.config import hash_password, verify_password
from ficsfen.server.interfaces import IServerCaller, IServerDirectory
from ficsfen.server.limits import LoginThrottle, duration, seconds_left
from ficsfen.server.openings import NO_ECO, history_with_ecos
from ficsfen.server.parsed import heading, parsed
from ficsfen.server.refusal_log import RefusalLog
from ficsfen.server.store import HistoryEntry, StoredGame, StoreError
from ficsfen.server.store.interfaces import IStore
from ficsfen.server.store.rating_reads import GameRatings
from ficsfen.server.variant_games import category_letter, stored_category
from ficsfen.tracker import Tracker, TrackerError

__all__ = ["HistoryCommand", "PasswordCommand", "SmovesCommand", "StoreGetter",
           "commands", "find_history_game", "history_heading", "history_line", "history_text",
           "whose"]

# FICS prints the opponent's handle in 13 columns, cut if longer.
_OPPONENT_WIDTH = 13
_INTEGER = re.compile(r"-?[0-9]+")
#: The heading's labels, each with the width of its column (FICS's, in English).
_HEADINGS: tuple[tuple[Message | str, int], ...] = (
    ("", 18), (parsed(msg("Opponent")), 14), (parsed(msg("Type")), 13),
    (parsed(msg("ECO")), 4), (parsed(msg("End")), 4), (parsed(msg("Date")), 0))


def history_heading(lang: str) -> str:
    """The column heading of ``history`` (``lang``: the reader's language of parsed
    texts); each label starts above its column, FICS's in English."""
    return heading(_HEADINGS, lang)


def history_line(entry: HistoryEntry, eco: str = NO_ECO, lang: str = "en",
                 ratings: GameRatings | None = None) -> str:
    """One line of ``history``, FICS's columns; ``eco`` the game's ECO code (the date's
    names in ``lang``), ``ratings`` those the store keeps with the game."""
    game = entry.game
    start = game.start
    kind = category_letter(stored_category(start))
    rated = "r" if start.rated else "u"
    end = game.end
    code = str(end.code) if end is not None else "???"
    date = fics_date(end.ended if end is not None else start.started, lang=lang)
    mine = theirs = 0
    if ratings is not None:
        mine, theirs = ratings.after(entry.white) or 0, ratings.after(not entry.white) or 0
    return (f"{entry.number:>2}: {entry.outcome} {mine:>4} {'W' if entry.white else 'B'} "
            f"{theirs:>4} "
            f"{entry.opponent[:_OPPONENT_WIDTH]:<{_OPPONENT_WIDTH}} "
            f"[ {kind}{rated}{start.initial_seconds // 60:>3}{start.increment_seconds:>4}] "
            f"{eco:<3} {code:>3} {date}")


def _no_history(handle: str) -> Message:
    return parsed(msg("{handle} has no history games.", handle=handle))


def history_text(handle: str, entries: list[tuple[HistoryEntry, str]], lang: str = "en",
                 ratings: Mapping[int, GameRatings] | None = None) -> str:
    """The whole ``history`` answer for ``handle`` from its entries and their ECO codes
    (:func:`ficsfen.server.openings.history_with_ecos`), which clients parse: in ``lang``,
    the reader's language of parsed texts (FICS's English by default); ``ratings`` those
    kept with each game, by game id."""
    if not entries:
        return _no_history(handle).render(lang)
    kept = ratings or {}
    return "\n".join([parsed(msg("History for {handle}:", handle=handle)).render(lang),
                      history_heading(lang),
                      *(history_line(entry, eco, lang, kept.get(entry.game.id))
                        for entry, eco in entries)])


def history_with_ratings(store: IStore, handle: str
                         ) -> tuple[list[tuple[HistoryEntry, str]], dict[int, GameRatings]]:
    """``handle``'s history with ECO codes (:func:`history_with_ecos`) and the ratings kept
    with its games: reads made together in the read thread."""
    entries = history_with_ecos(store, handle)
    return entries, (store.game_ratings(e.game.id for e, _ in entries) if entries else {})


def _game_ratings(store: IStore, game_id: int) -> GameRatings:
    """The ratings kept with game ``game_id`` (none kept: ``GameRatings()``)."""
    return store.game_ratings([game_id]).get(game_id, GameRatings())


def _history_game(store: IStore, handle: str, number: int) -> tuple[bool, StoredGame | None]:
    """Whether ``handle`` has history games, and game ``number`` of them (``-1`` the last
    one) or ``None``: two reads, made together in the read thread."""
    entries = store.history(handle)
    if not entries:
        return False, None
    if number < 0:
        entry = entries[number] if -number <= len(entries) else None
    else:
        entry = next((e for e in entries if e.number == number), None)
    return True, store.get_game(entry.game.id) if entry is not None else None


def find_history_game(caller: IServerCaller, store: IStore, handle: str, number: int,
                      read: Reader = maybeDeferred) -> Deferred[StoredGame | None]:
    """Game ``number`` of ``handle``'s history (``-1`` the last one), or tell why not."""
    def found(result: tuple[bool, StoredGame | None]) -> StoredGame | None:
        listed, game = result
        if not listed:
            caller.send(_no_history(handle))  # FICS's words: clients parse them
        elif game is None:
            caller.send(msg("There is no history game {number} for {handle}.", number=number,
                            handle=handle))
        return game

    looked = read(_history_game, store, handle, number) if store is not None else (
        succeed((False, None)))
    return looked.addCallback(found)


def replayed_history_game(caller: IServerCaller, store: IStore, who: str, number: int,
                          read: Reader = maybeDeferred
                          ) -> Deferred[tuple[StoredGame, Tracker] | None]:
    """Game ``number`` of ``who``'s history and its moves replayed, or tell the caller why not.

    A damaged record (a stored move that does not replay) is refused before
    anyone sees it.
    """
    def named(handle: str) -> Any:
        return find_history_game(caller, store, handle, number, read).addCallback(replayed, handle)

    def replayed(game: StoredGame | None, handle: str) -> tuple[StoredGame, Tracker] | None:
        if game is None:
            return None
        try:
            return game, game.replay()
        except TrackerError:
            caller.send(msg("History game {number} not available for {handle}.",
                            number=number, handle=handle))
            return None

    return for_player(caller, who, store, read, named)


class HistoryCommand(StoreCommand):
    """``history [HANDLE]``: the last ten finished games of a player."""

    name = "history"
    spec = "o"
    usage = msg("history [HANDLE]")

    def run(self, caller: IServerCaller, who: str | None, *,
            directory: IServerDirectory) -> Deferred[None]:
        store = self.store()

        def listed(handle: str) -> Any:
            entries = (self.read(history_with_ratings, store, handle) if store is not None
                       else succeed(([], {})))
            return entries.addCallback(lambda found: caller.send(
                history_text(handle, found[0], caller.parsed_lang, found[1])))

        return self.for_player(caller, who, store, listed)


class SmovesCommand(StoreCommand):
    """``smoves HANDLE GAME``: the moves of one of a player's games, as ``moves`` shows them.

    ``GAME`` is a number of the player's ``history`` (``-1`` the last one),
    an entry of their journal (``%01``, ``%a``), or the handle of the
    opponent of one of the player's adjourned games (``stored``), as
    pychess asks for them.
    """

    name = "smoves"
    spec = "ww"
    usage = msg("smoves HANDLE NUMBER|%SLOT|OPPONENT")

    def run(self, caller: IServerCaller, who: str, game: str, *,
            directory: IServerDirectory) -> Deferred[None] | None:
        if _INTEGER.fullmatch(game):
            return replayed_history_game(caller, self.store(), who, int(game),
                                         self.read).addCallback(self._rated, caller)
        if game.startswith("%"):  # a journal entry, as pychess asks for them
            from ficsfen.server.commands.journal_cmds import replayed_journal_game
            return replayed_journal_game(caller, self.store(), who, game,
                                         self.read).addCallback(self._rated, caller)
        return whose(caller, who, self.store(), self.read).addCallback(
            self.show_adjourned, caller, game)

    def _rated(self, found: tuple[StoredGame, Tracker] | None, caller: IServerCaller) -> Any:
        """Read the ratings kept with the game found, then show it."""
        if found is None:
            return None
        return self.read(_game_ratings, self.store(), found[0].id).addCallback(
            lambda ratings: self.show(found, caller, ratings))

    def show(self, found: tuple[StoredGame, Tracker] | None, caller: IServerCaller,
             ratings: GameRatings | None = None) -> None:
        if found is None:
            return
        game, tracker = found
        kept = ratings if ratings is not None else GameRatings()
        start, end = game.start, game.end
        lang = caller.parsed_lang  # clients parse the move list
        ending = (movelist_ending(end.reason, end.result, start.white, start.black, lang)
                  if end is not None else STILL_IN_PROGRESS.render(lang))
        caller.send("\n".join(["", *move_list_lines(
            white=start.white, black=start.black, started=start.started,
            minutes=start.initial_seconds // 60, increment=start.increment_seconds,
            category=stored_category(start),
            tracker=tracker, times=[m.took_ms / 1000 for m in game.moves], ending=ending,
            lang=lang, ratings=(kept.white, kept.black), rated=bool(start.rated))]))

    def show_adjourned(self, handle: str | None, caller: IServerCaller, opponent: str) -> None:
        """The adjourned game of ``handle`` and ``opponent`` (a handle as typed), or why not."""
        if handle is None:
            return
        game = caller.games.adjourned.between(handle, opponent)
        if game is None:
            caller.send(msg("{handle} has no adjourned game with {opponent}.", handle=handle,
                            opponent=opponent))
            return
        caller.send("\n".join(["", *game_move_lines(game, caller.parsed_lang,
                                                     started=game.started_at)]))


def _new_hash(old: str, new: str, stored: str) -> str | None:
    """The hash of ``new`` if ``old`` is the password of ``stored``, else ``None``.

    Both steps take a good fraction of a second: run in a thread.
    """
    if not verify_password(old, stored):
        return None
    return hash_password(new)


class PasswordCommand(Command):
    """``password OLD NEW``: a registered player changes their password.

    ``OLD`` is a password guess like one at the login prompt, and is
    throttled by the same ``throttle`` (:class:`~ficsfen.server.limits.LoginThrottle`),
    by account and by the caller's address: while it refuses, nothing is
    checked, and a wrong ``OLD`` counts as a failed login.  Refusals are
    counted in ``refusals`` (:class:`~ficsfen.server.refusal_log.RefusalLog`).
    The check of ``OLD`` and the hash of ``NEW`` run through ``hash`` (the
    server's password pool, inline on a test clock), the new hash is written
    to the store, and the player is told once it is committed.
    """

    name = "password"
    secret = True
    spec = "ww"
    usage = msg("password OLD NEW")
    log = Logger()

    def __init__(self, store: StoreGetter, *, throttle: LoginThrottle, refusals: RefusalLog,
                 hash: Callable[..., Deferred], read: Reader = maybeDeferred) -> None:
        self.store = store
        self.throttle = throttle
        self.refusals = refusals
        self.hash = hash
        self.read = read

    def run(self, caller: IServerCaller, old: str, new: str, *,
            directory: IServerDirectory) -> Deferred[None] | None:
        """A Deferred while the account is read; the check and the change go on after
        the prompt, and their answer comes when they are done."""
        if not caller.registered:
            caller.send(msg("Setting a password is only for registered players."))
            return None
        store = self.store()
        if store is None:
            caller.send(msg("This server keeps no data file: passwords cannot be changed here."))
            return None
        handle, host = caller.handle, caller.host

        def found(account: Any) -> None:
            if account is None:
                caller.send(msg("Setting a password is only for registered players."))
                return
            self._check(caller, store, handle, host, old, new, account.password_hash)

        # StoreError: the store is closing, the server is stopping
        return self.read(store.get_account, handle).addCallback(found).addErrback(
            self._failed, caller)

    def _check(self, caller: IServerCaller, store: IStore, handle: str, host: str, old: str,
               new: str, stored: str) -> None:
        throttle = self.throttle
        refusal = throttle.refusal(handle, host)
        if refusal is not None:  # refused before the hash: it costs nothing
            wait = seconds_left(refusal.until, throttle.clock.seconds())
            if self.refusals.refused(host):
                self.log.info("refused a password command of {handle} from {host}: {kind} by "
                              "{scope} ({seconds} s left); more refusals from this address are "
                              "counted", handle=handle, host=host, kind=refusal.kind,
                              scope=refusal.scope, seconds=wait)
            caller.send(_REFUSALS[refusal.kind](wait))
            return
        throttle.begin(handle, host)
        d = self.hash(_new_hash, old, new, stored)

        def ended(result: Any) -> Any:
            throttle.end(handle, host)
            return result

        d.addBoth(ended)
        d.addCallback(self._checked, caller, store, handle, host)
        d.addErrback(self._failed, caller)

    def _checked(self, new_hash: str | None, caller: IServerCaller, store: IStore,
                 handle: str, host: str) -> Deferred | None:
        throttle = self.throttle
        if new_hash is None:
            failure = throttle.failed(handle, host)
            self.log.info("bad password in the password command of {handle} from {host} "
                          "(failure {account} for the account, {address} for the address; next "
                          "attempt in {delay:g} s)", handle=handle, host=host,
                          account=failure.account_failures, address=failure.address_failures,
                          delay=failure.delay)
            for scope in failure.locked:
                self.log.warn("locked out {what} for {seconds:g} s after {count} bad passwords "
                              "(last: the password command of {handle} from {host})",
                              what=f"account {handle}" if scope == "account" else f"address {host}",
                              seconds=throttle.lockout, count=throttle.failures, handle=handle,
                              host=host)
            caller.send(msg("Incorrect password, password not changed!"))
            return None
        throttle.succeeded(handle, host)
        d = store.set_password(handle, new_hash)
        d.addCallback(lambda _: caller.send(msg("Password changed.")))
        return d

    def _failed(self, failure: Failure, caller: IServerCaller) -> None:
        error = failure.value
        if isinstance(error, StoreError):
            caller.send(error.message)
            return
        self.log.failure("password change of {handle} failed", failure, LogLevel.error,
                         handle=caller.handle)
        caller.send(msg("Your password could not be changed; try again later."))


#: What a throttled ``password`` command is told, by the kind of refusal.
_REFUSALS: dict[str, Callable[[int], Message]] = {
    "locked": lambda wait: msg(
        "Too many wrong passwords: none is checked for {wait}. Password not changed.",
        wait=duration(wait)),
    "wait": lambda wait: msg(
        "A wrong password was typed a moment ago: wait {wait}, then try again. Password not "
        "changed.", wait=duration(wait)),
    "busy": lambda wait: msg(
        "A password is being checked already: try again in a moment. Password not changed."),
}


def commands(store: StoreGetter, *, throttle: LoginThrottle, refusals: RefusalLog,
             hash: Callable[..., Deferred], read: Reader = maybeDeferred) -> tuple[Command, ...]:
    """The commands of this module, on the server's store, password throttle and pool,
    and reader."""
    return (HistoryCommand(store, read), SmovesCommand(store, read),
            PasswordCommand(store, throttle=throttle, refusals=refusals, hash=hash, read=read))
