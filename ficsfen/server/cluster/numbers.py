"""Game numbers unique across a cluster: a pool per node, reserved in Redis.

The Redis hash ``numbers`` (number -> node) holds every number a node has
reserved.  Each node keeps :data:`POOL` of them at hand, claimed by one
script that takes the smallest numbers nobody holds (``HSETNX`` from 1 up):
a game starts without waiting for Redis, and two nodes never hand out one
number.  A game's end gives its number back to the pool (or to Redis past
:data:`POOL`); the numbers of a node that stops or dies are released.

With none at hand and the bus up (more than :data:`POOL` games starting
within one Redis round trip), a played game waits for the next claim
(:meth:`GameNumbers.reserve`).  With the bus down (or an examined game, which
cannot wait, finding the pool empty) a node numbers from a range of its own
(not from its pool: Redis may have restarted empty, and another node claimed
those numbers),
:data:`SPAN` numbers from ``OUTAGE_BASE + SPAN * slot``, its *slot* being
held in the Redis hash ``slots`` (slot -> node) from the first time the bus
is up (kept through outages, claimed again after one, released when the node
stops or dies).  Claims skip these ranges, so no two nodes hand out one
number.  When the bus is back, new games take reserved numbers again; games
numbered from the range keep their numbers until they end.  A node that never
reached Redis since it started has no slot: it numbers as a single server.
"""

from __future__ import annotations

from typing import Any

from twisted.internet.defer import Deferred, succeed
from twisted.logger import Logger
from twisted.python.failure import Failure

from ficsfen.server.cluster.bus import Bus, BusDown

__all__ = ["GameNumbers", "OUTAGE_BASE", "POOL", "SLOTS", "SPAN"]

_log = Logger(namespace="ficsfen.cluster.numbers")

#: Game numbers a node keeps reserved ahead (claimed in Redis, handed out without waiting).
POOL = 16
#: The first number of the nodes' own ranges, each :data:`SPAN` long, :data:`SLOTS` of them.
OUTAGE_BASE = 1000
SPAN = 100
SLOTS = 64

# Claims the ARGV[2] smallest numbers not in the hash for node ARGV[1], skipping the
# nodes' own ranges (from ARGV[3] to ARGV[4]); returns them.
_CLAIM = ("local got = {} local n = 1 "
          "while #got < tonumber(ARGV[2]) do "
          "if n == tonumber(ARGV[3]) then n = tonumber(ARGV[4]) end "
          "if redis.call('HSETNX', KEYS[1], n, ARGV[1]) == 1 then table.insert(got, n) end "
          "n = n + 1 end return got")
# Gives back every number (or slot) of node ARGV[1].
_RELEASE_NODE = ("local flat = redis.call('HGETALL', KEYS[1]) local c = 0 "
                 "for i = 1, #flat, 2 do if flat[i + 1] == ARGV[1] then "
                 "redis.call('HDEL', KEYS[1], flat[i]) c = c + 1 end end return c")
# Gives back number ARGV[2] if node ARGV[1] holds it.
_RELEASE = ("if redis.call('HGET', KEYS[1], ARGV[2]) == ARGV[1] then "
            "return redis.call('HDEL', KEYS[1], ARGV[2]) end return 0")
# Slot ARGV[2] kept for node ARGV[1] if free or its own, else the smallest free one below
# ARGV[3]; -1 when none is.
_SLOT = ("local want = tonumber(ARGV[2]) "
         "if want >= 0 and (redis.call('HSETNX', KEYS[1], want, ARGV[1]) == 1 "
         "or redis.call('HGET', KEYS[1], want) == ARGV[1]) then return want end "
         "for i = 0, tonumber(ARGV[3]) - 1 do "
         "if redis.call('HSETNX', KEYS[1], i, ARGV[1]) == 1 then return i end end return -1")


