"""The operators' commands: ``announce``, ``muzzle``, ``nuke``, ``ban``, ``unban``,
``shutdown``; and ``whenshut``, which everyone may use.

Only an operator (:attr:`Session.admin`) may run the first ones; anyone
else is told FICS's ``announce: Insufficient rights.`` (block code 515).
They run by their full name only (``exact_only``), so that their names take
no prefix from everyday commands.  Each action is logged
(:meth:`ficsfen.server.operators.Operators.record`).  What players read is
FICS's text: ``    **ANNOUNCEMENT** from alice: ...`` (clients parse it,
so it follows :attr:`Session.parsed_lang`), ``**** You have been kicked out
by alice! ****``, the shutdown notices (:mod:`ficsfen.server.shutdown`).
"""

from __future__ import annotations

import re
import time
from typing import Any

from twisted.internet.defer import Deferred
from twisted.logger import LogLevel

from ficsfen.commands.base import Command
from ficsfen.i18n import Message, msg, msgn
from ficsfen.interfaces import IGameDirectory
from ficsfen.names import fold
from ficsfen.server.bans import BanTargetError, ban_target
from ficsfen.server.interfaces import IServerCaller, IServerDirectory
from ficsfen.server.operators import Operators
from ficsfen.server.store.records import Ban

__all__ = ["AnnounceCommand", "BanCommand", "MuzzleCommand", "NukeCommand", "OperatorCommand",
           "ShutdownCommand", "UnbanCommand", "WhenshutCommand", "commands"]

#: Longest shutdown delay, in minutes (a day).
MAX_SHUTDOWN_MINUTES = 1440


def render_parsed(caller: IServerCaller, message: Message) -> str:
    """``message`` in the language of texts clients parse (:attr:`Session.parsed_lang`)."""
    return message.render(getattr(caller, "parsed_lang", caller.lang))


class OperatorCommand(Command):
    """A command for operators only, run by its full name only."""

    exact_only = True

    def __init__(self, operators: Operators) -> None:
        self.operators = operators

    def __call__(self, caller: Any, args: str, directory: IGameDirectory) -> object:
        if not getattr(caller, "admin", False):
            caller.send(msg("{command}: Insufficient rights.", command=self.name))
            return None
        return super().__call__(caller, args, directory)


class AnnounceCommand(OperatorCommand):
    """``announce TEXT``: a notice to everyone logged in."""

    name = "announce"
    spec = "S"
    usage = msg("announce TEXT")

    def run(self, caller: IServerCaller, text: str, *, directory: IServerDirectory) -> None:
        # FICS's lines (clients parse them), a blank line before and after for the others
        count = self.operators.tell_all(msg("\n    **ANNOUNCEMENT** from {handle}: {text}\n",
                                            handle=caller.handle, text=text),
                                        parsed=True, but=caller)
        caller.send(render_parsed(caller, msg("({count}) **ANNOUNCEMENT** from {handle}: {text}",
                                              count=count, handle=caller.handle, text=text)))
        self.operators.record(caller.handle, "announce to {count}: {text}", count=count,
                              text=text)


class NukeCommand(OperatorCommand):
    """``nuke HANDLE``: disconnect a player (their game ends as at any disconnection)."""

    name = "nuke"
    spec = "w"
    usage = msg("nuke HANDLE")

    def run(self, caller: IServerCaller, word: str, *, directory: IServerDirectory) -> None:
        target = caller.players.session(word)
        if target is None:
            caller.send(msg("{handle} is not logged in.", handle=word))
            return
        if target is caller:
            caller.send(msg("You cannot nuke yourself; use \"quit\"."))
            return
        target.notify(msg("**** You have been kicked out by {handle}! ****", handle=caller.handle))
        caller.players.logout(target, reason=f"nuked by {caller.handle}")
        caller.send(msg("Nuked: {handle}", handle=target.handle))
        self.operators.record(caller.handle, "nuke {handle} ({host})", handle=target.handle,
                              host=target.host)


