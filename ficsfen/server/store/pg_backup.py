"""``ficsfen backup`` of a PostgreSQL store: a copy into an SQLite data file.

:func:`backup_database` reads every table of the database inside one
``REPEATABLE READ`` read-only transaction (one snapshot: every commit before
it began, none after, while the nodes keep writing) and writes the rows
into a new SQLite data file at the same schema version (the same
migrations, :mod:`.schema`), checked, written to disk and renamed into
place as :func:`.backup.backup` does.  The copy is an ordinary data file:
``ficsfen serve --data COPY`` runs on it (the games in play come back
adjourned at their last stored move), and a tool can read it.  For a copy
that stays PostgreSQL, use ``pg_dump`` (docs/store.md).
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path
from typing import Any, Callable

from ficsfen.i18n import msg
from ficsfen.server.database_url import display_url, url_problem
from ficsfen.server.store.backup import BackupError, BackupSummary, _remove, _verify, _write_out
from ficsfen.server.store.errors import StoreOpenError
from ficsfen.server.store.pg_connection import PgConnection
from ficsfen.server.store.postgres import CONNECT_TIMEOUT, DatabaseName, check_current
from ficsfen.server.store.schema import migrate

__all__ = ["TABLES", "backup_database"]

#: The tables copied, in this order (the schema's, version 5).
TABLES = ("accounts", "settings", "games", "game_moves", "move_log", "history", "news",
          "messages", "logons", "bans", "ratings")
_ROWS_PER_FETCH = 2000


def backup_database(url: str, target: Path | str, *, force: bool = False,
                    progress: Callable[[int, int], None] | None = None) -> BackupSummary:
    """Copy the database ``url`` names into the SQLite data file ``target``.

    ``progress(remaining, total)`` is called after each table.

    :raises BackupError: ``target`` exists (without ``force``) or is a folder, or the
        copy failed its check; nothing is written at ``target`` then.
    :raises StoreOpenError: the database cannot be read (down, no ficsfen schema at
        this version), or ``target``'s folder cannot be written.
    """
    import psycopg

    where = DatabaseName(display_url(url))
    problem = url_problem(url)
    if problem is not None:
        raise StoreOpenError.because(where, problem)
    target = Path(os.path.abspath(os.path.expanduser(target)))
    if target.is_dir():
        raise BackupError(msg("{file} is a folder; give the name of the copy to write.",
                              file=str(target)))
    if target.exists() and not force:
        raise BackupError(msg("{file} exists already; give --force to replace it.",
                              file=str(target)))
    try:
        raw = psycopg.connect(url.strip(), autocommit=True, connect_timeout=CONNECT_TIMEOUT,
                              application_name="ficsfen backup")
    except psycopg.Error as e:
        raise StoreOpenError.because(where, str(e).strip().splitlines()[0]) from None
    temporary = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    try:
        check_current(PgConnection(raw), where)
        try:
            copy = sqlite3.connect(temporary, isolation_level=None)
        except sqlite3.Error as e:
            raise StoreOpenError.because(target, str(e)) from None
        try:
            migrate(copy, temporary)
            _copy(raw, copy, progress)
            summary = _verify(copy, where, target, len(TABLES))
            copy.execute("PRAGMA journal_mode = DELETE")
        finally:
            copy.close()
        _write_out(temporary, target)
        return summary
    except psycopg.Error as e:
        _remove(temporary)
        raise StoreOpenError.because(where, str(e).strip().splitlines()[0]) from None
    except BaseException:
        _remove(temporary)
        raise
    finally:
        raw.close()


def _copy(conn: Any, copy: sqlite3.Connection,
          progress: Callable[[int, int], None] | None) -> None:
    """Every table's rows, read in one snapshot, written in one SQLite transaction."""
    conn.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
    copy.execute("BEGIN")
    try:
        for done, table in enumerate(TABLES, 1):
            with conn.cursor(name=f"ficsfen_backup_{table}") as cursor:
                cursor.execute(f"SELECT * FROM {table}")
                columns = [column.name for column in cursor.description]
                insert = (f"INSERT INTO {table} ({', '.join(columns)}) "
                          f"VALUES ({', '.join('?' * len(columns))})")
                while rows := cursor.fetchmany(_ROWS_PER_FETCH):
                    copy.executemany(insert, rows)
            if progress is not None:
                progress(len(TABLES) - done, len(TABLES))
        copy.execute("COMMIT")
    except BaseException:
        copy.execute("ROLLBACK")
        raise
    finally:
        conn.execute("COMMIT")
