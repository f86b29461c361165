"""Watching games: ``observe``, ``unobserve``, ``allobservers``.

Observers are kept by the game directory alone; the server sends them every
board of the games they observe (see ``Broadcaster.show_position``) and the
result when a game ends.
"""

from __future__ import annotations

from ficsfen.commands.base import Command
from ficsfen.commands.fen import FenCommand, NoGameError
from ficsfen.i18n import msg, msgn
from ficsfen.names import NameResolutionError, fold
from ficsfen.server.boards import game_line_header
from ficsfen.server.following import is_private, observing_tail
from ficsfen.server.parsed import parsed
from ficsfen.server.interfaces import IServerCaller, IServerDirectory

__all__ = ["COMMANDS"]


class ObserveCommand(Command):
    name = "observe"
    spec = "w"
    usage = msg("observe GAME-NUMBER|HANDLE")

    def run(self, caller: IServerCaller, target: str, *, directory: IServerDirectory) -> None:
        try:
            game = FenCommand.find(caller, target, directory)
        except (NoGameError, NameResolutionError) as e:
            caller.send(e.message)
            return
        me = fold(caller.handle)
        if any(fold(h) == me for h in game.players()):
            caller.send(parsed(msg("You cannot observe a game you are playing or examining.")))
            return
        if is_private(game):
            caller.send(msg("Sorry, game {number} is a private game.", number=game.number))
            return
        if not directory.observe(caller.handle, game):
            caller.send(parsed(msg("You are already observing game {number}.", number=game.number)))
            return
        caller.send(parsed(msg("You are now observing game {number}.", number=game.number)))
        # FICS's header: clients read the players and time control from it (the
        # header's own fields stay FICS's).  A blank line follows, as on FICS:
        # pychess's observe pattern is these four lines ("You are now observing...",
        # "Game N: ...", "", "<12> ...").
        caller.send(caller.render(parsed(msg("Game {number}: {header}", number=game.number,
                                             header=game_line_header(game, caller.boards.game_rating_texts(game),
                                                                     caller.parsed_lang)))) + "\n")
        caller.boards.send_board(caller, game)
        for line in observing_tail(caller, game):  # the <g1> line (gameinfo ivar)
            caller.send(line)


class UnobserveCommand(Command):
    name = "unobserve"
    spec = "o"
    usage = msg("unobserve [GAME-NUMBER|HANDLE]")

    def run(self, caller: IServerCaller, target: str | None, *,
            directory: IServerDirectory) -> None:
        if target is None:
            games = directory.observed_games(caller.handle)
            if not games:
                caller.send(parsed(msg("You are not observing any games.")))
                return
        else:
            # A number is checked against the caller's list first: FICS says "You are
            # not observing game N." for a game that has ended meanwhile too (pychess
            # sends "unobserve N" when its board of an ended game is closed).
            if target.isascii() and target.isdigit() and not any(
                    g.number == int(target) for g in directory.observed_games(caller.handle)):
                caller.send(parsed(msg("You are not observing game {number}.", number=int(target))))
                return
            try:
                game = FenCommand.find(caller, target, directory)
            except (NoGameError, NameResolutionError) as e:
                caller.send(e.message)
                return
            if game not in directory.observed_games(caller.handle):
                caller.send(parsed(msg("You are not observing game {number}.", number=game.number)))
                return
            games = [game]
        for game in games:
            directory.unobserve(caller.handle, game)
            caller.send(parsed(msg("Removing game {number} from observation list.", number=game.number)))


class AllobserversCommand(Command):
    name = "allobservers"
    spec = "o"
    usage = msg("allobservers [GAME-NUMBER|HANDLE]")

    def run(self, caller: IServerCaller, target: str | None, *,
            directory: IServerDirectory) -> None:
        if target is None:
            games = directory.games()
        else:
            try:
                game = FenCommand.find(caller, target, directory)
            except (NoGameError, NameResolutionError) as e:
                caller.send(e.message)
                return
            games = [game]
        lines = []
        for game in games:
            observers = directory.observers(game)
            if not observers:
                continue
            lines.append(caller.render(parsed(msgn(
                "Observing {number} [{white} vs. {black}]: {names} ({count} user)",
                "Observing {number} [{white} vs. {black}]: {names} ({count} users)",
                len(observers), number=game.number, white=game.white, black=game.black,
                names=" ".join(observers)))))
        if not lines:
            caller.send(parsed(msg("No games are being observed.")) if target is None
                        else parsed(msg("Nobody is observing game {number}.", number=games[0].number)))
            return
        caller.send("\n".join(lines))


COMMANDS = (ObserveCommand(), UnobserveCommand(), AllobserversCommand())
