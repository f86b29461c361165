"""``moretime SECONDS``: give your opponent time, as FICS does (at most 600 seconds at once)."""

from __future__ import annotations

import chess

from ficsfen.commands.base import Command
from ficsfen.i18n import msg
from ficsfen.server.challenges import Notice
from ficsfen.server.commands.play import played_game
from ficsfen.server.interfaces import IExaminedGame, IServerCaller, IServerDirectory

__all__ = ["MAX_MORETIME", "MoretimeCommand"]

#: The most seconds one ``moretime`` gives (FICS's limit: more is cut to it).
MAX_MORETIME = 600


class MoretimeCommand(Command):
    """``moretime SECONDS``: add time to the opponent's clock; both players are told."""

    name = "moretime"
    spec = "i"
    usage = msg("moretime SECONDS")

    def run(self, caller: IServerCaller, seconds: int, *, directory: IServerDirectory) -> None:
        if IExaminedGame.providedBy(directory.game_of(caller.handle)):
            caller.send(msg("You cannot use moretime in an examined game."))
            return
        if seconds <= 0:
            caller.send(msg("Moretime requires an integer value greater than zero."))
            return
        game = played_game(caller, directory)
        if game is None:
            return
        if seconds > MAX_MORETIME:
            caller.send(msg("Moretime has a maximum limit of {limit} seconds.", limit=MAX_MORETIME))
            seconds = MAX_MORETIME
        opponent = game.opponent_of(caller.handle)
        colour = chess.WHITE if game.white == opponent else chess.BLACK
        game.clock.add_time(colour, seconds)
        caller.send(msg("{seconds} seconds were added to your opponents clock", seconds=seconds))
        caller.boards.deliver([Notice(opponent, msg(
            "Your opponent has added {seconds} seconds to your clock.", seconds=seconds))])
