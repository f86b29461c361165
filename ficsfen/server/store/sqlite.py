"""The SQLite store: stdlib :mod:`sqlite3` in WAL mode, one writer thread.

Two connections to one file:

- the **write connection** belongs to the :class:`~.writer.Writer` thread,
  which commits writes in groups (see :mod:`.writer`);
- the **read connection** is used by the server's read thread
  (``FicsServer.read``, one read at a time, never the reactor thread) for
  the small indexed reads of :class:`~.interfaces.IStore`.  In WAL mode readers never
  wait for the writer, and they see every committed transaction.

**Durability.**  ``synchronous`` is ``"full"`` by default: each commit
fsyncs the write-ahead log before the writes' Deferreds fire, so an
acknowledged move survives a kill -9 of the server *and* a power cut or
kernel crash.  ``"normal"`` skips that fsync (WAL keeps the file
consistent either way): a kill -9 still loses nothing, because the
committed pages are in the operating system's cache, but a power cut may
lose the last commits.  Group commit pays the fsync once per group, not
once per move (``bench/store_writes.py`` measures both).

**One server per file.**  :meth:`SQLiteStore.open` takes the server's
lock (:mod:`.lock`): an exclusive ``flock`` on the data file itself, so a
second server is refused by any path to it (a symbolic or hard link, a bind
mount), and one on ``FILE.lock`` beside its real path, where the holder's
process id is written.  The kernel releases both when the process ends,
however it ends (kill -9 included), so a stale lock never blocks a restart.
SQLite's own ``locking_mode=EXCLUSIVE`` was not used: it would also shut
out our own read connection, and the operator tools (``exclusive=False``)
that change accounts while the server runs.

The store's queries are its collaborators': :class:`~.account_rows.AccountRows`
(accounts and settings), :class:`~.admin_rows.AdminRows` (account flags, bans
and news), :class:`~.message_rows.MessageRows` (stored messages),
:class:`~.game_writes.GameWrites` (game writes and the move log),
:class:`~.game_reads.GameReads` (game reads), :class:`~.logon_rows.LogonRows`
(logins and logouts) and :class:`~.player_reads.PlayerReads` (handles by
prefix, head-to-head records).
"""

from __future__ import annotations

import errno
import os
import sqlite3
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from twisted.internet.defer import Deferred
from zope.interface import implementer

from ficsfen.i18n import Message
from ficsfen.server.database_url import is_database_url
from ficsfen.server.store.account_rows import AccountRows
from ficsfen.server.store.rating_rows import PlayerRatings
from ficsfen.server.store.admin_rows import AdminRows
from ficsfen.server.store.errors import (
    StoreOpenError,
    StoreOtherNameError,
)
from ficsfen.server.store.game_reads import GameReads
from ficsfen.server.store.game_writes import GameWrites, fold_log
from ficsfen.server.store.interfaces import IStore
from ficsfen.server.store.message_rows import MessageRows
from ficsfen.server.store.logon_rows import LogonRows
from ficsfen.server.store.lock import LOCK_SUFFIX, ServerLock, lock_path, server_by_another_name
from ficsfen.server.store.player_reads import PlayerReads
from ficsfen.server.store.read_gate import ReadGate
from ficsfen.server.store.row_store import RowStore
from ficsfen.server.store.rating_reads import RatingReads
from ficsfen.server.store.opening import (
    check,
    check_read_only,
    connect,
    connect_read_only,
    notices_for,
    open_error,
    prepare_folder,
)
from ficsfen.server.store.writer import Checkpointer, Writer

__all__ = ["LOCK_SUFFIX", "SYNCHRONOUS", "SQLiteStore", "lock_path"]

#: Accepted values of ``synchronous`` (``[storage] synchronous``).
SYNCHRONOUS = ("full", "normal")
# Bytes the write-ahead log file is cut back to when it starts again from its
# beginning (it only grows past this when a checkpoint falls behind).
_WAL_SIZE_LIMIT = 16 * 1024 * 1024


