"""The countdown of ``shutdown N``: FICS's notices to everyone, then the server stops.

:class:`ShutdownCountdown` tells everyone the order at once (who ordered
it, the reason if any, the time left), then again as the time left crosses
an hour, 40, 20, 10, 5 and 2 minutes, one minute and 10 seconds (FICS's
marks), and at zero calls ``stop``: the way SIGTERM stops the server
(games adjourned or aborted, everyone told goodbye).  Time is the server's
clock (a fake one in tests).  FICS's lines are kept, translated for players
reading another language.
"""

from __future__ import annotations

from typing import Callable

from twisted.internet.interfaces import IDelayedCall, IReactorTime

from ficsfen.i18n import Message, msg

__all__ = ["MARKS", "ShutdownCountdown", "time_left"]

#: Seconds left at which everyone is told again (FICS's).
MARKS = (3600, 2400, 1200, 600, 300, 120, 60, 10)


def time_left(seconds: int) -> Message:
    """FICS's ``    **** Server going down in 4 minutes and 30 seconds. ****``."""
    return msg("    **** Server going down in {minutes} minutes and {seconds} seconds. ****",
               minutes=seconds // 60, seconds=seconds % 60)


class ShutdownCountdown:
    """One pending shutdown at most.

    ``tell_all(message)`` sends a notice to everyone logged in (what it returns is
    ignored); ``stop()``
    stops the server.
    """

    def __init__(self, clock: IReactorTime, *, tell_all: Callable[[Message], object],
                 stop: Callable[[], object]) -> None:
        self._clock = clock
        self._tell_all = tell_all
        self._stop = stop
        self._deadline: float | None = None
        self._call: IDelayedCall | None = None
        self.by = ""
        self.reason = ""

    @property
    def pending(self) -> bool:
        return self._deadline is not None

    def left(self) -> int | None:
        """Whole seconds until the server stops, or ``None`` if no shutdown is pending."""
        if self._deadline is None:
            return None
        return max(0, round(self._deadline - self._clock.seconds()))

    def notice(self) -> Message:
        """What ``whenshut`` answers while a shutdown is pending (the time left, the reason)."""
        left = self.left()
        assert left is not None, "no shutdown is pending"
        if not self.reason:
            return time_left(left)
        return msg("{left}\n    **** We are going down because: {reason}. ****",
                   left=time_left(left), reason=self.reason)

    def start(self, seconds: int, by: str, reason: str = "") -> None:
        """Stop the server in ``seconds`` (0: now), ordered by ``by``: everyone is told.

        A shutdown already pending is replaced (its players were told of it:
        they are told of the new one).
        """
        self._cancel_call()
        self.by, self.reason = by, reason
        order = msg("    **** Server shutdown ordered by {handle}. ****", handle=by)
        if seconds <= 0:
            self._deadline = None
            self._tell_all(order)
            self._stop()
            return
        self._deadline = self._clock.seconds() + seconds
        self._tell_all(msg("{order}\n{notice}", order=order, notice=self.notice()))
        self._schedule(seconds)

    def cancel(self, by: str) -> bool:
        """Call the pending shutdown off (everyone is told); ``False`` if there was none."""
        if self._deadline is None:
            return False
        self._cancel_call()
        self._deadline = None
        self._tell_all(msg("    **** Server shutdown canceled by {handle}. ****", handle=by))
        return True

    def stop(self) -> None:
        """Forget the pending shutdown silently (the server is stopping anyway)."""
        self._cancel_call()
        self._deadline = None

    def _cancel_call(self) -> None:
        if self._call is not None and self._call.active():
            self._call.cancel()
        self._call = None

    def _schedule(self, left: int) -> None:
        """Wake up at the next mark below ``left`` seconds, or at zero."""
        assert self._deadline is not None
        mark = next((m for m in MARKS if m < left), 0)
        self._call = self._clock.callLater(max(0.0, self._deadline - mark - self._clock.seconds()),
                                           self._tick, mark)

    def _tick(self, mark: int) -> None:
        self._call = None
        if mark > 0:
            self._tell_all(self.notice())
            self._schedule(mark)
            return
        self._deadline = None
        self._tell_all(msg("    **** Server shutdown ordered by {handle}. ****", handle=self.by))
        self._stop()
