"""This node's copy of the other nodes' presence tables, kept in step with what they publish.

Each node numbers the changes of its table (``~seq``: ``RUN:SEQ``, a run per
start of the node).  A change heard on the bus (``presence.arrive``,
``presence.update``, ``presence.leave``) is applied to the copy when its
number is new; a gap before it, a ``presence.hello``, or a ``~seq`` in Redis
that is not the copy's (checked at each heartbeat) makes this node read the
whole table again (``HGETALL``).  A node that says ``presence.bye``, or whose
heartbeat expired, is dropped with its players.
"""

from __future__ import annotations

import json
from typing import Any, Callable

from twisted.internet.defer import Deferred, succeed
from twisted.logger import Logger

from ficsfen.names import fold
from ficsfen.server.cluster.bus import Bus, BusMessage, log_unless_down
from ficsfen.server.cluster.remote_player import RemotePlayer

__all__ = ["RemoteTables", "table_key"]

_log = Logger(namespace="ficsfen.cluster.presence")


def table_key(bus: Bus, node: str) -> str:
    """The Redis key of ``node``'s table (a hash: folded handle -> entry, and ``~seq``)."""
    return bus.key("presence", node)


def _seq(value: str | None) -> tuple[str, int]:
    run, _, seq = (value or ":0").rpartition(":")
    return run, int(seq) if seq.isdigit() else 0


class _Table:
    """What one node holds, as this node last read or heard it."""

    __slots__ = ("run", "seq", "players")

    def __init__(self, run: str = "", seq: int = 0) -> None:
        self.run, self.seq = run, seq
        self.players: dict[str, RemotePlayer] = {}


class RemoteTables:
    """The other nodes' tables, by node name.

    ``placed(key, logins, arrived)`` is told, at each change of a folded
    handle, every login of it in the tables (``arrived``: the handle is new
    in its node's table); each of ``gone`` is told the name of a node
    dropped (it left, its heartbeat expired, or it started again).
    """

    def __init__(self, bus: Bus, *, placed: Callable[[str, list[RemotePlayer], bool], None],
                 gone: list[Callable[[str], None]]) -> None:
        self.bus = bus
        self._placed = placed
        self.gone = gone
        self._tables: dict[str, _Table] = {}
        self._reading: dict[str, Deferred[Any]] = {}
        for kind, handler in (("presence.arrive", self._heard_entry),
                              ("presence.update", self._heard_entry),
                              ("presence.leave", self._heard_leave),
                              ("presence.hello", self._heard_hello),
                              ("presence.bye", self._heard_bye)):
            bus.on(kind, handler)

    def nodes(self) -> dict[str, int]:
        """The other nodes known, with how many players each has."""
        return {node: len(t.players) for node, t in self._tables.items()}

    def verify(self, node: str) -> Deferred[None]:
        """Read ``node``'s table again if its number in Redis is not the copy's (fires
        once it is read)."""
        return self.bus.execute("HGET", table_key(self.bus, node), "~seq").addCallback(
            self._compare, node)

    def forget(self, node: str) -> Deferred[Any]:
        """Drop ``node`` (its heartbeat expired) and delete its table."""
        self._gone(node)
        return self.bus.execute("DEL", table_key(self.bus, node))

    def clear(self) -> None:
        """Forget every table (the bus is down)."""
        self._tables.clear()

    def _compare(self, seq: str | None, node: str) -> Deferred[None] | None:
        table = self._tables.get(node)
        if table is None or (table.run, table.seq) != _seq(seq):
            return self._read(node)
        return None

    def _place(self, key: str, old: RemotePlayer | None) -> None:
        logins = [t.players[key] for t in self._tables.values() if key in t.players]
        self._placed(key, logins, old is None)

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

    def _read(self, node: str) -> Deferred[None] | None:
        """Read ``node``'s table again (once at a time); fires once it is read."""
        if not self.bus.up:
            return None
        if node in self._reading:
            return self._read_done(node)
        d = self._reading[node] = self.bus.execute("HGETALL", table_key(self.bus, node))

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

        d.addCallback(read).addErrback(log_unless_down, _log, "presence: read").addBoth(done)
        return self._read_done(node) if node in self._reading else succeed(None)

    def _read_done(self, node: str) -> Deferred[None]:
        """A Deferred fired once the read of ``node``'s table under way ends."""
        waiter: Deferred[None] = Deferred()

        def fire(result: object) -> object:
            waiter.callback(None)
            return result

        self._reading[node].addBoth(fire)
        return waiter

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
