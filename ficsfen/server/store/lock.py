"""One server per data file: a lock keyed by the file itself, not by its name.

A server (``SQLiteStore.open(exclusive=True)``) takes two exclusive
``flock`` locks, both released by the kernel when the process ends, however
it ends (kill -9 included), so a stale lock never blocks a restart:

1. **on the data file itself.**  A lock belongs to the file (its device and
   inode), so a second server is refused whatever path leads it there: the
   same path, a relative one, a symbolic link, a hard link, a bind mount.
   On Linux ``flock`` locks and the POSIX record locks SQLite takes on the
   same file are separate, so this lock never stands in SQLite's way (the
   server's own connections, or ``ficsfen accounts`` beside it).  Where
   they are not separate (the BSDs, macOS: a whole-file ``flock`` would
   refuse SQLite's own locks) this lock is not taken, and only the second
   one guards the file.
2. **on** ``REAL.lock``, where ``REAL`` is the data file's real path (links
   resolved): the lock older ficsfen versions took (a server of each
   version on one file still refuse each other), and the file where the
   holder writes its process id for the operator.

Who holds a refused lock is asked of the kernel (``/proc/locks`` gives the
process holding a lock on a given device and inode), never read from the
lock file, whose content may be a dead server's.  Where the kernel does not
say, the message names no process.
"""

from __future__ import annotations

import errno
import fcntl
import os
import sys
from pathlib import Path

from ficsfen.server.store.errors import StoreLockedError, StoreOpenError, StoreReadOnlyError
from ficsfen.server.store.opening import read_only_cause

__all__ = ["LOCK_SUFFIX", "ServerLock", "holder", "lock_path", "server_by_another_name"]

#: The lock file is the data file's real name plus this.
LOCK_SUFFIX = ".lock"
#: Whether ``flock`` and POSIX record locks on one file ignore each other (Linux).
FLOCK_APART = sys.platform.startswith("linux")
PROC_LOCKS = Path("/proc/locks")
_READONLY_ERRNOS = {errno.EACCES, errno.EPERM, errno.EROFS}


def lock_path(path: Path | str) -> Path:
    """The lock file of data file ``path``: beside its real path (symbolic links resolved)."""
    real = Path(os.path.realpath(path))
    return real.with_name(real.name + LOCK_SUFFIX)


class ServerLock:
    """The two locks of a server on one data file; :meth:`take` one, :meth:`release` it."""

    def __init__(self, data_fd: int | None, lock_fd: int) -> None:
        self._fds = [fd for fd in (data_fd, lock_fd) if fd is not None]

    @classmethod
    def take(cls, path: Path) -> ServerLock:
        """Lock data file ``path`` (created empty if missing) for this process.

        :raises StoreLockedError: another process holds the data file or its lock file.
        :raises StoreReadOnlyError: the file or its folder cannot be written.
        :raises StoreOpenError: anything else the system refuses.
        """
        data_fd = None
        if FLOCK_APART:
            data_fd = _open(path, path)
            try:
                _flock(data_fd, path, path)
            except BaseException:
                os.close(data_fd)
                raise
        try:
            where = lock_path(path)
            lock_fd = _open(where, path, folder=True)
            try:
                _flock(lock_fd, where, path)
                os.ftruncate(lock_fd, 0)
                os.pwrite(lock_fd, f"{os.getpid()}\n".encode("ascii"), 0)
            except BaseException:
                os.close(lock_fd)
                raise
        except BaseException:
            if data_fd is not None:
                os.close(data_fd)
            raise
        return cls(data_fd, lock_fd)

    def release(self) -> None:
        """Let both locks go (closing the descriptors drops them); twice is harmless."""
        fds, self._fds = self._fds, []
        for fd in fds:
            os.close(fd)


def server_by_another_name(path: Path) -> int | None:
    """The process id of a server running on data file ``path`` by another name, if any.

    SQLite names a database's journal (``-wal``, ``-shm``) after the path it
    was opened by, so a tool writing through a hard link (or another mount
    of the file) beside a server would keep a journal of its own and damage
    the file.  A server by another name holds the data file's lock but not
    the lock file of ``path``'s name.  Asked of the kernel's lock table
    only (no lock is taken, so a server starting at that moment is not
    disturbed); ``None`` when no server holds the file, it is this name's
    server, or the system does not say.
    """
    try:
        st = os.stat(path)
    except OSError:
        return None
    pid = holder(st.st_dev, st.st_ino)
    if pid is None:
        return None
    try:
        named = os.stat(lock_path(path))
    except OSError:
        return pid
    return None if holder(named.st_dev, named.st_ino) == pid else pid


def _open(where: Path, path: Path, *, folder: bool = False) -> int:
    try:
        return os.open(where, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
    except OSError as e:
        if e.errno in _READONLY_ERRNOS:
            reason = e.strerror or str(e)
            code = read_only_cause(e.errno, Path(where))
            if folder:
                raise StoreReadOnlyError(Path(where).parent, reason, folder=True,
                                         code=code) from None
            raise StoreReadOnlyError(path, reason, code=code) from None
        raise StoreOpenError.because(where, e.strerror or str(e)) from None


def _flock(fd: int, where: Path, path: Path) -> None:
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as e:
        if e.errno in (errno.EWOULDBLOCK, errno.EAGAIN):
            st = os.fstat(fd)
            pid = holder(st.st_dev, st.st_ino)
            lock_file = None if where == path else where
            raise StoreLockedError(path, pid, lock_file=lock_file) from None
        raise StoreOpenError.because(where, e.strerror or str(e)) from None


def holder(device: int, inode: int, *, table: Path = PROC_LOCKS) -> int | None:
    """The process holding an exclusive ``flock`` on the file ``device``/``inode``, if known.

    Read from the kernel's lock table (``/proc/locks``, Linux): the process
    named holds the lock now, so it is alive.  ``None`` when the table is
    missing or unreadable, or names no single process.  A file system whose
    ``stat`` device is not the one the table shows (btrfs subvolumes) is
    matched on the inode alone, if one process only holds such an inode.
    """
    try:
        lines = table.read_text(encoding="ascii", errors="replace").splitlines()
    except OSError:
        return None
    exact: set[int] = set()
    same_inode: set[int] = set()
    wanted = (os.major(device), os.minor(device))
    for line in lines:
        fields = line.split()
        # "1: FLOCK  ADVISORY  WRITE 8128 fe:00:2151811 0 EOF"; waiters have "->" first
        if len(fields) < 6 or fields[1] != "FLOCK" or fields[3] != "WRITE":
            continue
        try:
            pid = int(fields[4])
            major, minor, ino = fields[5].split(":")
            where = (int(major, 16), int(minor, 16))
            found = int(ino)
        except ValueError:
            continue
        if found != inode or pid <= 0:
            continue
        (exact if where == wanted else same_inode).add(pid)
    pids = exact or same_inode
    return next(iter(pids)) if len(pids) == 1 else None
