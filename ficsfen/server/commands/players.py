"""What the store knows of players: ``handles``, ``pstat``, ``logons``, ``llogons``.

Each reads the store off the reactor thread through ``read(function, *args)``
(the server's :class:`~ficsfen.server.reads.StoreReads`) and returns the
Deferred: the server writes the prompt once it fired.  A server run without
a data file keeps no logons and no games: the commands say so.

Layouts are FICS's (lasker's ``logons`` lines, ``pstat``'s table); dates are
in the caller's time zone (``set tzone``).
"""

from __future__ import annotations

from typing import Any, Callable, Mapping

from twisted.internet.defer import Deferred, maybeDeferred, succeed

from ficsfen.commands.base import Command
from ficsfen.i18n import Message, msg, msgn
from ficsfen.names import fold
from ficsfen.server.commands.store_commands import Reader, StoreCommand, StoreGetter, whose
from ficsfen.server.interfaces import IPlayedGame, IServerCaller, IServerDirectory
from ficsfen.server.store.logon_rows import LogonRecord
from ficsfen.server.store.player_reads import PairRecord
from ficsfen.server.zones import fics_date

__all__ = ["HandlesCommand", "LlogonsCommand", "LogonsCommand", "PstatCommand", "commands",
           "logon_line"]

#: ``handles`` lists at most this many names.
HANDLES_SHOWN = 100
#: ``llogons`` without a number shows this many lines; a number is held to :data:`LLOGONS_MOST`.
LLOGONS_SHOWN = 50
LLOGONS_MOST = 500
#: ``logons`` shows a player's last this many logins and logouts.
LOGONS_SHOWN = 20

_NO_LOGONS = msg("Sorry, no login information available.")


def logon_line(record: LogonRecord, zone: str = "") -> str:
    """One line of ``logons``/``llogons``: date, handle, ``login``/``logout`` (FICS's columns)."""
    event = "login" if record.event == "on" else "logout"
    return f"{fics_date(record.at, zone)}: {record.name:<17} {event}"


def _send_logons(records: list[LogonRecord], caller: IServerCaller, empty: Message) -> None:
    """Send ``records`` as ``logons`` lines in the caller's time zone, or ``empty``
    when there are none."""
    if not records:
        caller.send(empty)
        return
    caller.send("\n".join(logon_line(r, caller.tzone) for r in records))


class HandlesCommand(StoreCommand):
    """``handles PREFIX``: the registered handles starting with PREFIX."""

    name = "handles"
    spec = "w"
    usage = msg("handles PREFIX")

    def __init__(self, store: StoreGetter, *, configured: Callable[[], Mapping[str, str]],
                 read: Reader = maybeDeferred) -> None:
        super().__init__(store, read)
        #: The configuration's ``[accounts]`` (the accounts of a server without a data file).
        self.configured = configured

    def run(self, caller: IServerCaller, prefix: str, *,
            directory: IServerDirectory) -> Deferred[None]:
        if len(prefix) < 2:
            caller.send(msg("You need to specify at least two characters of the name."))
            return succeed(None)
        store = self.store()
        if store is not None:
            found = self.read(store.handles, prefix, HANDLES_SHOWN)
        else:
            key = fold(prefix)
            found = succeed(sorted((n for n in self.configured() if fold(n).startswith(key)),
                                   key=fold)[:HANDLES_SHOWN])

        def listed(names: list[str]) -> None:
            if not names:
                caller.send(msg("There is no player matching the name {prefix}.", prefix=prefix))
                return
            caller.send(msgn("-- Matches: {count} player --", "-- Matches: {count} players --",
                             len(names)))
            caller.send(_columns(names))

        return found.addCallback(listed)


