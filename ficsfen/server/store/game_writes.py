"""The game writes of :class:`~ficsfen.server.store.sqlite.SQLiteStore` and its move log.

:class:`GameWrites` starts, moves, takes back, adjourns, resumes and ends
games through the store's :class:`~.writer.Writer` (each Deferred fires once
committed), and keeps what the store knows of its move log (schema version
3): the moves of games in play are appended to ``move_log`` and copied to
``game_moves`` when their game leaves play; the log's start is cut now and
then.  :func:`fold_log` empties the log at a server's start.  The contracts
are :class:`~.interfaces.IStore`'s, whose methods the store delegates here.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from twisted.internet.defer import Deferred, fail

from ficsfen.names import fold
from ficsfen.server.store.errors import NoSuchGameError, StoreWriteError
from ficsfen.server.store.records import (
    HISTORY_NUMBERS,
    Adjournment,
    GameEnd,
    GameStart,
    MoveRecord,
)
from ficsfen.server.store.rating_rows import RatingWrite, write_ratings
from ficsfen.server.store.writer import Writer

__all__ = ["LOG_CUT_ROWS", "GameWrites", "fold_log"]

_MOVE_COLUMNS = "game, ply, san, uci, white_ms, black_ms, took_ms"
_INSERT_MOVE = f"INSERT INTO move_log (id, {_MOVE_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
# The log's rows (of the games in play) copied to ``game_moves``, where their
# game's moves are kept together, before the log is emptied: what a restart
# finds in the log are the moves of games that were in play when it stopped.
# A ply found in both (never written so; a file mended by hand) keeps the
# log's row, the later one, rather than stopping the server's start.
_FOLD_LOG = (f"INSERT OR REPLACE INTO game_moves ({_MOVE_COLUMNS}) "
             f"SELECT {_MOVE_COLUMNS} FROM move_log "
             "WHERE game IN (SELECT id FROM games WHERE status = 'playing') ORDER BY id")
# The rows of ended games at the log's start; those of a game still in play
# stay whatever the caller believes (see ``_cut_log``).
_CUT_LOG = ("DELETE FROM move_log WHERE id < ? "
            "AND game NOT IN (SELECT id FROM games WHERE status = 'playing')")
#: Rows the log grows by, past its start, before its start is cut: about
#: 45 pages freed at once (then reused by the log).
LOG_CUT_ROWS = 4096
# Ids of log rows per statement (a game's moves in one or two).
_IDS_PER_STATEMENT = 128
_ID_MARKS = ", ".join("?" * _IDS_PER_STATEMENT)
_INSERT_GAME = ("INSERT INTO games (id, white, black, white_key, black_key, initial_seconds, "
                "increment_seconds, start_fen, variant, rated, started, white_rating, "
                "black_rating, status) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'playing')")
_TAKE_BACK = "DELETE FROM game_moves WHERE game = ? AND ply > ?"


class GameWrites:
    """The game writes of a store on ``path``, through ``writer``; ``next_game_id``
    is the id the next game started gets.  ``exclusive``: the store holds the
    server's lock (game writes need it, else they raise :class:`RuntimeError`)."""

    def __init__(self, writer: Writer, *, path: Path, next_game_id: int,
                 exclusive: bool) -> None:
        self.path = path
        self.exclusive = exclusive
        self._writer = writer
        self._next_game_id = next_game_id
        # The move log (schema version 3): the id of the next row, the id
        # below which it was last cut, the next id when a cut was last looked
        # for (never before the last cut), and the rows of each game in play
        # since its start or resumption, as (id, ply) in order.  Only this
        # store writes the log, so these are exactly the log's rows of the
        # games in play.
        self._next_log_id = 1
        self._log_start = 1
        self._cut_tried = 1
        self._in_play: dict[int, list[tuple[int, int]]] = {}

    @property
    def next_log_id(self) -> int:
        """The id of the move log's next row."""
        return self._next_log_id

    def new_game_id(self) -> int:
        """The id of a game that starts now (the next after the file's highest)."""
        game_id = self._next_game_id
        self._next_game_id += 1
        return game_id

    def new_log_id(self) -> int:
        """The id of the next move log row (:attr:`next_log_id` then moves past it)."""
        log_id = self._next_log_id
        self._next_log_id = log_id + 1
        return log_id

    def allowed(self) -> None:
        """:raises RuntimeError: the store was not opened with ``exclusive=True``."""
        if not self.exclusive:
            raise RuntimeError("game writes need the store opened with exclusive=True")

    def start_game(self, start: GameStart) -> tuple[int, Deferred[None]]:
        self.allowed()
        game_id = self.new_game_id()
        d = self._writer.submit(_INSERT_GAME, (
            game_id, start.white, start.black, fold(start.white), fold(start.black),
            int(start.initial_seconds), int(start.increment_seconds), start.fen, start.variant,
            int(bool(start.rated)), float(start.started), start.white_rating, start.black_rating))
        return game_id, d

    def add_move(self, game_id: int, move: MoveRecord) -> Deferred[None]:
        self.allowed()
        log_id = self.new_log_id()
        logged = self._in_play.get(game_id)
        if logged is None:
            logged = self._in_play[game_id] = []
        elif logged and logged[-1][1] >= move.ply:
            # The log has no (game, ply) key to refuse it (an index by game
            # is what version 3 saves); copied at the game's end, it would
            # fail the whole end.
            return fail(StoreWriteError(self.path, f"move {move.ply} of game {game_id} is "
                                        "stored already"))
        logged.append((log_id, move.ply))
        return self._writer.submit(_INSERT_MOVE, (
            log_id, game_id, move.ply, move.san, move.uci, move.white_ms, move.black_ms,
            move.took_ms))

    def take_back(self, game_id: int, ply: int) -> Deferred[None]:
        self.allowed()
        logged = self._in_play.get(game_id, [])
        gone = [log_id for log_id, logged_ply in logged if logged_ply > ply]
        del logged[len(logged) - len(gone):]

        def take_back(conn: sqlite3.Connection) -> None:
            # Moves copied at an adjournment, then the log's since the resumption.
            conn.execute(_TAKE_BACK, (game_id, ply))
            _by_ids(conn, "DELETE FROM move_log WHERE id IN ({})", gone)

        return self._writer.submit(run=take_back)

    def adjourn_game(self, game_id: int, adjournment: Adjournment) -> Deferred[None]:
        self.allowed()
        a = adjournment
        adjourn = _changing_game(
            game_id, "UPDATE games SET status = 'adjourned', adjourn_reason = ?, adjourned = ?, "
            "adjourn_white_ms = ?, adjourn_black_ms = ?, adjourn_ply = ? "
            "WHERE id = ? AND status = 'playing'",
            (a.reason, a.at, a.white_ms, a.black_ms, a.ply, game_id))
        ids = self._leaving_play(game_id)

        def adjourn_and_copy(conn: sqlite3.Connection) -> None:
            adjourn(conn)
            _copy_moves(conn, ids)
            # An adjourned game keeps no row in the log: if it resumes, its
            # log rows are again exactly those since (see ``_in_play``).
            _by_ids(conn, "DELETE FROM move_log WHERE id IN ({})", ids)

        return self._writer.submit(run=adjourn_and_copy)

    def resume_game(self, game_id: int) -> Deferred[None]:
        """The conditional ``UPDATE`` is the claim of servers sharing a database: the
        row's lock makes a second one wait for the first's commit, then find the
        game in play and change nothing (``NoSuchGameError``)."""
        self.allowed()
        self._in_play[game_id] = []

        def not_resumed(failure: Any) -> Any:
            if not self._in_play.get(game_id):
                self._in_play.pop(game_id, None)
            return failure

        return self._writer.submit(run=_changing_game(
            game_id, "UPDATE games SET status = 'playing' WHERE id = ? AND status = 'adjourned'",
            (game_id,))).addErrback(not_resumed)

    def end_game(self, game_id: int, end: GameEnd, ratings: Sequence[RatingWrite] = (), *,
                 adjourned_only: bool = False, adjourned_before: float | None = None
                 ) -> Deferred[tuple[int | None, int | None]]:
        self.allowed()
        condition = "status = 'adjourned'" if adjourned_only else "status != 'finished'"
        ending: tuple[Any, ...] = (end.result, end.reason, str(end.code), end.ended,
                                   end.white_change, end.black_change, game_id)
        if adjourned_before is not None:  # an expiry: by the store's adjournment, not a copy's
            condition = "status = 'adjourned' AND adjourned < ?"
            ending += (adjourned_before,)
        rows = list(ratings)
        ids = self._leaving_play(game_id)
        cut = self._cut_log()

        def finish(conn: sqlite3.Connection) -> tuple[int | None, int | None]:
            _changing_game(game_id, "UPDATE games SET status = 'finished', result = ?, "
                           "end_reason = ?, end_code = ?, ended = ?, white_change = ?, "
                           f"black_change = ? WHERE id = ? AND {condition}", ending)(conn)
            write_ratings(conn, rows)  # a rated end and its ratings: one commit
            _copy_moves(conn, ids)
            if cut is not None:
                conn.execute(_CUT_LOG, (cut,))
            if end.result == "*":
                return None, None
            white, black = conn.execute("SELECT white_key, black_key FROM games WHERE id = ?",
                                        (game_id,)).fetchone()
            return _enter_history(conn, white, game_id), _enter_history(conn, black, game_id)

        return self._writer.submit(run=finish)

    def _leaving_play(self, game_id: int) -> list[int]:
        """The ids of the log rows of ``game_id``, which stops being in play."""
        return [log_id for log_id, _ in self._in_play.pop(game_id, ())]

    def _cut_log(self) -> int | None:
        """The id below which the log can be cut (every game in play began after it),
        once it is :data:`LOG_CUT_ROWS` past the last cut; else ``None``.

        The rows before it belong to games that ended (copied to ``game_moves``);
        those of adjourned games and takebacks were deleted.  The statement
        also keeps any row of a game the file still has in play, so that even
        a failed write loses nothing.
        """
        if self._next_log_id - self._cut_tried < LOG_CUT_ROWS:
            return None
        # A long game holds the log's start: look again only a cut's length later
        # (this walks every game in play).
        self._cut_tried = self._next_log_id
        cut = min((logged[0][0] for logged in self._in_play.values() if logged),
                  default=self._next_log_id)
        if cut - self._log_start < LOG_CUT_ROWS:
            return None
        self._log_start = cut
        return cut


