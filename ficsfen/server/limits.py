"""Login throttling and per-address limits, on an injected clock.

:class:`LoginThrottle` slows password guessing: after each failed password
the account and the address it came from must wait a growing delay before
the next attempt is looked at, and after ``failures`` failures within
``window`` seconds they are locked out for ``lockout`` seconds.  A refused
attempt costs a dictionary look-up: it never reaches the password hash.
:class:`AddressLimits` counts the connections open from each address and
the login attempts each address made in the last minute.
:class:`~ficsfen.server.rates.AddressRate` (how many seeks, offers or
messages each address sends) and :class:`~ficsfen.server.rates.TokenBucket`
are in :mod:`ficsfen.server.rates`; :class:`~ficsfen.server.load.TurnScheduler`
and :class:`~ficsfen.server.load.MemoryTrimmer` in :mod:`ficsfen.server.load`.

Both only read ``clock.seconds()``, so tests drive them with a
``twisted.internet.task.Clock``.  IPv6 peers are counted by their /64
network (one host usually holds a whole /64).  Entries that no longer
matter are swept when a table grows, so memory follows the number of
addresses and accounts active in the last window, not the history.
"""

from __future__ import annotations

import ipaddress
import math
from array import array
from dataclasses import dataclass, field
from typing import Iterable

from twisted.internet.interfaces import IReactorTime

from ficsfen.i18n import Message, msgn

__all__ = [
    "AddressLimits",
    "Failure",
    "Over",
    "LoginThrottle",
    "Refusal",
    "address_key",
    "compact",
    "expire",
    "seconds_left",
    "times",
]

#: A table is swept of stale entries each time it passes this size times 2**k.
_SWEEP_AT = 1024


def address_key(host: str) -> str:
    """What per-address limits count ``host`` as: itself, or its /64 for IPv6."""
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        return host
    if ip.version == 6:
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.IPv6Network((ip, 64), strict=False))
    return host


def compact(table: dict) -> None:
    """Rebuild ``table`` in place at the size of what it holds now.

    Why: a dict never shrinks when entries are deleted, so one that held a
    few thousand connections or addresses during an attack keeps a table
    for thousands once they are gone.  Cleared and refilled, it is sized
    for what is left, and other holders of the same object (bound methods
    such as ``table.get``) see the same dict.
    """
    items = list(table.items())
    table.clear()
    table.update(items)


def times() -> array:
    """An empty list of event times (oldest first), stored as C doubles.

    Why not a ``deque`` of floats: records of this kind outlive the crowd
    that made them (a password failure counts for 15 minutes), and each of
    their objects, born among thousands of connections' objects, keeps a
    1 MiB arena of CPython's allocator in use after those are freed.  An
    array is two small blocks whatever it holds; a deque is two blocks of
    ~600 bytes and every float an object of its own.
    """
    return array("d")


def expire(stamps: array, window: float, now: float) -> None:
    """Drop the leading ``stamps`` (a :func:`times` array) that are ``window`` seconds
    old or more at ``now``."""
    k = 0
    n = len(stamps)
    while k < n and stamps[k] + window <= now:
        k += 1
    if k:
        del stamps[:k]


def seconds_left(until: float, now: float) -> int:
    """Whole seconds from ``now`` to ``until``, rounded up (at least 1)."""
    return max(1, math.ceil(until - now))


