"""The writer thread: one thread owns the write connection and commits in groups.

Contract (:class:`Writer`, used by :class:`~ficsfen.server.store.sqlite.SQLiteStore`):

- :meth:`Writer.submit` is called in the reactor thread and never waits for
  the disk.  It returns a :class:`Deferred` that fires **in the reactor
  thread, once the write is committed** (a fired Deferred means the write is
  in the file), with the operation's result; or fails with a
  :class:`~ficsfen.server.store.errors.StoreError`:
  :class:`~ficsfen.server.store.errors.StoreClosedError` at once if the
  writer is closing, the write's own error if it broke a constraint or was
  refused (it is rolled back to its own savepoint; the other writes of its
  group still commit), or every write of the group if the ``COMMIT`` itself
  failed (disk full, I/O error).  Unexpected failures
  (:class:`~ficsfen.server.store.errors.StoreWriteError`) are also logged.
  Nothing an operation raises stops the thread.
- Writes are committed in the order they were submitted.  The writes of one
  reactor turn are handed to the thread together at the end of the turn,
  and the thread commits everything handed over since its last commit as
  one transaction (group commit).  Consecutive writes of the same one-row
  ``INSERT ... VALUES (?, ...)`` become one multi-row ``INSERT``
  (:func:`rows_insert`), other runs of one statement one ``executemany``.
- With ``commit_interval`` (seconds, the server's ``[storage]
  commit_interval_ms``) a hand-over comes at least that long after the
  previous one: a write asked for sooner waits in the reactor thread (one
  ``callLater``) and joins the next group.  A write after a quiet spell is
  handed over at the end of its turn.  Nothing is acknowledged before its
  commit.
- The results of a commit come back with one ``reactor.callFromThread``.
- The write connection runs no automatic checkpoint
  (``wal_autocheckpoint = 0``): a :class:`Checkpointer`, with its own thread
  and connection, copies the write-ahead log (``wal_checkpoint(PASSIVE)``)
  every :data:`CHECKPOINT_EVERY` commits, and when it leaves a tail the
  writer copies that tail itself between two commits, so the log stays
  bounded and no commit waits for a whole checkpoint.
- :meth:`Writer.close` commits what is queued, runs
  ``wal_checkpoint(TRUNCATE)`` (a cleanly stopped server leaves an empty
  log), stops the thread and closes the connection; its Deferred fires after
  those of every write submitted before it.

Why groups, one statement per group and spaced commits: each commit costs
the server far more than the moves in it (the thread's wake-up, an
``fsync``, hand-overs of the GIL with the reactor, a reactor turn for the
acknowledgements), and ``sqlite3`` lets go of the GIL around each step of a
statement.  The figures are in ``docs/benchmarks/store.md``.
"""

from __future__ import annotations

import re
import sqlite3
import threading
from collections.abc import Callable, Iterator, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

from twisted.internet.defer import Deferred, fail
from twisted.logger import Logger
from twisted.python.failure import Failure

from ficsfen.server.store.errors import StoreClosedError, StoreError, StoreWriteError

__all__ = ["CHECKPOINT_EVERY", "Checkpointer", "Writer"]

#: Commits between two wake-ups of the checkpointer (a commit under load
#: writes some 40 pages: about SQLite's own 1,000-page threshold).
CHECKPOINT_EVERY = 25

_log = Logger(namespace="ficsfen.server.store")

#: An operation that needs Python: gets the connection, returns the Deferred's result.
Operation = Callable[[sqlite3.Connection], Any]

# A one-row INSERT whose statement ends with its VALUES tuple of placeholders
# (nothing after it: no upsert clause, no RETURNING).
_ONE_ROW_INSERT = re.compile(r"\s*INSERT\b.*\bVALUES\s*(\(\s*\?(?:\s*,\s*\?)*\s*\))\s*",
                             re.IGNORECASE | re.DOTALL)


@lru_cache(maxsize=64)
def _values_span(sql: str) -> tuple[int, int] | None:
    match = _ONE_ROW_INSERT.fullmatch(sql)
    return None if match is None else match.span(1)


def rows_insert(sql: str, count: int) -> str | None:
    """``sql`` (a one-row ``INSERT ... VALUES (?, ...)``) inserting ``count`` rows at once,
    or ``None`` when ``sql`` is not of that shape."""
    span = _values_span(sql)
    if span is None:
        return None
    return _rows_insert(sql, span, count)


