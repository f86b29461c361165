"""The schema on PostgreSQL: the same migrations as SQLite's, a version table, id sequences.

:func:`migrate` applies :data:`~.schema.MIGRATIONS` (their statements
through :func:`~.pg_dialect.translate_ddl`) in order, each in its own
transaction that also sets the version, so a database is always at one
exact version; an empty database is brought to the latest one.  The
version is the one row of the table ``ficsfen_schema`` (SQLite keeps it in
``PRAGMA user_version``).  Every migration holds a transaction-scoped
advisory lock, so two nodes starting on one database at the same moment
migrate it once.  A database with tables but no ``ficsfen_schema`` belongs
to another program and is refused, as is one at a version above
:data:`~.schema.SCHEMA_VERSION`.

Beyond the migrations, PostgreSQL has two sequences (:func:`prepare_ids`):
the ids of games and of move log rows are taken from them in blocks
(:mod:`.pg_ids`), so that several nodes writing to one database never pick
the same id.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ficsfen.server.store.errors import StoreCorruptError, StoreVersionError
from ficsfen.server.store.pg_connection import PgConnection
from ficsfen.server.store.pg_dialect import translate_ddl
from ficsfen.server.store.schema import MIGRATIONS, Migration

__all__ = ["GAME_IDS", "LOG_IDS", "VERSION_TABLE", "fold_log", "migrate", "prepare_ids",
           "schema_version"]

#: The table holding the schema version (one row).
VERSION_TABLE = "ficsfen_schema"
#: The sequences games and move log rows take their ids from, and their blocks.
GAME_IDS = ("ficsfen_game_ids", 32)
LOG_IDS = ("ficsfen_log_ids", 1024)
# The advisory lock key of migrations ("FICS" in ASCII, as SQLite's application_id).
_LOCK_KEY = 0x46494353

_MOVE_COLUMNS = "game, ply, san, uci, white_ms, black_ms, took_ms"
# One statement: the rows it deletes are the rows it copies, even while another
# node appends to the log (a statement sees one snapshot).  A ply found twice
# keeps the later row, as SQLite's INSERT OR REPLACE does.
_FOLD_LOG = (f"WITH gone AS (DELETE FROM move_log RETURNING id, {_MOVE_COLUMNS}) "
             f"INSERT INTO game_moves ({_MOVE_COLUMNS}) "
             f"SELECT DISTINCT ON (game, ply) {_MOVE_COLUMNS} FROM gone "
             "WHERE game IN (SELECT id FROM games WHERE status = 'playing') "
             "ORDER BY game, ply, id DESC "
             "ON CONFLICT (game, ply) DO UPDATE SET san = EXCLUDED.san, uci = EXCLUDED.uci, "
             "white_ms = EXCLUDED.white_ms, black_ms = EXCLUDED.black_ms, "
             "took_ms = EXCLUDED.took_ms")


def schema_version(conn: PgConnection) -> int | None:
    """The database's version; ``None`` when it has no version table."""
    exists = conn.execute("SELECT to_regclass(?) IS NOT NULL", (VERSION_TABLE,)).fetchone()
    if exists is None or not exists[0]:
        return None
    row = conn.execute(f"SELECT version FROM {VERSION_TABLE}").fetchone()
    return 0 if row is None else int(row[0])


def _other_tables(conn: PgConnection) -> int:
    row = conn.execute("SELECT count(*) FROM information_schema.tables "
                       "WHERE table_schema = current_schema()").fetchone()
    return 0 if row is None else int(row[0])


def migrate(conn: PgConnection, where: str,
            migrations: Sequence[Migration] = MIGRATIONS) -> tuple[int, int]:
    """Bring the database open on ``conn`` (autocommit) up to date; ``where`` names it.

    Returns ``(version before, version after)``.  A migration that fails is
    rolled back whole and its error raised.

    :raises StoreCorruptError: the database has another program's tables.
    :raises StoreVersionError: it is newer than ``migrations`` know.
    """
    known = len(migrations)
    found = schema_version(conn)
    if found is None and _other_tables(conn):
        raise StoreCorruptError(where, "a PostgreSQL database with tables of another program")
    if found is not None and found > known:
        raise StoreVersionError(where, found, known)
    before = found or 0
    for migration in migrations[before:]:
        conn.execute("BEGIN")
        try:
            conn.execute("SELECT pg_advisory_xact_lock(?)", (_LOCK_KEY,))
            now = schema_version(conn)
            if now is None:
                conn.execute(f"CREATE TABLE {VERSION_TABLE} (version integer NOT NULL)")
                conn.execute(f"INSERT INTO {VERSION_TABLE} (version) VALUES (0)")
                now = 0
            if now >= migration.version:  # another node did it
                conn.execute("ROLLBACK")
                continue
            for statement in migration.statements:
                text = translate_ddl(statement)
                if text is not None:
                    conn.raw.execute(text)
            if migration.apply is not None:
                cast_conn: Any = conn
                migration.apply(cast_conn)
            conn.execute(f"UPDATE {VERSION_TABLE} SET version = ?", (migration.version,))
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
    after = schema_version(conn)
    return before, 0 if after is None else after


def prepare_ids(conn: PgConnection) -> None:
    """Create the id sequences if need be, and move each past the ids its table holds
    (a database filled by a copy); under the migrations' lock."""
    conn.execute("BEGIN")
    try:
        conn.execute("SELECT pg_advisory_xact_lock(?)", (_LOCK_KEY,))
        for (name, block), table in ((GAME_IDS, "games"), (LOG_IDS, "move_log")):
            conn.execute(f"CREATE SEQUENCE IF NOT EXISTS {name} INCREMENT BY {int(block)} "
                         "MINVALUE 1 START WITH 1")
            conn.execute(f"SELECT setval('{name}', (SELECT max(id) FROM {table})) "
                         f"WHERE (SELECT max(id) FROM {table}) >= "
                         f"(SELECT last_value FROM {name})")
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise


def fold_log(conn: PgConnection) -> None:
    """At a node's start: the log's rows of games in play copied to ``game_moves``, the
    log emptied, in one statement (see ``game_writes.fold_log``)."""
    conn.execute(_FOLD_LOG)
