"""A copy of the data file taken while a server runs on it: SQLite's online backup.

:func:`backup` copies the data file page by page with SQLite's backup API
(:meth:`sqlite3.Connection.backup`), through a connection of its own that
only reads: it takes no server lock (:mod:`.lock`) and writes nothing to the
data file, so it works beside a running server, and a second copy beside
the first.

**A consistent copy of one moment.**  The copy runs inside one read
transaction of the data file, begun before the first page is copied: in WAL
mode that transaction sees the file as it was when it began, every commit
until then and none after.  Every move a server acknowledged before the
copy began is in it (the server acknowledges a move once its commit is
written); moves committed during the copy are not.  Without that
transaction, SQLite would restart the copy from its first page each time
the server commits between two steps, which under play is every step: the
copy would never end.

**The server is not held up.**  In WAL mode a reader never blocks the
writer: the server commits while the copy reads, and the copy never waits
for it.  What the read transaction holds back is the checkpoint (the
server's are ``PASSIVE``: they copy what they can and never wait), so the
server's ``-wal`` file grows by what it commits during the copy, and
shrinks at its next checkpoints once the copy has ended.  The copy goes
``pages_per_step`` pages at a time (SQLite's steps), calling ``progress``
after each step.

**Written whole or not at all.**  The copy goes to a temporary file beside
``target``, is checked there (``PRAGMA integrity_check``, the application
id, the schema version), set to a single file (``journal_mode = DELETE``:
no ``-wal`` file needed beside it), written to disk (``fsync``) and only
then renamed to ``target``: a crash or an error leaves ``target`` as it was,
and no temporary file.  An existing ``target`` is replaced only with
``force``.

**Restoring** is starting a server on the copy (``ficsfen serve --data
COPY``), or copying it over the data file while the server is stopped: the
games in play when the copy began come back adjourned, at the position of
their last move in the copy (docs/operations.md).
"""

from __future__ import annotations

import errno
import os
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from ficsfen.i18n import msg
from ficsfen.server.database_url import is_database_url
from ficsfen.server.store.errors import StoreError, StoreOpenError, StoreOtherNameError
from ficsfen.server.store.lock import server_by_another_name
from ficsfen.server.store.opening import check_read_only, connect_read_only, open_error
from ficsfen.server.store.schema import APPLICATION_ID, SCHEMA_VERSION, user_version

__all__ = ["BackupError", "BackupSummary", "PAGES_PER_STEP", "backup"]

#: Pages copied per step of SQLite's backup (4 KiB each: 4 MiB a step).
PAGES_PER_STEP = 1024


class BackupError(StoreError):
    """The copy cannot be made, or failed its check: nothing was written at the target."""


@dataclass(frozen=True)
class BackupSummary:
    """What :func:`backup` copied."""

    #: The data file, or the PostgreSQL database's URL (password masked).
    source: Path | str
    target: Path
    #: Pages of the copy (``page_count``), and SQLite steps taken to copy them.
    pages: int
    steps: int
    schema_version: int
    accounts: int
    #: Every game of the file; those in play when the copy began (they come back
    #: adjourned in a server started on the copy); those adjourned.
    games: int
    in_play: int
    adjourned: int


def backup(source: Path | str, target: Path | str, *, force: bool = False,
           pages_per_step: int = PAGES_PER_STEP,
           progress: Callable[[int, int], None] | None = None) -> BackupSummary:
    """Copy the data file ``source`` to ``target`` (see the module), returning what it holds.

    ``source`` may be a PostgreSQL URL (a ``str``): the database is then copied into the
    SQLite data file ``target`` (:mod:`.pg_backup`).

    ``progress(remaining, total)`` is called after each step of
    ``pages_per_step`` pages.  Synchronous: run it in a process or thread of
    its own (``ficsfen backup``).

    :raises BackupError: ``target`` exists (without ``force``), is the data
        file itself or a folder, or the copy failed its check.
    :raises StoreOpenError: ``source`` cannot be read as a ficsfen data file
        at this version (its subclasses say why; :class:`StoreOtherNameError`:
        a server runs on it by another name, a hard link, whose ``-wal`` file
        the copy would miss), or ``target``'s folder cannot be written.
    """
    if isinstance(source, str) and is_database_url(source):  # a PostgreSQL store
        from ficsfen.server.store.pg_backup import backup_database

        return backup_database(source, target, force=force, progress=progress)
    source = Path(os.path.abspath(os.path.expanduser(source)))
    target = Path(os.path.abspath(os.path.expanduser(target)))
    real = Path(os.path.realpath(source))
    if not real.is_file():
        raise StoreOpenError.because(source, os.strerror(errno.EISDIR if real.exists() else errno.ENOENT))
    elsewhere = server_by_another_name(source)
    if elsewhere is not None:  # its -wal file, named after the server's path, would be missed
        raise StoreOtherNameError(source, elsewhere)
    _check_target(real, target, force)
    temporary = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    read = connect_read_only(real, source, check_same_thread=True)
    try:
        check_read_only(read, source)
        try:
            copy = sqlite3.connect(temporary, isolation_level=None)
        except sqlite3.Error as e:
            raise StoreOpenError.because(target, str(e)) from None
        try:
            steps = _copy(read, copy, source, pages_per_step, progress)
            summary = _verify(copy, source, target, steps)
            copy.execute("PRAGMA journal_mode = DELETE")  # one file, no -wal beside it
        finally:
            copy.close()
        _write_out(temporary, target)
        return summary
    except BaseException:
        _remove(temporary)
        raise
    finally:
        read.close()


