"""Finished games and passwords kept in the store: ``history``, ``smoves``, ``password``.

The store (:class:`ficsfen.server.store.IStore`) is reached through a
callable that returns it, or ``None`` on a server run without a data file.
Its reads are small indexed queries made in the reactor thread; the password
check and hash, slow on purpose, run in the server's password pool, and the
check is throttled like a password login.

``history`` keeps FICS's layout, which clients parse (pychess reads the
``History for NAME:`` block, ``smoves HANDLE N`` and ``examine HANDLE N``):
number, result (``+ - =``), both ratings (``0``: nobody is rated here), the
player's colour, the opponent, ``[ bu  5   0]`` (private flag, category,
rated, time control), the ECO code (``---``: none is computed), the end
code (``Mat``, ``Res``, ``Fla``...) and the date.
"""

from __future__ import annotations

from typing import Any, Callable

from twisted.internet.defer import Deferred
from twisted.logger import Logger
from twisted.python.failure import Failure

from ficsfen.commands.base import Command
from ficsfen.i18n import Message, msg, msgn
from ficsfen.names import NameResolutionError, fold
from ficsfen.server.commands.board_cmds import move_list_lines
from ficsfen.server.commands.info import fics_date
from ficsfen.server.config import hash_password, verify_password
from ficsfen.server.interfaces import IServerCaller, IServerDirectory
from ficsfen.server.limits import LoginThrottle, seconds_left
from ficsfen.server.refusal_log import RefusalLog
from ficsfen.server.store import HistoryEntry, StoredGame, StoreError
from ficsfen.server.variant_games import category_letter, stored_category
from ficsfen.tracker import Tracker, TrackerError

__all__ = ["HistoryCommand", "PasswordCommand", "SmovesCommand", "StoreGetter",
           "commands", "find_history_game", "history_line", "history_text", "whose"]

#: Returns the server's store, or ``None`` when it runs without a data file.
StoreGetter = Callable[[], Any]

# FICS prints the opponent's handle in 13 columns, cut if longer.
_OPPONENT_WIDTH = 13
_HEADER = "                  Opponent      Type         ECO End Date"


def whose(caller: IServerCaller, word: str | None, store: Any) -> str | None:
    """The handle ``word`` names for a history, as FICS finds players; else tell why not.

    A logged-in player of that exact name, else an account of that exact
    name (logged in or not), else a logged-in player whose handle starts
    with ``word``.  ``None`` (no word) is the caller.
    """
    if word is None:
        return caller.handle
    online: str | None = None
    error: NameResolutionError | None = None
    try:
        online = caller.players.named(word).handle
    except NameResolutionError as e:
        error = e
    if online is not None and fold(online) == fold(word):
        return online
    account = store.get_account(word) if store is not None else None
    if account is not None:
        return account.name
    if online is not None:
        return online
    assert error is not None
    caller.send(error.message)
    return None


def history_line(entry: HistoryEntry) -> str:
    """One line of ``history``, FICS's columns."""
    game = entry.game
    start = game.start
    kind = category_letter(stored_category(start))
    rated = "r" if start.rated else "u"
    end = game.end
    code = str(end.code) if end is not None else "???"
    date = fics_date(end.ended if end is not None else start.started)
    return (f"{entry.number:>2}: {entry.outcome} {0:>4} {'W' if entry.white else 'B'} {0:>4} "
            f"{entry.opponent[:_OPPONENT_WIDTH]:<{_OPPONENT_WIDTH}} "
            f"[ {kind}{rated}{start.initial_seconds // 60:>3}{start.increment_seconds:>4}] "
            f"--- {code:>3} {date}")


def history_text(handle: str, entries: list[HistoryEntry]) -> str:
    """The whole ``history`` answer for ``handle`` (kept in English: clients parse it)."""
    if not entries:
        return f"{handle} has no history games."
    return "\n".join([f"History for {handle}:", _HEADER, *map(history_line, entries)])


def find_history_game(caller: IServerCaller, store: Any, handle: str,
                      number: int) -> StoredGame | None:
    """Game ``number`` of ``handle``'s history (``-1`` the last one), or tell why not."""
    entries = store.history(handle) if store is not None else []
    if not entries:
        caller.send(f"{handle} has no history games.")  # FICS's words: clients parse them
        return None
    if number < 0:
        entry = entries[number] if -number <= len(entries) else None
    else:
        entry = next((e for e in entries if e.number == number), None)
    game = store.get_game(entry.game.id) if entry is not None else None
    if game is None:
        caller.send(msg("There is no history game {number} for {handle}.", number=number,
                        handle=handle))
    return game


