"""The ``logons`` rows of :class:`~ficsfen.server.store.sqlite.SQLiteStore`: arrivals and departures.

Every login and logout (guests' too, as on FICS) is one row, written by the
store's :class:`~.writer.Writer` (a one-row ``INSERT``: a burst of logins
becomes one multi-row statement in one commit).  The table is kept bounded:
every :data:`PRUNE_EVERY` rows written, the rows older than the last
:data:`LOGONS_KEPT` are deleted in the same way, off the reactor thread.
Reads (``llogons``, ``logons NAME``) use the store's read connection.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from dataclasses import dataclass

from twisted.internet.defer import Deferred

from ficsfen.names import fold
from ficsfen.server.store.writer import Writer

__all__ = ["LOGONS_KEPT", "LOGON_EVENTS", "LogonRecord", "LogonRows", "PRUNE_EVERY"]

#: Rows the table keeps (the newest); older ones are pruned.
LOGONS_KEPT = 20000
#: Rows written between two prunes.
PRUNE_EVERY = 256
#: What a row records: a login (``"on"``) or a logout (``"off"``).
LOGON_EVENTS = ("on", "off")

_INSERT = "INSERT INTO logons (key, name, at, event, host) VALUES (?, ?, ?, ?, ?)"
_PRUNE = "DELETE FROM logons WHERE id <= (SELECT max(id) FROM logons) - ?"


@dataclass(frozen=True, slots=True)
class LogonRecord:
    """One arrival (``event`` ``"on"``) or departure (``"off"``) of ``name`` at ``at``
    (Unix time), from ``host``."""

    name: str
    at: float
    event: str
    host: str = ""


class LogonRows:
    """Arrivals and departures: ``writer`` for the writes, ``reader()`` for the read
    connection (it raises :class:`~.errors.StoreClosedError` once the store is closed).

    ``kept`` and ``prune_every`` bound the table (:data:`LOGONS_KEPT`, :data:`PRUNE_EVERY`).
    """

    def __init__(self, writer: Writer, reader: Callable[[], sqlite3.Connection], *,
                 kept: int = LOGONS_KEPT, prune_every: int = PRUNE_EVERY) -> None:
        if kept < 1 or prune_every < 1:
            raise ValueError("kept and prune_every must be positive")
        self._writer = writer
        self._reader = reader
        self.kept = kept
        self._prune_every = prune_every
        self._written = 0

    def record_logon(self, name: str, event: str, at: float, host: str = "") -> Deferred[None]:
        """Record that ``name`` logged in (``event`` ``"on"``) or out (``"off"``) at ``at``.

        :raises ValueError: ``event`` is neither.
        """
        if event not in LOGON_EVENTS:
            raise ValueError(f"event must be one of {LOGON_EVENTS}, not {event!r}")
        done = self._writer.submit(_INSERT, (fold(name), name, at, event, host))
        self._written += 1
        if self._written % self._prune_every == 0:
            self._writer.submit(_PRUNE, (self.kept,))
        return done

    def logons(self, name: str | None = None, limit: int = 10) -> list[LogonRecord]:
        """The last ``limit`` rows (of ``name`` only, any case, if given), oldest first."""
        if name is None:
            rows = self._reader().execute(
                "SELECT name, at, event, host FROM logons ORDER BY id DESC LIMIT ?",
                (limit,)).fetchall()
        else:
            rows = self._reader().execute(
                "SELECT name, at, event, host FROM logons WHERE key = ? ORDER BY id DESC LIMIT ?",
                (fold(name), limit)).fetchall()
        return [LogonRecord(*tuple(row)) for row in reversed(rows)]
