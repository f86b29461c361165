"""The server's store: accounts, settings and played games, kept across restarts.

- :class:`IStore` (:mod:`.interfaces`): what the server may ask of a store,
  with each method's durability; the seam another database plugs into;
- :class:`SQLiteStore` (:mod:`.sqlite`): the default, stdlib
  :mod:`sqlite3` in WAL mode with a writer thread and group commit
  (:mod:`.writer`), schema versions and migrations in :mod:`.schema`;
- :class:`~.postgres.PostgresStore` (:mod:`.postgres`, imported on demand:
  it needs psycopg): the same row modules and writer on PostgreSQL through
  a dialect layer (:mod:`.pg_dialect`), for several nodes on one database;
- the values it keeps and returns (:mod:`.records`), and its errors
  (:mod:`.errors`), each a localized :class:`StoreError` naming the file;
- the one-server-per-file lock (:mod:`.lock`), keyed by the file itself, and
  the steps of opening the file (:mod:`.opening`).

``docs/store.md`` describes the layout, the schema and the durability rule.
"""

from __future__ import annotations

from ficsfen.server.store.errors import (
    AccountExistsError,
    NoSuchAccountError,
    NoSuchGameError,
    StoreClosedError,
    StoreCorruptError,
    StoreError,
    StoreLockedError,
    StoreOpenError,
    StoreOtherNameError,
    StoreReadOnlyError,
    StoreVersionError,
    StoreWriteError,
)
from ficsfen.server.store.interfaces import IStore
from ficsfen.server.store.records import (
    HISTORY_NUMBERS,
    HISTORY_SIZE,
    RESULTS,
    BAN_KINDS,
    Account,
    Adjournment,
    Ban,
    EndCode,
    GameEnd,
    GameRecord,
    GameStart,
    GameStatus,
    HistoryEntry,
    MoveRecord,
    NewsItem,
    StoredGame,
)
from ficsfen.server.store.rating_rows import RatingWrite
from ficsfen.server.store.schema import SCHEMA_VERSION
from ficsfen.server.store.sqlite import SYNCHRONOUS, SQLiteStore, lock_path

__all__ = [
    "BAN_KINDS",
    "HISTORY_NUMBERS",
    "HISTORY_SIZE",
    "RESULTS",
    "SCHEMA_VERSION",
    "SYNCHRONOUS",
    "RatingWrite",
    "Account",
    "AccountExistsError",
    "Adjournment",
    "Ban",
    "EndCode",
    "GameEnd",
    "GameRecord",
    "GameStart",
    "GameStatus",
    "HistoryEntry",
    "IStore",
    "MoveRecord",
    "NewsItem",
    "NoSuchAccountError",
    "NoSuchGameError",
    "SQLiteStore",
    "StoreClosedError",
    "StoreCorruptError",
    "StoreError",
    "StoreLockedError",
    "StoreOpenError",
    "StoreOtherNameError",
    "StoreReadOnlyError",
    "StoreVersionError",
    "StoreWriteError",
    "StoredGame",
    "lock_path",
]
