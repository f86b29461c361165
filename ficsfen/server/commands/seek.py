"""Finding a game: ``seek``, ``unseek``, ``sought``, ``play``.

The table and what players hear of it are :mod:`ficsfen.server.seeks`';
a game starts through the same path as an accepted ``match``
(``games.start_game`` with a :class:`~ficsfen.server.challenges.Challenge`),
and a manual seek answered with ``play`` becomes a match request.
"""

from __future__ import annotations

from twisted.internet.defer import Deferred

from ficsfen.commands.base import Command
from ficsfen.i18n import LocalizedError, msg, msgn
from ficsfen.server.parsed import parsed
from ficsfen.names import NameResolutionError, resolve_handle
from ficsfen.server.challenges import Challenge, MatchRequest
from ficsfen.server.commands.play import _run
from ficsfen.server.interfaces import IExaminedGame, IServerCaller, IServerDirectory
from ficsfen.server.seeks import (NoSuchSeekError, Seek, SeekBoard, SeekError, check_playable,
                                  opposite, parse_seek, sought_text)

__all__ = ["COMMANDS", "commands"]


def _free(caller: IServerCaller, directory: IServerDirectory) -> bool:
    """Whether ``caller`` may seek or answer one (not playing nor examining); says why not."""
    game = directory.game_of(caller.handle)
    if game is None:
        return True
    if IExaminedGame.providedBy(game):
        caller.send(msg("You are examining a game; type \"unexamine\" first."))
    else:
        caller.send(msg("You are already playing a game."))
    return False


def start_from_seek(caller: IServerCaller, seek: Seek, responder: str) -> None:
    """Start the game ``seek`` describes between its owner and ``responder``.

    :raises SeekError: a variant this server cannot play yet.
    """
    check_playable(seek.request.variant)
    games = caller.games
    challenge = Challenge(seek.owner, responder, seek.request.time_control, seek.request.colour,
                          variant=seek.request.variant, rated=bool(seek.request.rated))
    caller.boards.deliver([*games.challenges.drop(seek.owner), *games.challenges.drop(responder)])
    games.start_game(challenge)


class _SeekCommand(Command):
    def __init__(self, board: SeekBoard) -> None:
        self.board = board


class SeekCommand(_SeekCommand):
    name = "seek"
    spec = "s"
    usage = msg("seek [TIME INC] [white|black] [VARIANT] [auto|manual] [MIN-MAX]")

    def run(self, caller: IServerCaller, args: str | None, *,
            directory: IServerDirectory) -> Deferred[None] | None:
        if not _free(caller, directory):
            return None
        try:
            seek, partner = self.board.post(caller, parse_seek(args or ""))
        except SeekError as e:
            caller.send(e.message)
            return None
        if partner is not None:
            try:
                check_playable(seek.request.variant)
            except SeekError:
                partner = None
        if partner is not None:
            caller.send(parsed(msg("Your seek matches one posted by {handle}.", handle=partner.owner)))
            self.board.seeks.remove(seek.id)  # never announced: no <sr> for it
            other = caller.players.session(partner.owner)
            if other is not None:
                other.notify(parsed(msg("Your seek matches one posted by {handle}.", handle=caller.handle)))
            start_from_seek(caller, partner, caller.handle)
            return None
        count = self.board.announce(seek)
        caller.send(parsed(msg("Your seek has been posted with index {number}.", number=seek.id)))
        # a cluster's other nodes say how many of their players read it
        seen = self.board.elsewhere.seen(seek) if self.board.elsewhere is not None else None
        if seen is None:
            _saw(caller, count)
            return None
        return seen.addCallback(lambda more: _saw(caller, count + more))


def _saw(caller: IServerCaller, count: int) -> None:
    caller.send(msgn("({count} player saw the seek.)", "({count} players saw the seek.)", count))


class UnseekCommand(_SeekCommand):
    name = "unseek"
    spec = "p"
    usage = msg("unseek [N]")

    def run(self, caller: IServerCaller, number: int | None, *,
            directory: IServerDirectory) -> None:
        mine = self.board.seeks.by(caller.handle)
        if number is not None:
            chosen = [s for s in mine if s.id == number]
            if not chosen:
                caller.send(msg("You have no seek {number}.", number=number))
                return
            self.board.remove(chosen)
            caller.send(parsed(msg("Your seek {number} has been removed.", number=number)))
            return
        if not mine:
            caller.send(msg("You have no active seeks."))
            return
        self.board.remove(mine)
        caller.send(parsed(msg("Your seeks have been removed.")))  # FICS's words: pychess reads them


class SoughtCommand(_SeekCommand):
    name = "sought"
    spec = "o"
    usage = msg("sought [all]")

    def run(self, caller: IServerCaller, word: str | None, *,
            directory: IServerDirectory) -> None:
        if word is not None and word.lower() != "all":
            self.send_usage(caller)
            return
        seeks = self.board.listing(None if word else caller.handle)
        caller.send("\n".join(caller.render(line) for line in sought_text(seeks)))


class PlayCommand(_SeekCommand):
    name = "play"
    spec = "w"
    usage = msg("play N|HANDLE")

    def run(self, caller: IServerCaller, word: str, *, directory: IServerDirectory) -> None:
        if not _free(caller, directory):
            return
        try:
            seek = self.board.find(caller.handle, word,
                                   lambda name: resolve_handle(name, directory.handles()))
            if not self.board.visible_to(seek, caller.handle):
                raise NoSuchSeekError(msg("That seek is not available."))
            if seek.request.rated and not caller.registered:
                raise NoSuchSeekError(msg("Unregistered players cannot play rated games."))
            check_playable(seek.request.variant)
        except (SeekError, NameResolutionError) as e:
            caller.send(e.message)
            return
        if seek.node is not None and self.board.elsewhere is not None:  # another node's seek
            self.board.elsewhere.play(caller, seek)
            return
        if seek.request.manual:
            caller.send(parsed(msg("Issuing match request since the seek was set to manual.")))
            request = MatchRequest(seek.owner, seek.request.time_control,
                                   opposite(seek.request.colour), seek.request.variant)
            _run(caller, lambda: caller.games.challenges.offer(
                caller.handle, request, rated=bool(seek.request.rated))[1])
            return
        owner = caller.players.session(seek.owner)
        if owner is not None:
            owner.notify(parsed(msg("{handle} accepts your seek.", handle=caller.handle)))
        try:
            start_from_seek(caller, seek, caller.handle)
        except LocalizedError as e:  # pragma: no cover - checked above
            caller.send(e.message)


def commands(board: SeekBoard) -> list[Command]:
    """The seek commands sharing ``board``."""
    return [cls(board) for cls in COMMANDS]


COMMANDS = (SeekCommand, UnseekCommand, SoughtCommand, PlayCommand)