class MuzzleCommand(OperatorCommand):
    """``muzzle HANDLE``: muzzle or unmuzzle (no shout, cshout or it); kept in the store for
    a registered player, for the session only for a guest."""

    name = "muzzle"
    spec = "w"
    usage = msg("muzzle HANDLE")

    def run(self, caller: IServerCaller, word: str, *,
            directory: IServerDirectory) -> Deferred[None] | None:
        operators = self.operators
        target = caller.players.session(word)
        if target is not None:
            muzzled = not target.muzzled
            target.muzzled = muzzled
            target.notify(msg("You have been muzzled by {handle}.", handle=caller.handle)
                          if muzzled else
                          msg("You have been unmuzzled by {handle}.", handle=caller.handle))
            self._done(caller, target.handle, muzzled)
            if target.registered and operators.store is not None:
                operators.store.set_muzzled(target.handle, muzzled).addErrback(
                    lambda failure: operators.log.failure(
                        "could not store the muzzle of {handle}", failure, LogLevel.error, handle=target.handle))
            return None
        store = operators.store
        if store is None:
            caller.send(msg("{handle} is not logged in.", handle=word))
            return None

        def found(account: Any) -> Deferred[None] | None:
            if account is None:
                caller.send(msg("There is no player matching the name {name}.", name=word))
                return None
            muzzled = not account.muzzled
            return store.set_muzzled(account.name, muzzled).addCallback(
                lambda _: self._done(caller, account.name, muzzled))

        return operators.read(store.get_account, word).addCallback(found)

    def _done(self, caller: IServerCaller, handle: str, muzzled: bool) -> None:
        caller.send(msg("{handle} muzzled.", handle=handle) if muzzled else
                    msg("{handle} unmuzzled.", handle=handle))
        self.operators.record(caller.handle, "{what} {handle}", handle=handle,
                              what="muzzle" if muzzled else "unmuzzle")


class BanCommand(OperatorCommand):
    """``ban [HANDLE|ADDRESS [REASON]]``: refuse a handle, or an address or network, at
    login; alone, list the bans."""

    name = "ban"
    spec = "os"
    usage = msg("ban [HANDLE|ADDRESS [REASON]]")

    def __init__(self, operators: Operators, *, now: Any = time.time) -> None:
        super().__init__(operators)
        self.now = now

    def run(self, caller: IServerCaller, word: str | None, reason: str | None, *,
            directory: IServerDirectory) -> Deferred[None] | None:
        if word is None:
            self._list(caller)
            return None
        try:
            kind, value = ban_target(word)
        except BanTargetError as e:
            caller.send(e.message)
            return None
        if kind == "handle" and value == fold(caller.handle):
            caller.send(msg("You cannot ban yourself."))
            return None
        ban = Ban(kind, value, caller.handle, self.now(), reason or "")
        operators = self.operators
        known = operators.bans.get(kind, value) is not None

        def stored(_: object) -> None:
            operators.bans.add(ban)
            caller.send(msg("{target} was banned already; the ban now has your reason.",
                            target=value) if known else
                        msg("{target} is banned: its logins are refused.", target=value))
            online = caller.players.session(value) if kind == "handle" else None
            if online is not None:
                caller.send(msg("{handle} is logged in: \"nuke {handle}\" disconnects them.",
                                handle=online.handle))
            operators.record(caller.handle, "ban {kind} {value} ({reason})", kind=kind,
                             value=value, reason=ban.reason)

        return _stored(operators, "add_ban", ban, stored)

    def _list(self, caller: IServerCaller) -> None:
        bans = list(self.operators.bans)
        if not bans:
            caller.send(msg("Nobody is banned."))
            return
        lines = [caller.render(msgn("{count} ban:", "{count} bans:", len(bans)))]
        for ban in bans:
            when = time.strftime("%Y-%m-%d %H:%M", time.localtime(ban.at))
            line = f"{ban.value:<20} {ban.by:<17} {when}"
            lines.append(f"{line}  {ban.reason}" if ban.reason else line)
        caller.send("\n".join(lines))


