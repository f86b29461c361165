"""Who is logged in on which node: a table per node in Redis, heartbeats, events on the bus.

Each node keeps, in Redis (keys under the bus's namespace):

* ``presence:NODE``, a hash: one field per logged-in player (the folded
  handle) whose value is the player's entry (:meth:`RemotePlayer.to_json`:
  handle, registered, language, login time, the variables and lists other
  nodes check before sending them talk), and the field ``~seq``, the
  node's run and the number of the last change (``RUN:SEQ``);
* ``alive:NODE``, its heartbeat: renewed every ``[cluster]
  heartbeat_interval`` seconds, expiring after ``heartbeat_timeout``;
* ``nodes``, the set of node names.

Every change is written to the hash and then published on the bus
(``presence.arrive``, ``presence.update``, ``presence.leave``, each with its
``run`` and ``seq``), so the other nodes keep a copy of every table in
memory (:class:`Presence`: what ``who``, ``finger`` and ``tell`` read, without
a round trip to Redis).  A node that sees a gap in a table's numbers, a
``presence.hello`` (a node that started or came back after an outage), or,
at each heartbeat, a table whose ``~seq`` is not the one it holds, reads
that table again (``HGETALL``): a change lost while a node was disconnected
is repaired within one heartbeat.

A node whose ``alive`` key has expired is gone: at their next heartbeat the
others drop its players and delete its table.  A node that stops
(:meth:`Presence.stop`) deletes its own table and says ``presence.bye``.

While the bus is down a node knows nothing of the others: its copy is
emptied (its players see only the players of their own node, and are told
so) and built again when the bus is back.

Handle uniqueness: when the same handle is logged in on two nodes (a
registered player logging in again elsewhere, or two logins while the bus
was down), the older login is closed on its node as a second login on one
node closes the first (``replaced``): the node that holds it does so as soon
as it sees the newer entry.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict
from typing import Any, Callable, Iterable, Mapping

from twisted.internet.defer import Deferred, gatherResults, succeed
from twisted.internet.task import LoopingCall
from twisted.logger import Logger
from twisted.python.failure import Failure

from ficsfen.names import NameIndex, fold
from ficsfen.server.cluster.bus import Bus, BusDown, BusMessage
from ficsfen.server.glicko import Category, Rating

__all__ = ["Presence", "RemotePlayer", "SHARED_VARIABLES", "ratings_from_json", "ratings_to_json"]

_log = Logger(namespace="ficsfen.cluster.presence")

#: The ``set`` variables other nodes read in an entry (``who`` filters, talk filters).
SHARED_VARIABLES = ("open", "rated", "tell", "shout", "cshout", "chanoff")

# Removes a player from a node's table and sets its change number in one step.
_LEAVE = "redis.call('HDEL', KEYS[1], ARGV[1]); redis.call('HSET', KEYS[1], '~seq', ARGV[2]); return 1"


def ratings_to_json(ratings: Mapping[Category, Rating]) -> dict[str, dict[str, Any]]:
    """A player's played ratings as an entry carries them (category name -> fields)."""
    return {category.value: asdict(rating) for category, rating in ratings.items()}


def ratings_from_json(data: Any) -> dict[Category, Rating]:
    """What :func:`ratings_to_json` wrote (what does not read as a rating is left out)."""
    ratings: dict[Category, Rating] = {}
    if isinstance(data, dict):
        for name, fields in data.items():
            try:
                ratings[Category(name)] = Rating(**fields)
            except (TypeError, ValueError):
                continue
    return ratings


