"""The ``messages`` rows of :class:`~ficsfen.server.store.sqlite.SQLiteStore`: stored
messages between registered players.

A player's messages are numbered from 1 in the order they arrived, as
FICS numbers them; clearing some renumbers the rest.  Writes go to the
store's :class:`~.writer.Writer` (their Deferreds fire once committed),
reads use the store's read connection.  The contracts are
:class:`~.interfaces.IStore`'s, whose methods the store delegates here.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from twisted.internet.defer import Deferred

from ficsfen.names import fold
from ficsfen.server.store.errors import MailboxFullError, NoSuchAccountError
from ficsfen.server.store.writer import Writer

__all__ = ["MessageRows", "StoredMessage"]


@dataclass(frozen=True)
class StoredMessage:
    """One stored message: its number among the recipient's (from 1), its row id, who
    sent it, when (Unix time), its text, and whether the recipient has read it."""

    number: int
    id: int
    sender: str
    sent: float
    text: str
    unread: bool


class MessageRows:
    """Stored messages: ``writer`` for the writes, ``reader()`` for the read connection."""

    def __init__(self, writer: Writer, reader: Callable[[], sqlite3.Connection]) -> None:
        self._writer = writer
        self._reader = reader

    def send_message(self, sender: str, recipient: str, text: str, *, limit: int,
                     sent: float | None = None) -> Deferred[StoredMessage]:
        when = time.time() if sent is None else sent
        key = fold(recipient)

        def send(conn: sqlite3.Connection) -> StoredMessage:
            row = conn.execute("SELECT name FROM accounts WHERE key = ?", (key,)).fetchone()
            if row is None:
                raise NoSuchAccountError(recipient)
            count = conn.execute("SELECT COUNT(*) FROM messages WHERE recipient_key = ?",
                                 (key,)).fetchone()[0]
            if count >= limit:
                raise MailboxFullError(row[0], limit)
            cursor = conn.execute("INSERT INTO messages (sender, recipient_key, sent, text) "
                                  "VALUES (?, ?, ?, ?)", (sender, key, when, text))
            return StoredMessage(count + 1, cursor.lastrowid or 0, sender, when, text, True)

        return self._writer.submit(run=send)

    def messages(self, recipient: str) -> list[StoredMessage]:
        rows = self._reader().execute(
            "SELECT id, sender, sent, text, unread FROM messages WHERE recipient_key = ? "
            "ORDER BY id", (fold(recipient),))
        return [StoredMessage(n, row[0], row[1], row[2], row[3], bool(row[4]))
                for n, row in enumerate(rows, 1)]

    def message_counts(self, recipient: str) -> tuple[int, int]:
        row = self._reader().execute(
            "SELECT COUNT(*), COALESCE(SUM(unread), 0) FROM messages WHERE recipient_key = ?",
            (fold(recipient),)).fetchone()
        return row[0], row[1]

    def mark_read(self, recipient: str, ids: Iterable[int]) -> Deferred[None]:
        rows = [(fold(recipient), i) for i in ids]

        def mark(conn: sqlite3.Connection) -> None:
            conn.executemany("UPDATE messages SET unread = 0 WHERE recipient_key = ? AND id = ?",
                             rows)

        return self._writer.submit(run=mark)

    def clear_messages(self, recipient: str, ids: Iterable[int]) -> Deferred[int]:
        rows = [(fold(recipient), i) for i in ids]

        def clear(conn: sqlite3.Connection) -> int:
            return sum(conn.execute("DELETE FROM messages WHERE recipient_key = ? AND id = ?",
                                    row).rowcount for row in rows)

        return self._writer.submit(run=clear)
