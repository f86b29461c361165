"""Many connections' timeouts of one length, behind a single timer.

Why: a ``callLater`` per connection is a ``DelayedCall``, two bound
methods of the reactor, an empty dict and two floats, about 450 bytes of
CPython's small-object arenas; a cancelled one stays in the reactor's heap
until it would have fired.  Two thousand hostile connections waiting at
the login prompt made megabytes of them, and an arena made during an
attack is kept as long as any block in it lives
(docs/benchmarks/memory.md).  Every connection here waits the same
``seconds``, so the order in which they started is the order in which
they expire: a dict in insertion order and one timer for its first
deadline do the same work, for a dict slot and one float per connection.
"""

from __future__ import annotations

from typing import Callable, Generic, Hashable, TypeVar

from twisted.internet.interfaces import IDelayedCall, IReactorTime
from twisted.logger import LogLevel, Logger

__all__ = ["Timeouts"]

T = TypeVar("T", bound=Hashable)


class Timeouts(Generic[T]):
    """Calls ``expired(who)`` ``seconds`` after :meth:`start` unless :meth:`stop` came first.

    ``seconds = 0`` means no timeout: :meth:`start` does nothing.  The
    timer is exact (it fires at the first deadline, not on a tick), so a
    test's clock sees the timeout at the same moment as with ``callLater``.
    """

    log = Logger()

    def __init__(self, clock: IReactorTime, seconds: float, expired: Callable[[T], object]) -> None:
        self.clock = clock
        self.seconds = seconds
        self.expired = expired
        self._deadlines: dict[T, float] = {}
        self._call: IDelayedCall | None = None
        self._due = 0.0  # the deadline _call was set for

    def __len__(self) -> int:
        return len(self._deadlines)

    def __contains__(self, who: object) -> bool:
        return who in self._deadlines

    def start(self, who: T) -> None:
        """``who``'s time starts now (again, if it had started already)."""
        if not self.seconds:
            return
        deadlines = self._deadlines
        deadlines.pop(who, None)  # a restart goes to the end, where its deadline belongs
        deadlines[who] = self.clock.seconds() + self.seconds
        if self._call is None:
            self._schedule()

    def stop(self, who: T) -> None:
        """``who`` no longer times out.  The timer stays: when it fires early, it looks again."""
        self._deadlines.pop(who, None)

    def _schedule(self) -> None:
        for first in self._deadlines.values():
            self._due = first
            self._call = self.clock.callLater(max(0.0, first - self.clock.seconds()), self._fire)
            return

    def _fire(self) -> None:
        self._call = None
        # At least the deadline it was set for (the clock's sum may round below it).
        now = max(self.clock.seconds(), self._due)
        due = []
        for who, deadline in self._deadlines.items():
            if deadline > now:
                break
            due.append(who)
        for who in due:
            del self._deadlines[who]
        for who in due:
            try:
                self.expired(who)
            except Exception:  # one failing expiry must not keep the others' from running
                self.log.failure("timeout of {who!r} failed", level=LogLevel.error, who=who)
        if self._call is None:
            self._schedule()