def _rows_insert(sql: str, span: tuple[int, int], count: int) -> str:
    start, end = span
    return sql[:start] + ", ".join([sql[start:end]] * count) + sql[end:]


def _groups(batch: list[_Write]) -> Iterator[list[_Write]]:
    """``batch`` cut into runs of the same statement; an operation is a run of its own."""
    i = 0
    while i < len(batch):
        sql = batch[i].sql
        j = i + 1
        if sql is not None:
            while j < len(batch) and batch[j].sql == sql:
                j += 1
        yield batch[i:j]
        i = j


class _Write:
    """One queued write: a statement and its parameters, or an operation."""

    __slots__ = ("sql", "params", "run", "deferred")

    def __init__(self, sql: str | None, params: Sequence[Any], run: Operation | None) -> None:
        self.sql = sql
        self.params = params
        self.run = run
        self.deferred: Deferred[Any] = Deferred()


class Checkpointer:
    """A thread with its own connection that copies the write-ahead log into the data file.

    :meth:`poke` asks for one ``wal_checkpoint(PASSIVE)``; pokes that arrive
    during a pass make one more pass.  :attr:`tail` is set after each pass
    that found a log: the pass copied the log as it was when it began, and
    the writer copies what it committed meanwhile (see the module's docstring).
    """

    def __init__(self, conn: sqlite3.Connection, *, path: Path) -> None:
        self._conn = conn
        self._cond = threading.Condition()
        self._due = False
        self._closing = False
        #: Set by this thread, cleared by the writer's thread.
        self.tail = False
        #: Passes run so far, and the log's length (in pages) the last one found.
        self.passes = 0
        self.last_log = 0
        self._thread = threading.Thread(target=self._loop, name=f"ficsfen store checkpointer "
                                        f"{path.name}", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def poke(self) -> None:
        with self._cond:
            self._due = True
            self._cond.notify()

    def stop(self) -> None:
        """Finish the pass under way, close the connection (waits for the thread)."""
        with self._cond:
            self._closing = True
            self._cond.notify()
        if self._thread.is_alive():
            self._thread.join()
        else:
            self._conn.close()

    def _loop(self) -> None:
        try:
            while True:
                with self._cond:
                    while not self._due and not self._closing:
                        self._cond.wait()
                    if self._closing:
                        return
                    self._due = False
                try:
                    busy, log, copied = self._conn.execute(
                        "PRAGMA wal_checkpoint(PASSIVE)").fetchone()
                except sqlite3.Error as e:  # the next pass tries again
                    _log.warn("store checkpoint failed: {error}", error=e)
                    continue
                self.passes += 1
                self.last_log = log
                # ``log`` is the log as this pass found it; the writer has most
                # likely committed more since, which only it can copy in time.
                if log > 0:
                    self.tail = True
        finally:
            self._conn.close()


class Writer:
    """The thread that owns ``conn`` (opened with ``check_same_thread=False``).

    :attr:`commits` counts the transactions it has committed (tests and
    the benchmark read it to see how writes were grouped).  With a
    ``checkpointer``, ``conn`` must have ``wal_autocheckpoint = 0``.
    ``commit_interval``: the least time, in seconds, between two hand-overs
    to the thread (see the module's docstring); 0 hands over every turn.
    """

    def __init__(self, conn: sqlite3.Connection, *, reactor: Any, path: Path,
                 checkpointer: Checkpointer | None = None,
                 checkpoint_every: int = CHECKPOINT_EVERY,
                 commit_interval: float = 0.0) -> None:
        self._conn = conn
        self._checkpointer = checkpointer
        self._checkpoint_every = checkpoint_every
        self._since_checkpoint = 0
        self._reactor = reactor
        self._path = path
        self._cond = threading.Condition()
        self._queue: list[_Write] = []  # handed over, not yet taken by the thread
        self._turn: list[_Write] = []  # asked for during this reactor turn (reactor thread only)
        self._handover: Any = None  # the DelayedCall of the next hand-over, if one is due
        self._commit_interval = commit_interval
        self._handed_at = float("-inf")  # reactor time of the last hand-over
        self._closing = False
        self._closed: Deferred[None] = Deferred()
        self.commits = 0
        self._thread = threading.Thread(target=self._loop, name=f"ficsfen store writer {path.name}",
                                        daemon=True)

    def start(self) -> None:
        if self._checkpointer is not None:
            self._checkpointer.start()
        self._thread.start()

    # -- reactor thread ------------------------------------------------------

    def submit(self, sql: str | None = None, params: Sequence[Any] = (),
               run: Operation | None = None) -> Deferred[Any]:
        """Queue a write; its Deferred fires once it is committed (in the reactor thread)."""
        if self._closing:
            return fail(StoreClosedError(self._path))
        write = _Write(sql, params, run)
        self._turn.append(write)
        if self._handover is None:
            wait = self._handed_at + self._commit_interval - self._reactor.seconds()
            self._handover = self._reactor.callLater(wait if wait > 0 else 0, self._hand_over)
        return write.deferred

    def _hand_over(self) -> None:
        handover, self._handover = self._handover, None
        if handover is not None and handover.active():  # close() hands over early
            handover.cancel()
        self._handed_at = self._reactor.seconds()
        turn, self._turn = self._turn, []
        if turn:
            with self._cond:
                self._queue.extend(turn)
                self._cond.notify()

    def close(self) -> Deferred[None]:
        """Commit what is queued, stop the thread, close the connection.

        The returned Deferred fires (in the reactor thread) after the
        Deferreds of every write queued before the call.
        """
        if not self._closing:
            self._closing = True
            self._hand_over()
            with self._cond:
                self._cond.notify()
            if not self._thread.is_alive():  # never started
                self._shut()
                self._closed.callback(None)
        done: Deferred[None] = Deferred()
        def closed(result: object) -> object:
            done.callback(None)
            return result

        self._closed.addBoth(closed)
        return done

    def _deliver(self, writes: list[_Write], results: list[Any]) -> None:
        for write, result in zip(writes, results):
            if isinstance(result, Failure):
                if result.check(StoreWriteError):
                    _log.failure("store write failed", result)
                write.deferred.errback(result)
            else:
                write.deferred.callback(result)

    # -- writer thread -------------------------------------------------------

    def _loop(self) -> None:
        while True:
            with self._cond:
                while not self._queue and not self._closing:
                    self._cond.wait()
                batch, self._queue = self._queue, []
                last = self._closing and not batch
            if batch:
                try:
                    results = self._commit(batch)
                except BaseException as e:  # pragma: no cover - _commit catches what SQLite raises
                    results = [self._failure(e) for _ in batch]
                self._reactor.callFromThread(self._deliver, batch, results)
                self._after_commit()
            if last:
                break
        try:
            self._shut()
        finally:
            self._reactor.callFromThread(self._closed.callback, None)

    def _after_commit(self) -> None:
        """Keep the log short: wake the checkpointer, or copy the tail it left."""
        checkpointer = self._checkpointer
        if checkpointer is None:
            return
        if checkpointer.tail:
            checkpointer.tail = False
            self._checkpoint("PASSIVE")
        self._since_checkpoint += 1
        if self._since_checkpoint >= self._checkpoint_every:
            self._since_checkpoint = 0
            checkpointer.poke()

    def _checkpoint(self, mode: str) -> None:
        try:
            self._conn.execute(f"PRAGMA wal_checkpoint({mode})").fetchone()
        except sqlite3.Error as e:  # the log only grows until the next one
            _log.warn("store checkpoint failed: {error}", error=e)

    def _shut(self) -> None:
        """Stop the checkpointer, empty the log into the file, close the connection."""
        try:
            if self._checkpointer is not None:
                self._checkpointer.stop()
                self._checkpoint("TRUNCATE")
        finally:
            self._conn.close()

    def _failure(self, error: BaseException) -> Failure:
        if isinstance(error, StoreError):
            return Failure(error)
        return Failure(StoreWriteError(self._path, str(error) or type(error).__name__))

    def _commit(self, batch: list[_Write]) -> list[Any]:
        """Commit ``batch`` in as few statements as it can: each statement is one
        hand-over of the GIL between this thread and the reactor.

        A batch that is one statement (the moves of a turn, nothing else) runs
        alone in autocommit mode: SQLite makes it its own transaction, with no
        ``BEGIN``, savepoint or ``COMMIT`` around it.  Otherwise one transaction
        runs each group of writes straight through.  If a write fails, nothing
        of it is kept and the batch runs again, each write in a savepoint of its
        own, so that only the failed write fails (:meth:`_careful`).
        """
        if self._one_statement(batch):
            try:
                self._run_together(batch)
            except sqlite3.Error:
                return self._careful(batch)  # the statement left nothing behind
            self.commits += 1
            return [None] * len(batch)
        conn = self._conn
        try:
            conn.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as e:
            return [self._failure(e) for _ in batch]
        results: list[Any] = []
        try:
            for group in _groups(batch):
                if group[0].sql is None:
                    results.append(self._alone(group[0]))
                else:
                    self._run_together(group)
                    results.extend([None] * len(group))
        except sqlite3.Error:
            self._rollback()
            return self._careful(batch)
        except BaseException as e:
            self._rollback()
            return [self._failure(e) for _ in batch]
        return self._finish(batch, results)

    def _careful(self, batch: list[_Write]) -> list[Any]:
        """``batch`` in one transaction, a failed write rolled back to its savepoint alone."""
        conn = self._conn
        try:
            conn.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as e:
            return [self._failure(e) for _ in batch]
        results: list[Any] = []
        try:
            for group in _groups(batch):
                if group[0].sql is None:
                    results.append(self._alone(group[0]))
                else:
                    results.extend(self._group(group))
        except BaseException as e:
            self._rollback()
            return [self._failure(e) for _ in batch]
        return self._finish(batch, results)

    def _finish(self, batch: list[_Write], results: list[Any]) -> list[Any]:
        try:
            self._conn.execute("COMMIT")
        except BaseException as e:
            self._rollback()
            return [self._failure(e) for _ in batch]
        self.commits += 1
        return results

    def _rollback(self) -> None:
        try:
            self._conn.execute("ROLLBACK")
        except sqlite3.Error:
            pass

    def _one_statement(self, batch: list[_Write]) -> bool:
        """Whether ``batch`` is writes of one statement that one ``INSERT`` (or one
        write alone) carries."""
        sql = batch[0].sql
        if sql is None or any(write.sql != sql for write in batch):
            return False
        if len(batch) == 1:
            return True
        width = len(batch[0].params)
        return bool(width) and _values_span(sql) is not None and len(batch) <= self._rows_per(width)

    def _rows_per(self, width: int) -> int:
        return max(self._conn.getlimit(sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER) // width, 1)

    def _group(self, writes: list[_Write]) -> list[Any]:
        """Same statement: one multi-row ``INSERT`` or one ``executemany``; if it fails,
        one at a time to find the culprit."""
        conn = self._conn
        if len(writes) == 1:
            return [self._alone(writes[0])]
        conn.execute("SAVEPOINT grouped")
        try:
            self._run_together(writes)
        except sqlite3.Error:
            conn.execute("ROLLBACK TO grouped")
            conn.execute("RELEASE grouped")
            return [self._alone(w) for w in writes]
        conn.execute("RELEASE grouped")
        return [None] * len(writes)

    def _run_together(self, writes: list[_Write]) -> None:
        """The same statement for each of ``writes``, in as few SQLite steps as it can."""
        conn = self._conn
        sql = writes[0].sql
        if sql is None:  # never: callers group statements, operations run alone
            raise TypeError("an operation has no statement to run together")
        if len(writes) == 1:
            conn.execute(sql, writes[0].params)
            return
        width = len(writes[0].params)
        span = _values_span(sql) if width else None
        if span is not None:
            per = self._rows_per(width)
            for start in range(0, len(writes), per):
                chunk = writes[start:start + per]
                conn.execute(_rows_insert(sql, span, len(chunk)),
                             [value for w in chunk for value in w.params])
            return
        conn.executemany(sql, [w.params for w in writes])

    def _alone(self, write: _Write) -> Any:
        conn = self._conn
        conn.execute("SAVEPOINT alone")
        try:
            if write.run is not None:
                result = write.run(conn)
            elif write.sql is not None:
                conn.execute(write.sql, write.params)
                result = None
            else:  # never: a write is a statement or an operation
                raise TypeError("a write with neither a statement nor an operation")
        except Exception as e:
            conn.execute("ROLLBACK TO alone")
            conn.execute("RELEASE alone")
            return self._failure(e)
        conn.execute("RELEASE alone")
        return result
