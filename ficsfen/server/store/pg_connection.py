"""A :mod:`psycopg` connection that the store's SQLite code can use (:mod:`.pg_dialect`).

:class:`PgConnection` runs the row modules' and the writer's statements,
translated once each (:func:`~.pg_dialect.translate`), in autocommit mode
through psycopg's raw cursor, and raises :class:`~.pg_dialect.PgError` for
what PostgreSQL refuses.

**A lost connection** (the database restarted, the connection cut) is
opened again by ``reconnect()`` at the next statement that can safely run
on a new one: a ``BEGIN``, a read outside a transaction (retried once if the
loss shows on it), or any statement outside a transaction once the loss is
known.  A statement inside a transaction whose connection was lost fails
until the transaction's ``ROLLBACK``; a ``SELECT`` outside one is retried.
A write outside a transaction is not retried here (whether it reached the
database before the loss cannot be told).  The writer (``writer.py``) runs
a failed batch again, in a new transaction: the rows' own keys (a move's
log id, an account's handle) refuse a row that the lost statement did
store, so nothing is applied twice; such a write fails instead.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any

from ficsfen.server.store.pg_dialect import (
    MAX_PARAMETERS,
    PgError,
    PgIntegrityError,
    translate,
)

__all__ = ["PgConnection", "PgCursor"]


class PgCursor:
    """What a statement gave back: its rows (read at once), ``rowcount`` and ``lastrowid``."""

    def __init__(self, rows: list[tuple[Any, ...]], rowcount: int,
                 lastrowid: int | None = None) -> None:
        self._rows = rows
        self._at = 0
        self.rowcount = rowcount
        self.lastrowid = lastrowid

    def fetchone(self) -> tuple[Any, ...] | None:
        if self._at >= len(self._rows):
            return None
        row = self._rows[self._at]
        self._at += 1
        return row

    def fetchall(self) -> list[tuple[Any, ...]]:
        rows = self._rows[self._at:]
        self._at = len(self._rows)
        return rows

    def __iter__(self) -> Iterator[tuple[Any, ...]]:
        while (row := self.fetchone()) is not None:
            yield row


class PgConnection:
    """A :mod:`psycopg` connection (autocommit) that takes the store's SQLite statements.

    ``reconnect()`` (optional) opens a new psycopg connection set up as
    ``conn`` was, for a lost one (see the module).  Used by one thread at a
    time, as the store's :mod:`sqlite3` connections are.
    """

    def __init__(self, conn: Any, reconnect: Callable[[], Any] | None = None) -> None:
        import psycopg

        self._psycopg = psycopg
        self._reconnect = reconnect
        self._in_transaction = False
        #: Connections opened again after a loss.
        self.reconnects = 0
        self.raw = self._prepared(conn)

    def _prepared(self, conn: Any) -> Any:
        conn.cursor_factory = self._psycopg.RawCursor  # statements keep their $n placeholders
        return conn

    def execute(self, sql: str, params: Sequence[Any] = ()) -> PgCursor:
        """Run one statement; :raises PgError: (a :class:`PgIntegrityError` for a constraint)."""
        text, returns_id = translate(sql)
        word = text.split(None, 1)[0].upper() if text else ""
        ends = word in ("COMMIT", "ROLLBACK") and not text.upper().startswith("ROLLBACK TO")
        if self._lost():
            if self._in_transaction:
                if ends:  # the database ended the transaction with the connection
                    self._in_transaction = False
                    return PgCursor([], -1)
                raise PgError("the connection to the database was lost")
            self._renew()
        safe = word == "BEGIN" or (word == "SELECT" and not self._in_transaction)
        try:
            cursor = self._run(text, params)
        except self._psycopg.Error as e:
            if not (safe and self._reconnect is not None and self._lost()):
                raise self._error(e) from None
            self._renew()
            try:
                cursor = self._run(text, params)
            except self._psycopg.Error as again:
                raise self._error(again) from None
        if word == "BEGIN":
            self._in_transaction = True
        elif ends:
            self._in_transaction = False
        rows = cursor.fetchall() if cursor.description is not None else []
        lastrowid = rows[0][0] if returns_id and rows else None
        return PgCursor([] if returns_id else rows, cursor.rowcount, lastrowid)

    def _run(self, text: str, params: Sequence[Any]) -> Any:
        return self.raw.execute(text, tuple(params) if params else None)

    def _lost(self) -> bool:
        return bool(self.raw.closed or getattr(self.raw, "broken", False))

    def _renew(self) -> None:
        """A new connection for a lost one.  :raises PgError: the database is still away."""
        if self._reconnect is None:
            raise PgError("the connection to the database was lost")
        try:
            self.raw.close()
        except self._psycopg.Error:
            pass
        try:
            self.raw = self._prepared(self._reconnect())
        except self._psycopg.Error as e:
            raise self._error(e) from None
        self.reconnects += 1

    def executemany(self, sql: str, seq: Sequence[Sequence[Any]]) -> None:
        text, _ = translate(sql)
        try:
            with self.raw.cursor() as cursor:
                cursor.executemany(text, [tuple(p) for p in seq])
        except self._psycopg.Error as e:
            raise self._error(e) from None

    def getlimit(self, category: int) -> int:
        """The most parameters a statement takes (``category`` is SQLite's; only that one)."""
        return MAX_PARAMETERS

    def close(self) -> None:
        self.raw.close()

    def _error(self, e: Exception) -> PgError:
        sqlstate = getattr(e, "sqlstate", None)
        # the first line: PostgreSQL's DETAIL and HINT lines follow it
        message = (str(e).strip() or type(e).__name__).splitlines()[0]
        if isinstance(e, self._psycopg.IntegrityError):
            return PgIntegrityError(message, sqlstate)
        return PgError(message, sqlstate)
