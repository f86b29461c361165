"""Session commands of our own server: ``who``, ``games``, ``quit``."""

from __future__ import annotations

from ficsfen.commands.base import Command
from ficsfen.i18n import msg, msgn
from ficsfen.interfaces import IGame
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


class GamesCommand(Command):
    name = "games"
    spec = ""
    usage = msg("games")

    def run(self, caller: IServerCaller, *, directory: IServerDirectory) -> None:
        games = directory.games()
        if not games:
            caller.send(msg("There are no games in progress."))
            return
        caller.send("\n".join(games_line(g) for g in games) + "\n")
        caller.send(msgn("  {count} game displayed.", "  {count} games displayed.", len(games)))


class QuitCommand(Command):
    name = "quit"
    aliases = ("exit", "bye")
    spec = ""
    usage = msg("quit")

    def run(self, caller: IServerCaller, *, directory: IServerDirectory) -> None:
        caller.send(msg("Logging you out."))
        caller.send(msg("Thank you for using ficsfen. Goodbye!"))
        caller.players.logout(caller, reason="quit")
