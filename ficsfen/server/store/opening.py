"""Opening the data file: its folder, its connections, its checks, its errors.

The steps of :meth:`~ficsfen.server.store.sqlite.SQLiteStore.open` that
touch the file system, and the translation of what the system or SQLite
says into the store's errors (:mod:`.errors`): one class per thing an
operator must do.
"""

from __future__ import annotations

import errno
import os
import sqlite3
import urllib.parse
from pathlib import Path

from ficsfen.i18n import Message, msg
from ficsfen.server.store.errors import (
    StoreCorruptError,
    StoreError,
    StoreOpenError,
    StoreReadOnlyError,
    StoreVersionError,
)
from ficsfen.server.store.schema import APPLICATION_ID, SCHEMA_VERSION, migrate, user_version

__all__ = ["check", "check_read_only", "connect", "connect_read_only", "notices_for",
           "open_error", "prepare_folder", "read_only_cause"]

# Milliseconds a connection waits for another process's write (an operator
# tool changing an account) before giving up.
_BUSY_TIMEOUT_MS = 5000

# SQLite's primary result codes that mean "this is not a (sound) database".
_CORRUPT_CODES = {sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB}
_READONLY_ERRNOS = {errno.EACCES, errno.EPERM, errno.EROFS}


def prepare_folder(path: Path) -> None:
    """Make ``path``'s folder if need be; refuse what the server could not write.

    :raises StoreReadOnlyError: the folder (the real file's too, for a link)
        or the file cannot be written; a read-only file system says so.
    :raises StoreOpenError: ``path`` is a folder, or the system refuses otherwise.
    """
    folder = path.parent
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        if e.errno in _READONLY_ERRNOS:
            raise StoreReadOnlyError(folder, e.strerror or str(e), folder=True,
                                     code=read_only_cause(e.errno, folder)) from None
        raise StoreOpenError.because(path, e.strerror or str(e)) from None
    if path.is_dir():
        raise StoreOpenError.because(path, os.strerror(errno.EISDIR))
    # SQLite creates FILE-wal and FILE-shm beside the (real) file, and we the lock file.
    real_folder = Path(os.path.realpath(path)).parent
    for where in dict.fromkeys((folder, real_folder)):
        if not os.access(where, os.W_OK | os.X_OK):
            code = read_only_cause(errno.EACCES, where)
            raise StoreReadOnlyError(where, os.strerror(code), folder=True, code=code)
    if path.exists():
        try:
            os.close(os.open(path, os.O_RDWR | os.O_CLOEXEC))
        except OSError as e:
            if e.errno in _READONLY_ERRNOS:
                raise StoreReadOnlyError(path, e.strerror or str(e),
                                         code=read_only_cause(e.errno, path)) from None
            raise StoreOpenError.because(path, e.strerror or str(e)) from None


def read_only_cause(code: int, where: Path) -> int:
    """``EROFS`` when ``where`` (or the folder it would be made in) is on a read-only mount.

    ``os.access`` and ``mkdir`` may say "permission denied" for a folder of a
    read-only file system; the mount's flags tell the two apart.
    """
    if code == errno.EROFS:
        return code
    probe = where
    while not probe.exists() and probe != probe.parent:
        probe = probe.parent
    try:
        if os.statvfs(probe).f_flag & os.ST_RDONLY:
            return errno.EROFS
    except OSError:
        pass
    return code


def notices_for(path: Path, real: Path) -> list[Message]:
    """What to tell the operator about the data file before using it."""
    try:
        st = os.stat(real)
    except OSError:
        return []  # created now: nothing to say
    notices = []
    if st.st_size == 0:
        notices.append(msg("{file}: the data file is empty: starting a new store in it.",
                           file=str(path)))
    if st.st_nlink > 1:
        notices.append(msg(
            "{file}: the data file has {count} names (hard links); open it by this one only. "
            "SQLite names its journal after the name used, so moves committed just before a "
            "crash are only found again through the same name.", file=str(path),
            count=st.st_nlink))
    return notices


