"""Commands that interfaces send on their own, which do nothing visible by themselves.

``gameend``: xboard's ICS robot mode (zippy) sends it after each game it
plays unless told otherwise (its ``-zippyGameEnd`` option), expecting the
player to make it an alias (``alias gameend seek 5 0``).  FICS answers it
with "Command not found"; here it is a known command that writes nothing,
so a robot's log stays clean and, in block mode, its frame carries code 0
(FICS's table has no number for it), not 512 (unknown command).  A
player's alias named ``gameend`` is expanded before commands are looked up,
so it wins, as every alias does.
"""

from __future__ import annotations

from ficsfen.commands.base import Command
from ficsfen.i18n import msg
from ficsfen.server.interfaces import IServerCaller, IServerDirectory

__all__ = ["COMMANDS", "GameendCommand"]


class GameendCommand(Command):
    """``gameend``: nothing, unless the player made it an alias."""

    name = "gameend"
    spec = "s"
    usage = msg("gameend")

    def run(self, caller: IServerCaller, rest: str | None, *,
            directory: IServerDirectory) -> None:
        """Write nothing (the prompt follows as after any command)."""


COMMANDS = (GameendCommand(),)
