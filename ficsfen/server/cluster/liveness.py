"""Which nodes are alive: this node's heartbeat, and the others' read at each beat.

In Redis (keys under the bus's namespace): ``alive:NODE``, a node's
heartbeat, set to its run every ``[cluster] heartbeat_interval`` seconds and
expiring after ``heartbeat_timeout``; ``nodes``, the set of node names.  At
each heartbeat a node reads the others' ``alive`` keys: a node whose key
expired is dead (its name leaves ``nodes``), every living one is checked.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable

from twisted.internet.defer import Deferred, gatherResults
from twisted.internet.task import LoopingCall
from twisted.logger import Logger

from ficsfen.server.cluster.bus import Bus, log_unless_down

__all__ = ["Liveness"]

_log = Logger(namespace="ficsfen.cluster.presence")


class Liveness:
    """This node's heartbeat (``run``: its value) and the check of the other nodes'.

    ``clock`` runs the heartbeats, every ``interval`` seconds, each valid for
    ``timeout`` seconds.  ``known()`` names the nodes this node holds
    something of; ``dead(node)`` drops a node whose heartbeat expired and
    ``living(node)`` checks one alive (each a Deferred of its Redis steps);
    ``checked()`` is told after each heartbeat's check has gone through.
    """

    def __init__(self, bus: Bus, *, clock: Any, run: str, interval: float, timeout: float,
                 known: Callable[[], Iterable[str]], dead: Callable[[str], Deferred[Any]],
                 living: Callable[[str], Deferred[Any]],
                 checked: Callable[[], None] = lambda: None) -> None:
        self.bus = bus
        self.run = run
        self.interval = interval
        self.timeout = timeout
        self._known = known
        self._dead = dead
        self._living = living
        self._checked = checked
        self._beat = LoopingCall(self.heartbeat)
        self._beat.clock = clock

    def start(self) -> None:
        """Beat every ``interval`` seconds (from when the bus is up)."""
        if not self._beat.running:
            self._beat.start(self.interval, now=False)

    def stop(self) -> None:
        """Stop beating."""
        if self._beat.running:
            self._beat.stop()

    def join(self) -> list[Deferred[Any]]:
        """Beat now and add this node to the set of nodes."""
        bus = self.bus
        return [self._alive(), bus.execute("SADD", bus.key("nodes"), bus.node)]

    def leave(self) -> list[Deferred[Any]]:
        """Delete this node's heartbeat and take it out of the set of nodes."""
        bus = self.bus
        return [bus.execute("DEL", bus.key("alive", bus.node)),
                bus.execute("SREM", bus.key("nodes"), bus.node)]

    def _alive(self) -> Deferred[Any]:
        return self.bus.execute("SET", self.bus.key("alive", self.bus.node), self.run,
                                "PX", int(self.timeout * 1000))

    def heartbeat(self) -> Deferred[Any] | None:
        """Renew this node's heartbeat and check the others (``[cluster] heartbeat_interval``)."""
        if not self.bus.up:
            return None
        d = self._alive()
        d.addCallback(lambda _: self.check()).addCallback(lambda _: self._checked())
        return d.addErrback(log_unless_down, _log, "presence: heartbeat")

    def check(self) -> Deferred[Any]:
        """Drop the nodes whose heartbeat expired; check the living ones."""
        bus = self.bus

        def members(names: list[str]) -> Deferred[Any]:
            others = sorted(set(names) - {bus.node})
            if not others:
                return self._alive_now([], [])
            return bus.execute("MGET", *(bus.key("alive", n) for n in others)).addCallback(
                lambda alive: self._alive_now(others, alive))

        return bus.execute("SMEMBERS", bus.key("nodes")).addCallback(members)

    def _alive_now(self, others: list[str], alive: list[str | None]) -> Deferred[Any]:
        bus = self.bus
        steps: list[Deferred[Any]] = []
        living = {node for node, flag in zip(others, alive) if flag is not None}
        for node in [*others, *self._known()]:
            if node not in living and node != bus.node:
                steps.append(self._dead(node))
                steps.append(bus.execute("SREM", bus.key("nodes"), node))
        for node in living:
            steps.append(self._living(node))
        return gatherResults(steps, consumeErrors=True)
