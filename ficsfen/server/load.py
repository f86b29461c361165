"""The server's load: CPU shares of each reactor turn, memory given back.

:class:`TurnScheduler` makes the connections whose input has cost the most
CPU lately take turns for a bounded share of each reactor turn, and
:class:`MemoryTrimmer` gives memory back to the system a while after a
burst of disconnections.  Both schedule through an injected clock, so tests
drive them with a ``twisted.internet.task.Clock``.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import gc
import heapq
import math
import time
from typing import Callable, Protocol

from twisted.internet.interfaces import IDelayedCall, IReactorTime

__all__ = ["MemoryTrimmer", "Turn", "TurnScheduler"]


class Turn(Protocol):
    """A connection as :class:`TurnScheduler` sees it."""

    def take_turn(self) -> None:
        """Handle one turn's share of the input waiting (it may ask for another turn)."""


class TurnScheduler:
    """Heavy connections take turns, within ``budget`` seconds of each reactor turn.

    Why: per-connection limits (bytes and lines per turn, bytes per second)
    bound what one connection costs, not what hundreds cost together: 400
    clients each sending ``who`` (milliseconds of CPU per answer) make every
    reactor turn last a second, and everybody's answer waits a turn.  Each
    connection measures what its input costs (:meth:`cost` of what it
    spent); one whose cost over the last :attr:`WINDOW` seconds passes
    ``share`` of a CPU is *heavy*: its input waits here instead of running at
    once, and all heavy connections together are served for at most
    ``budget`` seconds per reactor turn, the one that cost least lately
    first.  Light connections (a person typing, a client's usual traffic)
    never wait here.  Newcomers (connections in their first seconds, whose
    cost is not known yet: :meth:`wait` with ``newcomer=True``) wait here
    too, served after every established connection waiting, so that a
    thousand logins at once cannot make one reactor turn last a second.
    ``timer`` measures CPU use; the clock schedules turns.
    """

    #: Seconds over which a connection's cost is averaged (an exponential decay).
    WINDOW = 0.5

    def __init__(self, clock: IReactorTime, *, share: float = 0.01, budget: float = 0.01,
                 timer: Callable[[], float] = time.perf_counter) -> None:
        self.clock = clock
        self.share = share
        self.budget = budget
        self.timer = timer
        #: a heap: (newcomer, cost when queued, order, connection)
        self.queue: list[tuple[bool, float, int, Turn]] = []
        self._order = 0
        self._call: IDelayedCall | None = None

    def cost(self, load: float, at: float, now: float) -> float:
        """``load`` (seconds of CPU, measured at ``at``) decayed to ``now``."""
        if now <= at:
            return load
        return load * math.exp((at - now) / self.WINDOW)

    def heavy(self, load: float, at: float) -> bool:
        """Whether a connection whose cost was ``load`` at ``at`` is heavy now."""
        return bool(self.share) and self.cost(load, at, self.clock.seconds()) > self.share * self.WINDOW

    def wait(self, connection: Turn, load: float, *, newcomer: bool = False) -> None:
        """``connection`` (costing ``load`` lately) waits for its turn among the heavy ones.

        A ``newcomer`` is served after every established connection waiting.
        """
        self._order += 1
        heapq.heappush(self.queue, (newcomer, load, self._order, connection))
        if self._call is None:
            self._call = self.clock.callLater(0, self._turn)

    def discard(self, connection: Turn) -> None:
        """``connection`` closed: it waits no more."""
        kept = [entry for entry in self.queue if entry[-1] is not connection]
        if len(kept) != len(self.queue):
            heapq.heapify(kept)
            self.queue = kept

    def waiting(self) -> list[Turn]:
        return [entry[-1] for entry in sorted(self.queue)]

    def _turn(self) -> None:
        self._call = None
        batch, self.queue = self.queue, []  # asking again during this turn: the next turn
        start = self.timer()
        while batch and self.timer() - start < self.budget:
            heapq.heappop(batch)[-1].take_turn()
        for entry in self.queue:  # the unserved keep their place
            heapq.heappush(batch, entry)
        self.queue = batch
        if batch:
            self._call = self.clock.callLater(0, self._turn)


def _malloc_trim() -> Callable[[int], int] | None:
    """glibc's ``malloc_trim``, or ``None`` on a C library without it."""
    try:
        return ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6").malloc_trim
    except (OSError, AttributeError):
        return None


class MemoryTrimmer:
    """Gives memory back to the system a while after a burst of disconnections.

    Why: after thousands of connections close (an attack, a restart of a
    network), their objects are freed, but CPython keeps a 1 MiB arena of
    its small-object allocator as long as one object in it lives, and glibc
    keeps freed heap memory for reuse.  So ``after`` disconnections (counted
    by :meth:`closed`) schedule, ``delay`` seconds later, a run that first
    calls ``tidy`` (the server drops what it no longer needs from its tables
    and rebuilds the dicts that shrank, so that their last entries do not
    pin arenas), then a full garbage collection and ``malloc_trim(0)``,
    which returns the free heap pages.  A burst's run is followed by one
    more ``again`` seconds later, for what expired in between (login counts
    of the last minute, offers).  A run takes milliseconds; ``after = 0``
    never runs it.
    """

    def __init__(self, clock: IReactorTime, *, after: int = 200, delay: float = 5.0,
                 again: float = 30.0, tidy: Callable[[], None] | None = None,
                 trim: Callable[[int], int] | None = None) -> None:
        self.clock = clock
        self.after = after
        self.delay = delay
        self.again = again
        self.tidy = tidy
        self.trim = trim if trim is not None else _malloc_trim()
        self.closed_since = 0
        self.runs = 0
        self._call: IDelayedCall | None = None
        self._burst = False

    def closed(self) -> None:
        """One connection closed."""
        self.closed_since += 1
        if self.after and self.closed_since >= self.after and not self._burst:
            if self._call is not None:  # a pending follow-up: the burst's run comes first
                self._call.cancel()
            self._burst = True
            self._call = self.clock.callLater(self.delay, self.run)

    def run(self) -> None:
        burst, self._burst = self._burst, False
        self._call = None
        if burst:
            self.closed_since = 0
            if self.again:
                self._call = self.clock.callLater(self.again, self.run)
        self.runs += 1
        if self.tidy is not None:
            self.tidy()
        self.settle()

    def settle(self) -> None:
        """A full garbage collection, then the free heap pages given back.

        Also run once the server listens: starting up (imports, catalogs,
        the data file) frees 0-3 MB of heap that glibc would otherwise keep,
        by where its last blocks happen to lie, so the memory a server starts
        with is the same from one start to the next.
        """
        gc.collect()
        if self.trim is not None:
            self.trim(0)
