"""Game numbers unique across a cluster: a pool per node, reserved in Redis.

The Redis hash ``numbers`` (number -> node) holds every number a node has
reserved.  Each node keeps :data:`POOL` of them at hand, claimed by one
script that takes the smallest numbers nobody holds (``HSETNX`` from 1 up):
a game starts without waiting for Redis, and two nodes never hand out one
number.  A game's end gives its number back to the pool (or to Redis past
:data:`POOL`); the numbers of a node that stops or dies are released.
"""

from __future__ import annotations

from typing import Any

from twisted.internet.defer import Deferred, succeed
from twisted.logger import Logger
from twisted.python.failure import Failure

from ficsfen.server.cluster.bus import Bus, BusDown

__all__ = ["GameNumbers", "POOL"]

_log = Logger(namespace="ficsfen.cluster.numbers")

#: Game numbers a node keeps reserved ahead (claimed in Redis, handed out without waiting).
POOL = 16

# Claims the ARGV[2] smallest numbers not in the hash for node ARGV[1]; returns them.
_CLAIM = ("local got = {} local n = 1 "
          "while #got < tonumber(ARGV[2]) do "
          "if redis.call('HSETNX', KEYS[1], n, ARGV[1]) == 1 then table.insert(got, n) end "
          "n = n + 1 end return got")
# Gives back every number of node ARGV[1].
_RELEASE_NODE = ("local flat = redis.call('HGETALL', KEYS[1]) local c = 0 "
                 "for i = 1, #flat, 2 do if flat[i + 1] == ARGV[1] then "
                 "redis.call('HDEL', KEYS[1], flat[i]) c = c + 1 end end return c")
# Gives back number ARGV[2] if node ARGV[1] holds it.
_RELEASE = ("if redis.call('HGET', KEYS[1], ARGV[2]) == ARGV[1] then "
            "return redis.call('HDEL', KEYS[1], ARGV[2]) end return 0")


class GameNumbers:
    """This node's reserved game numbers (see the module)."""

    def __init__(self, bus: Bus) -> None:
        self.bus = bus
        #: Numbers reserved for this node and not in use, smallest first.
        self._pool: list[int] = []
        #: Reserved numbers of this node's games in play.
        self._in_use: set[int] = set()
        self._claiming = False
        bus.on_state(self._bus_state)

    def _key(self) -> str:
        return self.bus.key("numbers")

    def take(self) -> int | None:
        """A reserved number for a new game, or None (none at hand: the directory picks)."""
        number = self._pool.pop(0) if self._pool else None
        if number is not None:
            self._in_use.add(number)
        if len(self._pool) < POOL // 2:
            self._claim()
        return number

    def _claim(self) -> None:
        """Reserve numbers until :data:`POOL` are at hand (one claim at a time)."""
        want = POOL - len(self._pool)
        if self._claiming or want <= 0 or not self.bus.up:
            return
        self._claiming = True

        def claimed(numbers: list[Any]) -> None:
            self._pool = sorted({*self._pool, *(int(n) for n in numbers)} - self._in_use)

        def done(_: object) -> None:
            self._claiming = False

        self.bus.execute("EVAL", _CLAIM, 1, self._key(), self.bus.node, want).addCallback(
            claimed).addErrback(_failed, "reserving game numbers").addBoth(done)

    def freed(self, number: int) -> None:
        """A game of ``number`` ended: kept at hand if reserved here, or given back."""
        if number not in self._in_use:
            return
        self._in_use.discard(number)
        if len(self._pool) < POOL:
            self._pool = sorted({*self._pool, number})
        elif self.bus.up:
            self.bus.execute("EVAL", _RELEASE, 1, self._key(), self.bus.node,
                             number).addErrback(_failed, "giving back a number")

    def release(self, node: str | None = None) -> Deferred[Any]:
        """Give back every number of ``node`` (default: this node, which stops)."""
        if node is None:
            self._pool = []
        if not self.bus.up:
            return succeed(None)
        return self.bus.execute("EVAL", _RELEASE_NODE, 1, self._key(),
                                node or self.bus.node).addErrback(_failed, "giving back numbers")

    def _bus_state(self, up: bool) -> None:
        if not up:
            return
        bus, key = self.bus, self._key()
        self._pool = []  # Redis may have restarted empty: claimed again
        bus.execute("EVAL", _RELEASE_NODE, 1, key, bus.node).addErrback(_failed, "numbers")
        for number in sorted(self._in_use):
            bus.execute("HSET", key, str(number), bus.node).addErrback(_failed, "numbers")
        self._claim()


def _failed(failure: Failure, what: str) -> None:
    if not failure.check(BusDown):
        _log.failure("cluster game numbers: {what} failed", failure=failure, what=what)