def _check_target(real: Path, target: Path, force: bool) -> None:
    if target.is_dir():
        raise BackupError(msg("{file} is a folder; give the name of the copy to write.",
                              file=str(target)))
    if target.exists():
        if os.path.samefile(real, target):
            raise BackupError(msg("{file} is the data file itself; give another name for the "
                                  "copy.", file=str(target)))
        if not force:
            raise BackupError(msg("{file} exists already; give --force to replace it.",
                                  file=str(target)))


def _copy(read: sqlite3.Connection, copy: sqlite3.Connection, source: Path, pages_per_step: int,
          progress: Callable[[int, int], None] | None) -> int:
    """Copy inside one read transaction of ``read`` (its snapshot); returns the steps taken."""
    steps = 0

    def step(status: int, remaining: int, total: int) -> None:
        nonlocal steps
        steps += 1
        if progress is not None:
            progress(remaining, total)

    try:
        read.execute("BEGIN")
        read.execute("SELECT count(*) FROM sqlite_master").fetchone()  # the snapshot starts here
        read.backup(copy, pages=max(1, pages_per_step), progress=step)
        read.execute("COMMIT")
    except sqlite3.Error as e:
        raise open_error(source, e) from None
    return steps


def _verify(copy: sqlite3.Connection, source: Path | str, target: Path,
            steps: int) -> BackupSummary:
    """Check the copy and count what it holds.  :raises BackupError: it is not sound."""
    try:
        problems = [row[0] for row in copy.execute("PRAGMA integrity_check")]
        if problems != ["ok"]:
            raise BackupError(msg("The copy failed its check ({problems}); nothing was written "
                                  "at {file}.", problems="; ".join(problems[:3]), file=str(target)))
        version = user_version(copy)
        application = copy.execute("PRAGMA application_id").fetchone()[0]
        if version != SCHEMA_VERSION or application != APPLICATION_ID:
            raise BackupError(msg("The copy failed its check (schema version {version}, expected "
                                  "{expected}); nothing was written at {file}.", version=version,
                                  expected=SCHEMA_VERSION, file=str(target)))
        pages = copy.execute("PRAGMA page_count").fetchone()[0]
        accounts = copy.execute("SELECT count(*) FROM accounts").fetchone()[0]
        counts = dict(copy.execute("SELECT status, count(*) FROM games GROUP BY status").fetchall())
    except sqlite3.Error as e:
        raise BackupError(msg("The copy failed its check ({problems}); nothing was written at "
                              "{file}.", problems=str(e), file=str(target))) from None
    return BackupSummary(source=source, target=target, pages=pages, steps=steps,
                         schema_version=version, accounts=accounts, games=sum(counts.values()),
                         in_play=counts.get("playing", 0), adjourned=counts.get("adjourned", 0))


def _write_out(temporary: Path, target: Path) -> None:
    """``temporary`` on disk, then renamed to ``target``, the rename on disk too."""
    fd = os.open(temporary, os.O_RDONLY | os.O_CLOEXEC)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(temporary, target)
    folder = os.open(target.parent, os.O_RDONLY | os.O_CLOEXEC)
    try:
        os.fsync(folder)
    finally:
        os.close(folder)


def _remove(temporary: Path) -> None:
    for path in (temporary, *(temporary.with_name(temporary.name + end)
                              for end in ("-journal", "-wal", "-shm"))):
        try:
            path.unlink()
        except FileNotFoundError:
            pass
