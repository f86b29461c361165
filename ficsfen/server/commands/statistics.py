"""The rating lists: ``best``, ``hbest``, ``rank`` and ``ratings``.

Each reads the store off the reactor thread (``read(function, *args)``,
the server's :class:`~ficsfen.server.reads.StoreReads`) and returns the
Deferred.  ``best`` and ``rank`` list the *active* players only: FICS's
rule, an RD under 80 once grown with the time since their last rated game
(:mod:`ficsfen.server.store.rating_reads`).  ``hbest`` lists the highest
ratings ever reached (each player's ``best``).

The tables keep lasker's layout (the FICS server's source): one column per
category, ``  1. handle       1850`` in each, a tied rating without its
place; a player of ``rank`` who is not active shows ``----`` instead of a
place.  Clients may read them: headings and category names are rendered in
the caller's ``parsed_lang`` (FICS's English for an interface).
"""

from __future__ import annotations

import time
from typing import Any, Callable

from twisted.internet.defer import Deferred, maybeDeferred, succeed

from ficsfen.commands.base import Command
from ficsfen.i18n import Message, msg
from ficsfen.names import fold
from ficsfen.server.commands.store_commands import Reader, StoreCommand, StoreGetter
from ficsfen.server.glicko import Category, GlickoConstants, aged_rd
from ficsfen.server.interfaces import IServerCaller, IServerDirectory
from ficsfen.server.parsed import parsed
from ficsfen.server.store.interfaces import IStore
from ficsfen.server.store.rating_reads import RatingRow
from ficsfen.server.zones import fics_date

__all__ = ["BestCommand", "HbestCommand", "RankCommand", "RatingsCommand", "commands",
           "rank_columns"]

#: ``best`` and ``hbest`` list this many players per category; ``rank`` as many lines.
SHOWN = 20
#: ``rank M-N`` shows at most this many lines.
RANK_MOST = 100
#: Columns side by side (each 25 characters wide: three fit 80 columns).
_PER_ROW = 3
_WIDTH = 25

#: The category letters, FICS's, in the order of the columns.
LETTERS: dict[str, Category] = {
    "b": Category.BLITZ, "s": Category.STANDARD, "l": Category.LIGHTNING,
    "w": Category.WILD, "z": Category.CRAZYHOUSE}
#: The columns without letters: FICS's three speeds.
DEFAULT_LETTERS = "bsl"

TITLES: dict[Category, Message] = {
    Category.BLITZ: parsed(msg("Blitz")), Category.STANDARD: parsed(msg("Standard")),
    Category.LIGHTNING: parsed(msg("Lightning")), Category.WILD: parsed(msg("Wild")),
    Category.CRAZYHOUSE: parsed(msg("Crazyhouse"))}

_NO_STORE = msg("This server keeps no data file: it has no ratings.")
_NO_RATINGS = parsed(msg("No ratings to show."))


class _Letters(ValueError):
    """A word that is not category letters."""


def _categories(word: str | None) -> list[Category]:
    """The categories of ``b s l w z`` letters, in the columns' order (FICS's three
    speeds without any).  :raises _Letters: another letter."""
    if not word:
        word = DEFAULT_LETTERS
    if any(c not in LETTERS for c in word):
        raise _Letters(word)
    return [category for letter, category in LETTERS.items() if letter in word]


def _entry(place: int | None, name: str, rating: float, *, tied: bool) -> str:
    """One cell: ``   1. alice        1850``; a tie without its place, ``----`` for a
    player ranked without being active (``place`` None)."""
    if place is None:
        head = "----  "
    elif tied:
        head = "      "
    else:
        head = f"{place:>4}. "
    return f"{head}{name[:12]:<12} {round(rating):>4}"


def rank_columns(columns: list[tuple[Category, list[str]]], lang: str) -> list[str]:
    """Columns of cells side by side under their titles, three at most a row of
    columns (a blank line between rows of columns)."""
    lines: list[str] = []
    for start in range(0, len(columns), _PER_ROW):
        group = columns[start:start + _PER_ROW]
        if lines:
            lines.append("")
        lines.append("".join(f"{TITLES[c].render(lang):^{_WIDTH}}" for c, _ in group).rstrip())
        lines.append("")
        for i in range(max(len(cells) for _, cells in group)):
            lines.append("".join(f"{cells[i] if i < len(cells) else '':<{_WIDTH}}"
                                 for _, cells in group).rstrip())
    return lines


def _cells(rows: list[RatingRow], first_place: int, *, key: Callable[[RatingRow], float],
           target: str | None = None, inactive: bool = False) -> list[str]:
    """The cells of ``rows`` from place ``first_place``; ``target`` (folded) shown with
    ``----`` when ``inactive``, taking no place."""
    cells = []
    counted = 0  # the rows that take a place so far
    previous: int | None = None
    for row in rows:
        value = round(key(row))
        if inactive and target is not None and fold(row.name) == target:
            cells.append(_entry(None, row.name, key(row), tied=False))
            continue
        cells.append(_entry(first_place + counted, row.name, key(row), tied=previous == value))
        counted += 1
        previous = value
    return cells


