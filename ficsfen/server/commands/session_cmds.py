"""Session commands of our own server: ``who``, ``games``, ``quit``.

``who`` and ``games`` take FICS's option letters (:mod:`ficsfen.server.wholist`);
the lines ICS clients parse (the ``I`` layout, ``games`` lines and both
trailers) keep FICS's layout; the trailers are in FICS's English for an
interface and in the player's language for a person (:mod:`ficsfen.server.parsed`).
"""

from __future__ import annotations

from typing import Any

from ficsfen.commands.base import Command
from ficsfen.i18n import msg, msgn
from ficsfen.interfaces import IGame
from ficsfen.names import fold
from ficsfen.server.boards import category, played_listing
from ficsfen.server.parsed import parsed
from ficsfen.server.interfaces import (IExaminedGame, IPlayedGame, IServerCaller,
                                       IServerDirectory)
from ficsfen.server.rating_view import RatingView, Shown
from ficsfen.server.variant_games import category_letter
from ficsfen.server.wholist import (RATING_CATEGORIES, WHO_SORT_TYPES, WhoCache, WhoOptions,
                                    WhoOptionsError, interface_entry, parse_games_flags,
                                    parse_who_options, status_char)

__all__ = ["GamesCommand", "QuitCommand", "WhoCommand", "games_line"]


def _is_open(session: IServerCaller) -> bool:
    """The ``open`` variable (on by default): open to match requests."""
    return bool(session.variables.get("open", True))


#: ``who``'s filters: which players each letter keeps.  Nobody has a bughouse
#: partner here, so ``B`` keeps nobody; ``r`` keeps registered players (FICS: those
#: whose ``rated`` variable is set; guests play unrated only).
def _free(session: Any, game: object | None) -> bool:
    """Neither playing nor examining: no game here, and (a player of another node of a
    cluster) no game mark from their node."""
    return game is None and not getattr(session, "game_mark", "")


_KEEPS = {
    "o": lambda s, game: _is_open(s),
    "r": lambda s, game: s.registered and bool(s.variables.get("rated", True)),
    "f": lambda s, game: _free(s, game),
    "a": lambda s, game: _free(s, game) and _is_open(s),
    "R": lambda s, game: s.registered,
    "U": lambda s, game: not s.registered,
    "B": lambda s, game: False,
}


class WhoCommand(Command):
    """``who [OPTIONS]``: the players logged in, filtered, sorted and laid out as FICS does."""

    name = "who"
    spec = "s"
    usage = msg("who [o][r][f][a][R][U][B][s][b][w][z][L][S][A][l][t][I][1-3|ij]")

    def __init__(self, *, cache: WhoCache | None = None) -> None:
        #: Answers already rendered, while nothing they list changes (``None``: none kept).
        self.cache = cache

    def run(self, caller: IServerCaller, options: str | None, *,
            directory: IServerDirectory) -> None:
        try:
            request = parse_who_options(options or "")
        except WhoOptionsError:
            self.send_usage(caller)
            return
        if request.layout in "vn":
            caller.send(msg("The v and n layouts are not available here: who lists players "
                            "tersely (t, the default) or one line each for interfaces (I)."))
            return
        lang = caller.parsed_lang

        ratings = caller.boards.ratings

        def listing(key: tuple[WhoOptions, str]) -> str | None:
            return _listing(caller.players.everyone_sorted(), key[0], directory, key[1], ratings)

        key = (request, lang)
        text = listing(key) if self.cache is None else self.cache.answer(key, listing)
        if text is None:
            caller.send(msg("No logged in players match the flags in your who request."))
            return
        caller.send(text)


def _listing(everyone: list, request: WhoOptions, directory: IServerDirectory,
             lang: str, ratings: RatingView) -> str | None:
    """``who``'s answer to ``request`` (None: nobody matches), the same for every caller
    reading clients' texts in ``lang``."""
    games = {fold(s.handle): directory.game_of(s.handle) for s in everyone}
    shown = [s for s in everyone
             if all(_KEEPS[f](s, games[fold(s.handle)]) for f in request.filters)]
    kind = WHO_SORT_TYPES.get(request.order)
    column: dict[str, Shown] = {}
    if kind is not None:
        column = {s.handle: ratings.shown(s.handle, kind) for s in shown}
        if request.order != "A":
            # FICS's rating order: highest first, then registered players before
            # guests, then handles in alphabetical order (``everyone`` is by handle).
            shown.sort(key=lambda s: (-column[s.handle].value, not s.registered))
    shown = _part_of(shown, request)
    if not shown:
        return None
    lines = [_who_line(s, games[fold(s.handle)], request, column, ratings) for s in shown]
    # FICS's trailer (clients read it): always "players", even for one.
    # (English has one form; a language with a singular gives it.)
    lines += ["", parsed(msgn(" {count} players displayed (of {total}). (*) indicates system "
                              "administrator.",
                              " {count} players displayed (of {total}). (*) indicates system "
                              "administrator.", len(shown), total=len(everyone))).render(lang)]
    return "\n".join(lines)


