"""The game reads of :class:`~ficsfen.server.store.sqlite.SQLiteStore`.

:class:`GameReads` answers from the store's read connection: one game, the
unfinished games, a player's history, the finished games (an export).  The
contracts are :class:`~.interfaces.IStore`'s, whose methods the store
delegates here.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from typing import Any

from ficsfen.names import fold
from ficsfen.server.store.records import (
    HISTORY_NUMBERS,
    HISTORY_SIZE,
    Adjournment,
    GameEnd,
    GameRecord,
    GameStart,
    GameStatus,
    HistoryEntry,
    MoveRecord,
    StoredGame,
)

__all__ = ["GameReads"]

_GAME_COLUMNS = ("id, white, black, initial_seconds, increment_seconds, start_fen, variant, "
                 "rated, started, status, adjourn_reason, adjourned, adjourn_white_ms, "
                 "adjourn_black_ms, adjourn_ply, result, end_reason, end_code, ended, "
                 "white_rating, black_rating, white_change, black_change")


class GameReads:
    """Games as stored: ``reader()`` gives the read connection (it raises
    :class:`~.errors.StoreClosedError` once the store is closed)."""

    def __init__(self, reader: Callable[[], sqlite3.Connection]) -> None:
        self._reader = reader

    def get_game(self, game_id: int) -> StoredGame | None:
        row = self._reader().execute(f"SELECT {_GAME_COLUMNS} FROM games WHERE id = ?",
                                     (game_id,)).fetchone()
        return None if row is None else self._with_moves(row)

    def unfinished_games(self, name: str | None = None) -> list[StoredGame]:
        where = "status != 'finished'"
        params: tuple[str, ...] = ()
        if name is not None:
            where += " AND (white_key = ? OR black_key = ?)"
            params = (fold(name), fold(name))
        rows = self._reader().execute(f"SELECT {_GAME_COLUMNS} FROM games WHERE {where} "
                                      "ORDER BY id", params).fetchall()
        return [self._with_moves(row) for row in rows]

    def history(self, name: str, limit: int = HISTORY_SIZE) -> list[HistoryEntry]:
        columns = ", ".join(f"g.{c.strip()}" for c in _GAME_COLUMNS.split(","))
        rows = self._reader().execute(
            f"SELECT h.seq, {columns} FROM history h JOIN games g ON g.id = h.game "
            "WHERE h.player = ? ORDER BY h.seq DESC LIMIT ?", (fold(name), limit)).fetchall()

        key = fold(name)
        entries = []
        for row in reversed(rows):
            record = _record(tuple(row)[1:])
            white = record.start.white
            handle = white if fold(white) == key else record.start.black  # as spelled in the game
            entries.append(HistoryEntry((row[0] - 1) % HISTORY_NUMBERS, handle, record))
        return entries

    def history_game(self, name: str, number: int) -> StoredGame | None:
        for entry in self.history(name):
            if entry.number == number:
                return self.get_game(entry.game.id)
        return None

    def finished_games(self, name: str | None = None) -> Iterator[StoredGame]:
        where = "status = 'finished' AND result != '*'"
        params: tuple[str, ...] = ()
        if name is not None:
            where += " AND (white_key = ? OR black_key = ?)"
            params = (fold(name), fold(name))
        cursor = self._reader().execute(f"SELECT {_GAME_COLUMNS} FROM games WHERE {where} "
                                        "ORDER BY ended, id", params)
        for row in cursor:
            yield self._with_moves(row)

    def _with_moves(self, row: sqlite3.Row) -> StoredGame:
        record = _record(tuple(row))
        # Only a game in play has moves in the log, which has no index by game:
        # the other games' are all in ``game_moves``.
        table = "moves" if record.status is GameStatus.PLAYING else "game_moves"
        moves = self._reader().execute(
            f"SELECT ply, san, uci, white_ms, black_ms, took_ms FROM {table} WHERE game = ? "
            "ORDER BY ply", (record.id,))
        return StoredGame(record.id, record.start, record.status, record.adjournment,
                          record.end, tuple(MoveRecord(*m) for m in moves))


def _record(row: tuple[Any, ...]) -> GameRecord:
    (game_id, white, black, initial, increment, fen, variant, rated, started, status,
     adjourn_reason, adjourned, adjourn_white, adjourn_black, adjourn_ply,
     result, end_reason, end_code, ended, white_rating, black_rating, white_change,
     black_change) = row
    start = GameStart(white, black, initial, increment, started, fen, bool(rated), variant,
                      white_rating, black_rating)
    adjournment = None
    if adjourned is not None:
        adjournment = Adjournment(adjourn_reason, adjourned, adjourn_white, adjourn_black,
                                  adjourn_ply)
    end = None if result is None else GameEnd(result, end_reason, end_code, ended,
                                              white_change, black_change)
    return GameRecord(game_id, start, GameStatus(status), adjournment, end)
