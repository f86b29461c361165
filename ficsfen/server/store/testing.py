"""Driving a store from tests: a private reactor and a wait for one Deferred.

The store's Deferreds fire through ``reactor.callFromThread``, so a test
needs a reactor that runs; :class:`twisted.internet.task.Clock` has no
threads.  :func:`private_reactor` makes a real reactor that is not the
global one (so tests never start or stop that one), and :func:`wait_for`
iterates it until a Deferred has fired.
"""

from __future__ import annotations

import time
from typing import Any, TypeVar

from twisted.internet.defer import Deferred
from twisted.python.failure import Failure

__all__ = ["private_reactor", "wait_for"]

T = TypeVar("T")


def private_reactor() -> Any:
    """A fresh select reactor, not installed as the global one."""
    from twisted.internet.selectreactor import SelectReactor

    return SelectReactor()


def wait_for(reactor: Any, d: Deferred[T], *, timeout: float = 60.0) -> T:
    """Iterate ``reactor`` until ``d`` fires; return its result or raise its error.

    ``timeout`` only keeps a broken test from hanging (it is no measure):
    it raises :class:`TimeoutError`.
    """
    out: list[Any] = []
    d.addBoth(out.append)
    deadline = time.monotonic() + timeout
    # What reactor.run's loop does: run what is due, stop as soon as d fired,
    # else wait for I/O, a thread's callFromThread or the next timed call.
    while True:
        reactor.runUntilCurrent()
        if out:
            break
        if time.monotonic() > deadline:
            raise TimeoutError("the Deferred did not fire")
        due = reactor.timeout()
        reactor.doIteration(0.05 if due is None else min(due, 0.05))
    result = out[0]
    if isinstance(result, Failure):
        result.raiseException()
    return result
