"""Playing: ``match``, ``accept``, ``decline``, ``withdraw``, ``pending``, in-game offers and ends,
and adjourned games: ``resume`` and ``stored``.

The rules live in :mod:`ficsfen.server.challenges` (match offers) and
:mod:`ficsfen.server.games` (a game in progress); these commands find the caller's
game, call the engine, and hand the resulting notices to the caller's
:class:`~ficsfen.server.interfaces.IPlayers`, which delivers them.  A refusal
arrives as an exception carrying its localized message, and is shown to the
caller alone.

Resuming an adjourned game needs both players, as on FICS: ``resume`` (or
``match`` with the opponent) sends a match request marked ``(adjourned)``,
which the opponent accepts with ``accept``, ``resume`` or ``match``.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Callable

from twisted.internet.defer import Deferred

from ficsfen.commands.base import Command
from ficsfen.i18n import LocalizedError, Message, msg
from ficsfen.server.parsed import heading, parsed
from ficsfen.names import (HANDLE, AmbiguousNameError, NameResolutionError, NoMatchError, fold,
                           resolve, resolve_handle)
from ficsfen.server.boards import category, material
from ficsfen.server.challenges import ChallengeError, Challenges, MatchRequest, parse_match
from ficsfen.server.rated_games import rated_offer
from ficsfen.server.commands.info import fics_date
from ficsfen.server.openings import NO_ECO, live_eco
from ficsfen.server.seeks import check_playable
from ficsfen.server.interfaces import (IExaminedGame, IPlayedGame, IServerCaller,
                                       IServerDirectory)
from ficsfen.server.variant_games import category_letter

__all__ = ["COMMANDS", "played_game"]


def played_game(caller: IServerCaller, directory: IServerDirectory, *,
                tell: bool = True) -> IPlayedGame | None:
    """The game ``caller`` plays (not examines); tells them when there is none."""
    game = directory.game_of(caller.handle)
    if not IPlayedGame.providedBy(game):
        if tell:
            caller.send(msg("You are not playing a game."))
        return None
    return game


def _run(caller: IServerCaller, action: Callable[[], Any],
         game: IPlayedGame | None = None) -> Deferred[None] | None:
    """Run an engine action; deliver its notices, or show the caller why it was refused.

    Notices about ``game`` are delivered once what it changed before is
    stored (an offer never overtakes the move it follows).  What the action
    changed in ``game`` (an end, an adjournment) is announced once stored:
    the answer waits for it, and holds what the caller reads of it (as on
    FICS, ``accept`` answers ``You accept the draw request from alice.`` and
    the end of the game in one reply); the Deferred returned fires then.
    """
    try:
        notices = action()
    except LocalizedError as e:  # a refusal (GameError, ChallengeError...): its reason
        caller.send(e.render(caller.lang))
        return None
    if game is None:
        if notices:
            caller.boards.deliver(notices)
        return None
    if notices:
        game.after_write(None, lambda: caller.boards.deliver(notices))
    announced: Deferred[None] = Deferred()
    game.after_write(None, lambda: announced.callback(None))
    if announced.called:  # nothing was waiting: all is in the answer already
        return None
    reply = caller.reply
    if reply is not None:
        reply.gather()
    return announced


class MatchCommand(Command):
    name = "match"
    spec = "S"
    usage = msg("match HANDLE [TIME INC] [white|black] [rated|unrated]")

    def run(self, caller: IServerCaller, args: str, *, directory: IServerDirectory) -> None:
        try:
            request = parse_match(args)
            check_playable(request.variant)
            found = _named(caller, request.opponent, directory)
        except (ChallengeError, NameResolutionError) as e:
            caller.send(e.message)
            return
        games = caller.games
        current = directory.game_of(caller.handle)
        if IExaminedGame.providedBy(current):
            caller.send(msg("You are examining a game; type \"unexamine\" first."))
            return
        receiver = caller.players.session(found)
        if receiver is not None and found != caller.handle and not receiver.variables.get(
                "open", True):
            caller.send(msg("{handle} is not open to match requests.", handle=found))
            return
        if not caller.variables.get("open", True):  # FICS opens whoever asks for a match
            caller.variables["open"] = True
            caller.players.listing_changed()
            caller.send(msg("You are now open to receive match requests."))
        adjourned = games.adjourned.between(caller.handle, found)
        if adjourned is not None and found != caller.handle:
            if args.split()[1:]:  # the adjourned game's terms are fixed
                caller.send(msg("You have an adjourned game with {handle}; type \"match {handle}\" "
                                "or \"resume {handle}\" to continue it.", handle=found))
                return
            _ask_to_resume(caller, adjourned, found, directory)
            return
        try:
            rated = rated_offer(request.rated, default=bool(caller.variables.get("rated", False)),
                                registered=caller.registered,
                                opponent_registered=receiver is not None and receiver.registered,
                                time_control=request.time_control, variant=request.variant)
        except ChallengeError as e:
            caller.send(e.message)
            return
        _run(caller, lambda: games.challenges.offer(caller.handle, replace(request, opponent=found),
                                                    rated=rated)[1])


def _offer_number(name: str | None) -> int | None:
    """The offer number ``name`` gives (``accept 12``, as clients answer pendinfo), or None."""
    if name is not None and name.isascii() and name.isdigit():
        return int(name)
    return None


def _offer_name(name: str | None, directory: IServerDirectory) -> str | None:
    """``name`` as a logged-in handle when it names one (else as typed: the engine says why)."""
    if name is None or _offer_number(name) is not None:
        return name
    try:
        return resolve_handle(name, directory.handles())
    except NameResolutionError:
        return name


class AcceptCommand(Command):
    name = "accept"
    spec = "o"
    usage = msg("accept [HANDLE]")

    def run(self, caller: IServerCaller, name: str | None, *,
            directory: IServerDirectory) -> Deferred[None] | None:
        game = played_game(caller, directory, tell=False)
        number = _offer_number(name)
        if game is not None:
            return _run(caller, lambda: game.accept(caller.handle, number), game)
        if directory.game_of(caller.handle) is not None:
            caller.send(msg("You are examining a game; type \"unexamine\" first."))
            return None
        games = caller.games
        try:
            challenge, notices = games.challenges.accept(caller.handle, _offer_name(name, directory))
        except ChallengeError as e:
            caller.send(e.message)
            return None
        caller.boards.deliver(notices)
        games.start_game(challenge)
        return None


class _OfferAnswer(Command):
    """``decline``/``withdraw``: an in-game offer when there is one, else a match offer.

    Subclasses say which in-game offers concern the caller (:meth:`game_offers`)
    and how the game (:meth:`answer_game`) and the match offers
    (:meth:`answer_match`) answer them.
    """

    spec = "o"

    def run(self, caller: IServerCaller, name: str | None, *,
            directory: IServerDirectory) -> Deferred[None] | None:
        game = played_game(caller, directory, tell=False)
        number = _offer_number(name)
        if (game is not None and (name is None or number is not None)
                and self.game_offers(game, caller.handle, number)):
            return _run(caller, lambda: self.answer_game(game, caller.handle, number), game)
        challenges = caller.games.challenges
        return _run(caller, lambda: self.answer_match(challenges, caller.handle,
                                                      _offer_name(name, directory)))

    def game_offers(self, game: IPlayedGame, handle: str,
                    number: int | None) -> list:  # pragma: no cover
        raise NotImplementedError

    def answer_game(self, game: IPlayedGame, handle: str,
                    number: int | None) -> list:  # pragma: no cover
        raise NotImplementedError

    def answer_match(self, challenges: Challenges, handle: str,
                     name: str | None) -> list:  # pragma: no cover
        raise NotImplementedError


class DeclineCommand(_OfferAnswer):
    name = "decline"
    usage = msg("decline [HANDLE]")

    def game_offers(self, game: IPlayedGame, handle: str, number: int | None) -> list:
        return [o for o in game.offers_to(handle) if number is None or o.id == number]

    def answer_game(self, game: IPlayedGame, handle: str, number: int | None) -> list:
        return game.decline(handle, number)

    def answer_match(self, challenges: Challenges, handle: str, name: str | None) -> list:
        return challenges.decline(handle, name)


class WithdrawCommand(_OfferAnswer):
    name = "withdraw"
    usage = msg("withdraw [HANDLE]")

    def game_offers(self, game: IPlayedGame, handle: str, number: int | None) -> list:
        return [o for o in game.offers_by(handle) if number is None or o.id == number]

    def answer_game(self, game: IPlayedGame, handle: str, number: int | None) -> list:
        return game.withdraw(handle, number)

    def answer_match(self, challenges: Challenges, handle: str, name: str | None) -> list:
        return challenges.withdraw(handle, name)


class PendingCommand(Command):
    name = "pending"
    spec = ""
    usage = msg("pending")

    def run(self, caller: IServerCaller, *, directory: IServerDirectory) -> None:
        lines = list(caller.games.challenges.pending(caller.handle))
        game = played_game(caller, directory, tell=False)
        if game is not None:
            for offer in game.offers:
                lines.append(parsed(msg("  Game {number}: {offer}.", number=game.number, offer=offer.describe())))
        caller.send("\n".join(caller.render(line) for line in lines))


class _GameAction(Command):
    """A command acting on the caller's game in progress through the engine method of its
    name (:meth:`act`)."""

    spec = ""

    def run(self, caller: IServerCaller, *,
            directory: IServerDirectory) -> Deferred[None] | None:
        game = played_game(caller, directory)
        if game is None:
            return None
        return _run(caller, lambda: self.act(game, caller.handle), game)

    def act(self, game: IPlayedGame, handle: str) -> list:
        """Call the engine method named as the command (``game.resign(handle)`` for
        ``resign``); its notices.  :raises LocalizedError: the engine's refusal."""
        action: Callable[[str], list] = getattr(game, self.name)
        return action(handle)


