"""The SQLite store: stdlib :mod:`sqlite3` in WAL mode, one writer thread.

Two connections to one file:

- the **write connection** belongs to the :class:`~.writer.Writer` thread,
  which commits writes in groups (see :mod:`.writer`);
- the **read connection** is used by the server's read thread
  (``FicsServer.read``, one read at a time, never the reactor thread) for
  the small indexed reads of :class:`~.interfaces.IStore`.  In WAL mode readers never
  wait for the writer, and they see every committed transaction.

**Durability.**  ``synchronous`` is ``"full"`` by default: each commit
fsyncs the write-ahead log before the writes' Deferreds fire, so an
acknowledged move survives a kill -9 of the server *and* a power cut or
kernel crash.  ``"normal"`` skips that fsync (WAL keeps the file
consistent either way): a kill -9 still loses nothing, because the
committed pages are in the operating system's cache, but a power cut may
lose the last commits.  Group commit pays the fsync once per group, not
once per move (``bench/store_writes.py`` measures both).

**One server per file.**  :meth:`SQLiteStore.open` takes the server's
lock (:mod:`.lock`): an exclusive ``flock`` on the data file itself, so a
second server is refused by any path to it (a symbolic or hard link, a bind
mount), and one on ``FILE.lock`` beside its real path, where the holder's
process id is written.  The kernel releases both when the process ends,
however it ends (kill -9 included), so a stale lock never blocks a restart.
SQLite's own ``locking_mode=EXCLUSIVE`` was not used: it would also shut
out our own read connection, and the operator tools (``exclusive=False``)
that change accounts while the server runs.
"""

from __future__ import annotations

import errno
import json
import os
import sqlite3
import time
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from twisted.internet.defer import Deferred, fail
from zope.interface import implementer

from ficsfen.i18n import Message
from ficsfen.names import fold
from ficsfen.server.store.errors import (
    AccountExistsError,
    NoSuchAccountError,
    NoSuchGameError,
    StoreClosedError,
    StoreOpenError,
    StoreOtherNameError,
    StoreWriteError,
)
from ficsfen.server.store.interfaces import IStore
from ficsfen.server.store.lock import LOCK_SUFFIX, ServerLock, lock_path, server_by_another_name
from ficsfen.server.store.records import (
    HISTORY_NUMBERS,
    HISTORY_SIZE,
    Account,
    Adjournment,
    GameEnd,
    GameRecord,
    GameStart,
    GameStatus,
    HistoryEntry,
    MoveRecord,
    StoredGame,
)
from ficsfen.server.store.opening import (
    check,
    check_read_only,
    connect,
    connect_read_only,
    notices_for,
    open_error,
    prepare_folder,
)
from ficsfen.server.store.writer import Checkpointer, Writer

__all__ = ["LOCK_SUFFIX", "SYNCHRONOUS", "SQLiteStore", "lock_path"]

#: Accepted values of ``synchronous`` (``[storage] synchronous``).
SYNCHRONOUS = ("full", "normal")
# Bytes the write-ahead log file is cut back to when it starts again from its
# beginning (it only grows past this when a checkpoint falls behind).
_WAL_SIZE_LIMIT = 16 * 1024 * 1024

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
                "increment_seconds, start_fen, variant, rated, started, status) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'playing')")
_TAKE_BACK = "DELETE FROM game_moves WHERE game = ? AND ply > ?"
_GAME_COLUMNS = ("id, white, black, initial_seconds, increment_seconds, start_fen, variant, "
                 "rated, started, status, adjourn_reason, adjourned, adjourn_white_ms, "
                 "adjourn_black_ms, adjourn_ply, result, end_reason, end_code, ended")



