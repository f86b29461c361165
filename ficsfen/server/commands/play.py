"""Playing: ``match``, ``accept``, ``decline``, ``withdraw``, ``pending``, in-game offers and ends.

The rules live in :mod:`ficsfen.server.challenges` (match offers) and
:mod:`ficsfen.server.games` (a game in progress); these commands find the caller's
game, call the engine, and hand the resulting notices to the server, which
delivers them.  A refusal arrives as an exception carrying its localized
message, and is shown to the caller alone.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Callable

from ficsfen.server.challenges import ChallengeError, parse_match
from ficsfen.commands.base import Command, find_player
from ficsfen.server.games import PlayedGame
from ficsfen.i18n import LocalizedError, Message, msg, unique_prefix

__all__ = ["COMMANDS", "played_game"]


def played_game(caller: Any, directory: Any, *, tell: bool = True) -> PlayedGame | None:
    """The game ``caller`` plays (not examines); tells them when there is none."""
    game = directory.game_of(caller.handle)
    if game is None or getattr(game, "examined", False):
        if tell:
            caller.send(msg("You are not playing a game."))
        return None
    return game


def _run(caller: Any, action: Callable[[], Any]) -> None:
    """Run an engine action; deliver its notices, or show the caller why it was refused."""
    try:
        notices = action()
    except LocalizedError as e:  # a refusal (GameError, ChallengeError...): its reason
        caller.send(e.render(caller.lang))
        return
    caller.server.deliver(notices)


class MatchCommand(Command):
    name = "match"
    spec = "S"
    usage = msg("match HANDLE [TIME INC] [white|black]")

    def run(self, caller: Any, args: str, *, directory: Any) -> None:
        try:
            request = parse_match(args)
        except ChallengeError as e:
            caller.send(e.message)
            return
        found = find_player(request.opponent, directory)
        if isinstance(found, Message):
            caller.send(found)
            return
        server = caller.server
        current = directory.game_of(caller.handle)
        if current is not None and getattr(current, "examined", False):
            caller.send(msg("You are examining a game; type \"unexamine\" first."))
            return
        adjourned = server.adjourned.between(caller.handle, found)
        if adjourned is not None and found != caller.handle:
            if current is not None or directory.game_of(found) is not None:
                caller.send(msg("{handle} is playing a game.", handle=found)
                            if current is None else msg("You are already playing a game."))
                return
            caller.send(msg("You have an adjourned game with {handle}: resuming it.", handle=found))
            server.resume_game(adjourned)
            return
        _run(caller, lambda: server.challenges.offer(caller.handle, replace(request, opponent=found))[1])


def _offer_name(name: str | None, directory: Any) -> str | None:
    """``name`` as a logged-in handle when it names one (else as typed: the engine says why)."""
    if name is None:
        return None
    found = find_player(name, directory)
    return name if isinstance(found, Message) else found


class AcceptCommand(Command):
    name = "accept"
    spec = "o"
    usage = msg("accept [HANDLE]")

    def run(self, caller: Any, name: str | None, *, directory: Any) -> None:
        game = played_game(caller, directory, tell=False)
        if game is not None:
            _run(caller, lambda: game.accept(caller.handle))
            return
        server = caller.server
        if directory.game_of(caller.handle) is not None:
            caller.send(msg("You are examining a game; type \"unexamine\" first."))
            return
        try:
            challenge, notices = server.challenges.accept(caller.handle, _offer_name(name, directory))
        except ChallengeError as e:
            caller.send(e.message)
            return
        server.deliver(notices)
        server.start_game(challenge)


class _OfferAnswer(Command):
    """``decline``/``withdraw``: an in-game offer when there is one, else a match offer.

    Subclasses name the :class:`PlayedGame` method that lists the offers
    concerned (``offers``) and the method, on the game and on the server's
    :class:`~ficsfen.server.challenges.Challenges`, that answers them (``name``).
    """

    spec = "o"
    offers: str

    def run(self, caller: Any, name: str | None, *, directory: Any) -> None:
        game = played_game(caller, directory, tell=False)
        if game is not None and name is None and getattr(game, self.offers)(caller.handle):
            _run(caller, lambda: getattr(game, self.name)(caller.handle))
            return
        answer = getattr(caller.server.challenges, self.name)
        _run(caller, lambda: answer(caller.handle, _offer_name(name, directory)))


class DeclineCommand(_OfferAnswer):
    name = "decline"
    offers = "offers_to"
    usage = msg("decline [HANDLE]")


class WithdrawCommand(_OfferAnswer):
    name = "withdraw"
    offers = "offers_by"
    usage = msg("withdraw [HANDLE]")


class PendingCommand(Command):
    name = "pending"
    spec = ""
    usage = msg("pending")

    def run(self, caller: Any, *, directory: Any) -> None:
        lines = list(caller.server.challenges.pending(caller.handle))
        game = played_game(caller, directory, tell=False)
        if game is not None:
            for offer in game.offers:
                lines.append(msg("  Game {number}: {offer}.", number=game.number, offer=offer.describe()))
        caller.send("\n".join(caller.render(line) for line in lines))


class _GameAction(Command):
    """A command acting on the caller's game in progress through one engine method."""

    spec = ""
    method = ""

    def run(self, caller: Any, *, directory: Any) -> None:
        game = played_game(caller, directory)
        if game is not None:
            _run(caller, lambda: getattr(game, self.method)(caller.handle))


