"""``follow [HANDLE]`` (observe every game a player starts) and ``primary [GAME|HANDLE]``.

Following is kept by :class:`ficsfen.server.following.Following`; the primary
game is the observed game that ``kibitz``, ``moves``, ``refresh``... use when
given none (the game directory's ``observed_by``).  pychess sends
``primary N`` when a board of an observed game comes to the front.
"""

from __future__ import annotations

from ficsfen.commands.base import Command
from ficsfen.commands.fen import FenCommand, NoGameError
from ficsfen.i18n import msg
from ficsfen.names import NameResolutionError, fold
from ficsfen.server.following import Following, is_private, observing_head, observing_tail
from ficsfen.server.interfaces import IServerCaller, IServerDirectory

__all__ = ["FollowCommand", "PrimaryCommand"]


class FollowCommand(Command):
    """``follow HANDLE``: observe each game HANDLE plays from now on (the one going on
    too); ``follow`` alone stops."""

    name = "follow"
    spec = "o"
    usage = msg("follow [HANDLE]")

    def __init__(self, following: Following) -> None:
        self.following = following

    def run(self, caller: IServerCaller, who: str | None, *,
            directory: IServerDirectory) -> None:
        following = self.following
        if who is None:
            if following.stop(caller.handle) is None:
                caller.send(msg("You are not following any player's games."))
            else:
                caller.send(msg("You will not follow any player's games."))
            return
        try:
            target = caller.players.anywhere(who)  # a player of another node of a cluster too
        except NameResolutionError as e:
            caller.send(e.message)
            return
        if fold(target.handle) == fold(caller.handle):
            caller.send(msg("You can't follow your own games."))
            return
        before = following.following(caller.handle)
        if before is not None and fold(before) == fold(target.handle):
            caller.send(msg("You are already following {handle}'s games.", handle=target.handle))
            return
        if before is not None:
            caller.send(msg("You will no longer be following {handle}'s games.", handle=before))
        following.follow(caller.handle, target.handle)
        caller.send(msg("You will now be following {handle}'s games.", handle=target.handle))
        game = directory.game_of(target.handle)
        watching = getattr(directory, "watching", None)
        if game is None and watching is not None:
            watching.following.now(caller, target.handle)  # their game on another node
        if game is None or caller.handle in game.players():
            return
        if is_private(game):
            caller.send(msg("Sorry, game {number} is a private game.", number=game.number))
            return
        if directory.observe(caller.handle, game):
            caller.send("\n".join(observing_head(caller, game)))
            caller.boards.send_board(caller, game)
            for line in observing_tail(caller, game):
                caller.send(line)


class PrimaryCommand(Command):
    """``primary GAME|HANDLE``: which observed game commands use when given none."""

    name = "primary"
    spec = "o"
    usage = msg("primary [GAME-NUMBER|HANDLE]")

    def run(self, caller: IServerCaller, target: str | None, *,
            directory: IServerDirectory) -> None:
        observed = directory.observed_games(caller.handle)
        watching = getattr(directory, "watching", None)  # a cluster's other nodes
        elsewhere: list[int] = [] if watching is None else watching.observed_elsewhere(
            caller.handle)
        if not observed and not elsewhere:
            caller.send(msg("You are not observing any games."))
            return
        primary = None if watching is None else watching.primary_elsewhere(caller.handle)
        if target is None:
            number = primary if primary is not None else observed[-1].number
            caller.send(msg("Your primary game is game {number}.", number=number))
            return
        if watching is not None and target.isascii() and target.isdigit() and int(
                target) in elsewhere:
            number = int(target)
            if primary == number:
                caller.send(msg("Game {number} is already your primary game.", number=number))
            else:
                watching.make_primary_elsewhere(caller.handle, number)
                caller.send(msg("Game {number} is now your primary game.", number=number))
            return
        try:
            game = FenCommand.find(caller, target, directory)
        except (NoGameError, NameResolutionError) as e:
            caller.send(e.message)
            return
        if game not in observed:
            caller.send(msg("You are not observing game {number}.", number=game.number))
        elif directory.observed_by(caller.handle) is game and primary is None:
            caller.send(msg("Game {number} is already your primary game.", number=game.number))
        else:
            directory.make_primary(caller.handle, game)
            caller.send(msg("Game {number} is now your primary game.", number=game.number))