class ResignCommand(_GameAction):
    name = "resign"
    usage = msg("resign")


class DrawCommand(_GameAction):
    name = "draw"
    usage = msg("draw")


class AbortCommand(_GameAction):
    name = "abort"
    usage = msg("abort")


class AdjournCommand(_GameAction):
    name = "adjourn"
    usage = msg("adjourn")


class FlagCommand(_GameAction):
    name = "flag"
    usage = msg("flag")


class TakebackCommand(Command):
    name = "takeback"
    spec = "p"
    usage = msg("takeback [N]")

    def run(self, caller: IServerCaller, count: int | None, *,
            directory: IServerDirectory) -> Deferred[None] | None:
        game = played_game(caller, directory)
        if game is None:
            return None
        return _run(caller, lambda: game.takeback(caller.handle, 1 if count is None else count),
                    game)


#: Opponents of the caller's adjourned games (``resume NAME``).
_ADJOURNED_OPPONENT = replace(
    HANDLE, what="adjourned opponent",
    no_match=lambda name: msg("You have no adjourned game with {name}.", name=name))


def _opponent(game: IPlayedGame, handle: str) -> str:
    return game.black if fold(game.white) == fold(handle) else game.white


def _named(caller: IServerCaller, word: str, directory: IServerDirectory) -> str:
    """The handle ``word`` names: a player here (exactly or a unique prefix), else (a
    cluster) the player of another node whose offer waits here (exactly).

    :raises NameResolutionError: neither.
    """
    try:
        return resolve_handle(word, directory.handles())
    except NameResolutionError:
        seated = caller.games.player(word)
        if seated is None:
            raise
        return str(seated.handle)


