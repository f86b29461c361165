"""Announcements that wait for their write: one game's changes, told in the order made.

A played game with a journal makes each change in memory at once and
writes it; what the change announces waits in an :class:`AfterCommit`
until the write is committed *and* every write made before it is
(``docs/store.md``: a move is announced only after its commit).  The
first write that fails stops every announcement after it: the game is
told (``failed``) and goes back to what the store holds.
"""

from __future__ import annotations

from collections import deque
from typing import Any, Callable

from twisted.internet.defer import Deferred, succeed
from twisted.logger import LogLevel, Logger
from twisted.python.failure import Failure

__all__ = ["AfterCommit"]


class AfterCommit:
    """Ordered announcements of ``owner`` (a game, named in the log).

    ``failed(failure)`` is called once when a write fails; until
    :meth:`reset` nothing more is announced.
    """

    log = Logger()

    def __init__(self, owner: Any, failed: Callable[[Failure], None]) -> None:
        self._owner = owner
        self._failed = failed
        # [written, announce] in change order.
        self._waiting: deque[list[Any]] = deque()
        self._settled: list[Deferred[None]] = []

    def __bool__(self) -> bool:
        """Whether a change waits for its write before it is announced."""
        return bool(self._waiting)

    def after_write(self, written: Deferred[Any] | None, announce: Callable[[], None]) -> None:
        """Run ``announce`` once ``written`` (a journal write, or ``None``) and every
        write made before it are committed; at once when nothing is waiting."""
        if written is None and not self._waiting:
            announce()
            return
        entry = [written is None, announce]
        self._waiting.append(entry)
        if written is not None:
            written.addCallbacks(self._committed, self._not_committed,
                                 callbackArgs=(entry,), errbackArgs=(entry,))

    def _committed(self, result: Any, entry: list[Any]) -> None:
        entry[0] = True
        waiting = self._waiting
        while waiting and waiting[0][0]:
            _, announce = waiting.popleft()
            try:
                announce()
            except Exception:
                self.log.failure("announcing a change of {game!r} failed", level=LogLevel.error,
                                 game=self._owner)
        if not waiting and self._settled:
            self.fire_settled()

    def _not_committed(self, failure: Failure, entry: list[Any]) -> None:
        if not any(waiting is entry for waiting in self._waiting):
            return  # already given up with an earlier failure
        self._waiting.clear()
        self._waiting.append([False, lambda: None])  # nothing more is announced until reset
        self._failed(failure)

    def reset(self) -> None:
        """Drop every waiting announcement (they told of what the store does not have)."""
        self._waiting.clear()

    def settled(self) -> Deferred[None]:
        """Fires once every change made so far is committed and announced."""
        if not self._waiting:
            return succeed(None)
        d: Deferred[None] = Deferred()
        self._settled.append(d)
        return d

    def fire_settled(self) -> None:
        """Fire every :meth:`settled` Deferred waiting."""
        waiters, self._settled = self._settled, []
        for d in waiters:
            d.callback(None)