class GameNumbers:
    """This node's reserved game numbers (see the module)."""

    def __init__(self, bus: Bus) -> None:
        self.bus = bus
        #: Numbers reserved for this node and not in use, smallest first.
        self._pool: list[int] = []
        #: Reserved numbers of this node's games in play.
        self._in_use: set[int] = set()
        #: This node's slot (its own range of numbers), once the bus was up.
        self.slot: int | None = None
        #: Numbers of this node's own range in use.
        self._own_in_use: set[int] = set()
        #: Games waiting for a number (none was at hand, the bus being up).
        self._waiting: list[Deferred[int | None]] = []
        self._claiming = False
        bus.on_state(self._bus_state)

    @property
    def at_hand(self) -> int:
        """How many reserved numbers are at hand."""
        return len(self._pool)

    def _key(self, name: str = "numbers") -> str:
        return self.bus.key(name)

    def take(self) -> int | None:
        """A number for a new game at once: a reserved one (the bus down: one of the node's
        own range first), else one of the node's own range; None with neither (no slot
        yet, or the range used up: the directory picks)."""
        if not self.bus.up:
            own = self._own()
            if own is not None:
                return own
        number = self._pool.pop(0) if self._pool else None
        if number is not None:
            self._in_use.add(number)
        if len(self._pool) < POOL // 2:
            self._claim()
        return number if number is not None else self._own()

    def reserve(self) -> Deferred[int | None]:
        """A number for a new played game: :meth:`take`'s, except that with none reserved
        at hand and the bus up it fires once the claim under way brings one."""
        if self._pool or not self.bus.up:
            return succeed(self.take())
        waiting: Deferred[int | None] = Deferred()
        self._waiting.append(waiting)
        self._claim()
        return waiting

    def _own(self) -> int | None:
        if self.slot is None:
            return None
        first = OUTAGE_BASE + SPAN * self.slot
        for number in range(first, first + SPAN):
            if number not in self._own_in_use:
                self._own_in_use.add(number)
                return number
        return None

    def _serve(self, *, all_of_them: bool) -> None:
        """Hand the waiting games the numbers at hand (``all_of_them``: the others get
        :meth:`take`'s fallback); claim again for those still waiting."""
        while self._waiting and (self._pool or all_of_them):
            self._waiting.pop(0).callback(self.take())
        if self._waiting:
            self._claim()

    def _claim(self) -> None:
        """Reserve numbers until :data:`POOL` are at hand (one claim at a time)."""
        want = POOL - len(self._pool) + len(self._waiting)
        if self._claiming or want <= 0 or not self.bus.up:
            return
        self._claiming = True
        got: list[bool] = []

        def claimed(numbers: list[Any]) -> None:
            self._pool = sorted({*self._pool, *(int(n) for n in numbers)} - self._in_use)
            got.append(True)

        def done(_: object) -> None:
            self._claiming = False
            self._serve(all_of_them=not got or not self.bus.up)  # a failed claim: no wait

        self.bus.execute("EVAL", _CLAIM, 1, self._key(), self.bus.node, want, OUTAGE_BASE,
                         OUTAGE_BASE + SPAN * SLOTS).addCallback(claimed).addErrback(
            _failed, "reserving game numbers").addBoth(done)

    def freed(self, number: int) -> None:
        """A game of ``number`` ended: kept at hand if reserved here, or given back."""
        self._own_in_use.discard(number)
        if number not in self._in_use:
            return
        self._in_use.discard(number)
        if len(self._pool) < POOL:
            self._pool = sorted({*self._pool, number})
        elif self.bus.up:
            self.bus.execute("EVAL", _RELEASE, 1, self._key(), self.bus.node,
                             number).addErrback(_failed, "giving back a number")

    def release(self, node: str | None = None) -> Deferred[Any]:
        """Give back every number and the slot of ``node`` (default: this node, which stops)."""
        if node is None:
            self._pool = []
        if not self.bus.up:
            return succeed(None)
        self.bus.execute("EVAL", _RELEASE_NODE, 1, self._key("slots"),
                         node or self.bus.node).addErrback(_failed, "giving back a slot")
        return self.bus.execute("EVAL", _RELEASE_NODE, 1, self._key(),
                                node or self.bus.node).addErrback(_failed, "giving back numbers")

    def _bus_state(self, up: bool) -> None:
        if not up:
            self._serve(all_of_them=True)  # no claim will come: the node's own range
            return
        bus, key = self.bus, self._key()
        bus.execute("EVAL", _SLOT, 1, self._key("slots"), bus.node,
                    -1 if self.slot is None else self.slot, SLOTS).addCallback(
            self._slot_claimed).addErrback(_failed, "numbers")
        self._pool = []  # Redis may have restarted empty: claimed again
        bus.execute("EVAL", _RELEASE_NODE, 1, key, bus.node).addErrback(_failed, "numbers")
        for number in sorted(self._in_use):
            bus.execute("HSET", key, str(number), bus.node).addErrback(_failed, "numbers")
        self._claim()

    def _slot_claimed(self, slot: Any) -> None:
        if int(slot) < 0:
            _log.warn("cluster: no free range of game numbers ({slots} nodes hold one)",
                      slots=SLOTS)
        self.slot = int(slot) if int(slot) >= 0 else None


def _failed(failure: Failure, what: str) -> None:
    if not failure.check(BusDown):
        _log.failure("cluster game numbers: {what} failed", failure=failure, what=what)