def _present(caller: IServerCaller, handle: str) -> Any:
    """``handle`` logged in here, or (a cluster) seated here by an offer of theirs."""
    return caller.players.session(handle) or caller.games.player(handle)


def _ask_to_resume(caller: IServerCaller, game: IPlayedGame, opponent: str,
                   directory: IServerDirectory) -> None:
    """Ask ``opponent`` (logged in) to resume ``game``, or accept their own request.

    Both must be registered: only their games are adjourned, and only a
    password proves it is the same person.
    """
    games = caller.games
    other = _present(caller, opponent)
    if other is None:
        caller.send(msg("{handle} is not logged in.", handle=opponent))
        return
    if not (caller.registered and other.registered):
        caller.send(msg("Only registered players may resume adjourned games."))
        return
    if directory.game_of(caller.handle) is not None:
        caller.send(msg("You are already playing or examining a game."))
        return
    theirs_now = directory.game_of(other.handle)
    if theirs_now is not None:
        caller.send(msg("{handle} is examining a game.", handle=other.handle)
                    if IExaminedGame.providedBy(theirs_now)
                    else msg("{handle} is playing a game.", handle=other.handle))
        return
    theirs = [c for c in games.challenges.to(caller.handle)
              if c.adjourned and c.challenger == other.handle]
    if theirs:  # both asked: the game goes on
        try:
            challenge, notices = games.challenges.accept(caller.handle, str(theirs[0].id))
        except ChallengeError as e:
            caller.send(e.message)
            return
        caller.boards.deliver(notices)
        games.start_game(challenge)
        return
    colour = fold(game.white) == fold(caller.handle)
    request = MatchRequest(other.handle, game.time_control, colour)
    _run(caller, lambda: games.challenges.offer(caller.handle, request, adjourned=True,
                                                rated=bool(getattr(game, "rated", False)))[1])


