"""Login throttling and per-address limits, on an injected clock.

:class:`LoginThrottle` slows password guessing: after each failed password
the account and the address it came from must wait a growing delay before
the next attempt is looked at, and after ``failures`` failures within
``window`` seconds they are locked out for ``lockout`` seconds.  A refused
attempt costs a dictionary look-up: it never reaches the password hash.
:class:`AddressLimits` counts the connections open from each address and
the login attempts each address made in the last minute, and
:class:`AddressRate` how many seeks, offers or messages each address sends.
:class:`TokenBucket` bounds the rate of one connection's input, and
:class:`TurnScheduler` makes the connections whose input has cost the most
CPU lately take turns for a bounded share of each reactor turn.

Both only read ``clock.seconds()``, so tests drive them with a
``twisted.internet.task.Clock``.  IPv6 peers are counted by their /64
network (one host usually holds a whole /64).  Entries that no longer
matter are swept when a table grows, so memory follows the number of
addresses and accounts active in the last window, not the history.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import gc
import heapq
import ipaddress
import math
import time
from array import array
from dataclasses import dataclass, field
from typing import Callable, Iterable, Protocol

from twisted.internet.interfaces import IDelayedCall, IReactorTime

__all__ = [
    "AddressLimits",
    "AddressRate",
    "Failure",
    "Over",
    "LoginThrottle",
    "Refusal",
    "TokenBucket",
    "TurnScheduler",
    "MemoryTrimmer",
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
