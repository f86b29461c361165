"""``refresh`` (the board again) and ``moves`` (the move list), FICS-style."""

from __future__ import annotations

from ficsfen.commands.base import Command
from ficsfen.commands.fen import FenCommand, NoGameError
from ficsfen.fen import STARTING_FEN
from ficsfen.i18n import msg
from ficsfen.interfaces import ICaller, IClockedGame, IGame
from ficsfen.names import NameResolutionError
from ficsfen.server.clock import format_move_time
from ficsfen.server.interfaces import IPlayedGame, IServerCaller, IServerDirectory

__all__ = ["MovesCommand", "RefreshCommand", "move_list"]


def _game_or_tell(caller: ICaller, target: str | None, directory: IServerDirectory) -> IGame | None:
    """The game ``target`` names, as ``fen`` finds it; else tell the caller why not."""
    try:
        return FenCommand.find(caller, target, directory)
    except (NoGameError, NameResolutionError) as e:
        caller.send(e.message)
        return None


class RefreshCommand(Command):
    name = "refresh"
    aliases = ("re",)
    spec = "o"
    usage = msg("refresh [game number | handle]")

    def run(self, caller: IServerCaller, target: str | None, *,
            directory: IServerDirectory) -> None:
        game = _game_or_tell(caller, target, directory)
        if game is not None:
            caller.boards.send_board(caller, game)


def move_list(game: IGame, lang: str) -> str:
    """The ``moves`` text of ``game`` in ``lang``."""
    tracker = game.tracker
    history = tracker.history
    clocked = IClockedGame(game, None)
    times = clocked.move_times if clocked is not None else ()
    lines = [msg("Movelist for game {number}:", number=game.number).render(lang), "",
             f"{game.white} (UNR) vs. {game.black} (UNR)"]
    minutes, increment = ((clocked.time_control.minutes, clocked.time_control.increment)
                          if clocked is not None else (0, 0))
    lines.append(msg("Unrated match, initial time: {minutes} minutes, increment: {increment} seconds.",
                     minutes=minutes, increment=increment).render(lang))
    if tracker.initial_fen != STARTING_FEN:
        lines.append(msg("Initial position: {fen}", fen=tracker.initial_fen).render(lang))
    heading = msg("Move").render(lang)
    lines += ["", f"{heading:<6}{game.white:<24}{game.black}",
              f"{'----':<6}{'-' * 21:<24}{'-' * 21}"]
    row = ""
    for i, ply in enumerate(history):
        cell = f"{ply.san:<8}{'(' + format_move_time(times[i] if i < len(times) else 0) + ')':<16}"
        if ply.color:  # White
            if row:
                lines.append(row.rstrip())
            row = f"{ply.move_number:>3}.  {cell}"
        else:
            if not row:
                row = f"{ply.move_number:>3}.  {'...':<24}"
            lines.append((row + cell).rstrip())
            row = ""
    if row:
        lines.append(row.rstrip())
    result = game.result if IPlayedGame.providedBy(game) else None
    if result is not None:
        lines.append("      {" + result.reason.render(lang) + "} " + result.score)
    else:
        lines.append("      {" + msg("Still in progress").render(lang) + "} *")
    return "\n".join(lines)


class MovesCommand(Command):
    name = "moves"
    spec = "o"
    usage = msg("moves [game number | handle]")

    def run(self, caller: ICaller, target: str | None, *, directory: IServerDirectory) -> None:
        game = _game_or_tell(caller, target, directory)
        if game is not None:
            caller.send(move_list(game, caller.lang))
