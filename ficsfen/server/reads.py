"""Store reads off the reactor thread: a stalled disk delays the reads waiting for it, not
every player.

:class:`StoreReads` runs ``function(*args)`` (a store read: an account, saved
settings, a player's history) in one thread of its own, which alone uses the
store's read connection, and hands the result back in the reactor thread as
a Deferred.  With a test clock, or without a store, the read runs inline (the
Deferred has fired when :meth:`StoreReads.read` returns).

Who waits for a read decides what its result does: the login dialogue goes
on, a command's answer completes (the dispatcher keeps the command's
:class:`~ficsfen.server.reply.Reply` open meanwhile).  This module knows no
session.
"""

from __future__ import annotations

import threading
from typing import Any, Callable, TypeVar

from twisted.internet.defer import Deferred, DeferredList, maybeDeferred
from twisted.internet.interfaces import IReactorThreads, IReactorTime

from ficsfen.server.background import BackgroundPool

__all__ = ["Reader", "StoreReads"]

T = TypeVar("T")

#: Runs ``function(*args)`` (a store read) off the reactor thread; its result as a Deferred.
Reader = Callable[..., Deferred]


class StoreReads:
    """The server's one read thread (with a real reactor and a store), or inline reads.

    ``clock`` is the reactor (a thread pool needs ``IReactorThreads``);
    ``store`` the ``IStore``, or ``None``.
    """

    def __init__(self, clock: IReactorTime, store: object | None) -> None:
        self._clock = clock
        self._pool: BackgroundPool | None = None
        if store is not None and IReactorThreads.providedBy(clock):
            self._pool = BackgroundPool(clock, threads=1, nice=0, name="ficsfen-store-reads")
        self._under_way: set[Deferred[None]] = set()  # each fired as its read ends

    def read(self, function: Callable[..., T], *args: Any) -> Deferred[T]:
        """``function(*args)`` off the reactor thread, in order; its result as a Deferred.

        An exception (a ``StoreClosedError`` once the store is closed) fails
        the Deferred.  The Deferred fires in the reactor thread.
        """
        if self._pool is None:
            return maybeDeferred(function, *args)
        ended: Deferred[None] = Deferred()
        self._under_way.add(ended)
        answer: Deferred[T] = Deferred()

        def arrived(result: Any) -> None:
            self._under_way.discard(ended)
            answer.callback(result)  # a Failure errbacks
            # in the next turn: after what the caller did with the result (its writes)
            self._clock.callLater(0, ended.callback, None)

        self._pool.run(function, *args).addBoth(arrived)
        return answer

    def done(self) -> Deferred[Any]:
        """Fires once the reads under way now have ended (before the store closes)."""
        return DeferredList(list(self._under_way))

    def start(self) -> list[threading.Thread]:
        """Start the read thread now (with a real reactor and a store); returns it."""
        if self._pool is None:
            return []
        self._pool.start()
        return self._pool.threads