def replayed_history_game(caller: IServerCaller, store: Any, who: str,
                          number: int) -> tuple[StoredGame, Tracker] | None:
    """Game ``number`` of ``who``'s history and its moves replayed, or tell the caller why not.

    A damaged record (a stored move that does not replay) is refused before
    anyone sees it.
    """
    handle = whose(caller, who, store)
    if handle is None:
        return None
    game = find_history_game(caller, store, handle, number)
    if game is None:
        return None
    try:
        return game, game.replay()
    except TrackerError:
        caller.send(msg("History game {number} not available for {handle}.",
                        number=number, handle=handle))
        return None


class HistoryCommand(Command):
    """``history [HANDLE]``: the last ten finished games of a player."""

    name = "history"
    spec = "o"
    usage = msg("history [HANDLE]")

    def __init__(self, store: StoreGetter) -> None:
        self.store = store

    def run(self, caller: IServerCaller, who: str | None, *,
            directory: IServerDirectory) -> None:
        store = self.store()
        handle = whose(caller, who, store)
        if handle is not None:
            entries = store.history(handle) if store is not None else []
            caller.send(history_text(handle, entries))


class SmovesCommand(Command):
    """``smoves HANDLE N``: the moves of game N of a player's history, as ``moves`` shows them."""

    name = "smoves"
    spec = "wi"
    usage = msg("smoves HANDLE NUMBER")

    def __init__(self, store: StoreGetter) -> None:
        self.store = store

    def run(self, caller: IServerCaller, who: str, number: int, *,
            directory: IServerDirectory) -> None:
        found = replayed_history_game(caller, self.store(), who, number)
        if found is None:
            return
        game, tracker = found
        start, end = game.start, game.end
        ending = ("{" + end.reason + "} " + end.result) if end is not None else "{Still in progress} *"
        caller.send("\n".join(["", *move_list_lines(
            white=start.white, black=start.black, started=start.started,
            minutes=start.initial_seconds // 60, increment=start.increment_seconds,
            category=stored_category(start),
            tracker=tracker, times=[m.took_ms / 1000 for m in game.moves], ending=ending,
            lang=caller.lang)]))


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
                 hash: Callable[..., Deferred]) -> None:
        self.store = store
        self.throttle = throttle
        self.refusals = refusals
        self.hash = hash

    def run(self, caller: IServerCaller, old: str, new: str, *,
            directory: IServerDirectory) -> None:
        if not caller.registered:
            caller.send(msg("Setting a password is only for registered players."))
            return
        store = self.store()
        if store is None:
            caller.send(msg("This server keeps no data file: passwords cannot be changed here."))
            return
        handle, host = caller.handle, caller.host
        try:
            account = store.get_account(handle)
        except StoreError as e:  # the store is closing: the server is stopping
            caller.send(e.message)
            return
        if account is None:
            caller.send(msg("Setting a password is only for registered players."))
            return
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
        d = self.hash(_new_hash, old, new, account.password_hash)

        def ended(result: Any) -> Any:
            throttle.end(handle, host)
            return result

        d.addBoth(ended)
        d.addCallback(self._checked, caller, store, handle, host)
        d.addErrback(self._failed, caller)

    def _checked(self, new_hash: str | None, caller: IServerCaller, store: Any,
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
        if failure.check(StoreError):
            caller.send(failure.value.message)
            return
        self.log.failure("password change of {handle} failed", failure, handle=caller.handle)
        caller.send(msg("Your password could not be changed; try again later."))


def _duration(seconds: int) -> Message:
    """``seconds`` for a person: seconds up to two minutes, else minutes (rounded up)."""
    if seconds < 120:
        return msgn("{count} second", "{count} seconds", seconds)
    return msgn("{count} minute", "{count} minutes", -(-seconds // 60))


#: What a throttled ``password`` command is told, by the kind of refusal.
_REFUSALS: dict[str, Callable[[int], Message]] = {
    "locked": lambda wait: msg(
        "Too many wrong passwords: none is checked for {wait}. Password not changed.",
        wait=_duration(wait)),
    "wait": lambda wait: msg(
        "A wrong password was typed a moment ago: wait {wait}, then try again. Password not "
        "changed.", wait=_duration(wait)),
    "busy": lambda wait: msg(
        "A password is being checked already: try again in a moment. Password not changed."),
}


def commands(store: StoreGetter, *, throttle: LoginThrottle, refusals: RefusalLog,
             hash: Callable[..., Deferred]) -> tuple[Command, ...]:
    """The commands of this module, on the server's store, password throttle and pool."""
    return (HistoryCommand(store), SmovesCommand(store),
            PasswordCommand(store, throttle=throttle, refusals=refusals, hash=hash))