def _send_columns(caller: IServerCaller, columns: list[tuple[Category, list[str]]]) -> None:
    """Send ``columns`` side by side (:func:`rank_columns`), or "No ratings to show."
    when there are none."""
    if not columns:
        caller.send(_NO_RATINGS)
        return
    caller.send("\n".join(rank_columns(columns, caller.parsed_lang)))


def _rating(row: RatingRow) -> float:
    """The row's current rating."""
    return row.rating


#: Reads the lists of one table: each category with its rows, in the columns' order.
_Lists = Callable[[], list[tuple[Category, list[RatingRow]]]]


class _StatisticsCommand(StoreCommand):
    """The store, the reader, the rating constants and the wall clock of the lists."""

    def __init__(self, store: StoreGetter, *, constants: Callable[[], GlickoConstants],
                 read: Reader = maybeDeferred, now: Callable[[], float] = time.time) -> None:
        super().__init__(store, read)
        self.constants = constants
        self.now = now

    def _store(self, caller: IServerCaller) -> IStore | None:
        """The store, or ``None`` once the caller is told there is no data file."""
        store = self.store()
        if store is None:
            caller.send(_NO_STORE)
        return store

    def _open(self, caller: IServerCaller, letters: str | None
              ) -> tuple[list[Category], IStore] | None:
        """The categories of ``letters`` and the store; ``None`` once the caller is sent
        the usage (letters that are not categories) or told there is no data file."""
        try:
            categories = _categories(letters)
        except _Letters:
            self.send_usage(caller)
            return None
        store = self._store(caller)
        if store is None:
            return None
        return categories, store

    def _table(self, caller: IServerCaller, lists: _Lists, first: int,
               key: Callable[[RatingRow], float]) -> Deferred[None]:
        """Run ``lists`` through the reader, then send each category that has rows as a
        column numbered from ``first``, valued by ``key``."""
        def show(found: list[tuple[Category, list[RatingRow]]]) -> None:
            _send_columns(caller, [(c, _cells(rows, first, key=key)) for c, rows in found
                                   if rows])

        return self.read(lists).addCallback(show)

    def _active(self) -> dict[str, Callable[[RatingRow], bool]]:
        """FICS's "active" rule, as the rating update sees it: played, and the RD grown
        since the last game at most ``active_rd`` (:meth:`GlickoConstants.established`)."""
        constants, now = self.constants(), self.now()

        def active(row: RatingRow) -> bool:
            rd = aged_rd(row.rd, row.last_played, now, constants)
            return row.total > 0 and rd <= constants.active_rd

        return {"active": active}


class _TopCommand(_StatisticsCommand):
    """A table of the :data:`SHOWN` first rows of each category named by letters:
    :meth:`top` reads them, :meth:`value` is the number shown."""

    spec = "o"

    def run(self, caller: IServerCaller, letters: str | None, *,
            directory: IServerDirectory) -> Deferred[None] | None:
        opened = self._open(caller, letters)
        if opened is None:
            return None
        categories, store = opened
        top = self.top(store)
        return self._table(caller, lambda: [(c, top(c)) for c in categories], 1, self.value)

    def top(self, store: IStore) -> Callable[[Category], list[RatingRow]]:  # pragma: no cover
        """A store read: a category's first rows, highest first."""
        raise NotImplementedError

    def value(self, row: RatingRow) -> float:  # pragma: no cover
        """The rating a row shows."""
        raise NotImplementedError


class BestCommand(_TopCommand):
    """``best [b][s][l][w][z]``: the 20 highest-rated active players of each category."""

    name = "best"
    usage = msg("best [b][s][l][w][z]")

    def top(self, store: IStore) -> Callable[[Category], list[RatingRow]]:
        active = self._active()
        return lambda c: store.top_ratings(c.value, limit=SHOWN, **active)

    def value(self, row: RatingRow) -> float:
        return row.rating


class HbestCommand(_TopCommand):
    """``hbest [b][s][l][w][z]``: the 20 highest ratings ever reached in each category."""

    name = "hbest"
    usage = msg("hbest [b][s][l][w][z]")

    def top(self, store: IStore) -> Callable[[Category], list[RatingRow]]:
        return lambda c: store.top_best(c.value, limit=SHOWN)

    def value(self, row: RatingRow) -> float:
        return row.best or 0.0


def _range(word: str) -> tuple[int, int] | None:
    """``M-N`` (at most :data:`RANK_MOST` places) or ``N`` (20 places from N); ``None``
    for a word that is neither."""
    low, dash, high = word.partition("-")
    if not (low.isascii() and low.isdigit()) or (dash and not (high.isascii() and high.isdigit())):
        return None
    first = max(1, int(low))
    last = int(high) if dash else first + SHOWN - 1
    if last < first:
        return None
    return first, min(last, first + RANK_MOST - 1)


