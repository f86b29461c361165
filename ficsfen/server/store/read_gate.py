"""The store's read connection behind a gate: closing the store never cuts a running read.

Reads run in threads (the server's read thread, a tool's) while the store
may be closed from another one.  Each read of the store (a method marked
:func:`one_read`: every statement it runs and every row it fetches) passes
the gate as one; a statement or a fetch outside such a read (a step of a
lazy iteration such as ``finished_games``) passes it on its own.
:meth:`ReadGate.close` refuses what comes after it with
:class:`~.errors.StoreClosedError` and closes the connection once nothing is
running: at once when nothing is, else in the thread of the last read, as it
ends.  The connection is never closed under a statement another thread is
stepping (SQLite calls that a misuse).
"""

from __future__ import annotations

import functools
import threading
import weakref
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Concatenate, ParamSpec, Protocol, TypeVar

from twisted.internet.defer import Deferred

from ficsfen.server.store.errors import StoreClosedError

__all__ = ["GatedRows", "ReadGate", "one_read"]

P = ParamSpec("P")
T = TypeVar("T")


class ReadGate:
    """The read connection ``conn`` (``execute(sql, params)``; errors name ``path``).

    ``reactor`` (``callFromThread``) fires :meth:`close`'s Deferred when the
    last running read ends in another thread.
    """

    def __init__(self, conn: Any, *, path: Path | str, reactor: Any) -> None:
        self._conn = conn
        self._path = path
        self._reactor = reactor
        self._lock = threading.Lock()
        self._running = 0  # reads under way, in every thread
        self._depth = threading.local()  # how deep this thread is in reads (nested ones)
        self._closed: Deferred[None] | None = None
        self._rows: weakref.WeakSet[GatedRows] = weakref.WeakSet()  # statements not dropped yet

    @property
    def connection(self) -> Any:
        """The connection itself, for what it counts (its statements go through :meth:`execute`)."""
        return self._conn

    @property
    def closed(self) -> bool:
        """Whether :meth:`close` was called (later reads are refused)."""
        return self._closed is not None

    def execute(self, sql: str, params: Sequence[Any] = ()) -> GatedRows:
        """Run ``sql``; its rows are fetched through the gate as well.

        :raises StoreClosedError: the store is closed (and this is no read begun before).
        """
        with self.reading():
            rows = GatedRows(self, self._conn.execute(sql, params))
            with self._lock:
                self._rows.add(rows)
            return rows

    @contextmanager
    def reading(self) -> Iterator[None]:
        """One read: refused once closed, waited for by :meth:`close`; a read within a
        read (the same thread) is part of it.

        :raises StoreClosedError: the store is closed.
        """
        depth = getattr(self._depth, "value", 0)
        if depth == 0:
            with self._lock:
                if self._closed is not None:
                    raise StoreClosedError(self._path)
                self._running += 1
        self._depth.value = depth + 1
        try:
            yield
        finally:
            self._depth.value = depth
            if depth == 0:
                self._ended()

    def _ended(self) -> None:
        with self._lock:
            self._running -= 1
            closed = self._closed if self._running == 0 else None
        if closed is not None:  # closed meanwhile: the last read closes the connection
            self._close_connection()
            self._reactor.callFromThread(closed.callback, None)

    def _close_connection(self) -> None:
        # The statements first: one left open (an iteration not run to its end) would
        # keep SQLite's connection, and its read transaction, open after close.
        with self._lock:
            open_rows = list(self._rows)
        for rows in open_rows:
            rows.drop()
        self._conn.close()

    def close(self) -> Deferred[None]:
        """Refuse further reads; close the connection once no read runs.

        The Deferred fires (in the reactor thread) once it is closed.
        """
        with self._lock:
            if self._closed is not None:
                return self._closed
            closed: Deferred[None] = Deferred()
            self._closed = closed
            idle = self._running == 0
        if idle:
            self._close_connection()
            closed.callback(None)
        return closed


class GatedRows:
    """A statement's rows (``fetchone``, ``fetchall``, iteration), each fetch through the gate."""

    def __init__(self, gate: ReadGate, cursor: Any) -> None:
        self._gate = gate
        self._cursor = cursor
        self._rows = iter(cursor)

    def drop(self) -> None:
        """Finalize the statement (its connection closes)."""
        close = getattr(self._cursor, "close", None)
        if close is not None:
            close()

    def fetchone(self) -> Any:
        with self._gate.reading():
            return self._cursor.fetchone()

    def fetchall(self) -> list[Any]:
        with self._gate.reading():
            return list(self._cursor.fetchall())

    def __iter__(self) -> Iterator[Any]:
        return self

    def __next__(self) -> Any:
        with self._gate.reading():
            return next(self._rows)


class _Gated(Protocol):
    _read: ReadGate


S = TypeVar("S", bound=_Gated)


def one_read(method: Callable[Concatenate[S, P], T]) -> Callable[Concatenate[S, P], T]:
    """Marks a store method that is one read: it runs inside its store's gate
    (``_read``), so a close waits for it to end."""

    def read(self: S, /, *args: P.args, **kwargs: P.kwargs) -> T:
        with self._read.reading():
            return method(self, *args, **kwargs)

    functools.update_wrapper(read, method)
    return read