def connect(real: Path, path: Path, *, check_same_thread: bool) -> sqlite3.Connection:
    """A read-write connection to ``real`` (errors name ``path``).

    :raises StoreOpenError: see :func:`open_error`.
    """
    try:
        conn = sqlite3.connect(real, isolation_level=None, check_same_thread=check_same_thread)
    except sqlite3.Error as e:
        raise open_error(path, e) from None
    conn.execute(f"PRAGMA busy_timeout = {_BUSY_TIMEOUT_MS}")
    return conn


def connect_read_only(real: Path, path: Path, *, check_same_thread: bool) -> sqlite3.Connection:
    """A connection that does not write ``real``.

    Where the file and its folder can be written, an ordinary connection
    with ``query_only`` on: as the last one to close it still tidies the
    ``-wal`` and ``-shm`` files away, as any reader does.  Otherwise
    ``mode=ro``; on a read-only file system SQLite cannot make the ``-shm``
    file a WAL reader needs, so there, when no ``-wal`` file is beside the
    data file (no server left commits in it), the file is opened
    ``immutable``: read as it is on disk, without locks or journal.
    """
    writable = os.access(real, os.W_OK) and os.access(real.parent, os.W_OK | os.X_OK)
    try:
        if writable:
            conn = sqlite3.connect(real, isolation_level=None,
                                   check_same_thread=check_same_thread)
            conn.execute("PRAGMA query_only = ON")
        else:
            options = "?mode=ro"
            wal = real.with_name(real.name + "-wal")
            if (read_only_cause(errno.EACCES, real) == errno.EROFS
                    and not (wal.exists() and wal.stat().st_size)):
                options += "&immutable=1"
            conn = sqlite3.connect("file:" + urllib.parse.quote(str(real)) + options, uri=True,
                                   isolation_level=None, check_same_thread=check_same_thread)
        conn.execute(f"PRAGMA busy_timeout = {_BUSY_TIMEOUT_MS}")
    except sqlite3.Error as e:
        raise open_error(path, e) from None
    return conn


def check(conn: sqlite3.Connection, path: Path) -> None:
    """Refuse a file that is not a sound database, then migrate it and turn on WAL."""
    problems = [row[0] for row in conn.execute("PRAGMA quick_check")]
    if problems != ["ok"]:
        raise StoreCorruptError(path, "; ".join(problems[:3]))
    migrate(conn, path)
    mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
    if mode != "wal":  # pragma: no cover - only on file systems without shared memory
        raise StoreOpenError.because(path, f"journal mode {mode!r} instead of 'wal'")


def check_read_only(conn: sqlite3.Connection, path: Path) -> None:
    """Refuse what a read-only reader cannot use: no data yet, or another schema version."""
    found = user_version(conn)
    if found == 0 and not conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]:
        raise StoreOpenError(msg("{file}: the data file is empty (no server has started on "
                                 "it yet).", file=str(path)), path)
    if conn.execute("PRAGMA application_id").fetchone()[0] not in (0, APPLICATION_ID):
        raise StoreCorruptError(path, "an SQLite database of another program")
    if found != SCHEMA_VERSION:
        if found > SCHEMA_VERSION:
            raise StoreVersionError(path, found, SCHEMA_VERSION)
        raise StoreOpenError(msg("{file}: written by an older ficsfen (data schema version "
                                 "{found}); start the server on it once to bring it up to "
                                 "date, then read it again.", file=str(path), found=found), path)


def open_error(path: Path, error: sqlite3.Error) -> StoreError:
    """The store's error for what SQLite said while opening ``path``."""
    code = getattr(error, "sqlite_errorcode", 0) & 0xFF
    reason = str(error)
    if code in _CORRUPT_CODES:
        return StoreCorruptError(path, reason)
    if code == sqlite3.SQLITE_READONLY:
        return StoreReadOnlyError(path, reason, code=read_only_cause(errno.EACCES, path))
    return StoreOpenError.because(path, reason)
