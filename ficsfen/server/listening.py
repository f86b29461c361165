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
"""

from __future__ import annotations

from typing import Any

from twisted.internet import tcp
from twisted.internet.interfaces import IReactorTCP
from zope.interface import implementer

__all__ = ["AcceptLimitedPort", "AcceptLimitedReactor"]


class AcceptLimitedPort(tcp.Port):
    """A listening TCP port accepting at most :attr:`accepts_per_turn` connections a turn."""

    accepts_per_turn = 16
    _accepts = 100  # what Twisted's own scaling asks for (tcp.Port.doRead)

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
