"""Session commands of our own server: ``who``, ``games``, ``quit``."""

from __future__ import annotations

from typing import Any

from ficsfen.commands.base import Command
from ficsfen.i18n import msg, msgn

__all__ = ["GamesCommand", "QuitCommand", "WhoCommand", "games_line"]


class WhoCommand(Command):
    name = "who"
    spec = ""
    usage = msg("who")

    def run(self, caller: Any, *, directory: Any) -> None:
        sessions = caller.server.sessions_sorted()
        lines = [f"++++ {s.display_name()}" for s in sessions]
        lines.append("")
        caller.send("\n".join(lines))
        caller.send(msgn(" {count} player displayed.", " {count} players displayed.",
                         len(sessions)))


def games_line(game: Any) -> str:
    """One ``games`` line: the game's own ``listing()``, else number and players."""
    own = getattr(game, "listing", None)
    if own is not None:
        return own()
    return f"{game.number:>3} {game.white} {game.black}"


class GamesCommand(Command):
    name = "games"
    spec = ""
    usage = msg("games")

    def run(self, caller: Any, *, directory: Any) -> None:
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

    def run(self, caller: Any, *, directory: Any) -> None:
        caller.send(msg("Logging you out."))
        caller.send(msg("Thank you for using ficsfen. Goodbye!"))
        caller.server.logout(caller, reason="quit")
