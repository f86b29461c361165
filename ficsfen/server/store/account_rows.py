"""The accounts and settings rows of :class:`~ficsfen.server.store.sqlite.SQLiteStore`.

:class:`AccountRows` holds the queries of the ``accounts`` and ``settings``
tables: writes go to the store's :class:`~.writer.Writer` (their Deferreds
fire once committed), reads use the store's read connection.  The contracts
are :class:`~.interfaces.IStore`'s, whose methods the store delegates here.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Callable, Mapping
from typing import Any

from twisted.internet.defer import Deferred

from ficsfen.names import fold
from ficsfen.server.store.errors import AccountExistsError, NoSuchAccountError
from ficsfen.server.store.records import Account
from ficsfen.server.store.writer import Writer

__all__ = ["AccountRows"]


class AccountRows:
    """Accounts and their saved settings: ``writer`` for the writes, ``reader()``
    for the read connection (it raises :class:`~.errors.StoreClosedError` once
    the store is closed)."""

    def __init__(self, writer: Writer, reader: Callable[[], sqlite3.Connection]) -> None:
        self._writer = writer
        self._reader = reader

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
        row = self._reader().execute(f"SELECT {_ACCOUNT_COLUMNS} FROM accounts WHERE key = ?",
                                     (fold(name),)).fetchone()
        return None if row is None else _account(row)

    def accounts(self) -> list[Account]:
        rows = self._reader().execute(f"SELECT {_ACCOUNT_COLUMNS} FROM accounts ORDER BY key")
        return [_account(row) for row in rows]

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


_ACCOUNT_COLUMNS = "name, password, created, admin, muzzled"


def _account(row: Any) -> Account:
    return Account(row[0], row[1], row[2], admin=bool(row[3]), muzzled=bool(row[4]))


def _changing_account(name: str, sql: str, params: tuple[Any, ...]) -> Any:
    def change(conn: sqlite3.Connection) -> None:
        if conn.execute(sql, params).rowcount == 0:
            raise NoSuchAccountError(name)
    return change
