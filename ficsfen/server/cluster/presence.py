"""Who is logged in on which node: this node's table in Redis, and its view of the others'.

Each node keeps, in Redis (keys under the bus's namespace), ``presence:NODE``,
a hash: one field per logged-in player (the folded handle) whose value is the
player's entry (:meth:`RemotePlayer.to_json`), and the field ``~seq``, the
node's run and the number of the last change (``RUN:SEQ``).  Every change is
written to the hash and then published on the bus (``presence.arrive``,
``presence.update``, ``presence.leave``, each with its ``run`` and ``seq``),
so the other nodes keep a copy of every table in memory: what ``who``,
``finger`` and ``tell`` read, without a round trip to Redis.

:class:`Presence` joins the parts: :mod:`.remote_tables` (the copy of the
other nodes' tables, repaired within one heartbeat when a change is lost),
:mod:`.liveness` (heartbeats: a node whose heartbeat expired is gone, its
players dropped and its table deleted), :mod:`.unique_handles` (where each
handle is; the older of two logins of one handle is closed on its node, as a
second login on one node closes the first).  A node that stops
(:meth:`Presence.stop`) deletes its own table and says ``presence.bye``.

While the bus is down a node knows nothing of the others: its copy is
emptied (its players see only the players of their own node, and are told
so) and built again when the bus is back.
"""

from __future__ import annotations

import json
import os
from typing import Any, Callable, Iterable

from twisted.internet.defer import Deferred, gatherResults, succeed
from twisted.logger import Logger

from ficsfen.names import NameIndex, fold
from ficsfen.server.cluster.bus import Bus, log_unless_down
from ficsfen.server.cluster.liveness import Liveness
from ficsfen.server.cluster.remote_player import (
    SHARED_VARIABLES, RemotePlayer, ratings_from_json, ratings_to_json)
from ficsfen.server.cluster.remote_tables import RemoteTables, table_key
from ficsfen.server.cluster.unique_handles import UniqueHandles

__all__ = ["Presence", "RemotePlayer", "SHARED_VARIABLES", "ratings_from_json", "ratings_to_json"]

_log = Logger(namespace="ficsfen.cluster.presence")

# Removes a player from a node's table and sets its change number in one step.
_LEAVE = "redis.call('HDEL', KEYS[1], ARGV[1]); redis.call('HSET', KEYS[1], '~seq', ARGV[2]); return 1"


