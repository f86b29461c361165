"""Reads of the ``ratings`` table and of each game's ratings, on the store's read connection.

What the statistics commands list (``best``, ``hbest``, ``rank``,
``ratings``) and what ``history``, ``smoves`` and exported PGN show of a
finished game's ratings.  Writes are the game end's (in the same
transaction): nothing here writes.

A player is *active* in a category (listed by ``best`` and ranked by
``rank``, FICS's rule) while their RD, grown with the time since their last
rated game, is at most the system's ``active_rd``: the caller says so with an
``active(row)`` predicate (:func:`ficsfen.server.glicko.aged_rd` and
:meth:`~ficsfen.server.glicko.GlickoConstants.established`), so that the rule
is the one the rating update uses.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from ficsfen.names import fold

__all__ = ["GameRatings", "RatingReads", "RatingRow"]

_COLUMNS = "a.name, r.rating, r.rd, r.wins, r.losses, r.draws, r.best, r.best_at, r.last_played"


@dataclass(frozen=True, slots=True)
class RatingRow:
    """One player's stored rating in one category (``name`` as registered)."""

    name: str
    category: str
    rating: float
    rd: float
    wins: int = 0
    losses: int = 0
    draws: int = 0
    best: float | None = None
    best_at: float | None = None
    last_played: float | None = None

    @property
    def total(self) -> int:
        return self.wins + self.losses + self.draws


@dataclass(frozen=True, slots=True)
class GameRatings:
    """A game's ratings as it started (``None``: not kept, a guest's) and, once ended
    rated, each side's change."""

    white: int | None = None
    black: int | None = None
    white_change: float | None = None
    black_change: float | None = None

    def after(self, white: bool) -> int | None:
        """One side's rating after the game (before it if unrated): FICS's ``history``."""
        rating, change = ((self.white, self.white_change) if white
                          else (self.black, self.black_change))
        if rating is None:
            return None
        return round(rating + (change or 0.0))


def _row(category: str, row: tuple) -> RatingRow:
    return RatingRow(row[0], category, *row[1:])


class RatingReads:
    """``reader()`` gives the read connection (it raises ``StoreClosedError`` once closed)."""

    def __init__(self, reader: Callable[[], sqlite3.Connection]) -> None:
        self._reader = reader

    def player_rating_rows(self, name: str) -> list[RatingRow]:
        """``name``'s stored ratings (any case), one per category played rated."""
        rows = self._reader().execute(
            f"SELECT r.category, {_COLUMNS} FROM ratings r JOIN accounts a ON a.key = r.key "
            "WHERE r.key = ?", (fold(name),)).fetchall()
        return [_row(row[0], row[1:]) for row in rows]

    def top_ratings(self, category: str, *, offset: int = 0, limit: int = 20,
                    active: Callable[[RatingRow], bool]) -> list[RatingRow]:
        """The active players of ``category``, highest rating first (then by handle):
        ``limit`` of them from position ``offset + 1``."""
        rows = (_row(category, row) for row in self._reader().execute(
            f"SELECT {_COLUMNS} FROM ratings r JOIN accounts a ON a.key = r.key "
            "WHERE r.category = ? ORDER BY r.rating DESC, r.key", (category,)))
        listed = [row for row in rows if active(row)]
        start = max(0, offset)
        return listed[start:start + limit]

    def top_best(self, category: str, *, limit: int = 20) -> list[RatingRow]:
        """The highest ratings ever reached in ``category`` (``best``), highest first."""
        rows = self._reader().execute(
            f"SELECT {_COLUMNS} FROM ratings r JOIN accounts a ON a.key = r.key "
            "WHERE r.category = ? AND r.best IS NOT NULL "
            "ORDER BY r.best DESC, r.key LIMIT ?", (category, limit)).fetchall()
        return [_row(category, row) for row in rows]

    def rank(self, name: str, category: str, *,
             active: Callable[[RatingRow], bool]) -> tuple[int, RatingRow] | None:
        """``name``'s place among the active players of ``category`` (1 for the highest;
        tied ratings share the place of the first) and their row; ``None`` with no rating.
        A player not active gets the place their rating would have."""
        reader = self._reader()
        found = reader.execute(
            f"SELECT {_COLUMNS} FROM ratings r JOIN accounts a ON a.key = r.key "
            "WHERE r.key = ? AND r.category = ?", (fold(name), category)).fetchone()
        if found is None:
            return None
        mine = _row(category, found)
        above = sum(1 for row in reader.execute(
            f"SELECT {_COLUMNS} FROM ratings r JOIN accounts a ON a.key = r.key "
            "WHERE r.category = ? AND r.rating > ?", (category, mine.rating))
            if active(_row(category, row)))
        return above + 1, mine

    def game_ratings(self, ids: Iterable[int]) -> dict[int, GameRatings]:
        """The ratings kept with each game of ``ids`` (games not found left out)."""
        wanted = list(dict.fromkeys(ids))
        found: dict[int, GameRatings] = {}
        reader = self._reader()
        for start in range(0, len(wanted), 500):  # SQLite's bound on parameters
            chunk = wanted[start:start + 500]
            rows = reader.execute(
                "SELECT id, white_rating, black_rating, white_change, black_change FROM games "
                f"WHERE id IN ({', '.join('?' * len(chunk))})", chunk).fetchall()
            for game_id, *values in rows:
                found[game_id] = GameRatings(*values)
        return found