@implementer(IStore)
class SQLiteStore:
    """The :class:`IStore` on an SQLite file; make one with :meth:`open`."""

    def __init__(self, path: Path, *, reactor: Any, read: sqlite3.Connection,
                 write: sqlite3.Connection, lock: ServerLock | None, next_game_id: int,
                 checkpointer: Checkpointer | None = None,
                 commit_interval: float = 0.0, notices: Sequence[Message] = ()) -> None:
        self.path = path
        self.exclusive = lock is not None
        #: What the operator should know about the file, found while opening it
        #: (an empty file, a file with several names); ``ficsfen serve`` logs them.
        self.notices: list[Message] = list(notices)
        self._reactor = reactor
        self._read: sqlite3.Connection | None = read
        self._lock = lock
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
        self._writer = Writer(write, reactor=reactor, path=path, checkpointer=checkpointer,
                              commit_interval=commit_interval)
        self._writer.start()
        self._closing: Deferred[None] | None = None

    def __repr__(self) -> str:
        return f"<SQLiteStore {str(self.path)!r}>"

    @property
    def commits(self) -> int:
        """Transactions committed by the writer thread so far (group commit makes it small)."""
        return self._writer.commits

    # -- opening ---------------------------------------------------------------

    @classmethod
    def open(cls, path: Path | str, *, reactor: Any, exclusive: bool = True,
             synchronous: str = "full", commit_interval: float = 0.0,
             read_only: bool = False) -> SQLiteStore:
        """Open (creating it and its folder if need be) and migrate the data file.

        ``reactor`` provides ``callLater`` and ``callFromThread``.  The
        server opens with ``exclusive=True``: a second server on the same
        file (by any path: the lock is the file's, see :mod:`.lock`) is
        refused.  Operator tools that run beside a server (adding an
        account, exporting games) open with ``exclusive=False``: no lock,
        and no game writes (they would clash with the server's).  Tools
        that only read (listing accounts, exporting games) open with
        ``read_only=True`` (implies ``exclusive=False``): the file must
        exist and be at the current schema version; nothing is created,
        migrated or written, so a file on a read-only file system, or one
        this user may not write, can be read (see
        :func:`connect_read_only`); every write's Deferred fails with
        :class:`StoreWriteError`.
        Symbolic links are resolved: SQLite's ``-wal`` and ``-shm`` files
        sit beside the real file, whatever path led to it.
        Synchronous: this runs once at start, before the server listens.
        ``commit_interval`` (seconds) spaces the writer's commits under load
        (``[storage] commit_interval_ms``, see ``writer.py``).

        :raises StoreOpenError: a subclass naming the file and the cause:
            :class:`StoreLockedError`, :class:`StoreCorruptError`,
            :class:`StoreReadOnlyError`, :class:`StoreVersionError`,
            :class:`StoreOtherNameError` (a tool given a hard link to a
            running server's file).
        """
        if synchronous not in SYNCHRONOUS:
            raise ValueError(f"synchronous must be one of {SYNCHRONOUS}, not {synchronous!r}")
        path = Path(os.path.abspath(os.path.expanduser(path)))
        if not exclusive or read_only:
            elsewhere = server_by_another_name(path)
            if elsewhere is not None:
                raise StoreOtherNameError(path, elsewhere)
        if read_only:
            return cls._open_read_only(path, reactor=reactor)
        prepare_folder(path)
        real = Path(os.path.realpath(path))
        notices = notices_for(path, real)
        lock = ServerLock.take(path) if exclusive else None
        try:
            write = connect(real, path, check_same_thread=False)
            opened = [write]
            try:
                check(write, path)
                write.execute(f"PRAGMA synchronous = {synchronous.upper()}")
                write.execute("PRAGMA foreign_keys = ON")
                # A multi-row INSERT in a transaction keeps a statement journal
                # (to undo just that statement); past 64 KiB SQLite spills it to a
                # new temporary file, dozens of times a second under load.
                write.execute("PRAGMA temp_store = MEMORY")
                next_id = write.execute("SELECT coalesce(max(id), 0) + 1 FROM games").fetchone()[0]
                checkpointer = None
                if exclusive:
                    _fold_log(write)
                    # see writer.py: checkpoints off the commit path
                    write.execute("PRAGMA wal_autocheckpoint = 0")
                    write.execute(f"PRAGMA journal_size_limit = {_WAL_SIZE_LIMIT}")
                    opened.append(connect(real, path, check_same_thread=False))
                    checkpointer = Checkpointer(opened[-1], path=path)
                # The server reads in a thread of its own (FicsServer.read), one at a time.
                read = connect(real, path, check_same_thread=False)
                read.row_factory = sqlite3.Row
                read.execute("PRAGMA query_only = ON")
            except sqlite3.Error as e:
                for conn in opened:
                    conn.close()
                raise open_error(path, e) from None
            except BaseException:
                for conn in opened:
                    conn.close()
                raise
        except BaseException:
            if lock is not None:
                lock.release()
            raise
        return cls(path, reactor=reactor, read=read, write=write, lock=lock,
                   next_game_id=next_id, checkpointer=checkpointer,
                   commit_interval=commit_interval, notices=notices)

    @classmethod
    def _open_read_only(cls, path: Path, *, reactor: Any) -> SQLiteStore:
        real = Path(os.path.realpath(path))
        if real.is_dir():
            raise StoreOpenError.because(path, os.strerror(errno.EISDIR))
        if not real.exists():
            raise StoreOpenError.because(path, os.strerror(errno.ENOENT))
        write = connect_read_only(real, path, check_same_thread=False)
        try:
            read = connect_read_only(real, path, check_same_thread=True)
        except BaseException:
            write.close()
            raise
        try:
            check_read_only(read, path)
            read.row_factory = sqlite3.Row
            next_id = read.execute("SELECT coalesce(max(id), 0) + 1 FROM games").fetchone()[0]
        except sqlite3.Error as e:
            read.close()
            write.close()
            raise open_error(path, e) from None
        except BaseException:
            read.close()
            write.close()
            raise
        return cls(path, reactor=reactor, read=read, write=write, lock=None,
                   next_game_id=next_id)

    # -- life ------------------------------------------------------------------

    def close(self) -> Deferred[None]:
        if self._closing is None:
            if self._read is not None:
                self._read.close()
                self._read = None
            self._closing = self._writer.close()
            self._closing.addBoth(self._release_lock)
        done: Deferred[None] = Deferred()

        def closed(result: object) -> object:
            done.callback(None)
            return result

        self._closing.addBoth(closed)
        return done

    def _release_lock(self, result: Any) -> Any:
        if self._lock is not None:
            self._lock.release()
            self._lock = None
        return result

    def _reader(self) -> sqlite3.Connection:
        if self._read is None:
            raise StoreClosedError(self.path)
        return self._read

    def _games_allowed(self) -> None:
        if not self.exclusive:
            raise RuntimeError("game writes need the store opened with exclusive=True")

    # -- accounts --------------------------------------------------------------

    def add_account(self, name: str, password_hash: str, *,
                    created: float | None = None) -> Deferred[None]:
        when = time.time() if created is None else created
        row = (fold(name), name, password_hash, when)

        def add(conn: sqlite3.Connection) -> None:
            try:
                conn.execute("INSERT INTO accounts (key, name, password, created) "
                             "VALUES (?, ?, ?, ?)", row)
            except sqlite3.IntegrityError:
                raise AccountExistsError(name) from None

        return self._writer.submit(run=add)

    def remove_account(self, name: str) -> Deferred[None]:
        return self._writer.submit(run=_changing_account(
            name, "DELETE FROM accounts WHERE key = ?", (fold(name),)))

    def set_password(self, name: str, password_hash: str) -> Deferred[None]:
        return self._writer.submit(run=_changing_account(
            name, "UPDATE accounts SET password = ? WHERE key = ?", (password_hash, fold(name))))

    def import_accounts(self, accounts: Mapping[str, str]) -> Deferred[list[str]]:
        now = time.time()
        rows = [(fold(name), name, stored, now) for name, stored in accounts.items()]

        def import_(conn: sqlite3.Connection) -> list[str]:
            added = []
            for row in rows:
                cursor = conn.execute("INSERT OR IGNORE INTO accounts (key, name, password, "
                                      "created) VALUES (?, ?, ?, ?)", row)
                if cursor.rowcount == 1:
                    added.append(row[1])
            return added

        return self._writer.submit(run=import_)

    def get_account(self, name: str) -> Account | None:
        row = self._reader().execute("SELECT name, password, created FROM accounts WHERE key = ?",
                                     (fold(name),)).fetchone()
        return None if row is None else Account(row[0], row[1], row[2])

    def accounts(self) -> list[Account]:
        rows = self._reader().execute("SELECT name, password, created FROM accounts ORDER BY key")
        return [Account(*row) for row in rows]

    # -- settings --------------------------------------------------------------

    def save_settings(self, name: str, settings: Mapping[str, Any]) -> Deferred[None]:
        if not all(isinstance(k, str) for k in settings):
            raise TypeError("setting names must be strings")
        data = json.dumps(dict(settings), allow_nan=False, sort_keys=True)
        row = (fold(name), data)

        def save(conn: sqlite3.Connection) -> None:
            try:
                conn.execute("INSERT OR REPLACE INTO settings (key, data) VALUES (?, ?)", row)
            except sqlite3.IntegrityError:
                raise NoSuchAccountError(name) from None

        return self._writer.submit(run=save)

    def load_settings(self, name: str) -> dict[str, Any]:
        row = self._reader().execute("SELECT data FROM settings WHERE key = ?",
                                     (fold(name),)).fetchone()
        return {} if row is None else json.loads(row[0])

    # -- games: writes ----------------------------------------------------------

    def start_game(self, start: GameStart) -> tuple[int, Deferred[None]]:
        self._games_allowed()
        game_id = self._next_game_id
        self._next_game_id += 1
        d = self._writer.submit(_INSERT_GAME, (
            game_id, start.white, start.black, fold(start.white), fold(start.black),
            int(start.initial_seconds), int(start.increment_seconds), start.fen, start.variant,
            int(bool(start.rated)), float(start.started)))
        return game_id, d

    def add_move(self, game_id: int, move: MoveRecord) -> Deferred[None]:
        self._games_allowed()
        log_id = self._next_log_id
        self._next_log_id = log_id + 1
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
        self._games_allowed()
        logged = self._in_play.get(game_id, [])
        gone = [log_id for log_id, logged_ply in logged if logged_ply > ply]
        del logged[len(logged) - len(gone):]

        def take_back(conn: sqlite3.Connection) -> None:
            # Moves copied at an adjournment, then the log's since the resumption.
            conn.execute(_TAKE_BACK, (game_id, ply))
            _by_ids(conn, "DELETE FROM move_log WHERE id IN ({})", gone)

        return self._writer.submit(run=take_back)

    def adjourn_game(self, game_id: int, adjournment: Adjournment) -> Deferred[None]:
        self._games_allowed()
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
        self._games_allowed()
        self._in_play[game_id] = []
        return self._writer.submit(run=_changing_game(
            game_id, "UPDATE games SET status = 'playing' WHERE id = ? AND status = 'adjourned'",
            (game_id,)))

    def end_game(self, game_id: int, end: GameEnd) -> Deferred[tuple[int | None, int | None]]:
        self._games_allowed()
        ending = (end.result, end.reason, str(end.code), end.ended, game_id)
        ids = self._leaving_play(game_id)
        cut = self._cut_log()

        def finish(conn: sqlite3.Connection) -> tuple[int | None, int | None]:
            _changing_game(game_id, "UPDATE games SET status = 'finished', result = ?, "
                           "end_reason = ?, end_code = ?, ended = ? "
                           "WHERE id = ? AND status != 'finished'", ending)(conn)
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

    # -- games: reads ------------------------------------------------------------

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


# -- functions of the writes (run in the writer thread) ----------------------------------


def _changing_account(name: str, sql: str, params: tuple[Any, ...]) -> Any:
    def change(conn: sqlite3.Connection) -> None:
        if conn.execute(sql, params).rowcount == 0:
            raise NoSuchAccountError(name)
    return change


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


def _fold_log(conn: sqlite3.Connection) -> None:
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


def _record(row: tuple[Any, ...]) -> GameRecord:
    (game_id, white, black, initial, increment, fen, variant, rated, started, status,
     adjourn_reason, adjourned, adjourn_white, adjourn_black, adjourn_ply,
     result, end_reason, end_code, ended) = row
    start = GameStart(white, black, initial, increment, started, fen, bool(rated), variant)
    adjournment = None
    if adjourned is not None:
        adjournment = Adjournment(adjourn_reason, adjourned, adjourn_white, adjourn_black,
                                  adjourn_ply)
    end = None if result is None else GameEnd(result, end_reason, end_code, ended)
    return GameRecord(game_id, start, GameStatus(status), adjournment, end)