class Presence:
    """This node's presence in the cluster, and its copy of every other node's players.

    ``bus``: the node's :class:`~ficsfen.server.cluster.bus.Bus`; ``clock``
    runs the heartbeats; ``wall()`` is Unix time (login times compared across
    nodes); ``interval`` and ``timeout``: ``[cluster] heartbeat_interval`` and
    ``heartbeat_timeout`` (seconds).  The node's own players come from
    ``entries()`` (the entry of every local player, when the table is written
    whole: at the start and after an outage) and :meth:`arrived`,
    :meth:`updated` and :meth:`departed`.  ``local(key)`` is the Unix time a folded
    handle logged in here, or None if it is not logged in here; ``replaced(key)`` closes that local session (a
    newer login elsewhere); ``changed()`` is told whenever the remote players
    change (``who``'s cache; talk's channel lists).
    """

    def __init__(self, bus: Bus, *, clock: Any, wall: Callable[[], float], interval: float,
                 timeout: float, entries: Callable[[], Iterable[dict[str, Any]]],
                 local: Callable[[str], float | None], replaced: Callable[[str], None],
                 changed: Callable[[], None] = lambda: None,
                 gone: Callable[[str], None] = lambda node: None) -> None:
        self.bus = bus
        self.clock = clock
        self.wall = wall
        self.interval = interval
        self.timeout = timeout
        self._entries = entries
        #: Told the name of a node that vanished (its heartbeat expired) or left.
        self.gone: list[Callable[[str], None]] = [gone]
        self.run = os.urandom(4).hex()
        self.seq = 0
        self._handles = UniqueHandles(bus.node, local=local, replaced=replaced, changed=changed)
        #: Told the folded handle of a player of another node no longer logged in on any
        #: other node (logged out, or their node gone): ``follow`` of them ends.
        self.left = self._handles.left
        #: Told the player (:class:`RemotePlayer`) of another node not logged in on any
        #: other node until now.
        self.appeared = self._handles.appeared
        #: Told whenever every other node's table has been checked against Redis (and read
        #: again where it differed): when the bus is back, then at each heartbeat.
        self.synced: list[Callable[[], None]] = []
        self._tables = RemoteTables(bus, placed=self._handles.place, gone=self.gone)
        self._liveness = Liveness(bus, clock=clock, run=self.run, interval=interval,
                                  timeout=timeout, known=self._tables.nodes,
                                  dead=self._tables.forget, living=self._tables.verify,
                                  checked=self._synced)
        bus.on_state(self._bus_state)

    # -- what other modules read -------------------------------------------------------

    def get(self, key: str) -> RemotePlayer | None:
        """The player logged in elsewhere as the folded handle ``key``, or None."""
        return self._handles.get(key)

    def players(self) -> Iterable[RemotePlayer]:
        """Every player logged in on another node (a live view)."""
        return self._handles.players()

    def handles(self) -> NameIndex:
        """Their handles, for resolving a typed name."""
        return self._handles.handles()

    def nodes(self) -> dict[str, int]:
        """The other nodes known, with how many players each has."""
        return self._tables.nodes()

    def __len__(self) -> int:
        return len(self._handles)

    # -- this node's players ----------------------------------------------------------------

    def _key(self) -> str:
        return table_key(self.bus, self.bus.node)

    def _next(self) -> str:
        self.seq += 1
        return f"{self.run}:{self.seq}"

    def arrived(self, entry: dict[str, Any]) -> None:
        """A player logged in here: written to this node's table, then announced."""
        self._write("presence.arrive", entry)

    def updated(self, entry: dict[str, Any]) -> None:
        """A local player's entry changed (a variable, a channel, the censor list)."""
        self._write("presence.update", entry)

    def _write(self, kind: str, entry: dict[str, Any]) -> None:
        if not self.bus.up:
            return  # written whole when the bus is back
        seq = self._next()
        key = fold(entry["handle"])
        self.bus.execute("HSET", self._key(), key, json.dumps(entry, separators=(",", ":")),
                         "~seq", seq).addErrback(log_unless_down, _log, f"presence: {kind}")
        self.bus.broadcast(kind, {"seq": seq, "entry": entry}).addErrback(
            log_unless_down, _log, f"presence: {kind}")

    def departed(self, handle: str) -> None:
        """A player logged out here."""
        if not self.bus.up:
            return
        seq = self._next()
        key = fold(handle)
        self.bus.execute("EVAL", _LEAVE, 1, self._key(), key, seq).addErrback(
            log_unless_down, _log, "presence: leave")
        self.bus.broadcast("presence.leave", {"seq": seq, "key": key}).addErrback(
            log_unless_down, _log, "presence: leave")

    # -- start, heartbeats, stop ------------------------------------------------------------

    def start(self) -> None:
        """Beat every ``interval`` seconds (from when the bus is up)."""
        self._liveness.start()

    def stop(self) -> Deferred[None]:
        """Stop beating, delete this node's table and heartbeat, say goodbye (if the bus is up)."""
        self._liveness.stop()
        if not self.bus.up:
            return succeed(None)
        steps = [self.bus.execute("DEL", self._key()), *self._liveness.leave(),
                 self.bus.broadcast("presence.bye", {})]
        return gatherResults(steps, consumeErrors=True).addBoth(lambda _: None)

    def _bus_state(self, up: bool) -> None:
        if up:
            self.publish_all().addCallback(self._synced).addErrback(
                log_unless_down, _log, "presence: resynchronisation")
        else:
            self._tables.clear()
            self._handles.clear()

    def _synced(self, _: object = None) -> None:
        for listener in list(self.synced):
            listener()

    def publish_all(self) -> Deferred[Any]:
        """Write this node's table whole, beat, say hello, read every other table."""
        bus = self.bus
        entries = list(self._entries())
        seq = self._next()
        fields: list[str] = []
        for entry in entries:
            fields += [fold(entry["handle"]), json.dumps(entry, separators=(",", ":"))]
        steps = [bus.execute("DEL", self._key()),
                 bus.execute("HSET", self._key(), *fields, "~seq", seq),
                 *self._liveness.join(),
                 bus.broadcast("presence.hello", {"seq": seq})]
        d = gatherResults(steps, consumeErrors=True)
        return d.addCallback(lambda _: self.check())

    def heartbeat(self) -> Deferred[Any] | None:
        """Renew this node's heartbeat and check the others (``[cluster] heartbeat_interval``)."""
        return self._liveness.heartbeat()

    def check(self) -> Deferred[Any]:
        """Drop the nodes whose heartbeat expired; read again the tables not as held here."""
        return self._liveness.check()