def duration(seconds: int) -> Message:
    """``seconds`` for a person: seconds up to two minutes, else minutes (rounded up)."""
    if seconds < 120:
        return msgn("{count} second", "{count} seconds", seconds)
    return msgn("{count} minute", "{count} minutes", -(-seconds // 60))


@dataclass(frozen=True)
class Refusal:
    """Why a password attempt is refused before it is checked.

    ``kind`` is ``"locked"`` (too many failures: locked out), ``"wait"``
    (the delay after the last failure is not over) or ``"busy"`` (another
    password for the same account or from the same address is being
    checked); ``scope`` says whose counter refused it: ``"account"`` or
    ``"address"``.
    """

    kind: str
    scope: str
    until: float


@dataclass(frozen=True)
class Failure:
    """What one failed password did: the failures counted for the account and the
    address, the delay before the next attempt, and what it locked (if anything)."""

    account_failures: int
    address_failures: int
    delay: float
    locked: tuple[str, ...] = ()  # "account" and/or "address"
    until: float = 0.0  # end of the lockout, when locked


@dataclass(frozen=True)
class Over:
    """A per-address limit refused something: ``count`` is the limit reached,
    ``until`` when a retry may succeed (connections: 0, unknown) and ``report``
    whether to log it (the first refusal of an address in a minute)."""

    count: int
    until: float
    report: bool


@dataclass(slots=True)  # slots: no instance dict (see ``times``)
class _Record:
    failures: array = field(default_factory=times)
    next_try: float = 0.0
    locked_until: float = 0.0

    def stale(self, now: float, window: float) -> bool:
        return (now >= self.locked_until and now >= self.next_try
                and (not self.failures or self.failures[-1] + window <= now))


class _Table:
    """Records by key, swept of stale ones as the table grows."""

    def __init__(self, window: float) -> None:
        self.window = window
        self.records: dict[str, _Record] = {}
        self._sweep_at = _SWEEP_AT

    def get(self, key: str) -> _Record | None:
        return self.records.get(key)

    def touch(self, key: str, now: float) -> _Record:
        record = self.records.get(key)
        if record is None:
            if len(self.records) >= self._sweep_at:
                self.sweep(now)
            record = self.records[key] = _Record()
        return record

    def sweep(self, now: float) -> None:
        window = self.window
        for key in [k for k, r in self.records.items() if r.stale(now, window)]:
            del self.records[key]
        compact(self.records)
        self._sweep_at = max(_SWEEP_AT, 2 * len(self.records))

    def __len__(self) -> int:
        return len(self.records)


class LoginThrottle:
    """Growing delays and lockouts after failed passwords, per account and per address.

    The ``n``-th failure within ``window`` seconds makes the next attempt
    wait ``delay * 2 ** (n - 1)`` seconds (at most ``max_delay``); the
    ``failures``-th locks the account (or the address) out for ``lockout``
    seconds.  A right password resets the account's and the address's
    counters.  ``exempt`` addresses are never throttled by address (their
    accounts still are).
    """

    def __init__(self, clock: IReactorTime, *, delay: float = 1.0, max_delay: float = 30.0,
                 failures: int = 10, window: float = 900.0, lockout: float = 900.0,
                 exempt: Iterable[str] = ()) -> None:
        self.clock = clock
        self.delay = delay
        self.max_delay = max_delay
        self.failures = failures
        self.window = window
        self.lockout = lockout
        self._exempt = _Networks(exempt)
        self.accounts = _Table(window)
        self.addresses = _Table(window)
        #: Passwords being checked now, by scope and key: one at a time each.
        self._checking: dict[tuple[str, str], int] = {}

    def _tables(self, account: str, host: str) -> list[tuple[str, _Table, str]]:
        tables = [("account", self.accounts, account)]
        if not self._exempt.contains(host):
            tables.append(("address", self.addresses, address_key(host)))
        return tables

    def refusal(self, account: str, host: str) -> Refusal | None:
        """Why an attempt on ``account`` from ``host`` is refused now, or ``None``."""
        now = self.clock.seconds()
        wait: Refusal | None = None
        for scope, table, key in self._tables(account, host):
            record = table.get(key)
            if record is None:
                continue
            if now < record.locked_until:
                return Refusal("locked", scope, record.locked_until)
            if now < record.next_try and (wait is None or record.next_try > wait.until):
                wait = Refusal("wait", scope, record.next_try)
        if wait is None:
            for scope, _table, key in self._tables(account, host):
                if (scope, key) in self._checking:
                    return Refusal("busy", scope, now)
        return wait

    def begin(self, account: str, host: str) -> None:
        """A password for ``account`` from ``host`` goes to the hash (see :meth:`end`)."""
        for scope, _table, key in self._tables(account, host):
            self._checking[scope, key] = self._checking.get((scope, key), 0) + 1

    def end(self, account: str, host: str) -> None:
        """The check :meth:`begin` announced is over (before counting its result)."""
        for scope, _table, key in self._tables(account, host):
            left = self._checking.pop((scope, key), 1) - 1
            if left > 0:
                self._checking[scope, key] = left

    def failed(self, account: str, host: str) -> Failure:
        """Count a wrong password for ``account`` from ``host``."""
        now = self.clock.seconds()
        counts = {"account": 0, "address": 0}
        locked: list[str] = []
        delay = 0.0
        until = 0.0
        for scope, table, key in self._tables(account, host):
            record = table.touch(key, now)
            failures = record.failures
            expire(failures, self.window, now)
            failures.append(now)
            n = counts[scope] = len(failures)
            if n >= self.failures:
                del failures[:]
                record.locked_until = until = now + self.lockout
                locked.append(scope)
            else:
                wait = min(self.delay * 2 ** (n - 1), self.max_delay)
                record.next_try = max(record.next_try, now + wait)
                delay = max(delay, wait)
        if locked:
            delay = self.lockout
        return Failure(counts["account"], counts["address"], delay, tuple(locked), until)

    def succeeded(self, account: str, host: str) -> None:
        """A right password: forget the failures of ``account`` and of ``host``."""
        for _scope, table, key in self._tables(account, host):
            table.records.pop(key, None)

    def sweep(self) -> None:
        """Forget the accounts and addresses whose failures no longer count."""
        now = self.clock.seconds()
        self.accounts.sweep(now)
        self.addresses.sweep(now)
        compact(self._checking)


class _Networks:
    """A set of addresses and networks (``"127.0.0.1"``, ``"10.0.0.0/8"``)."""

    def __init__(self, specs: Iterable[str]) -> None:
        self.networks = tuple(ipaddress.ip_network(s, strict=False) for s in specs)

    def contains(self, host: str) -> bool:
        if not self.networks:
            return False
        try:
            ip = ipaddress.ip_address(host)
        except ValueError:
            return False
        if ip.version == 6 and ip.ipv4_mapped is not None:
            ip = ip.ipv4_mapped
        return any(ip in net for net in self.networks)


def _report_due(reported: _Table, key: str, now: float) -> bool:
    """Whether a refusal for ``key`` is logged now: the first in a minute (then noted)."""
    record = reported.touch(key, now)
    if now < record.next_try:
        return False
    record.next_try = now + reported.window
    return True


class AddressLimits:
    """Connections open from each address, and its login attempts in the last minute.

    ``connections`` and ``logins_per_minute`` are the most allowed (0: no
    limit); ``exempt`` addresses and networks are not counted at all.
    """

    MINUTE = 60.0

    def __init__(self, clock: IReactorTime, *, connections: int = 50,
                 logins_per_minute: int = 60, exempt: Iterable[str] = ()) -> None:
        self.clock = clock
        self.connections = connections
        self.logins_per_minute = logins_per_minute
        self._exempt = _Networks(exempt)
        self.open: dict[str, int] = {}
        self._logins = _Table(self.MINUTE)
        #: When each address's refusals were last logged (one line a minute at most).
        self._reported = _Table(self.MINUTE)

    def _report(self, key: str, now: float) -> bool:
        return _report_due(self._reported, key, now)

    def exempt(self, host: str) -> bool:
        return self._exempt.contains(host)

    def connect(self, host: str) -> Over | None:
        """Count a new connection from ``host``: ``None`` if allowed, else why not."""
        if self.exempt(host):
            return None
        key = address_key(host)
        count = self.open.get(key, 0)
        if self.connections and count >= self.connections:
            return Over(self.connections, 0.0, self._report("c" + key, self.clock.seconds()))
        self.open[key] = count + 1
        return None

    def disconnect(self, host: str) -> None:
        """A connection counted by :meth:`connect` closed."""
        if self.exempt(host):
            return
        key = address_key(host)
        count = self.open.get(key, 0) - 1
        if count > 0:
            self.open[key] = count
        else:
            self.open.pop(key, None)

    def sweep(self) -> None:
        """Forget addresses with nothing open and no login in the last minute."""
        now = self.clock.seconds()
        self._logins.sweep(now)
        self._reported.sweep(now)
        compact(self.open)

    def login_attempt(self, host: str) -> Over | None:
        """Count a login attempt from ``host``: ``None`` if allowed, else why not
        (the refused attempt is not counted)."""
        if not self.logins_per_minute or self.exempt(host):
            return None
        now = self.clock.seconds()
        key = address_key(host)
        record = self._logins.touch(key, now)
        attempts = record.failures
        expire(attempts, self.MINUTE, now)
        if len(attempts) >= self.logins_per_minute:
            return Over(self.logins_per_minute, attempts[0] + self.MINUTE, self._report("l" + key, now))
        attempts.append(now)
        return None
