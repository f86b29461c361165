"""Watching games: ``observe``, ``unobserve``, ``allobservers``.

Observers are kept by the game directory alone; the server sends them every
board of the games they observe (see ``Broadcaster.show_position``) and the
result when a game ends.
"""

from __future__ import annotations

from twisted.internet.defer import Deferred

from ficsfen.commands.base import Command
from ficsfen.commands.fen import FenCommand, NoGameError
from ficsfen.i18n import Message, msg, msgn
from ficsfen.interfaces import IGame
from ficsfen.names import NameResolutionError, fold
from ficsfen.server.boards import game_line_header
from ficsfen.server.following import is_private, observing_tail
from ficsfen.server.parsed import parsed
from ficsfen.server.interfaces import IServerCaller, IServerDirectory

__all__ = ["COMMANDS"]


def _game(caller: IServerCaller, target: str, directory: IServerDirectory) -> IGame | None:
    """The game ``target`` names (a number or a player), or None once the caller read why."""
    try:
        return FenCommand.find(caller, target, directory)
    except (NoGameError, NameResolutionError) as e:
        caller.send(e.message)
        return None


class ObserveCommand(Command):
    name = "observe"
    spec = "w"
    usage = msg("observe GAME-NUMBER|HANDLE")

    def run(self, caller: IServerCaller, target: str, *, directory: IServerDirectory) -> None:
        game = _game(caller, target, directory)
        if game is None:
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
            directory: IServerDirectory) -> Deferred[None] | None:
        if target is None:
            games = directory.observed_games(caller.handle)
            watching = getattr(directory, "watching", None)  # a cluster's other nodes
            if watching is not None and watching.observed_elsewhere(caller.handle):
                here = {game.number: game for game in games}
                ordered, done = watching.unobserve_all(caller.handle)
                for local, number in ordered:
                    if local and number in here:
                        directory.unobserve(caller.handle, here[number])
                return done.addCallback(lambda _: _removed(caller, ordered))
            if not games:
                caller.send(parsed(msg("You are not observing any games.")))
                return None
        else:
            # A number is checked against the caller's list first: FICS says "You are
            # not observing game N." for a game that has ended meanwhile too (pychess
            # sends "unobserve N" when its board of an ended game is closed).
            if target.isascii() and target.isdigit() and not any(
                    g.number == int(target) for g in directory.observed_games(caller.handle)):
                caller.send(parsed(msg("You are not observing game {number}.", number=int(target))))
                return None
            game = _game(caller, target, directory)
            if game is None:
                return None
            if game not in directory.observed_games(caller.handle):
                caller.send(parsed(msg("You are not observing game {number}.", number=game.number)))
                return None
            games = [game]
        for game in games:
            directory.unobserve(caller.handle, game)
            caller.send(_removing(game.number))
        return None


def _removing(number: int) -> Message:
    return parsed(msg("Removing game {number} from observation list.", number=number))


def _removed(caller: IServerCaller, games: list[tuple[bool, int]]) -> None:
    for _, number in games:
        caller.send(_removing(number))


class AllobserversCommand(Command):
    name = "allobservers"
    spec = "o"
    usage = msg("allobservers [GAME-NUMBER|HANDLE]")

    def run(self, caller: IServerCaller, target: str | None, *,
            directory: IServerDirectory) -> Deferred[None] | None:
        if target is None:
            watching = getattr(directory, "watching", None)  # a cluster's other nodes
            if watching is not None:
                return watching.observers.everywhere().addCallback(
                    lambda games: self.answer(caller, games, None))
            games = [(g.number, g.white, g.black, directory.observers(g)) for g in directory.games()]
            self.answer(caller, games, None)
            return None
        game = _game(caller, target, directory)
        if game is None:
            return None
        self.answer(caller, [(game.number, game.white, game.black, directory.observers(game))],
                    game.number)
        return None

    @staticmethod
    def answer(caller: IServerCaller, games: list[tuple[int, str, str, list[str]]],
               number: int | None) -> None:
        """The lines of ``games`` (number, White, Black, observers); ``number``: the game
        asked for (None: all)."""
        lines = [caller.render(parsed(msgn(
            "Observing {number} [{white} vs. {black}]: {names} ({count} user)",
            "Observing {number} [{white} vs. {black}]: {names} ({count} users)",
            len(observers), number=n, white=white, black=black, names=" ".join(observers))))
            for n, white, black, observers in games if observers]
        if not lines:
            caller.send(parsed(msg("No games are being observed.")) if number is None
                        else parsed(msg("Nobody is observing game {number}.", number=number)))
            return
        caller.send("\n".join(lines))


COMMANDS = (ObserveCommand(), UnobserveCommand(), AllobserversCommand())