def _part_of(players: list, request: WhoOptions) -> list:
    """The i-th of j parts of the list: together the parts list everyone once.

    (FICS rounds each part's end up, so neighbouring parts may share a player.)
    """
    if request.part is None:
        return players
    i, j = request.part
    return players[len(players) * (i - 1) // j:len(players) * i // j]


def _who_line(session: IServerCaller, game: object | None, request: WhoOptions,
              column: dict[str, Shown], ratings: RatingView) -> str:
    # A player of another node of a cluster: the mark their node published.
    status = getattr(session, "game_mark", "") or status_char(game, open_=_is_open(session))
    if request.layout == "I":
        return interface_entry(session.handle, status, session.registered,
                               [ratings.shown(session.handle, RATING_CATEGORIES[c]).marked
                                for c in request.columns])
    shown = column.get(session.handle)
    if shown is None:  # "who l": FICS's blank rating column
        return f"     {session.display_name()}"
    return f"{shown.text:>4}{status}{session.display_name()}"


def games_line(game: IGame, ratings: tuple[str, str] = ("++++", "++++")) -> str:
    """One ``games`` line: a played game's (:func:`boards.played_listing`, with both
    players' ``ratings``), an examined game's own ``listing()``, else number and players."""
    if IPlayedGame.providedBy(game):
        return played_listing(game, ratings)
    if IExaminedGame.providedBy(game):
        return game.listing()
    return f"{game.number:>3} {game.white} {game.black}"


def _category(game: IGame) -> str:
    """The ``games /FLAGS`` letter that selects ``game``: ``e`` examined, else its speed
    (or variant: ``z`` crazyhouse, ``w`` wild)."""
    if IExaminedGame.providedBy(game):
        return "e"
    if IPlayedGame.providedBy(game):
        return category_letter(category(game))
    return ""


def _matching(games: list[Any], which: str) -> list[Any]:
    """The games ``games N`` (that number) or ``games WORD`` (a player's handle starts with it) lists."""
    if which.isascii() and which.isdigit():
        return [g for g in games if g.number == int(which)]
    prefix = fold(which)
    return [g for g in games if any(fold(h).startswith(prefix) for h in g.players())]


class GamesCommand(Command):
    """``games [/FLAGS] [N|WORD]``: every game, those of some categories, game N, or by handle.

    Examined games come first, as on FICS.  The trailer says "games" even
    for one game: FICS writes "1 game displayed.", and pychess 1.0.3, which
    waits for "N games displayed", then never sees the end of the list.
    """

    name = "games"
    spec = "s"
    usage = msg("games [/bslueBzSLwx] [GAME-NUMBER|WORD]")

    def run(self, caller: IServerCaller, args: str | None, *,
            directory: IServerDirectory) -> None:
        words = (args or "").split()
        flags = [w for w in words if w[:1] in "/-"]
        rest = [w for w in words if w[:1] not in "/-"]
        try:
            if len(flags) > 1 or len(rest) > 1:
                raise WhoOptionsError(args)
            kinds = parse_games_flags(flags[0]) if flags else None
        except WhoOptionsError:
            self.send_usage(caller)
            return
        which = rest[0] if rest else None
        games = directory.games()
        listed = getattr(directory, "listed_elsewhere", None)  # a cluster's other nodes
        elsewhere: list[Any] = list(listed()) if listed is not None else []
        if not games and not elsewhere:
            caller.send(msg("There are no games in progress."))
            return
        shown = games if which is None else _matching(games, which)
        remote = elsewhere if which is None else _matching(elsewhere, which)
        total = len(games) + len(elsewhere)
        if which is not None and not shown and not remote:
            caller.send(msg("There is no game {number}.", number=int(which))
                        if which.isascii() and which.isdigit()
                        else msg("No game in progress involves a player whose handle starts "
                                 "with \"{word}\".", word=which))
            return
        if kinds is not None:
            shown = [g for g in shown if _category(g) in kinds]
            remote = [g for g in remote if g.kind in kinds]
        if not shown and not remote:
            caller.send(msg("No matching games were found (of {total} in progress).",
                            total=total))
            return
        shown.sort(key=lambda g: not IExaminedGame.providedBy(g))
        # FICS's layout and trailer: clients parse both.  The blank first line
        # matters: in block mode pychess reads the frame's first line unstripped,
        # and "  1 ..." would not match its pattern.  The trailer says "games"
        # even for one (see above).
        boards = caller.boards
        lines = [(not IExaminedGame.providedBy(g), g.number,
                  games_line(g, boards.game_rating_texts(g) if IPlayedGame.providedBy(g) else
                             ("++++", "++++"))) for g in shown]
        lines += [(True, g.number, g.line) for g in remote]  # another node's games, by number
        if remote:
            lines.sort(key=lambda entry: (entry[0], entry[1]))
        count = len(lines)
        text = "\n" + "\n".join(entry[2] for entry in lines) + "\n\n"
        if count < total:
            trailer = parsed(msgn("  {count} games displayed (of {total} in progress).",
                                  "  {count} games displayed (of {total} in progress).",
                                  count, total=total))
        else:
            trailer = parsed(msgn("  {count} games displayed.", "  {count} games displayed.",
                                  total))
        caller.send(text + caller.render(trailer))


class QuitCommand(Command):
    name = "quit"
    aliases = ("exit", "bye")
    spec = ""
    #: Never run by a prefix: ``q`` must not log a player out (FICS).
    whole_name = True
    usage = msg("quit")

    def run(self, caller: IServerCaller, *, directory: IServerDirectory) -> None:
        caller.send(msg("Logging you out."))
        caller.send(msg("Thank you for using ficsfen. Goodbye!"))
        caller.players.logout(caller, reason="quit")