class ResignCommand(_GameAction):
    name = method = "resign"
    usage = msg("resign")


class DrawCommand(_GameAction):
    name = method = "draw"
    usage = msg("draw")


class AbortCommand(_GameAction):
    name = method = "abort"
    usage = msg("abort")


class AdjournCommand(_GameAction):
    name = method = "adjourn"
    usage = msg("adjourn")


class FlagCommand(_GameAction):
    name = method = "flag"
    usage = msg("flag")


class TakebackCommand(Command):
    name = "takeback"
    spec = "p"
    usage = msg("takeback [N]")

    def run(self, caller: Any, count: int | None, *, directory: Any) -> None:
        game = played_game(caller, directory)
        if game is not None:
            _run(caller, lambda: game.takeback(caller.handle, 1 if count is None else count))


class ResumeCommand(Command):
    name = "resume"
    spec = "o"
    usage = msg("resume [HANDLE]")

    def run(self, caller: Any, name: str | None, *, directory: Any) -> None:
        server = caller.server
        games = server.adjourned.of(caller.handle)
        if not games:
            caller.send(msg("You have no adjourned games."))
            return
        me = caller.handle.casefold()

        def opponent(game: PlayedGame) -> str:
            return game.black if game.white.casefold() == me else game.white

        if name is not None:
            found = unique_prefix(name, {opponent(g) for g in games})
            if found is None:
                caller.send(msg("You have no adjourned game with {name}.", name=name))
                return
            # Several opponents start with it: those present are named below.
            named = {found} if isinstance(found, str) else set(found)
            games = [g for g in games if opponent(g) in named]
        present = [g for g in games if server.session(opponent(g)) is not None]
        if not present:
            caller.send(msg("{handle} is not logged in.", handle=opponent(games[0])) if len(games) == 1
                        else msg("None of your adjourned opponents is logged in."))
            return
        if len(present) > 1:
            caller.send(msg("You have adjourned games with {names}: name the opponent.",
                            names=" ".join(opponent(g) for g in present)))
            return
        game = present[0]
        if directory.game_of(caller.handle) is not None:
            caller.send(msg("You are already playing or examining a game."))
            return
        if directory.game_of(opponent(game)) is not None:
            caller.send(msg("{handle} is playing a game.", handle=opponent(game)))
            return
        server.resume_game(game)


COMMANDS = (MatchCommand(), AcceptCommand(), DeclineCommand(), WithdrawCommand(),
            PendingCommand(), ResignCommand(), DrawCommand(), AbortCommand(), AdjournCommand(),
            FlagCommand(), TakebackCommand(), ResumeCommand())
