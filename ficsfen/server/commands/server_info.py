"""About the server and connections: ``uptime``, ``limits``, ``ping [HANDLE]``.

``uptime`` and ``limits`` keep FICS's layouts (lasker's), their lines in the
caller's language; ``limits`` shows the limits this server applies, from
its configuration.  ``ping`` answers with the lag timeseal measured, in the
line clients such as Raptor parse (``Average ping time for alice is 42ms.``).
"""

from __future__ import annotations

import time
from typing import Callable

from ficsfen import __version__
from ficsfen.commands.base import Command
from ficsfen.i18n import Message, msg, msgn
from ficsfen.server.commands.info import days_hours_minutes_seconds
from ficsfen.server.commands.interface import MAX_ALIASES
from ficsfen.server.commands.online_player import online_player
from ficsfen.server.config import Config
from ficsfen.server.interfaces import IServerCaller, IServerDirectory
from ficsfen.server.server_stats import ServerStats
from ficsfen.server.talk import CHANNELS
from ficsfen.server.zones import fics_date

__all__ = ["LimitsCommand", "PingCommand", "UptimeCommand", "up_for"]


def up_for(seconds: float) -> list[Message]:
    """A duration as FICS's ``uptime`` spells it: days, hours, minutes, seconds (the
    units that are not zero; ``0 seconds`` for none)."""
    days, hours, minutes, secs = days_hours_minutes_seconds(seconds)
    total = days or hours or minutes or secs
    parts = [msgn("{count} day", "{count} days", days) if days else None,
             msgn("{count} hour", "{count} hours", hours) if hours else None,
             msgn("{count} minute", "{count} minutes", minutes) if minutes else None,
             msgn("{count} second", "{count} seconds", secs) if secs or not total else None]
    return [p for p in parts if p is not None]


class UptimeCommand(Command):
    """``uptime``: the server's version, start, time up, and its players and games."""

    name = "uptime"
    spec = ""
    usage = msg("uptime")

    def __init__(self, stats: ServerStats, *, limit: int, now: Callable[[], float] = time.time
                 ) -> None:
        self.stats = stats
        self.limit = limit
        self.now = now

    def run(self, caller: IServerCaller, *, directory: IServerDirectory) -> None:
        stats, render = self.stats, caller.render
        duration = " ".join(render(part) for part in up_for(self.now() - stats.started_clock))
        lines = [
            render(msg("Server version : ficsfen {version}", version=__version__)),
            render(msg("The server has been up since {date}.",
                       date=fics_date(stats.started_at, caller.tzone, lang=caller.lang))),
            render(msg("Up for {duration}.", duration=duration)),
            "",
            render(msg("Player limit: {limit}", limit=self.limit)),
            "",
            render(msgn("There is currently {count} player, with a high of {high} since last "
                        "restart.",
                        "There are currently {count} players, with a high of {high} since last "
                        "restart.", stats.players, high=stats.player_high)),
            render(msgn("There is currently {count} game, with a high of {high} since last "
                        "restart.",
                        "There are currently {count} games, with a high of {high} since last "
                        "restart.", stats.games, high=stats.game_high)),
            render(msgn("{count} game has been played since last restart.",
                        "{count} games have been played since last restart.",
                        stats.games_played)),
        ]
        caller.send("\n".join(lines))


class LimitsCommand(Command):
    """``limits``: the limits this server applies (its configuration), FICS's list."""

    name = "limits"
    spec = ""
    usage = msg("limits")

    def __init__(self, config: Config) -> None:
        self.config = config

    def run(self, caller: IServerCaller, *, directory: IServerDirectory) -> None:
        c, render = self.config, caller.render
        fixed = [
            msg("Max number of players: {count}", count=c.max_connections),
            msg("Max number of channels: {count}", count=len(CHANNELS)),
            msg("Max number of channels one can be in: {count}", count=c.list_size),
            msg("Max number of people on the censor list: {count}", count=c.list_size),
            msg("Max number of people on the noplay list: {count}", count=c.list_size),
            msg("Max number of aliases: {count}", count=MAX_ALIASES),
        ]
        settable = [
            msg("Connections from one address: {count}", count=c.connections_per_address),
            msg("Logins from one address per minute: {count}", count=c.logins_per_minute),
            msg("Match and game offers per minute: {count}", count=c.offers_per_minute),
            msg("Tells and shouts per minute: {count}", count=c.talk_per_minute),
            msg("Longest tell or shout: {count} characters", count=c.talk_max_length),
            msg("Longest command line: {count} bytes", count=c.max_line),
            msg("Adjourned games per player: {count}", count=c.adjourned_per_player),
        ]
        lines = ["", render(msg("Current hardcoded limits:")),
                 *("  " + render(m) for m in fixed), "",
                 render(msg("Admin settable limits:")),
                 *("  " + render(m) for m in settable)]
        caller.send("\n".join(lines))


class PingCommand(Command):
    """``ping [HANDLE]``: the lag timeseal measured for a player (the caller by default)."""

    name = "ping"
    spec = "o"
    usage = msg("ping [HANDLE]")

    def run(self, caller: IServerCaller, who: str | None, *,
            directory: IServerDirectory) -> None:
        target = online_player(caller, who)
        if target is None:
            return
        if not target.timeseal:
            caller.send(msg("Ping time not available; {handle} is not using timeseal.",
                            handle=target.handle))
            return
        caller.send(msg("Average ping time for {handle} is {lag}ms.",
                        handle=target.handle, lag=target.lag_ms).render(caller.parsed_lang))
