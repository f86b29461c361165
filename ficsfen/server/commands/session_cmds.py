"""Session commands of our own server: ``who``, ``games``, ``quit``."""

from __future__ import annotations

from ficsfen.commands.base import Command
from ficsfen.i18n import msg, msgn
from ficsfen.interfaces import IGame
from ficsfen.names import fold
from ficsfen.server.interfaces import IServerCaller, IServerDirectory, IServerGame

__all__ = ["GamesCommand", "QuitCommand", "WhoCommand", "games_line"]


class WhoCommand(Command):
    name = "who"
    spec = ""
    usage = msg("who")

    def run(self, caller: IServerCaller, *, directory: IServerDirectory) -> None:
        sessions = caller.players.sessions_sorted()
        lines = [f"++++ {s.display_name()}" for s in sessions]
        lines.append("")
        caller.send("\n".join(lines))
        caller.send(msgn(" {count} player displayed.", " {count} players displayed.",
                         len(sessions)))


def games_line(game: IGame) -> str:
    """One ``games`` line: a server game's own ``listing()``, else number and players."""
    if IServerGame.providedBy(game):
        return game.listing()
    return f"{game.number:>3} {game.white} {game.black}"


def _matching(games: list[IGame], which: str) -> list[IGame]:
    """The games ``games N`` (that number) or ``games WORD`` (a player's handle starts with it) lists."""
    if which.isascii() and which.isdigit():
        return [g for g in games if g.number == int(which)]
    prefix = fold(which)
    return [g for g in games if any(fold(h).startswith(prefix) for h in g.players())]


class GamesCommand(Command):
    """``games [N|WORD]``: every game, game N alone, or those of players whose handle starts with WORD."""

    name = "games"
    spec = "o"
    usage = msg("games [GAME-NUMBER|WORD]")

    def run(self, caller: IServerCaller, which: str | None, *,
            directory: IServerDirectory) -> None:
        games = directory.games()
        if not games:
            caller.send(msg("There are no games in progress."))
            return
        shown = games if which is None else _matching(games, which)
        if not shown:
            caller.send(msg("There is no game {number}.", number=int(which))
                        if which.isascii() and which.isdigit()
                        else msg("No game in progress involves a player whose handle starts "
                                 "with \"{word}\".", word=which))
            return
        caller.send("\n".join(games_line(g) for g in shown) + "\n")
        if which is None:
            caller.send(msgn("  {count} game displayed.", "  {count} games displayed.", len(games)))
        else:
            caller.send(msgn("  {count} game displayed (of {total} in progress).",
                             "  {count} games displayed (of {total} in progress).",
                             len(shown), total=len(games)))


class QuitCommand(Command):
    name = "quit"
    aliases = ("exit", "bye")
    spec = ""
    usage = msg("quit")

    def run(self, caller: IServerCaller, *, directory: IServerDirectory) -> None:
        caller.send(msg("Logging you out."))
        caller.send(msg("Thank you for using ficsfen. Goodbye!"))
        caller.players.logout(caller, reason="quit")