class RemotePlayer:
    """A player logged in on another node, as that node describes them.

    Read-only; it answers what ``who``, ``finger`` and the talk commands ask a
    session (``handle``, ``registered``, ``variables``, ``display_name()``...).
    ``login_time`` is Unix time; ``censor`` the folded handles they censor;
    ``channels`` the channels they are in; ``ratings`` their played ratings
    (:class:`~ficsfen.server.glicko.Category` -> :class:`~ficsfen.server.glicko.Rating`);
    ``game_mark`` FICS's status mark of their game (``^`` playing, ``#``
    examining, ``""`` none).
    """

    __slots__ = ("handle", "node", "registered", "admin", "lang", "login_time", "interface",
                 "timeseal", "lag_ms", "notes", "variables", "channels", "censor", "ratings",
                 "game_mark")

    def __init__(self, node: str, entry: Mapping[str, Any]) -> None:
        self.node = node
        self.handle = str(entry["handle"])
        self.registered = bool(entry.get("registered", False))
        self.admin = bool(entry.get("admin", False))
        self.lang = str(entry.get("lang", "en"))
        self.login_time = float(entry.get("login", 0.0))
        self.interface = str(entry.get("interface", ""))
        self.timeseal = bool(entry.get("timeseal", False))
        self.lag_ms = int(entry.get("lag", 0))
        self.notes = [str(n) for n in entry.get("notes", ())]
        variables = entry.get("variables", {})
        self.variables = {k: variables[k] for k in SHARED_VARIABLES if k in variables}
        self.channels = frozenset(int(c) for c in entry.get("channels", ()))
        self.censor = frozenset(str(c) for c in entry.get("censor", ()))
        self.ratings = ratings_from_json(entry.get("ratings"))
        mark = entry.get("game", "")
        self.game_mark = mark if mark in ("^", "#") else ""

    def __repr__(self) -> str:
        return f"<RemotePlayer {self.handle} on {self.node}>"

    def display_name(self) -> str:
        """As :meth:`ficsfen.server.session.Session.display_name`."""
        if self.admin:
            return f"{self.handle}(*)"
        return self.handle if self.registered else f"{self.handle}(U)"

    @staticmethod
    def to_json(session: Any, *, login: float, channels: Iterable[int], censor: Iterable[str],
                notes: Iterable[str] = ()) -> dict[str, Any]:
        """The entry of a local ``session`` (what other nodes build a :class:`RemotePlayer` from)."""
        return {"handle": session.handle, "registered": bool(session.registered),
                "admin": bool(getattr(session, "admin", False)), "lang": session.lang,
                "login": login, "interface": getattr(session, "interface", "") or "",
                "timeseal": bool(getattr(session, "timeseal", False)),
                "lag": int(getattr(session, "lag_ms", 0) or 0), "notes": list(notes),
                "variables": {k: session.variables[k] for k in SHARED_VARIABLES
                              if k in session.variables},
                "channels": sorted(channels), "censor": sorted(censor)}


class _Table:
    """What one node holds, as this node last read or heard it."""

    __slots__ = ("run", "seq", "players")

    def __init__(self, run: str = "", seq: int = 0) -> None:
        self.run, self.seq = run, seq
        self.players: dict[str, RemotePlayer] = {}


