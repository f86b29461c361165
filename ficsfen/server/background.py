"""Deliberately slow work (password hashes) in threads of lower CPU priority.

Why: a password check is a PBKDF2 hash, a good fraction of a second of CPU
by design.  It runs outside the reactor thread, but the reactor's thread
pool let up to ten run at once, and on a machine with few cores a handful of
hashes at once (guessers trying several accounts) took CPU time from the
reactor itself: every player's answer waited for the reactor's share.  Here
the hashes run in a thread pool of their own, at most ``threads`` at a time,
each thread ``nice`` steps below the server (on Linux, where a thread has a
priority of its own): they take the CPU the reactor leaves.
"""

from __future__ import annotations

import os
import sys
import threading
from typing import Any, Callable, TypeVar

from twisted.internet.defer import Deferred
from twisted.internet.threads import deferToThreadPool
from twisted.logger import Logger
from twisted.python.threadpool import ThreadPool

__all__ = ["BackgroundPool", "lower_thread_priority"]

_log = Logger()
_T = TypeVar("_T")
_lowered = threading.local()


def lower_thread_priority(nice: int) -> None:
    """Lower the calling thread's CPU priority by ``nice`` steps, once per thread (Linux only).

    Elsewhere ``setpriority`` with a thread's id could name another process,
    so nothing is done there.
    """
    if not nice or getattr(_lowered, "done", False) or not sys.platform.startswith("linux"):
        return
    _lowered.done = True
    try:
        tid = threading.get_native_id()
        os.setpriority(os.PRIO_PROCESS, tid, os.getpriority(os.PRIO_PROCESS, tid) + nice)
    except OSError as e:  # not permitted by the system's policy: run as is
        _log.debug("thread priority not lowered: {reason}", reason=str(e))


class BackgroundPool:
    """A thread pool of ``threads`` threads, started by :meth:`start` (or on first use)
    and stopped with the reactor.

    Why all of them at once, lowered at birth: a server starts them with
    itself, so that their threads, locks and queues are made among the
    start-up's objects.  Started on first use, during an attack, they were
    born among the attackers' short-lived objects and each kept one of
    CPython's 1 MiB arenas from being given back once the attack was over.
    """

    def __init__(self, reactor: Any, *, threads: int, nice: int, name: str) -> None:
        self._reactor = reactor
        self._threads = threads
        self._nice = nice
        self._name = name
        self._pool: ThreadPool | None = None

    def start(self) -> ThreadPool:
        """Start every thread of the pool now (once); returns the pool."""
        if self._pool is None:
            self._pool = ThreadPool(minthreads=self._threads, maxthreads=self._threads,
                                    name=self._name)
            self._pool.threadFactory = self._thread  # type: ignore[assignment]  # a factory, not only a class
            self._pool.start()
            self._reactor.addSystemEventTrigger("during", "shutdown", self.stop)
        return self._pool

    def _thread(self, *, target: Callable[[], object], **kwargs: Any) -> threading.Thread:
        """A pool thread that lowers its own priority before it takes any work."""
        nice = self._nice

        def lowered() -> None:
            lower_thread_priority(nice)
            target()

        return threading.Thread(target=lowered, **kwargs)

    @property
    def threads(self) -> list[threading.Thread]:
        """The pool's threads (none before :meth:`start`)."""
        return [] if self._pool is None else list(self._pool.threads)

    def run(self, function: Callable[..., _T], *args: object) -> Deferred[_T]:
        """``function(*args)`` in one of the pool's threads, its result as a Deferred."""
        return deferToThreadPool(self._reactor, self.start(), function, *args)

    def stop(self) -> None:
        if self._pool is not None:
            pool, self._pool = self._pool, None
            pool.stop()
