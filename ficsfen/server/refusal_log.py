"""Refused passwords in the log: the first from an address, then a count a minute.

Why: a password the throttle refuses (the wait after a wrong one, a
lockout) costs the server a dictionary look-up, so one guesser can have
thousands refused a minute; a log line each made 1.5 MB of log in 90
seconds.  Here the first refusal from an address is for the caller to log
in full; the ones after it are counted, and at the end of every
``interval`` seconds that had some, one line gives their number.  An
address with none in an interval is forgotten: its next refusal is logged
in full again.  One timer serves every address (:class:`.Timeouts`).
"""

from __future__ import annotations

from twisted.internet.interfaces import IReactorTime
from twisted.logger import Logger

from ficsfen.server.limits import address_key, compact
from ficsfen.server.timeouts import Timeouts

__all__ = ["RefusalLog"]


class RefusalLog:
    """Counts refused passwords per address (an IPv6 address as its /64) and logs
    ``N refused passwords from ADDR in the last 60 s`` once per ``interval``."""

    log = Logger()

    def __init__(self, clock: IReactorTime, *, interval: float = 60.0) -> None:
        self.interval = interval
        #: Refusals since the address's last line, by address (0: only its first so far).
        self.counts: dict[str, int] = {}
        self._timeouts: Timeouts[str] = Timeouts(clock, interval, self._summarise)

    def __len__(self) -> int:
        return len(self.counts)

    def refused(self, host: str) -> bool:
        """Count one refusal from ``host``; ``True`` if it is to be logged in full now
        (the first from the address since it was last quiet for an interval)."""
        key = address_key(host)
        count = self.counts.get(key)
        if count is None:
            self.counts[key] = 0
            self._timeouts.start(key)
            return True
        self.counts[key] = count + 1
        return False

    def _summarise(self, key: str) -> None:
        count = self.counts.pop(key, 0)
        if not count:  # quiet for an interval: forgotten
            if not self.counts:
                compact(self.counts)
            return
        self.log.info("{count} refused passwords from {host} in the last {seconds:g} s",
                      count=count, host=key, seconds=self.interval)
        self.counts[key] = 0
        self._timeouts.start(key)