# -- functions of the writes (run in the writer thread) ----------------------------------


def _changing_game(game_id: int, sql: str, params: tuple[Any, ...]) -> Any:
    def change(conn: sqlite3.Connection) -> None:
        if conn.execute(sql, params).rowcount == 0:
            raise NoSuchGameError(game_id)
    return change


def _by_ids(conn: sqlite3.Connection, sql: str, ids: Sequence[int]) -> None:
    """``sql`` with ``{}`` for a list of ``?``, run for ``ids`` in chunks.

    Every chunk has :data:`_IDS_PER_STATEMENT` ``?``, the last one padded
    with NULLs (which match no id): one statement text, prepared once.  A
    text per length of the list pushed the writer's prepared multi-row
    INSERTs out of :mod:`sqlite3`'s statement cache (128 statements) at
    every game's end, and each was then prepared again.
    """
    if not ids:
        return
    text = sql.format(_ID_MARKS)
    for start in range(0, len(ids), _IDS_PER_STATEMENT):
        chunk: list[int | None] = list(ids[start:start + _IDS_PER_STATEMENT])
        chunk.extend([None] * (_IDS_PER_STATEMENT - len(chunk)))
        conn.execute(text, chunk)


def _copy_moves(conn: sqlite3.Connection, ids: Sequence[int]) -> None:
    """A game's log rows (``ids``) copied to ``game_moves``, where its moves are kept together."""
    _by_ids(conn, f"INSERT INTO game_moves ({_MOVE_COLUMNS}) SELECT {_MOVE_COLUMNS} "
            "FROM move_log WHERE id IN ({}) ORDER BY id", ids)


def fold_log(conn: sqlite3.Connection) -> None:
    """At a server's start: the moves of the games that were in play (a crash or a
    stop) copied to ``game_moves``, and the log emptied."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        conn.execute(_FOLD_LOG)
        conn.execute("DELETE FROM move_log")
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise


def _enter_history(conn: sqlite3.Connection, key: str, game_id: int) -> int | None:
    """Append the game to ``key``'s history if ``key`` has an account; its FICS number."""
    if conn.execute("SELECT 1 FROM accounts WHERE key = ?", (key,)).fetchone() is None:
        return None
    seq = conn.execute("SELECT coalesce(max(seq), 0) + 1 FROM history WHERE player = ?",
                       (key,)).fetchone()[0]
    conn.execute("INSERT INTO history (player, seq, game) VALUES (?, ?, ?)", (key, seq, game_id))
    return (seq - 1) % HISTORY_NUMBERS
