"""Rates per address and per connection, on an injected clock.

:class:`AddressRate` counts how many seeks, offers or messages each address
sends, and :class:`TokenBucket` bounds the rate of one connection's input.
Both only read the clock they are given, so tests drive them with a
``twisted.internet.task.Clock``.  Addresses are counted as
:func:`~ficsfen.server.limits.address_key` counts them (IPv6 by /64).
"""

from __future__ import annotations

from typing import Iterable

from twisted.internet.interfaces import IReactorTime

from ficsfen.server.limits import (
    _SWEEP_AT,
    Over,
    _Networks,
    _report_due,
    _Table,
    address_key,
    compact,
)

__all__ = ["AddressRate", "TokenBucket"]


class AddressRate:
    """Events of one kind (seeks, offers, messages) from each address: ``per_minute``
    a minute after a burst of ``burst``, a :class:`TokenBucket` per address.

    Why per address: the per-player limits count handles, and a script
    logging in forty guests from one address had forty times each of them.
    ``per_minute = 0`` means no limit; ``exempt`` addresses and networks,
    and the empty host of a session with no connection, are never limited.
    A refused event takes nothing from the bucket.  Full buckets are
    forgotten when the table grows (:meth:`sweep`).
    """

    MINUTE = 60.0

    def __init__(self, clock: IReactorTime, *, per_minute: float, burst: int,
                 exempt: Iterable[str] = ()) -> None:
        self.clock = clock
        self.per_minute = per_minute
        self.burst = max(1, burst)
        self._exempt = _Networks(exempt)
        self.buckets: dict[str, TokenBucket] = {}
        self._reported = _Table(self.MINUTE)
        self._sweep_at = _SWEEP_AT

    def take(self, host: str) -> Over | None:
        """Count one event from ``host``: ``None`` if allowed, else why not (``until``:
        when the next may pass; ``report``: the first refusal of the address in a minute)."""
        if self.per_minute <= 0 or not host or self._exempt.contains(host):
            return None
        now = self.clock.seconds()
        key = address_key(host)
        bucket = self.buckets.get(key)
        if bucket is None:
            if len(self.buckets) >= self._sweep_at:
                self.sweep()
            bucket = self.buckets[key] = TokenBucket(self.per_minute / self.MINUTE, self.burst, now)
        if bucket.take(1, now):
            return None
        return Over(int(self.per_minute), now + bucket.wait(1, now),
                    _report_due(self._reported, key, now))

    def sweep(self) -> None:
        """Forget the addresses whose bucket has filled up again (nothing to remember)."""
        now = self.clock.seconds()
        for key in [k for k, b in self.buckets.items()
                    if b.tokens + (now - b.at) * b.rate >= b.burst]:
            del self.buckets[key]
        compact(self.buckets)
        self._reported.sweep(now)
        self._sweep_at = max(_SWEEP_AT, 2 * len(self.buckets))


class TokenBucket:
    """Bytes (or lines) one connection may have handled: ``rate`` a second, ``burst`` at once.

    Why: the input budget shares the parser fairly between connections in
    each reactor turn, but bounds no connection's rate; a few connections
    streaming telnet negotiations would still keep the server busy.  The
    caller reads no more than :meth:`take` allows and comes back after
    :meth:`wait` seconds; meanwhile the kernel's buffers fill and the sender
    is slowed by TCP itself.  The clock is passed in (``now``), as seconds.
    """

    __slots__ = ("rate", "burst", "tokens", "at")

    def __init__(self, rate: float, burst: int, now: float) -> None:
        self.rate = rate
        self.burst = burst
        # Full: the caller's own ``burst`` and ``now`` objects, not new floats (a
        # connection makes three buckets; a silent one never uses them).
        self.tokens: float = burst
        self.at = now

    def _refill(self, now: float) -> None:
        if now > self.at:
            self.tokens = min(float(self.burst), self.tokens + (now - self.at) * self.rate)
        self.at = now

    def take(self, wanted: int, now: float) -> int:
        """How many of ``wanted`` bytes may be parsed now (and count them)."""
        self._refill(now)
        n = min(wanted, int(self.tokens))
        self.tokens -= n
        return n

    def give_back(self, unused: int) -> None:
        """``unused`` of what :meth:`take` allowed were not used after all."""
        self.tokens = min(float(self.burst), self.tokens + unused)

    def wait(self, wanted: int, now: float) -> float:
        """Seconds until ``wanted`` bytes (at most ``burst``) may be parsed."""
        self._refill(now)
        missing = min(wanted, self.burst) - self.tokens
        return max(0.0, missing / self.rate)
