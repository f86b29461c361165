"""What can go wrong with the store, as localized errors naming the data file.

Every error is a :class:`StoreError` (a :class:`~ficsfen.i18n.LocalizedError`):
``ficsfen serve`` prints ``err.render(lang)`` and exits with status 1, a
command shows it to the player.  Errors met while opening the file are
:class:`StoreOpenError` subclasses, one per cause an operator must act on
differently (stop the other server, restore a backup, fix permissions,
upgrade ficsfen).
"""

from __future__ import annotations

import errno
from pathlib import Path

from ficsfen.i18n import LocalizedError, Message, msg

__all__ = [
    "AccountExistsError",
    "MailboxFullError",
    "NoSuchAccountError",
    "NoSuchGameError",
    "StoreClosedError",
    "StoreCorruptError",
    "StoreError",
    "StoreLockedError",
    "StoreOpenError",
    "StoreOtherNameError",
    "StoreReadOnlyError",
    "StoreVersionError",
    "StoreWriteError",
]


class StoreError(LocalizedError):
    """Anything the store refuses or fails to do; :meth:`render` says why."""


class StoreOpenError(StoreError):
    """The data file cannot be used; ``path`` is the file (or its folder)."""

    def __init__(self, message: Message, path: Path | str) -> None:
        super().__init__(message)
        self.path = Path(path)

    @classmethod
    def because(cls, path: Path | str, reason: str) -> StoreOpenError:
        """The generic "cannot open" error, for causes without a class of their own."""
        return cls(msg("{file}: cannot open the data file: {reason}", file=str(path),
                       reason=reason), path)


class StoreLockedError(StoreOpenError):
    """Another running process holds the data file (any path to it), or its lock file.

    ``pid`` is the holder as the kernel reports it (alive, never a stale
    number read from a file), or ``None`` when the system does not say.
    ``lock_file`` is ``None`` when the data file itself is held (by another
    server); else the lock file another program (an older ficsfen, a tool)
    holds.
    """

    def __init__(self, path: Path | str, pid: int | None, *,
                 lock_file: Path | str | None = None) -> None:
        if lock_file is not None:
            if pid is None:
                message = msg("{file}: its lock file {lock} is held by another program; stop "
                              "it first, or give this server another file with --data.",
                              file=str(path), lock=str(lock_file))
            else:
                message = msg("{file}: its lock file {lock} is held by another program "
                              "(process {pid}); stop it first, or give this server another "
                              "file with --data.", file=str(path), lock=str(lock_file), pid=pid)
        elif pid is None:
            message = msg("{file}: the data file is in use by another running server; "
                          "stop it first, or give this one another file with --data.",
                          file=str(path))
        else:
            message = msg("{file}: the data file is in use by another running server "
                          "(process {pid}); stop it first, or give this one another file "
                          "with --data.", file=str(path), pid=pid)
        super().__init__(message, path)
        self.pid = pid
        self.lock_file = None if lock_file is None else Path(lock_file)


class StoreOtherNameError(StoreOpenError):
    """A server runs on the data file by another name (a hard link, another mount).

    An operator tool must then use the server's name: SQLite keeps a
    database's journal under the name it was opened by.
    """

    def __init__(self, path: Path | str, pid: int) -> None:
        super().__init__(msg("{file}: a server (process {pid}) runs on this data file by "
                             "another name (a hard link, or another mount of it); give the "
                             "name that server was given: SQLite keeps its journal under that "
                             "name.", file=str(path), pid=pid), path)
        self.pid = pid


class StoreCorruptError(StoreOpenError):
    """The file is not an SQLite database, or fails SQLite's integrity check."""

    def __init__(self, path: Path | str, reason: str) -> None:
        super().__init__(msg("{file}: not a ficsfen data file, or a damaged one ({reason}); "
                             "restore a backup, or move it away to start with an empty store.",
                             file=str(path), reason=reason), path)
        self.reason = reason


class StoreReadOnlyError(StoreOpenError):
    """The file, or the folder that must hold it and its journal, cannot be written.

    ``read_only_fs`` tells a read-only file system (``EROFS``: a mount to
    change) from a refusal of permissions (files or folders to change).
    """

    def __init__(self, path: Path | str, reason: str, *, folder: bool = False,
                 code: int | None = None) -> None:
        self.read_only_fs = code == errno.EROFS
        if self.read_only_fs and folder:
            message = msg("{folder}: the data file's folder is on a read-only file system; "
                          "the server needs to create its data, journal and lock files there "
                          "(mount it read-write, or choose another file with --data).",
                          folder=str(path))
        elif self.read_only_fs:
            message = msg("{file}: the data file is on a read-only file system; the server "
                          "must be able to write it (mount it read-write, or choose another "
                          "file with --data).", file=str(path))
        elif folder:
            message = msg("{folder}: cannot write in the data file's folder ({reason}); the "
                          "server needs to create its data, journal and lock files there.",
                          folder=str(path), reason=reason)
        else:
            message = msg("{file}: the data file is read-only ({reason}); the server must be "
                          "able to write it.", file=str(path), reason=reason)
        super().__init__(message, path)
        self.reason = reason
        self.folder = folder


class StoreVersionError(StoreOpenError):
    """The file was written by a newer ficsfen: its schema version is unknown here."""

    def __init__(self, path: Path | str, found: int, known: int) -> None:
        super().__init__(msg("{file}: written by a newer ficsfen (data schema version {found}; "
                             "this one knows versions up to {known}); upgrade ficsfen to use it.",
                             file=str(path), found=found, known=known), path)
        self.found = found
        self.known = known


class StoreWriteError(StoreError):
    """A write failed in the writer thread (disk full, I/O error, a broken constraint)."""

    def __init__(self, path: Path | str, reason: str) -> None:
        super().__init__(msg("{file}: a write to the data file failed: {reason}",
                             file=str(path), reason=reason))
        self.path = Path(path)
        self.reason = reason


class StoreClosedError(StoreError):
    """A read or a write asked for after :meth:`~ficsfen.server.store.IStore.close`."""

    def __init__(self, path: Path | str) -> None:
        super().__init__(msg("{file}: the data file is closed.", file=str(path)))
        self.path = Path(path)


class AccountExistsError(StoreError):
    """``add_account`` of a handle that has an account already (any case)."""

    def __init__(self, name: str) -> None:
        super().__init__(msg("There is already an account named {name}.", name=name))
        self.name = name


class NoSuchAccountError(StoreError):
    """A change to an account that does not exist."""

    def __init__(self, name: str) -> None:
        super().__init__(msg("There is no account named {name}.", name=name))
        self.name = name


class MailboxFullError(StoreError):
    """A stored message to a player who has as many as allowed already."""

    def __init__(self, name: str, limit: int) -> None:
        super().__init__(msg("{name} has {limit} messages already, the most allowed.",
                             name=name, limit=limit))
        self.name = name
        self.limit = limit


class NoSuchGameError(StoreError):
    """A write about a game the store does not hold, or holds as finished."""

    def __init__(self, game_id: int) -> None:
        super().__init__(msg("There is no stored game {number} in progress or adjourned.",
                             number=game_id))
        self.game_id = game_id
