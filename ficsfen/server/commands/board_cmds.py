"""``refresh`` (the board again) and ``moves`` (the move list), FICS-style."""

from __future__ import annotations

import time
from typing import Callable, Sequence

from zope.interface import implementer

from ficsfen.commands.base import Command
from ficsfen.commands.fen import FenCommand, NoGameError
from ficsfen.fen import STARTING_FEN
from ficsfen.i18n import msg
from ficsfen.interfaces import ICaller, IClockedGame, IGame
from ficsfen.names import NameResolutionError
from ficsfen.server.boards import (RELATION_STARTING_POSITION, Style12Frame, category,
                                   style1)
from ficsfen.server.clock import format_move_time
from ficsfen.server.commands.info import fics_date
from ficsfen.server.game_values import movelist_reason
from ficsfen.server.interfaces import IPlayedGame, IServerCaller, IServerDirectory
from ficsfen.server.parsed import parsed
from ficsfen.tracker import Tracker

__all__ = ["STILL_IN_PROGRESS", "MovesCommand", "RefreshCommand", "game_move_lines", "move_list",
           "move_list_lines", "movelist_ending"]


def movelist_ending(reason: str, score: str, white: str, black: str, lang: str) -> str:
    """``{White resigns} 0-1``: the closing line of a finished or adjourned game's movelist.

    ``reason`` is the English text of the end (it names players by handle);
    the line names them by colour, as FICS's movelists do, in ``lang`` (the
    reader's language of parsed texts: FICS's English for an interface).
    """
    return "{" + parsed(movelist_reason(reason, white, black)).render(lang) + "} " + score


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


#: The end of a move list while the game goes on.
STILL_IN_PROGRESS = parsed(msg("{{Still in progress}} {score}", score="*"))


def move_list(game: IGame, lang: str, *, started: float = 0.0,
              start_board: str | None = None, ratings: tuple[int, int] = (0, 0)) -> str:
    """The ``moves`` text of ``game``, FICS's layout, in ``lang``.

    xboard, eboard and pychess parse it all (the header lines, the ``Move``
    heading, the closing ``{...} *``, which names the loser by colour:
    :func:`movelist_ending`): ``lang`` is the reader's language of parsed
    texts (``parsed_lang``: FICS's English for an interface).
    ``started`` (epoch seconds) dates the game; ``start_board`` (ivar
    startpos) is the board of a starting position other than the usual
    one, shown before the moves; ``ratings`` both players' (0: ``UNR``).
    """
    return "\n".join([parsed(msg("Movelist for game {number}:", number=game.number)).render(lang),
                      "", *game_move_lines(game, lang, started=started, start_board=start_board,
                                           ratings=ratings)])


def game_move_lines(game: IGame, lang: str, *, started: float,
                    start_board: str | None = None,
                    ratings: tuple[int, int] = (0, 0)) -> list[str]:
    """The move list of ``game`` (played, adjourned or examined) from its header line to
    its closing ``{...}`` line (:func:`move_list_lines`); ``ratings`` both players'
    (0: ``UNR``)."""
    clocked = IClockedGame(game, None)
    times = clocked.move_times if clocked is not None else ()
    minutes, increment = ((clocked.time_control.minutes, clocked.time_control.increment)
                          if clocked is not None else (0, 0))
    result = game.result if IPlayedGame.providedBy(game) else None
    ending = (movelist_ending(result.reason.render("en"), result.score, game.white, game.black,
                              lang)
              if result is not None else STILL_IN_PROGRESS.render(lang))
    return move_list_lines(
        white=game.white, black=game.black, started=started, minutes=minutes,
        increment=increment, category=category(game), tracker=game.tracker, times=times,
        ending=ending, lang=lang, start_board=start_board, ratings=ratings,
        rated=bool(getattr(game, "rated", False)))


_MOVE_HEADING = parsed(msg("Move"))


def move_list_lines(*, white: str, black: str, started: float, minutes: int, increment: int,
                    category: str, tracker: Tracker, times: Sequence[float], ending: str,
                    lang: str, start_board: str | None = None,
                    ratings: tuple[int | None, int | None] = (0, 0),
                    rated: bool = False) -> list[str]:
    """A move list from its header line to ``ending`` (``{reason} result``), FICS's layout
    in ``lang`` (the reader's language of parsed texts).

    ``moves`` puts a ``Movelist for game N:`` line before it; ``smoves``
    (a stored game) shows it as it is.  ``times`` are each ply's seconds;
    ``ratings`` the players' as the game started (FICS's ``UNR`` for 0 or none);
    ``rated``: the header says ``Rated blitz match`` rather than ``Unrated``.
    """
    history = tracker.history
    unrated = parsed(msg("UNR")).render(lang)
    shown = [str(r) if r else unrated for r in ratings]
    lines = [parsed(msg("{white} ({white_rating}) vs. {black} ({black_rating}) --- {date}",
                        white=white, white_rating=shown[0], black=black,
                        black_rating=shown[1], date=fics_date(started, lang=lang))).render(lang),
             parsed(msg("Rated {category} match, initial time: {minutes} minutes, "
                        "increment: {increment} seconds.", category=category, minutes=minutes,
                        increment=increment) if rated else
                    msg("Unrated {category} match, initial time: {minutes} minutes, "
                        "increment: {increment} seconds.", category=category, minutes=minutes,
                        increment=increment)).render(lang)]
    if tracker.initial_fen != STARTING_FEN and start_board is None:  # FICS: the board, one blank
        lines.append(msg("Initial position: {fen}", fen=tracker.initial_fen).render(lang))
    if start_board is not None:
        lines += ["", start_board]
    lines += ["", f"{_MOVE_HEADING.render(lang):<6}{white:<24}{black}",
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
    lines.append("      " + ending)
    return lines


def starting_board(caller: IServerCaller, game: IGame) -> str | None:
    """The board of ``game``'s starting position for a ``startpos`` client, if it is unusual.

    FICS shows it in the caller's style; style 12 marks it with relation -4.
    """
    if not caller.ivars["startpos"] or game.tracker.initial_fen == STARTING_FEN:
        return None
    if caller.style == 12:
        return Style12Frame.starting_position(game, ms=caller.ivars["ms"]).line(
            RELATION_STARTING_POSITION, False)
    return style1(_StartingPosition(game), viewer="", lang=caller.parsed_lang)


@implementer(IGame)
class _StartingPosition:
    """``game`` as it stood before its first move (for the style 1 diagram)."""

    examined = False

    def __init__(self, game: IGame) -> None:
        self.number = game.number
        self.white = game.white
        self.black = game.black
        self.tracker = Tracker(game.tracker.initial_fen, variant=game.tracker.variant)

    def players(self) -> tuple[str, str]:
        return (self.white, self.black)


class MovesCommand(Command):
    name = "moves"
    spec = "o"
    usage = msg("moves [game number | handle]")

    def __init__(self, now: Callable[[], float] = time.time) -> None:
        self.now = now

    def run(self, caller: IServerCaller, target: str | None, *,
            directory: IServerDirectory) -> None:
        game = _game_or_tell(caller, target, directory)
        if game is not None:
            started = game.started_at if IPlayedGame.providedBy(game) else self.now()
            ratings = ((0, 0) if not IPlayedGame.providedBy(game) else
                       tuple(shown.value for shown in caller.boards.game_ratings(game)))
            caller.send(move_list(game, caller.parsed_lang, started=started,
                                  start_board=starting_board(caller, game),
                                  ratings=ratings))
