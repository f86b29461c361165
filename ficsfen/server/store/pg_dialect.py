"""The SQL dialect layer that lets the row modules run on PostgreSQL unchanged.

The row modules (``account_rows.py``, ``game_writes.py``...) and the
:class:`~.writer.Writer` speak SQLite's SQL through a DB-API connection:
``conn.execute(sql, params)`` with ``?`` placeholders, ``cursor.rowcount``,
``cursor.lastrowid``, and :mod:`sqlite3`'s exception classes.
:class:`PgConnection` gives them that on a :mod:`psycopg` (3) connection in
autocommit mode: each statement is translated once (:func:`translate`,
cached) and errors are raised as subclasses of :mod:`sqlite3`'s classes
(:class:`PgIntegrityError` is a :class:`sqlite3.IntegrityError`), so that the
code catching them is the same for both databases.

What :func:`translate` changes: ``?`` becomes ``$1``, ``$2``... (the
connection's cursors are psycopg's raw cursors); ``INSERT OR IGNORE`` an ``INSERT ... ON CONFLICT DO NOTHING``;
``INSERT OR REPLACE INTO t`` an upsert on ``t``'s key (:data:`KEYS`);
``BEGIN IMMEDIATE`` a ``BEGIN``; ``char(10)`` ``chr(10)``; an ``INSERT`` into
a table whose ids the database allocates gets ``RETURNING id``, read back as
``lastrowid``.  :func:`translate_ddl` turns the schema's ``CREATE``
statements into PostgreSQL's types (see its docstring).  Nothing here
imports :mod:`psycopg`: the caller hands a connection in.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterator, Sequence
from functools import lru_cache
from typing import Any

__all__ = ["KEYS", "PgConnection", "PgCursor", "PgError", "PgIntegrityError", "translate",
           "translate_ddl"]

#: The key each table an ``INSERT OR REPLACE`` writes is unique on.
KEYS = {
    "settings": ("key",),
    "bans": ("kind", "value"),
    "game_moves": ("game", "ply"),
}
# Tables whose ``id`` the database allocates (an INSERT that names no id).
_RETURNING_ID = {"news", "messages", "logons"}
#: The most parameters one PostgreSQL statement takes (the protocol's bound).
MAX_PARAMETERS = 65535

_OR_ACTION = re.compile(r"^\s*INSERT\s+OR\s+(IGNORE|REPLACE)\s+INTO\s+(\w+)\s*\(([^)]*)\)",
                        re.IGNORECASE)
_INSERT_INTO = re.compile(r"^\s*INSERT\s+INTO\s+(\w+)\s*\(([^)]*)\)", re.IGNORECASE)


class PgError(sqlite3.DatabaseError):
    """What PostgreSQL refused or failed, as the DB-API error the store's code catches."""

    def __init__(self, message: str, sqlstate: str | None = None) -> None:
        super().__init__(message)
        self.sqlstate = sqlstate


class PgIntegrityError(PgError, sqlite3.IntegrityError):
    """A broken constraint (a unique key, a foreign key, a check)."""


def _number_placeholders(text: str) -> str:
    """``?, ?`` as PostgreSQL's own ``$1, $2``: psycopg's raw cursor sends the statement as
    it is, where its ``%s`` form is parsed in Python at every call for a long statement
    (the writer's multi-row INSERTs: most of its CPU)."""
    count = iter(range(1, text.count("?") + 1))
    return re.sub(r"\?", lambda _: f"${next(count)}", text)


@lru_cache(maxsize=256)
def translate(sql: str) -> tuple[str, bool]:
    """``sql`` (SQLite's) in PostgreSQL's dialect, and whether it returns the new row's id."""
    text = sql.strip()
    if re.fullmatch(r"BEGIN\s+IMMEDIATE", text, re.IGNORECASE):
        return "BEGIN", False
    text = _number_placeholders(text)
    text = re.sub(r"\bchar\(10\)", "chr(10)", text, flags=re.IGNORECASE)
    match = _OR_ACTION.match(text)
    if match is not None:
        action, table, columns = match.group(1).upper(), match.group(2), match.group(3)
        text = f"INSERT INTO {table} ({columns})" + text[match.end():]
        if action == "IGNORE":
            text += " ON CONFLICT DO NOTHING"
        else:
            keys = KEYS[table]
            names = [c.strip() for c in columns.split(",")]
            updates = ", ".join(f"{c} = EXCLUDED.{c}" for c in names if c not in keys)
            text += f" ON CONFLICT ({', '.join(keys)}) DO UPDATE SET {updates}"
        return text, False
    match = _INSERT_INTO.match(text)
    if match is not None and match.group(1) in _RETURNING_ID and "RETURNING" not in text.upper():
        return text + " RETURNING id", True
    return text, False


def translate_ddl(statement: str) -> str | None:
    """A schema statement (``schema.py``'s) for PostgreSQL, or ``None`` for one it has no use for.

    ``PRAGMA`` statements are dropped (the version is kept in a table); a
    rowid ``id INTEGER PRIMARY KEY`` becomes a ``bigint`` identity, other
    ``INTEGER`` columns ``integer``; ``REAL`` is ``double precision`` (Unix
    times need more than PostgreSQL's 4-byte ``real``); ``TEXT`` compares as
    bytes (``COLLATE "C"``), as SQLite's does, so that orders and the prefix
    ranges of ``handles`` are the same whatever the database's locale;
    ``WITHOUT ROWID`` is dropped.
    """
    text = statement.strip()
    if text.upper().startswith("PRAGMA"):
        return None
    text = re.sub(r"\bid\s+INTEGER\s+PRIMARY\s+KEY\b",
                  "id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY", text)
    text = re.sub(r"\bINTEGER\b", "integer", text)
    text = re.sub(r"\bREAL\b", "double precision", text)
    text = re.sub(r"\bTEXT\b", 'text COLLATE "C"', text)
    text = re.sub(r"\)\s*WITHOUT\s+ROWID\s*$", ")", text)
    return text


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

    Used by one thread at a time, as the store's :mod:`sqlite3` connections are.
    """

    def __init__(self, conn: Any) -> None:
        import psycopg

        self.raw = conn
        self._psycopg = psycopg
        conn.cursor_factory = psycopg.RawCursor  # statements keep their $n placeholders

    def execute(self, sql: str, params: Sequence[Any] = ()) -> PgCursor:
        """Run one statement; :raises PgError: (a :class:`PgIntegrityError` for a constraint)."""
        text, returns_id = translate(sql)
        try:
            cursor = self.raw.execute(text, tuple(params) if params else None)
            rows = cursor.fetchall() if cursor.description is not None else []
        except self._psycopg.Error as e:
            raise self._error(e) from None
        lastrowid = rows[0][0] if returns_id and rows else None
        return PgCursor([] if returns_id else rows, cursor.rowcount, lastrowid)

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
