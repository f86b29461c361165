"""The ``ratings`` rows of :class:`~ficsfen.server.store.sqlite.SQLiteStore` (schema version 5).

One row per registered player and category once they have played a rated
game in it; no row is the initial rating.  Reads (:class:`PlayerRatings`) use
the store's read connection; the only write, :func:`write_ratings`, runs in
the writer thread inside a game's end (``end_game``), so that a rated result
and the ratings it changed are committed together or not at all.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from ficsfen.names import fold
from ficsfen.server.glicko import Category, Rating

__all__ = ["PlayerRatings", "RatingWrite", "write_ratings"]

_COLUMNS = "category, rating, rd, wins, losses, draws, best, best_at, last_played"
_UPSERT = (f"INSERT INTO ratings (key, {_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
           "ON CONFLICT (key, category) DO UPDATE SET rating = excluded.rating, "
           "rd = excluded.rd, wins = excluded.wins, losses = excluded.losses, "
           "draws = excluded.draws, best = excluded.best, best_at = excluded.best_at, "
           "last_played = excluded.last_played")


@dataclass(frozen=True)
class RatingWrite:
    """A player's new rating in a category, written with a rated game's end."""

    handle: str
    category: Category
    rating: Rating


def _rating(row: tuple[Any, ...]) -> tuple[Category, Rating]:
    category, rating, rd, wins, losses, draws, best, best_at, last_played = row
    return Category(category), Rating(float(rating), float(rd), int(wins), int(losses),
                                      int(draws), best, best_at, last_played)


def write_ratings(conn: sqlite3.Connection, rows: Iterable[RatingWrite]) -> None:
    """Write ``rows`` on ``conn`` (in the writer's transaction); a player without an
    account fails the transaction (the foreign key)."""
    for row in rows:
        r = row.rating
        conn.execute(_UPSERT, (fold(row.handle), row.category.value, r.rating, r.rd, r.wins,
                               r.losses, r.draws, r.best, r.best_at, r.last_played))


class PlayerRatings:
    """Ratings as stored: ``reader()`` gives the read connection (it raises
    :class:`~.errors.StoreClosedError` once the store is closed)."""

    def __init__(self, reader: Callable[[], sqlite3.Connection]) -> None:
        self._reader = reader

    def player_ratings(self, name: str) -> dict[Category, Rating]:
        rows = self._reader().execute(f"SELECT {_COLUMNS} FROM ratings WHERE key = ?",
                                      (fold(name),))
        return dict(_rating(row) for row in rows)

    def all_ratings(self) -> dict[str, dict[Category, Rating]]:
        found: dict[str, dict[Category, Rating]] = {}
        for key, *row in self._reader().execute(f"SELECT key, {_COLUMNS} FROM ratings"):
            category, rating = _rating(tuple(row))
            found.setdefault(key, {})[category] = rating
        return found