def _seq(value: str | None) -> tuple[str, int]:
    run, _, seq = (value or ":0").rpartition(":")
    return run, int(seq) if seq.isdigit() else 0


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
        self._local = local
        self._replaced = replaced
        self._changed = changed
        #: Told the name of a node that vanished (its heartbeat expired) or left.
        self.gone: list[Callable[[str], None]] = [gone]
        self.run = os.urandom(4).hex()
        self.seq = 0
        self._tables: dict[str, _Table] = {}
        self._where: dict[str, RemotePlayer] = {}  # folded handle -> where it is (newest login)
        self._index = NameIndex()
        self._beat = LoopingCall(self.heartbeat)
        self._beat.clock = clock
        self._reading: dict[str, Deferred[Any]] = {}
        for kind, handler in (("presence.arrive", self._heard_entry),
                              ("presence.update", self._heard_entry),
                              ("presence.leave", self._heard_leave),
                              ("presence.hello", self._heard_hello),
                              ("presence.bye", self._heard_bye)):
            bus.on(kind, handler)
        bus.on_state(self._bus_state)

    # -- what other modules read -------------------------------------------------------

    def get(self, key: str) -> RemotePlayer | None:
        """The player logged in elsewhere as the folded handle ``key``, or None."""
        return self._where.get(key)

    def players(self) -> Iterable[RemotePlayer]:
        """Every player logged in on another node (a live view)."""
        return self._where.values()

    def handles(self) -> NameIndex:
        """Their handles, for resolving a typed name."""
        return self._index

    def nodes(self) -> dict[str, int]:
        """The other nodes known, with how many players each has."""
        return {node: len(t.players) for node, t in self._tables.items()}

    def __len__(self) -> int:
        return len(self._where)

    # -- this node's players ----------------------------------------------------------------

    def _key(self, node: str | None = None) -> str:
        return self.bus.key("presence", node or self.bus.node)

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
                         "~seq", seq).addErrback(self._failed, kind)
        self.bus.broadcast(kind, {"seq": seq, "entry": entry}).addErrback(self._failed, kind)

    def departed(self, handle: str) -> None:
        """A player logged out here."""
        if not self.bus.up:
            return
        seq = self._next()
        key = fold(handle)
        self.bus.execute("EVAL", _LEAVE, 1, self._key(), key, seq).addErrback(
            self._failed, "leave")
        self.bus.broadcast("presence.leave", {"seq": seq, "key": key}).addErrback(
            self._failed, "leave")

    @staticmethod
    def _failed(failure: Failure, what: str) -> None:
        if not failure.check(BusDown):  # the bus is down: the table is written again when back
            _log.failure("presence: {what} failed", failure=failure, what=what)

    # -- start, heartbeats, stop ------------------------------------------------------------

    def start(self) -> None:
        """Beat every ``interval`` seconds (from when the bus is up)."""
        if not self._beat.running:
            self._beat.start(self.interval, now=False)

    def stop(self) -> Deferred[None]:
        """Stop beating, delete this node's table and heartbeat, say goodbye (if the bus is up)."""
        if self._beat.running:
            self._beat.stop()
        if not self.bus.up:
            return succeed(None)
        steps = [self.bus.execute("DEL", self._key(), self.bus.key("alive", self.bus.node)),
                 self.bus.execute("SREM", self.bus.key("nodes"), self.bus.node),
                 self.bus.broadcast("presence.bye", {})]
        return gatherResults(steps, consumeErrors=True).addBoth(lambda _: None)

    def _bus_state(self, up: bool) -> None:
        if up:
            self.publish_all().addErrback(self._failed, "resynchronisation")
        else:
            self._forget_all()

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
                 self._alive(),
                 bus.execute("SADD", bus.key("nodes"), bus.node),
                 bus.broadcast("presence.hello", {"seq": seq})]
        d = gatherResults(steps, consumeErrors=True)
        return d.addCallback(lambda _: self.check())

    def _alive(self) -> Deferred[Any]:
        return self.bus.execute("SET", self.bus.key("alive", self.bus.node), self.run,
                                "PX", int(self.timeout * 1000))

    def heartbeat(self) -> Deferred[Any] | None:
        """Renew this node's heartbeat and check the others (``[cluster] heartbeat_interval``)."""
        if not self.bus.up:
            return None
        d = self._alive()
        d.addCallback(lambda _: self.check())
        return d.addErrback(self._failed, "heartbeat")

    def check(self) -> Deferred[Any]:
        """Drop the nodes whose heartbeat expired; read again the tables not as held here."""
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
        for node in [*others, *self._tables]:
            if node not in living and node != bus.node:
                self._gone(node)
                steps.append(bus.execute("DEL", self._key(node)))
                steps.append(bus.execute("SREM", bus.key("nodes"), node))
        for node in living:
            steps.append(bus.execute("HGET", self._key(node), "~seq").addCallback(
                self._compare, node))
        return gatherResults(steps, consumeErrors=True)

    def _compare(self, seq: str | None, node: str) -> None:
        table = self._tables.get(node)
        if table is None or (table.run, table.seq) != _seq(seq):
            self._read(node)

    # -- what the other nodes say ------------------------------------------------------------

    def _table(self, node: str, run: str) -> _Table:
        table = self._tables.get(node)
        if table is None or table.run != run:
            if table is not None:
                self._gone(node)
            table = self._tables[node] = _Table(run)
        return table

    def _next_change(self, message: BusMessage) -> _Table | None:
        """The sender's table if ``message`` is a change it has not seen (its number
        recorded; a gap before it makes the table read again), else ``None``."""
        run, seq = _seq(message.body.get("seq"))
        table = self._table(message.sender, run)
        if seq <= table.seq:
            return None
        if seq != table.seq + 1:
            self._read(message.sender)
        table.seq = seq
        return table

    def _heard_entry(self, message: BusMessage) -> None:
        table = self._next_change(message)
        if table is None:
            return
        try:
            player = RemotePlayer(message.sender, message.body["entry"])
        except (KeyError, TypeError, ValueError):
            _log.warn("presence: a malformed entry from {node}", node=message.sender)
            return
        key = fold(player.handle)
        old = table.players.get(key)
        table.players[key] = player
        self._place(key, old)

    def _heard_leave(self, message: BusMessage) -> None:
        table = self._next_change(message)
        if table is None:
            return
        key = str(message.body.get("key", ""))
        old = table.players.pop(key, None)
        if old is not None:
            self._place(key, old)

    def _heard_hello(self, message: BusMessage) -> None:
        self._read(message.sender)

    def _heard_bye(self, message: BusMessage) -> None:
        self._gone(message.sender)

    def _read(self, node: str) -> None:
        """Read ``node``'s table again (once at a time)."""
        if node in self._reading or not self.bus.up:
            return
        d = self._reading[node] = self.bus.execute("HGETALL", self._key(node))

        def read(flat: list[str]) -> None:
            fields = dict(zip(flat[::2], flat[1::2]))
            run, seq = _seq(fields.pop("~seq", None))
            if not run:
                return  # no table (yet): the node's hello comes
            table = self._table(node, run)
            if seq < table.seq:
                return  # older than what was heard meanwhile; the next check reads it again
            table.seq = seq
            before = table.players
            table.players = {}
            for key, value in fields.items():
                try:
                    table.players[key] = RemotePlayer(node, json.loads(value))
                except (KeyError, TypeError, ValueError):
                    _log.warn("presence: a malformed entry of {node} in Redis", node=node)
            for key in set(before) | set(table.players):
                if before.get(key) is not table.players.get(key):
                    self._place(key, before.get(key))

        def done(_: object) -> None:
            del self._reading[node]

        d.addCallback(read).addErrback(self._failed, "read").addBoth(done)

    # -- the copy ------------------------------------------------------------------------------

    def _place(self, key: str, old: RemotePlayer | None) -> None:
        """Where ``key`` is now (the newest of its logins elsewhere); a local login older
        than it is closed."""
        where = [t.players[key] for t in self._tables.values() if key in t.players]
        newest = max(where, key=lambda p: (p.login_time, p.node)) if where else None
        current = self._where.get(key)
        if current is not None and (newest is None or current.handle != newest.handle):
            self._index.discard(current.handle)
        if newest is None:
            self._where.pop(key, None)
        else:
            if current is None or current.handle != newest.handle:
                self._index.add(newest.handle)
            self._where[key] = newest
            if old is None and self._local(key) is not None:
                self._conflict(key, newest)
        self._changed()

    def _conflict(self, key: str, remote: RemotePlayer) -> None:
        """``key`` is logged in here and on ``remote.node``: the older login goes."""
        login = self._local(key)
        if login is not None and (login, self.bus.node) < (remote.login_time, remote.node):
            self._replaced(key)

    def _gone(self, node: str) -> None:
        table = self._tables.pop(node, None)
        if table is None:
            return
        _log.info("presence: node {node} is gone ({count} players)", node=node,
                  count=len(table.players))
        for key, player in table.players.items():
            self._place(key, player)
        for listener in list(self.gone):
            try:
                listener(node)
            except Exception:
                _log.failure("presence: a listener of departed nodes failed")

    def _forget_all(self) -> None:
        self._tables.clear()
        self._where.clear()
        self._index = NameIndex()
        self._changed()
