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
of their own.
"""

from __future__ import annotations

from typing import Any

from twisted.internet import tcp
from twisted.internet.interfaces import IReactorTCP
from twisted.python import reflect
from zope.interface import implementer

__all__ = ["AcceptLimitedPort", "AcceptLimitedReactor", "Connection"]


class Connection(tcp.Server):
    """A TCP connection of an :class:`AcceptLimitedPort`: Twisted's, without two strings of its own.

    Why: Twisted's ``Server`` keeps, for every connection, a log prefix
    (``"FicsTelnetTransport,1234,127.0.0.1"``) and a repr, two strings of
    about 90 bytes each in CPython's small-object arenas; an attack's 2,000
    connections made 0.4 MB of them (docs/benchmarks/memory.md).  Here
    the log prefix, which Twisted reads at every read and write, is the
    port's (``"ficsfen.server.telnet.FicsFactory,5000"``), and the repr is
    made when asked.  Twisted's ``__init__`` still makes both; they are
    not kept.
    """

    @property  # type: ignore[override]
    def logstr(self) -> str:
        return self.server.connections_logstr

    @logstr.setter
    def logstr(self, made: str) -> None:
        pass

    @property  # type: ignore[override]
    def repstr(self) -> str:
        return f"<{type(self).__name__} #{self.sessionno} on {self.server._realPortNumber}>"

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
        self.connections_logstr = f"{reflect.qual(type(self.factory))},{self._realPortNumber}"

    @property  # type: ignore[override]
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
