"""What ``who`` and ``games`` list, and how they pick it: FICS's option letters.

``who`` takes a run of letters (spaces allowed between them): filters
(``o r f a R U B``), a sort order (a rating category, ``A`` alphabetical,
``l`` alphabetical without ratings), a layout (``t`` terse, ``I`` one
machine-readable line per player) and a part of the list (``1``-``3`` for a
third, ``ij`` for the i-th of j parts).  ``games`` takes ``/`` (or ``-``)
and the letters of the game categories to list.

The ``I`` line is also what the ``pin`` ivar's ``<wa>`` line carries, so
both are built here: the handle, a status character, two hex digits of
title flags and, for each rating category asked for, a rating and its
provshow mark (``1500P``, ``1830 ``, ``0P`` for none: see
:mod:`ficsfen.server.rating_view`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Hashable, TypeVar

from ficsfen.server.interfaces import IExaminedGame

__all__ = ["GAME_CATEGORIES", "RATING_CATEGORIES", "WHO_SORT_TYPES", "WhoCache", "WhoOptions", "WhoOptionsError",
           "interface_entry", "parse_games_flags", "parse_who_options", "status_char"]

#: The rating categories of the ``I`` layout and of ``<wa>`` lines, by letter,
#: in the order pychess asks for them (``who IbslwBzSLx``).
RATING_CATEGORIES: dict[str, str] = {
    "b": "blitz", "s": "standard", "l": "lightning", "w": "wild/fr", "B": "bughouse",
    "z": "crazyhouse", "S": "suicide", "L": "losers", "x": "atomic"}

#: ``games /FLAGS`` letters: the played-game categories, ``e`` examined games
#: and the variants FICS has (crazyhouse and wild/fr are played here).
GAME_CATEGORIES: dict[str, str] = {
    "b": "blitz", "s": "standard", "l": "lightning", "u": "untimed", "e": "examined",
    "w": "wild", "x": "atomic", "z": "crazyhouse", "B": "bughouse", "L": "losers",
    "S": "suicide"}

#: ``who``'s filters; a player is listed when every filter given keeps them.
WHO_FILTERS = frozenset("orfaRUB")
#: ``who``'s sort letters outside the ``I`` layout (FICS's: ``L`` is lightning there).
WHO_SORTS = frozenset("sbwzLSBAl")
#: The FICS type whose rating ``who`` shows (and sorts by) for each sort letter:
#: ``A`` lists by handle with the blitz column, ``l`` (absent) without any.
WHO_SORT_TYPES: dict[str, str] = {
    "b": "blitz", "s": "standard", "w": "wild/fr", "z": "crazyhouse", "L": "lightning",
    "S": "suicide", "B": "bughouse", "A": "blitz"}
WHO_LAYOUTS = frozenset("tvnI")


class WhoOptionsError(ValueError):
    """Letters ``who`` or ``games`` do not know, or a part of the list that does not exist."""


@dataclass(frozen=True)
class WhoOptions:
    """A parsed ``who`` request.

    ``columns`` are the rating categories of the ``I`` layout, in the order
    asked (blitz alone when none is named); ``part`` is ``(i, j)``: the i-th
    of j equal parts of the list.
    """

    filters: frozenset[str] = frozenset()
    order: str = "b"
    layout: str = "t"
    columns: tuple[str, ...] = ("b",)
    part: tuple[int, int] | None = None


def parse_who_options(text: str) -> WhoOptions:
    """Read ``who``'s letters (blanks between them ignored).

    With ``I`` anywhere, rating letters name the ``I`` line's categories
    (``games``' letters: ``l`` lightning, ``L`` losers); otherwise they are
    FICS's sort orders (``L`` lightning, ``l`` no ratings).

    :raises WhoOptionsError: an unknown letter, a digit run that names no
        part of the list, or two different layouts.
    """
    letters = "".join(text.split())
    layout_letters = {c for c in letters if c in WHO_LAYOUTS}
    if len(layout_letters) > 1:
        raise WhoOptionsError(text)
    layout = layout_letters.pop() if layout_letters else "t"
    filters: set[str] = set()
    columns: list[str] = []
    order = "b"
    part = None
    i = 0
    while i < len(letters):
        c = letters[i]
        if c.isascii() and c.isdigit():
            run = letters[i:i + 2] if (nxt := letters[i + 1:i + 2]).isascii() and nxt.isdigit() else c
            part = _part(run, text)
            i += len(run)
            continue
        if layout == "I" and c in RATING_CATEGORIES:
            if c not in columns:
                columns.append(c)
        elif c in WHO_LAYOUTS:
            pass
        elif c in WHO_FILTERS or c in WHO_SORTS:
            if c in WHO_FILTERS:
                filters.add(c)
            if c in WHO_SORTS:
                order = c
        else:
            raise WhoOptionsError(text)
        i += 1
    return WhoOptions(frozenset(filters), order, layout, tuple(columns) or ("b",), part)


def _part(run: str, text: str) -> tuple[int, int]:
    """``"2"`` is the second third; ``"29"`` the second of nine parts."""
    if len(run) == 1:
        if run not in "123":
            raise WhoOptionsError(text)
        return int(run), 3
    i, j = int(run[0]), int(run[1])
    if not 1 <= i <= j:
        raise WhoOptionsError(text)
    return i, j


def parse_games_flags(word: str) -> frozenset[str]:
    """The category letters of ``/bslwBzSLx`` (or ``-bs``).

    :raises WhoOptionsError: no letter, or a letter that names no category.
    """
    letters = word[1:]
    if not letters or any(c not in GAME_CATEGORIES for c in letters):
        raise WhoOptionsError(word)
    return frozenset(letters)


def status_char(game: object | None, *, open_: bool = True) -> str:
    """FICS's status mark: ``#`` examining, ``^`` playing, ``:`` not open, else a blank."""
    if game is not None:
        return "#" if IExaminedGame.providedBy(game) else "^"
    return " " if open_ else ":"


def interface_entry(handle: str, status: str, registered: bool, columns: list[str]) -> str:
    """One ``I``-layout line: ``alice^001500P0P...`` (01 marks an unregistered player),
    ``columns`` each rating with its mark (:attr:`.rating_view.Shown.marked`)."""
    return f"{handle}{status}{'00' if registered else '01'}{''.join(columns)}"


_Request = TypeVar("_Request", bound=Hashable)


class WhoCache:
    """``who`` answers already written, by request, while nothing they list changes.

    With a couple of thousand players online one listing costs milliseconds
    of the one server thread, and clients (or a crowd of non-readers) ask
    for it again and again: each answer is rendered once and reused until
    ``version()`` (the server's count of changes to what ``who`` shows:
    logins, logouts, games started or ended, ``open`` set) moves on.  A
    request is the parsed :class:`WhoOptions` with the language of its
    trailer (clients parse it: English for every interface), so one answer
    serves everyone reading that language.
    At most ``size`` requests are kept, the least recently asked dropped
    first, so odd letter combinations cannot grow it.

    While the listing keeps changing (a crowd logging in), every change
    would mean rendering every answer again: the answers are renewed at
    most once every ``refresh`` seconds of ``clock``.  A change after a
    quiet ``refresh`` seconds shows at once; the next ones within the
    same ``refresh`` seconds show at the next renewal, so an answer is
    never more than ``refresh`` seconds behind.
    """

    def __init__(self, version: Callable[[], Hashable], *, size: int = 16,
                 clock: Callable[[], float] | None = None, refresh: float = 1.0) -> None:
        self._version = version
        self._size = size
        self._clock = clock
        self._refresh = refresh if clock is not None else 0.0
        self._seen: Hashable = None
        self._renewed = -math.inf  # clock time of the last renewal for a change
        self._answers: dict[Hashable, str | None] = {}
        #: How many answers were rendered (not served from the cache).
        self.renders = 0

    def answer(self, request: _Request, render: Callable[[_Request], str | None]) -> str | None:
        """``render(request)``'s text, rendered again when the listing changed (see above)."""
        version = self._version()
        if version != self._seen:
            first = self._seen is None
            now = self._clock() if self._clock is not None else 0.0
            if first or now - self._renewed >= self._refresh:
                self._answers.clear()
                self._seen = version
                if not first:
                    self._renewed = now
        if request in self._answers:
            text = self._answers[request] = self._answers.pop(request)  # now the newest
            return text
        self.renders += 1
        text = self._answers[request] = render(request)
        if len(self._answers) > self._size:
            del self._answers[next(iter(self._answers))]
        return text
