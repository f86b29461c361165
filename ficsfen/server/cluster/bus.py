"""The bus between the nodes of a cluster: Redis publish/subscribe of small JSON messages.

One :class:`Bus` per server process (a *node*).  It holds two connections
to one Redis server, both made with txredisapi's protocol (a Twisted-native
Redis client) and kept by Twisted's :class:`~twisted.application.internet.ClientService`
(reconnection with exponential backoff, ``initial_delay`` doubling up to
``max_delay`` seconds):

* the *command* connection: :meth:`Bus.publish` and :meth:`Bus.execute`
  (any Redis command: the presence tables, later game ownership);
* the *subscriber* connection: the node's own channel and the broadcast
  channels, re-subscribed after every reconnection.

Contract, for every module built on the bus:

* A message is a :class:`BusMessage`: a ``kind`` (a short name such as
  ``"tell"``), the ``sender`` node's name and a ``body`` (a JSON object, kept
  small: the bus is for events, not bulk data).  On the wire it is the JSON
  object ``{"k": kind, "n": sender, "b": body}`` on the Redis channel
  ``NAMESPACE:CHANNEL``.
* Channels: every node subscribes to :data:`ALL` (broadcast) and to its own
  :func:`node_channel`; :meth:`Bus.subscribe` adds more.  :meth:`Bus.to_node`
  and :meth:`Bus.broadcast` are :meth:`Bus.publish` on those.
* :meth:`Bus.on` registers a handler per kind; handlers run on the reactor
  thread, in the order messages arrive.  A node never receives its own
  messages (whatever the channel): what a node does for its own players it
  does locally.  Messages of one node reach each other node in the order
  they were published (one command connection, one subscriber connection).
  A message of a kind nobody handles, or that is not valid JSON, is logged
  and dropped.
* Delivery is at most once: a message published while a node is
  disconnected is lost for it.  :meth:`Bus.on_state` listeners hear
  ``True`` when the bus is (again) up and ``False`` when it goes down, so a
  module can resynchronise what it keeps in Redis (the presence table) after
  an outage.
* :meth:`Bus.publish` and :meth:`Bus.execute` return Deferreds that fire
  once Redis has accepted the command (``publish``: with the number of
  subscribers that received it).  While the bus is down they fail at once
  with :class:`BusDown` (nothing is queued); a connection lost while a
  command waits fails it with :class:`BusDown` as well.

Redis's pub/sub keeps nothing, so a message is cheap: one PUBLISH of a few
hundred bytes; ``bench/cluster_tell.py`` measures what it costs a node.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Mapping

import txredisapi
from twisted.application.internet import ClientService, backoffPolicy
from twisted.internet import protocol
from twisted.internet.defer import Deferred, fail, gatherResults, succeed
from twisted.internet.endpoints import TCP4ClientEndpoint, UNIXClientEndpoint
from twisted.internet.interfaces import ITCPTransport
from twisted.logger import Logger
from twisted.python.failure import Failure

from ficsfen.i18n import LocalizedError, msg
from ficsfen.server.cluster.address import RedisAddress, parse_url

__all__ = ["ALL", "Bus", "BusDown", "BusMessage", "RedisAddress", "log_unless_down", "node_channel",
           "parse_url"]

#: The broadcast channel every node subscribes to.
ALL = "all"

_log = Logger(namespace="ficsfen.cluster")


#: The messages' JSON encoder, made once (``json.dumps`` with options makes one per call,
#: a good part of a small message's cost).
_encode = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False).encode


def node_channel(node: str) -> str:
    """The channel only ``node`` subscribes to (messages for that node alone)."""
    return f"node:{node}"


class BusDown(LocalizedError):
    """The bus is down (Redis cannot be reached): the command was not sent."""

    def __init__(self) -> None:
        super().__init__(msg("The link between the servers is down: your message could not be "
                             "sent to players on other servers."))


def log_unless_down(failure: Failure, log: Logger, what: str) -> None:
    """An errback: logs ``failure`` of ``what`` on ``log``, unless it is :class:`BusDown`
    (what a module keeps in Redis is written again when the bus is back)."""
    if not failure.check(BusDown):
        log.failure("{what} failed", failure=failure, what=what)


@dataclass(frozen=True)
class BusMessage:
    """One message received: its ``kind``, the ``sender`` node, its ``body`` and the
    ``channel`` (without the namespace) it came on."""

    kind: str
    sender: str
    body: dict[str, Any]
    channel: str


class _Subscriber(txredisapi.SubscriberProtocol):
    """The subscriber connection: every message goes to the bus."""

    def messageReceived(self, pattern: Any, channel: str, message: str) -> None:
        self.factory.bus._received(channel, message)


class _Factory(protocol.Factory):
    """Builds txredisapi protocols for :class:`ClientService`, on the bus's reactor."""

    #: txredisapi's protocol reads these of its factory when a login fails.
    isLazy = True

    def __init__(self, bus: Bus, kind: type) -> None:
        self.bus = bus
        self.kind = kind

    def buildProtocol(self, addr: Any) -> Any:
        address = self.bus.address
        p = self.kind(charset="utf-8", password=address.password, dbid=address.db,
                      convertNumbers=False, username=address.username,
                      replyTimeout=self.bus.reply_timeout)
        p.factory = self
        p.callLater = self.bus.reactor.callLater  # reply timeouts on the bus's reactor
        return p

    def stopTrying(self) -> None:
        """txredisapi's reaction to a refused login; the service goes on retrying."""

    def connectionError(self, why: str) -> None:
        _log.error("Redis refused the bus's connection: {why}", why=why)