class UnbanCommand(OperatorCommand):
    """``unban HANDLE|ADDRESS``: lift a ban."""

    name = "unban"
    topic = "ban"
    spec = "w"
    usage = msg("unban HANDLE|ADDRESS")

    def run(self, caller: IServerCaller, word: str, *,
            directory: IServerDirectory) -> Deferred[None] | None:
        try:
            kind, value = ban_target(word)
        except BanTargetError as e:
            caller.send(e.message)
            return None
        operators = self.operators
        if operators.bans.get(kind, value) is None:
            caller.send(msg("{target} is not banned.", target=value))
            return None

        def stored(_: object) -> None:
            operators.bans.remove(kind, value)
            caller.send(msg("{target} is no longer banned.", target=value))
            operators.record(caller.handle, "unban {kind} {value}", kind=kind, value=value)

        return _stored(operators, "remove_ban", (kind, value), stored)


def _stored(operators: Operators, method: str, argument: Any,
            then: Any) -> Deferred[None] | None:
    """Write through the store's ``method`` (if there is a store), then ``then``; without a
    store ``then`` runs at once (the change lasts until the server stops)."""
    store = operators.store
    if store is None:
        then(None)
        return None
    args = argument if isinstance(argument, tuple) else (argument,)
    d: Deferred[Any] = getattr(store, method)(*args)
    return d.addCallback(then)


class ShutdownCommand(OperatorCommand):
    """``shutdown [MINUTES|MINUTES:SECONDS|now|cancel] [REASON]``: stop the server after a
    countdown (5 minutes by default), at once, or not after all."""

    name = "shutdown"
    spec = "os"
    usage = msg("shutdown [MINUTES|now|cancel] [REASON]")

    def run(self, caller: IServerCaller, when: str | None, reason: str | None, *,
            directory: IServerDirectory) -> None:
        countdown = self.operators.countdown
        word = (when or "5").lower()
        if word == "cancel":
            if countdown.cancel(caller.handle):
                self.operators.record(caller.handle, "shutdown canceled")
            else:
                caller.send(msg("No shutdown currently in progress"))
            return
        seconds = 0 if word == "now" else shutdown_delay(word)
        if seconds is None:
            caller.send(msg("Give the minutes before the shutdown (1 to {most}, or MINUTES:SECONDS"
                            "), \"now\" or \"cancel\".", most=MAX_SHUTDOWN_MINUTES))
            return
        self.operators.record(caller.handle, "shutdown in {seconds} s ({reason})",
                              seconds=seconds, reason=reason or "")
        countdown.start(seconds, caller.handle, reason or "")


_DELAY = re.compile(r"([0-9]{1,4})(?::([0-5][0-9]))?")


def shutdown_delay(word: str) -> int | None:
    """Seconds ``word`` gives: ``MINUTES`` or ``MINUTES:SECONDS`` (FICS's clock form), more
    than 0 and at most :data:`MAX_SHUTDOWN_MINUTES` minutes; ``None`` if it gives none."""
    m = _DELAY.fullmatch(word)
    if m is None:
        return None
    seconds = int(m.group(1)) * 60 + int(m.group(2) or 0)
    return seconds if 0 < seconds <= MAX_SHUTDOWN_MINUTES * 60 else None


class WhenshutCommand(Command):
    """``whenshut``: the time left before a shutdown an operator ordered."""

    name = "whenshut"
    topic = "shutdown"
    spec = ""
    usage = msg("whenshut")

    def __init__(self, operators: Operators) -> None:
        self.operators = operators

    def run(self, caller: IServerCaller, *, directory: IServerDirectory) -> None:
        countdown = self.operators.countdown
        caller.send(countdown.notice() if countdown.pending else
                    msg("No shutdown currently in progress"))


def commands(operators: Operators) -> list[Command]:
    """The operators' commands (and ``whenshut``), sharing ``operators``."""
    return [AnnounceCommand(operators), MuzzleCommand(operators), NukeCommand(operators),
            BanCommand(operators), UnbanCommand(operators), ShutdownCommand(operators),
            WhenshutCommand(operators)]