#: Opponents of the caller's adjourned games (``resume NAME``).
_ADJOURNED_OPPONENT = replace(
    HANDLE, what="adjourned opponent",
    no_match=lambda name: msg("You have no adjourned game with {name}.", name=name))


class ResumeCommand(Command):
    """``resume [HANDLE]``: ask the opponents of your adjourned games who are here to go on.

    FICS's way: a match request marked ``(adjourned)`` to each (or to the one
    named); it is accepted with ``accept``, ``resume`` or ``match``, so an
    opponent who is away never has their clock started by the other alone.
    """

    name = "resume"
    spec = "o"
    usage = msg("resume [HANDLE]")

    def run(self, caller: IServerCaller, name: str | None, *, directory: IServerDirectory) -> None:
        games = caller.games
        adjourned = games.adjourned.of(caller.handle)
        if not adjourned:
            caller.send(msg("You have no adjourned games."))
            return
        if name is not None:
            try:
                named = {resolve(name, {_opponent(g, caller.handle) for g in adjourned},
                                 _ADJOURNED_OPPONENT)}
            except NoMatchError as e:
                caller.send(e.message)
                return
            except AmbiguousNameError as e:  # those present are asked below
                named = set(e.matches)
            adjourned = [g for g in adjourned if _opponent(g, caller.handle) in named]
        present = [g for g in adjourned if _present(caller, _opponent(g, caller.handle))
                   is not None]
        if not present:
            caller.send(msg("{handle} is not logged in.", handle=_opponent(adjourned[0], caller.handle))
                        if len(adjourned) == 1
                        else msg("None of your adjourned opponents is logged in."))
            return
        for game in present:
            _ask_to_resume(caller, game, _present(caller, _opponent(game, caller.handle)).handle,
                           directory)


#: ``stored``'s heading: labels and the widths of their columns (FICS's, in English).
_STORED_HEADINGS: tuple[tuple[Message | str, int], ...] = (
    ("", 4), (parsed(msg("C")), 2), (parsed(msg("Opponent")), 15), (parsed(msg("On")), 3),
    (parsed(msg("Type")), 14), (parsed(msg("Str")), 5), (parsed(msg("M")), 5),
    (parsed(msg("ECO")), 4), (parsed(msg("Date")), 0))


class StoredCommand(Command):
    """``stored [HANDLE]``: the adjourned games of a player, in FICS's layout.

    One line per game: number, the player's colour, the opponent, whether
    they are logged in, type and time control, material (White-Black), the
    next move, ECO code (``---`` for none) and when it was adjourned.
    """

    name = "stored"
    spec = "o"
    usage = msg("stored [HANDLE]")

    def run(self, caller: IServerCaller, name: str | None, *, directory: IServerDirectory) -> None:
        handle = caller.handle
        if name is not None:
            try:
                handle = resolve_handle(name, directory.handles())
            except NoMatchError:
                handle = name  # not logged in: as typed
            except NameResolutionError as e:
                caller.send(e.message)
                return
        games = sorted(caller.games.adjourned.of(handle), key=lambda g: g.adjourned_at)
        if not games:
            caller.send(parsed(msg("{handle} has no adjourned games.", handle=handle)))
            return
        key = fold(handle)
        spelled = games[0].white if fold(games[0].white) == key else games[0].black
        lines = [caller.render(parsed(msg("Stored games for {handle}:", handle=spelled))),
                 heading(_STORED_HEADINGS, caller.parsed_lang)]
        players = caller.players
        for number, game in enumerate(games, 1):
            white = fold(game.white) == key
            opponent = game.black if white else game.white
            board = game.tracker.board
            tc = game.time_control
            online = "Y" if players.session(opponent) is not None else "N"
            turn = "W" if board.turn else "B"
            lines.append(
                f"{number:2d}: {'W' if white else 'B'} {opponent[:15]:<15} {online} "
                f"[{category_letter(category(game)) + 'u':>3}{tc.minutes:3d} {tc.increment:3d}] "
                f"{material(board, True):2d}-{material(board, False):<2d} "
                f"{turn + str(board.fullmove_number):<4} {live_eco(game) or NO_ECO:<3} "
                f"{fics_date(game.adjourned_at, lang=caller.parsed_lang)}")
        caller.send("\n".join(lines))


COMMANDS = (MatchCommand(), AcceptCommand(), DeclineCommand(), WithdrawCommand(),
            PendingCommand(), ResignCommand(), DrawCommand(), AbortCommand(), AdjournCommand(),
            FlagCommand(), TakebackCommand(), ResumeCommand(), StoredCommand())