def _columns(names: list[str], width: int = 79) -> str:
    """``names`` left-aligned in as many equal columns as fit in ``width``."""
    column = max(len(n) for n in names) + 2
    per_line = max(1, width // column)
    rows = [names[i:i + per_line] for i in range(0, len(names), per_line)]
    return "\n".join("".join(n.ljust(column) for n in row).rstrip() for row in rows)


def _pair(store: Any, player: str, opponent: str) -> tuple[str | None, PairRecord | None]:
    """In the read thread: the first of the two without an account, else their record."""
    for name in (player, opponent):
        if store.get_account(name) is None:
            return name, None
    return None, store.pair_record(player, opponent)


class PstatCommand(StoreCommand):
    """``pstat [HANDLE [HANDLE]]``: two registered players' record against each other
    (the caller's against HANDLE, or against their opponent)."""

    name = "pstat"
    spec = "oo"
    usage = msg("pstat [HANDLE [HANDLE]]")

    def run(self, caller: IServerCaller, first: str | None, second: str | None, *,
            directory: IServerDirectory) -> Deferred[None]:
        store = self.store()
        if first is None:
            game = directory.game_of(caller.handle)
            if not IPlayedGame.providedBy(game):
                caller.send(msg("You are not playing a game."))
                return succeed(None)
            names: Deferred[Any] = succeed((caller.handle, game.opponent_of(caller.handle)))
        elif second is None:
            names = whose(caller, first, store, self.read).addCallback(
                lambda other: None if other is None else (caller.handle, other))
        else:
            names = whose(caller, first, store, self.read).addCallback(
                self._second, caller, second, store)

        def looked(pair: tuple[str, str] | None) -> Any:
            if pair is None:
                return None
            player, opponent = pair
            if fold(player) == fold(opponent):
                caller.send(msg("A player has no record against themselves."))
                return None
            if store is None:
                caller.send(msg("This server keeps no games: there is no record to show."))
                return None
            return self.read(_pair, store, player, opponent).addCallback(shown)

        def shown(found: tuple[str | None, PairRecord | None]) -> None:
            unregistered, record = found
            if record is None:
                caller.send(msg("{handle} is not a registered player: only registered players "
                                "have a record.", handle=unregistered))
                return
            caller.send(pair_table(record))

        return names.addCallback(looked)

    def _second(self, player: str | None, caller: IServerCaller, word: str,
                store: Any) -> Any:
        if player is None:
            return None
        return whose(caller, word, store, self.read).addCallback(
            lambda opponent: None if opponent is None else (player, opponent))


def pair_table(record: PairRecord) -> str:
    """``pstat``'s answer, FICS's table."""
    return "\n".join([
        f"Record for {record.player} vs. {record.opponent}:",
        "                            wins     losses     draws",
        f"                rated       {record.rated_wins:4d}       {record.rated_losses:4d}"
        f"      {record.rated_draws:4d}",
        f"              unrated       {record.unrated_wins:4d}       {record.unrated_losses:4d}"
        f"      {record.unrated_draws:4d}"])


class LogonsCommand(StoreCommand):
    """``logons [HANDLE]``: a player's last logins and logouts (the caller's by default)."""

    name = "logons"
    spec = "o"
    usage = msg("logons [HANDLE]")

    def run(self, caller: IServerCaller, who: str | None, *,
            directory: IServerDirectory) -> Deferred[None]:
        store = self.store()
        if store is None:
            caller.send(_NO_LOGONS)
            return succeed(None)

        def named(handle: str) -> Any:
            return self.read(store.logons, handle, LOGONS_SHOWN).addCallback(
                _send_logons, caller, msg("{handle} has not logged on.", handle=handle))

        return self.for_player(caller, who, store, named)


class LlogonsCommand(StoreCommand):
    """``llogons [N]``: the last N logins and logouts on the server (registered players only)."""

    name = "llogons"
    spec = "p"
    usage = msg("llogons [COUNT]")

    def run(self, caller: IServerCaller, count: int | None, *,
            directory: IServerDirectory) -> Deferred[None]:
        if not caller.registered:
            caller.send(msg("Sorry, guest users may not use this command"))
            return succeed(None)
        if count is not None and count < 1:
            self.send_usage(caller)
            return succeed(None)
        store = self.store()
        if store is None:
            caller.send(_NO_LOGONS)
            return succeed(None)
        wanted = min(count if count is not None else LLOGONS_SHOWN, LLOGONS_MOST)
        return self.read(store.logons, None, wanted).addCallback(
            _send_logons, caller, _NO_LOGONS)


def commands(store: StoreGetter, *, configured: Callable[[], Mapping[str, str]],
             read: Reader = maybeDeferred) -> list[Command]:
    """The commands reading players from ``store()`` through ``read``."""
    return [HandlesCommand(store, configured=configured, read=read), PstatCommand(store, read),
            LogonsCommand(store, read), LlogonsCommand(store, read)]
