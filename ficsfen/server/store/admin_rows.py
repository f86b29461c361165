"""What operators change in :class:`~ficsfen.server.store.sqlite.SQLiteStore`: flags, bans, news.

:class:`AdminRows` holds the queries of the ``admin`` and ``muzzled``
columns of ``accounts``, of the ``bans`` table and of the ``news`` table
(schema version 4): writes go to the store's :class:`~.writer.Writer`
(their Deferreds fire once committed), reads use the store's read
connection.  The contracts are :class:`~.interfaces.IStore`'s, whose
methods the store delegates here.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable

from twisted.internet.defer import Deferred

from ficsfen.names import fold
from ficsfen.server.store.errors import NoSuchAccountError
from ficsfen.server.store.records import BAN_KINDS, Ban, NewsItem
from ficsfen.server.store.writer import Writer

__all__ = ["AdminRows"]

_NEWS_COLUMNS = "id, posted, author, title, text"


class AdminRows:
    """Account flags, bans and news: ``writer`` for the writes, ``reader()`` for the read
    connection (it raises :class:`~.errors.StoreClosedError` once the store is closed)."""

    def __init__(self, writer: Writer, reader: Callable[[], sqlite3.Connection]) -> None:
        self._writer = writer
        self._reader = reader

    # -- account flags -------------------------------------------------------------

    def set_admin(self, name: str, on: bool) -> Deferred[None]:
        return self._set_flag(name, "admin", on)

    def set_muzzled(self, name: str, on: bool) -> Deferred[None]:
        return self._set_flag(name, "muzzled", on)

    def _set_flag(self, name: str, column: str, on: bool) -> Deferred[None]:
        params = (int(on), fold(name))

        def change(conn: sqlite3.Connection) -> None:
            cursor = conn.execute(f"UPDATE accounts SET {column} = ? WHERE key = ?", params)
            if cursor.rowcount == 0:
                raise NoSuchAccountError(name)

        return self._writer.submit(run=change)

    # -- bans ------------------------------------------------------------------------

    def add_ban(self, ban: Ban) -> Deferred[bool]:
        if ban.kind not in BAN_KINDS:
            raise ValueError(f"a ban's kind is one of {BAN_KINDS}, not {ban.kind!r}")
        row = (ban.kind, ban.value, ban.by, ban.at, ban.reason)

        def add(conn: sqlite3.Connection) -> bool:
            known = conn.execute("SELECT 1 FROM bans WHERE kind = ? AND value = ?",
                                 row[:2]).fetchone()
            conn.execute("INSERT OR REPLACE INTO bans (kind, value, by, at, reason) "
                         "VALUES (?, ?, ?, ?, ?)", row)
            return known is None

        return self._writer.submit(run=add)

    def remove_ban(self, kind: str, value: str) -> Deferred[bool]:
        def remove(conn: sqlite3.Connection) -> bool:
            cursor = conn.execute("DELETE FROM bans WHERE kind = ? AND value = ?", (kind, value))
            return cursor.rowcount > 0

        return self._writer.submit(run=remove)

    def bans(self) -> list[Ban]:
        rows = self._reader().execute(
            "SELECT kind, value, by, at, reason FROM bans ORDER BY kind, value")
        return [Ban(*row) for row in rows]

    # -- news ------------------------------------------------------------------------

    def add_news(self, author: str, title: str, *, posted: float | None = None) -> Deferred[int]:
        row = (time.time() if posted is None else posted, author, title)

        def add(conn: sqlite3.Connection) -> int:
            # one more than the highest kept, on any database (a PostgreSQL
            # identity would not reuse a removed last number as SQLite's rowid does)
            cursor = conn.execute("INSERT INTO news (id, posted, author, title, text) "
                                  "VALUES ((SELECT coalesce(max(id), 0) + 1 FROM news), "
                                  "?, ?, ?, '')", row)
            number = cursor.lastrowid
            assert number is not None  # an INSERT into a rowid table
            return number

        return self._writer.submit(run=add)

    def add_news_line(self, number: int, line: str) -> Deferred[bool]:
        params = (line, number)

        def add(conn: sqlite3.Connection) -> bool:
            # each line ends with LF; the last one is cut when read (_news_item)
            return conn.execute("UPDATE news SET text = text || ? || char(10) WHERE id = ?",
                                params).rowcount > 0

        return self._writer.submit(run=add)

    def remove_news(self, number: int) -> Deferred[bool]:
        def remove(conn: sqlite3.Connection) -> bool:
            return conn.execute("DELETE FROM news WHERE id = ?", (number,)).rowcount > 0

        return self._writer.submit(run=remove)

    def news(self, limit: int | None = None) -> list[NewsItem]:
        reader = self._reader()
        if limit is None:
            rows = reader.execute(f"SELECT {_NEWS_COLUMNS} FROM news ORDER BY id")
        else:
            rows = reader.execute(f"SELECT {_NEWS_COLUMNS} FROM (SELECT * FROM news "
                                  "ORDER BY id DESC LIMIT ?) AS latest ORDER BY id", (max(limit, 0),))
        return [_news_item(row) for row in rows]

    def news_item(self, number: int) -> NewsItem | None:
        row = self._reader().execute(f"SELECT {_NEWS_COLUMNS} FROM news WHERE id = ?",
                                     (number,)).fetchone()
        return None if row is None else _news_item(row)


def _news_item(row: sqlite3.Row | tuple) -> NewsItem:
    text = row[4]
    return NewsItem(row[0], row[1], row[2], row[3], text[:-1] if text.endswith("\n") else text)