class RankCommand(_StatisticsCommand):
    """``rank [HANDLE|M-N|N] [b][s][l][w][z]``: a player's place among the active players
    and the places around it, or the players of places M to N."""

    name = "rank"
    spec = "oo"
    usage = msg("rank [HANDLE|M-N] [b][s][l][w][z]")

    def run(self, caller: IServerCaller, who: str | None, letters: str | None, *,
            directory: IServerDirectory) -> Deferred[None] | None:
        opened = self._open(caller, letters)
        if opened is None:
            return None
        categories, store = opened
        places = _range(who) if who is not None else None
        if places is not None:
            return self._places(caller, store, categories, *places)
        return self.for_player(caller, who, store,
                               lambda handle: self._around(handle, caller, store, categories))

    def _places(self, caller: IServerCaller, store: IStore, categories: list[Category],
                first: int, last: int) -> Deferred[None]:
        active = self._active()

        def lists() -> list[tuple[Category, list[RatingRow]]]:
            return [(c, store.top_ratings(c.value, offset=first - 1, limit=last - first + 1,
                                          **active)) for c in categories]

        return self._table(caller, lists, first, _rating)

    def _around(self, handle: str, caller: IServerCaller, store: IStore,
                categories: list[Category]) -> Any:
        active = self._active()
        target = fold(handle)

        def lists() -> list[tuple[Category, int, list[RatingRow], bool]]:
            found = []
            for c in categories:
                ranked = store.rank(handle, c.value, **active)
                if ranked is None:
                    continue
                place, row = ranked
                first = max(1, place - SHOWN // 2)
                rows = store.top_ratings(c.value, offset=first - 1, limit=SHOWN, **active)
                inactive = all(fold(r.name) != target for r in rows)
                if inactive:  # shown at the place its rating would have
                    at = min(place - first, len(rows))
                    rows = (rows[:at] + [row] + rows[at:])[:SHOWN]
                found.append((c, first, rows, inactive))
            return found

        def show(found: list[tuple[Category, int, list[RatingRow], bool]]) -> None:
            _send_columns(caller, [(c, _cells(rows, first, key=_rating, target=target,
                                              inactive=inactive))
                                   for c, first, rows, inactive in found])

        return self.read(lists).addCallback(show)


#: ``ratings``' heading: each label, and the width of the column it heads.
_HEADINGS: tuple[tuple[Message, int], ...] = (
    (parsed(msg("rating")), 8), (parsed(msg("RD")), 8), (parsed(msg("win")), 8),
    (parsed(msg("loss")), 8), (parsed(msg("draw")), 8), (parsed(msg("total")), 8),
    (parsed(msg("best")), 0))


def ratings_table(rows: list[RatingRow], lang: str, zone: str = "") -> list[str]:
    """FICS's rating table (``finger``'s): one line per category played rated, in the
    columns' order; the best with its date once established."""
    by_category = {row.category: row for row in rows}
    heading = " " * 12 + "".join(f"{label.render(lang):>{width}}" if width else
                                 f"   {label.render(lang)}" for label, width in _HEADINGS)
    lines = [heading.rstrip()]
    for category in LETTERS.values():
        row = by_category.get(category.value)
        if row is None:
            continue
        best = ""
        if row.best is not None and row.best_at is not None:
            best = f"   {round(row.best):>4} ({fics_date(row.best_at, zone, lang=lang)})"
        lines.append(f"{TITLES[category].render(lang):<12}{round(row.rating):>8}{row.rd:>8.1f}"
                     f"{row.wins:>8}{row.losses:>8}{row.draws:>8}{row.total:>8}{best}")
    return lines


class RatingsCommand(_StatisticsCommand):
    """``ratings [HANDLE]``: a player's ratings, RD and record in each category."""

    name = "ratings"
    spec = "o"
    usage = msg("ratings [HANDLE]")

    def run(self, caller: IServerCaller, who: str | None, *,
            directory: IServerDirectory) -> Deferred[None] | None:
        store = self._store(caller)
        if store is None:
            return None

        def named(handle: str) -> Any:
            return self.read(store.player_rating_rows, handle).addCallback(show, handle)

        def show(rows: list[RatingRow], handle: str) -> None:
            lang = caller.parsed_lang
            if not rows:
                caller.send(parsed(msg("{handle} has not played any rated games.",
                                       handle=handle)))
                return
            caller.send("\n".join([
                parsed(msg("Ratings for {handle}:", handle=rows[0].name)).render(lang), "",
                *ratings_table(rows, lang, getattr(caller, "tzone", ""))]))

        if who is None and not caller.registered:
            caller.send(msg("Only registered players have ratings."))
            return succeed(None)
        return self.for_player(caller, who, store, named)


def commands(store: StoreGetter, *, constants: Callable[[], GlickoConstants],
             read: Reader = maybeDeferred, now: Callable[[], float] = time.time
             ) -> list[Command]:
    """The rating lists, reading ``store()`` through ``read``."""
    return [cls(store, constants=constants, read=read, now=now)
            for cls in (BestCommand, HbestCommand, RankCommand, RatingsCommand)]
