"""Listening TCP ports that accept a bounded number of connections per reactor turn.

Twisted's :class:`twisted.internet.tcp.Port` accepts up to 100 connections
each time its socket is readable, 20 more every time it used them all; each
one costs its protocol's ``connectionMade`` (a banner, socket options, a log
line).  When a couple of thousand clients connect at once, one reactor turn
then sets up hundreds of connections, and every established player's answer
waits for the end of that turn.  :class:`AcceptLimitedPort` accepts at most
``[limits] accepts_per_turn`` per turn: the kernel's listen backlog
(``listen_backlog``) holds the rest until the next turn, a few milliseconds
later.  :class:`AcceptLimitedReactor` is the reactor as ``tcp:`` and
``tcp6:`` endpoints see it, so that the ports they open are of that kind.
Their connections are :class:`Connection`: Twisted's, without two strings
of their own, and writing to the socket at once when nothing is queued.
"""

from __future__ import annotations

from typing import Any, Iterable

from twisted.internet import tcp
from twisted.internet.interfaces import IReactorTCP
from twisted.python import reflect
from zope.interface import implementer

__all__ = ["AcceptLimitedPort", "AcceptLimitedReactor", "Connection"]


class Connection(tcp.Server):
    """A TCP connection of an :class:`AcceptLimitedPort`: Twisted's ``tcp.Server``, with two changes.

    Writes go to the socket at once when nothing is queued (:meth:`write`).

    No log prefix or repr string of its own.  Why: Twisted's ``Server``
    keeps, for every connection, a log prefix (``"InputGovernor,1234,127.0.0.1"``)
    and a repr, two strings of about 90 bytes each in CPython's
    small-object arenas; an attack's 2,000 connections made 0.4 MB of them
    (docs/benchmarks/memory.md).  Here the log prefix, which Twisted reads
    at every read and write, is the port's (``"ficsfen.server.telnet.FicsFactory,5000"``),
    and the repr is made when asked.  Twisted's ``__init__`` still makes
    both; they are not kept.
    """

    #: Bytes handed to Twisted's buffer (``FileDescriptor.write``) and not yet
    #: reported sent by :meth:`writeSomeData`.
    queued = 0
    server: AcceptLimitedPort  # the port that accepted it (Twisted's tcp.Port in general)
    _write_closed = False  # loseWriteConnection or abortConnection was called

    def write(self, data: bytes) -> None:
        """Send ``data``: at once when nothing is queued, else after what is, through Twisted.

        Why: a move watched by a thousand observers is a thousand small
        writes.  Through Twisted's buffer each one costs two ``epoll_ctl``
        calls and a trip through the reactor's write loop: the plain Twisted
        floor of ``bench/observers.py`` (``bench/fanout_floor.py``) spends
        about twice our CPU per move that way.  When the buffer is empty (the
        usual case) a non-blocking ``send`` gives the same bytes in the same
        order.  This class knows its buffer is empty from its own count
        (:attr:`queued`: what went to ``FileDescriptor.write`` less what
        :meth:`writeSomeData`, through which Twisted sends everything,
        reported sent).  Every doubt means "through Twisted": anything
        queued, not connected, closing or half-closed, TLS started (the
        bytes must be encrypted), a pull producer registered, a socket error
        (``EAGAIN``, a reset peer), which Twisted then reports.  A partial
        send hands the rest to Twisted, ahead of anything written later.
        """
        if not (self.queued or self.TLS or self.disconnecting or self._write_closed
                or not self.connected
                or (self.producer is not None and not self.streamingProducer)):
            try:
                sent = self.socket.send(data)
            except OSError:
                sent = 0
            if sent == len(data):
                return
            data = data[sent:]
        if not self.TLS:
            self.queued += len(data)
        super().write(data)

    def write_later(self, data: bytes) -> None:
        """Send ``data`` through Twisted's buffer, with whatever else is written before
        the reactor's next write pass: for bytes nobody waits for at once (telnet
        negotiation answers), which a flood of negotiations would otherwise turn into a
        ``send`` each.  Later writes queue behind them."""
        if not self.TLS:
            self.queued += len(data)
        super().write(data)

    def writeSequence(self, iovec: Iterable[bytes]) -> None:  # noqa: N802 - Twisted's name
        self.write(b"".join(iovec))

    def writeSomeData(self, data: bytes) -> Any:  # noqa: N802 - Twisted's name
        """Twisted's, counting what left the buffer (see :meth:`write`)."""
        sent = super().writeSomeData(data)
        if isinstance(sent, int):
            self.queued -= sent
        return sent

    def loseWriteConnection(self) -> None:  # noqa: N802 - Twisted's name
        self._write_closed = True
        super().loseWriteConnection()

    def abortConnection(self) -> None:  # noqa: N802 - Twisted's name
        self._write_closed = True
        super().abortConnection()

    @property
    def logstr(self) -> str:
        return self.server.connections_logstr

    @logstr.setter
    def logstr(self, made: str) -> None:
        pass

    @property
    def repstr(self) -> str:
        return f"<{type(self).__name__} #{self.sessionno} on {self.server.getHost().port}>"

    @repstr.setter
    def repstr(self, made: str) -> None:
        pass


class AcceptLimitedPort(tcp.Port):
    """A listening TCP port accepting at most :attr:`accepts_per_turn` connections a turn."""

    transport = Connection
    accepts_per_turn = 16
    _accepts = 100  # what Twisted's own scaling asks for (tcp.Port.doRead)
    #: Every connection's log prefix (Connection.logstr): set once listening.
    connections_logstr = "ficsfen"

    def startListening(self) -> None:
        super().startListening()
        self.connections_logstr = f"{reflect.qual(type(self.factory))},{self.getHost().port}"

    @property
    def numberAccepts(self) -> int:
        """How many connections the next turn accepts (Twisted's name, read by ``doRead``)."""
        return min(self._accepts, self.accepts_per_turn)

    @numberAccepts.setter
    def numberAccepts(self, wanted: int) -> None:
        self._accepts = wanted


@implementer(IReactorTCP)
class AcceptLimitedReactor:
    """``reactor`` for TCP endpoints: :meth:`listenTCP` opens an :class:`AcceptLimitedPort`."""

    def __init__(self, reactor: Any, accepts_per_turn: int) -> None:
        self.reactor = reactor
        self.accepts_per_turn = accepts_per_turn

    def listenTCP(self, port: int, factory: Any, backlog: int = 50,  # noqa: N802 - Twisted's name
                  interface: str = "") -> AcceptLimitedPort:
        listening = AcceptLimitedPort(port, factory, backlog, interface, self.reactor)
        listening.accepts_per_turn = self.accepts_per_turn
        listening.startListening()
        return listening

    def connectTCP(self, host: str, port: int, factory: Any, timeout: float = 30,  # noqa: N802
                   bindAddress: Any = None) -> Any:  # noqa: N803 - Twisted's name
        return self.reactor.connectTCP(host, port, factory, timeout, bindAddress)