@dataclass
class _Side:
    """One of the two connections: its service and its live protocol once usable."""

    service: ClientService
    protocol: Any = None
    ready: bool = False
    pending: list[Deferred[Any]] = field(default_factory=list)


class Bus:
    """A node's connection to the cluster's Redis; see the module's documentation.

    ``url``: :func:`parse_url`'s forms; ``node``: this node's name (unique in the
    cluster); ``namespace`` prefixes every channel and key, so several clusters
    may share one Redis; ``reactor`` runs everything (connections, retries).
    A command Redis has not answered within ``reply_timeout`` seconds (a frozen
    server) fails with :class:`BusDown` and drops the connection, which is then
    made again.  Nothing connects before :meth:`start`.

    :raises ValueError: ``url`` is not a Redis URL, or ``node`` is empty.
    """

    def __init__(self, url: str, node: str, *, reactor: Any, namespace: str = "ficsfen",
                 initial_delay: float = 0.25, max_delay: float = 5.0,
                 reply_timeout: float = 10.0) -> None:
        if not node:
            raise ValueError("a node needs a name")
        self.address = parse_url(url)
        self.url = url
        #: This node's name: the ``sender`` of what it publishes.
        self.node = node
        self.namespace = namespace
        self.reactor = reactor
        self.reply_timeout = reply_timeout
        self._handlers: dict[str, list[Callable[[BusMessage], None]]] = {}
        self._state_listeners: list[Callable[[bool], None]] = []
        self._before_publish: list[Callable[[], None]] = []
        self._channels: dict[str, None] = dict.fromkeys([ALL, node_channel(node)])
        self._up = False
        self._started = False
        policy = backoffPolicy(initialDelay=initial_delay, maxDelay=max_delay, factor=2.0)
        self._command = _Side(ClientService(self._endpoint(), _Factory(self, txredisapi.RedisProtocol),
                                            retryPolicy=policy, clock=reactor,
                                            prepareConnection=self._prepare_command))
        self._subscriber = _Side(ClientService(self._endpoint(), _Factory(self, _Subscriber),
                                               retryPolicy=policy, clock=reactor,
                                               prepareConnection=self._prepare_subscriber))
        #: Messages published and received (delivered to a handler or not) so far.
        self.published = 0
        self.received = 0

    def __repr__(self) -> str:
        return f"<Bus node={self.node!r} {'up' if self._up else 'down'}>"

    def _endpoint(self) -> Any:
        if self.address.path is not None:
            return UNIXClientEndpoint(self.reactor, self.address.path, timeout=5)
        return TCP4ClientEndpoint(self.reactor, self.address.host, self.address.port, timeout=5)

    # -- the contract ------------------------------------------------------------

    @property
    def up(self) -> bool:
        """Both connections are usable and the subscriptions made."""
        return self._up

    def key(self, *parts: str) -> str:
        """A Redis key in this cluster's namespace: ``NAMESPACE:PART:PART``."""
        return ":".join([self.namespace, *parts])

    def on(self, kind: str, handler: Callable[[BusMessage], None]) -> None:
        """Call ``handler(message)`` for every message of ``kind`` from another node."""
        self._handlers.setdefault(kind, []).append(handler)

    def on_state(self, listener: Callable[[bool], None]) -> None:
        """Call ``listener(True)`` each time the bus comes up, ``listener(False)`` each time
        it goes down (not at the start, when it is down until it first connects)."""
        self._state_listeners.append(listener)

    def before_publish(self, flush: Callable[[], None]) -> None:
        """Call ``flush()`` before each :meth:`publish`: a module that gathers messages
        to send them later (:class:`~ficsfen.server.cluster.seats.Outbox`) sends them
        first, so that messages keep the order in which they were made."""
        self._before_publish.append(flush)

    def subscribe(self, channel: str) -> None:
        """Receive the messages published on ``channel`` too (now if connected, and after
        every reconnection)."""
        if channel in self._channels:
            return
        self._channels[channel] = None
        side = self._subscriber
        if side.ready:
            side.protocol.subscribe([self._wire(channel)]).addErrback(self._logged, "subscribe")

    def publish(self, channel: str, kind: str, body: Mapping[str, Any] | None = None) -> Deferred[int]:
        """Publish a ``kind`` message with ``body`` on ``channel``; fires with the number of
        connections that received it once Redis accepted it.

        :raises BusDown: (in the Deferred) the bus is down, or went down before Redis answered.
        :raises TypeError: ``body`` cannot be written as JSON (raised at once).
        """
        for flush in self._before_publish:
            flush()
        data = _encode({"k": kind, "n": self.node, "b": dict(body or {})})
        d = self.execute("PUBLISH", self._wire(channel), data)
        self.published += 1
        return d

    def to_node(self, node: str, kind: str, body: Mapping[str, Any] | None = None) -> Deferred[int]:
        """:meth:`publish` on ``node``'s own channel."""
        return self.publish(node_channel(node), kind, body)

    def broadcast(self, kind: str, body: Mapping[str, Any] | None = None) -> Deferred[int]:
        """:meth:`publish` to every node (the :data:`ALL` channel)."""
        return self.publish(ALL, kind, body)

    def execute(self, *args: Any) -> Deferred[Any]:
        """Run one Redis command on the command connection (``("HGETALL", key)``); fires
        with Redis's reply (strings decoded as UTF-8, numbers as Redis gives them).

        :raises BusDown: (in the Deferred) the bus is down or the connection was lost.
        :raises txredisapi.ResponseError: (in the Deferred) Redis refused the command.
        """
        side = self._command
        if not side.ready:
            return fail(BusDown())
        try:
            d = side.protocol.execute_command(*args)
        except txredisapi.ConnectionError:
            return fail(BusDown())
        return d.addErrback(self._down_error)

    def start(self) -> None:
        """Start connecting (and reconnecting, until :meth:`stop`)."""
        if self._started:
            return
        self._started = True
        self._command.service.startService()
        self._subscriber.service.startService()

    def stop(self) -> Deferred[None]:
        """Close both connections and stop reconnecting; fires once they are closed.
        What :meth:`before_publish` gatherers hold is sent first.  The state listeners
        are not told (the node is stopping)."""
        if not self._started:
            return succeed(None)
        for flush in self._before_publish:  # what was gathered leaves first
            flush()
        self._started = False
        self._state_listeners = []
        self._up = False
        stopped = [self._command.service.stopService(), self._subscriber.service.stopService()]
        return gatherResults(stopped, consumeErrors=True).addCallback(lambda _: None)

    # -- connections -----------------------------------------------------------------

    def _wire(self, channel: str) -> str:
        return f"{self.namespace}:{channel}"

    def _prepare_command(self, p: Any) -> Deferred[Any]:
        side = self._command
        return p.whenConnected().addCallback(lambda _: self._ready(side, p))

    def _prepare_subscriber(self, p: Any) -> Deferred[Any]:
        side = self._subscriber

        def subscribed(_: object) -> None:
            self._ready(side, p)

        def connected(_: object) -> Deferred[Any]:
            return p.subscribe([self._wire(c) for c in self._channels]).addCallback(subscribed)

        return p.whenConnected().addCallback(connected)

    def _ready(self, side: _Side, p: Any) -> None:
        transport = p.transport
        if ITCPTransport.providedBy(transport):
            # A message follows another before Redis's answer to the first: sent at
            # once, not held until that answer acknowledges it (Nagle), which would
            # hold a board for another node as long as Redis waits for a CPU.
            transport.setTcpNoDelay(True)
        side.protocol, side.ready = p, True
        p.whenDisconnected().addCallback(lambda _: self._lost(side, p))
        self._update()

    def _lost(self, side: _Side, p: Any) -> None:
        if side.protocol is p:
            side.protocol, side.ready = None, False
            self._update()

    def _update(self) -> None:
        up = self._command.ready and self._subscriber.ready and self._started
        if up == self._up:
            return
        self._up = up
        _log.info("cluster bus {state} (node {node}, {url})", state="up" if up else "down",
                  node=self.node, url=self.url)
        for listener in list(self._state_listeners):
            try:
                listener(up)
            except Exception:
                _log.failure("a bus state listener failed")

    @staticmethod
    def _down_error(failure: Failure) -> Failure:
        if failure.check(txredisapi.ConnectionError):
            return Failure(BusDown())
        return failure

    @staticmethod
    def _logged(failure: Failure, what: str) -> None:
        _log.failure("cluster bus: {what} failed", failure=failure, what=what)

    # -- messages in ----------------------------------------------------------------

    def _received(self, channel: str, data: str) -> None:
        self.received += 1
        try:
            decoded = json.loads(data)
            kind, sender, body = decoded["k"], decoded["n"], decoded["b"]
            if not (isinstance(kind, str) and isinstance(sender, str) and isinstance(body, dict)):
                raise TypeError("kind, sender or body of the wrong type")
        except (ValueError, KeyError, TypeError) as e:
            _log.warn("cluster bus: dropped a malformed message on {channel}: {error}",
                      channel=channel, error=str(e))
            return
        if sender == self.node:
            return
        prefix = self.namespace + ":"
        message = BusMessage(kind, sender, body, channel[len(prefix):]
                             if channel.startswith(prefix) else channel)
        handlers = self._handlers.get(kind)
        if not handlers:
            _log.debug("cluster bus: no handler for {kind} from {sender}", kind=kind, sender=sender)
            return
        for handler in handlers:
            try:
                handler(message)
            except Exception:
                _log.failure("cluster bus: the handler of {kind} failed", kind=kind)

    def channels(self) -> Iterable[str]:
        """The channels this node receives (without the namespace)."""
        return tuple(self._channels)