@implementer(IStore)
class SQLiteStore(RowStore):
    """The :class:`IStore` on an SQLite file; make one with :meth:`open`."""

    def __init__(self, path: Path, *, reactor: Any, read: sqlite3.Connection,
                 write: sqlite3.Connection, lock: ServerLock | None, next_game_id: int,
                 checkpointer: Checkpointer | None = None,
                 commit_interval: float = 0.0, notices: Sequence[Message] = ()) -> None:
        self.path = path
        self.exclusive = lock is not None
        #: What the operator should know about the file, found while opening it
        #: (an empty file, a file with several names); ``ficsfen serve`` logs them.
        self.notices: list[Message] = list(notices)
        self._reactor = reactor
        self._read = ReadGate(read, path=path, reactor=reactor)
        self._lock = lock
        self._writer = Writer(write, reactor=reactor, path=path, checkpointer=checkpointer,
                              commit_interval=commit_interval)
        self._writer.start()
        self._closing: Deferred[None] | None = None
        reader: Any = self._reader  # the row modules' sqlite3 reads, through the gate
        self._accounts = AccountRows(self._writer, reader)
        self._admin = AdminRows(self._writer, reader)
        self._game_writes = GameWrites(self._writer, path=path, next_game_id=next_game_id,
                                       exclusive=self.exclusive)
        self._game_reads = GameReads(reader)
        self._messages = MessageRows(self._writer, reader)
        self._logons = LogonRows(self._writer, reader)
        self._players = PlayerReads(reader)
        self._ratings = PlayerRatings(reader)
        self._rating_reads = RatingReads(reader)

    def __repr__(self) -> str:
        return f"<SQLiteStore {str(self.path)!r}>"

    @property
    def commits(self) -> int:
        """Transactions committed by the writer thread so far (group commit makes it small)."""
        return self._writer.commits

    # -- opening ---------------------------------------------------------------

    @classmethod
    def open(cls, path: Path | str, *, reactor: Any, exclusive: bool = True,
             synchronous: str = "full", commit_interval: float = 0.0,
             read_only: bool = False) -> SQLiteStore:
        """Open (creating it and its folder if need be) and migrate the data file.

        ``reactor`` provides ``callLater`` and ``callFromThread``.  The
        server opens with ``exclusive=True``: a second server on the same
        file (by any path: the lock is the file's, see :mod:`.lock`) is
        refused.  Operator tools that run beside a server (adding an
        account, exporting games) open with ``exclusive=False``: no lock,
        and no game writes (they would clash with the server's).  Tools
        that only read (listing accounts, exporting games) open with
        ``read_only=True`` (implies ``exclusive=False``): the file must
        exist and be at the current schema version; nothing is created,
        migrated or written, so a file on a read-only file system, or one
        this user may not write, can be read (see
        :func:`connect_read_only`); every write's Deferred fails with
        :class:`StoreWriteError`.
        Symbolic links are resolved: SQLite's ``-wal`` and ``-shm`` files
        sit beside the real file, whatever path led to it.
        Synchronous: this runs once at start, before the server listens.
        ``commit_interval`` (seconds) spaces the writer's commits under load
        (``[storage] commit_interval_ms``, see ``writer.py``).

        :raises StoreOpenError: a subclass naming the file and the cause:
            :class:`StoreLockedError`, :class:`StoreCorruptError`,
            :class:`StoreReadOnlyError`, :class:`StoreVersionError`,
            :class:`StoreOtherNameError` (a tool given a hard link to a
            running server's file).
        """
        if synchronous not in SYNCHRONOUS:
            raise ValueError(f"synchronous must be one of {SYNCHRONOUS}, not {synchronous!r}")
        if isinstance(path, str) and is_database_url(path):  # never a folder named "scheme:"
            raise StoreOpenError.because(path, "a database URL, not a file (PostgresStore)")
        path = Path(os.path.abspath(os.path.expanduser(path)))
        if not exclusive or read_only:
            elsewhere = server_by_another_name(path)
            if elsewhere is not None:
                raise StoreOtherNameError(path, elsewhere)
        if read_only:
            return cls._open_read_only(path, reactor=reactor)
        prepare_folder(path)
        real = Path(os.path.realpath(path))
        notices = notices_for(path, real)
        lock = ServerLock.take(path) if exclusive else None
        try:
            write = connect(real, path, check_same_thread=False)
            opened = [write]
            try:
                check(write, path)
                write.execute(f"PRAGMA synchronous = {synchronous.upper()}")
                write.execute("PRAGMA foreign_keys = ON")
                # A multi-row INSERT in a transaction keeps a statement journal
                # (to undo just that statement); past 64 KiB SQLite spills it to a
                # new temporary file, dozens of times a second under load.
                write.execute("PRAGMA temp_store = MEMORY")
                next_id = write.execute("SELECT coalesce(max(id), 0) + 1 FROM games").fetchone()[0]
                checkpointer = None
                if exclusive:
                    fold_log(write)
                    # see writer.py: checkpoints off the commit path
                    write.execute("PRAGMA wal_autocheckpoint = 0")
                    write.execute(f"PRAGMA journal_size_limit = {_WAL_SIZE_LIMIT}")
                    opened.append(connect(real, path, check_same_thread=False))
                    checkpointer = Checkpointer(opened[-1], path=path)
                # The server reads in a thread of its own (FicsServer.read), one at a time.
                read = connect(real, path, check_same_thread=False)
                read.row_factory = sqlite3.Row
                read.execute("PRAGMA query_only = ON")
            except sqlite3.Error as e:
                for conn in opened:
                    conn.close()
                raise open_error(path, e) from None
            except BaseException:
                for conn in opened:
                    conn.close()
                raise
        except BaseException:
            if lock is not None:
                lock.release()
            raise
        return cls(path, reactor=reactor, read=read, write=write, lock=lock,
                   next_game_id=next_id, checkpointer=checkpointer,
                   commit_interval=commit_interval, notices=notices)

    @classmethod
    def _open_read_only(cls, path: Path, *, reactor: Any) -> SQLiteStore:
        real = Path(os.path.realpath(path))
        if real.is_dir():
            raise StoreOpenError.because(path, os.strerror(errno.EISDIR))
        if not real.exists():
            raise StoreOpenError.because(path, os.strerror(errno.ENOENT))
        write = connect_read_only(real, path, check_same_thread=False)
        try:
            read = connect_read_only(real, path, check_same_thread=True)
        except BaseException:
            write.close()
            raise
        try:
            check_read_only(read, path)
            read.row_factory = sqlite3.Row
            next_id = read.execute("SELECT coalesce(max(id), 0) + 1 FROM games").fetchone()[0]
        except sqlite3.Error as e:
            read.close()
            write.close()
            raise open_error(path, e) from None
        except BaseException:
            read.close()
            write.close()
            raise
        return cls(path, reactor=reactor, read=read, write=write, lock=None,
                   next_game_id=next_id)

    # -- life ------------------------------------------------------------------

    def _writer_closed(self, result: Any) -> Any:
        """The writer is closed: the one-server-per-file lock is let go."""
        if self._lock is not None:
            self._lock.release()
            self._lock = None
        return result

