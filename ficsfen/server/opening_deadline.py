"""A connection's opening given a deadline: the parts shared by the wrappers that enforce it.

Two layers hold a connection back until it has opened: the PROXY header's
(:class:`ficsfen.server.proxied.HeaderFraming`) and the TLS handshake's
(:class:`ficsfen.server.tls_listening.HandshakeGate`).  Each is a
:class:`DeadlineWrapper`: its factory (a :class:`DeadlineFactory`) gives it a
``clock`` and a ``timeout``, and a connection that has not opened within
``timeout`` seconds is handed to the wrapper's ``_timed_out``.  A
:class:`DeadlineEndpoint` wraps an endpoint's factories in one.
"""

from __future__ import annotations

from typing import Any

from twisted.internet.interfaces import IStreamServerEndpoint
from twisted.protocols.policies import ProtocolWrapper, WrappingFactory
from zope.interface import implementer

__all__ = ["DeadlineEndpoint", "DeadlineFactory", "DeadlineWrapper"]


class DeadlineWrapper(ProtocolWrapper):
    """A wrapper whose connection must open within its factory's ``timeout``: the timer
    starts with the connection; :meth:`_stop_timer` once it has opened."""

    factory: DeadlineFactory
    _timer: Any = None

    def makeConnection(self, transport: Any) -> None:  # noqa: N802 - Twisted's name
        super().makeConnection(transport)
        factory = self.factory
        self._timer = factory.clock.callLater(factory.timeout, self._timed_out)

    def _timed_out(self) -> None:
        """The deadline has passed (the timer is spent): the subclass closes the connection."""
        raise NotImplementedError

    def _stop_timer(self) -> None:
        timer, self._timer = self._timer, None
        if timer is not None and timer.active():
            timer.cancel()

    def connectionLost(self, reason: Any = None) -> None:  # noqa: N802 - Twisted's name
        self._stop_timer()
        super().connectionLost(reason)


class DeadlineFactory(WrappingFactory):
    """Builds its ``protocol`` (a :class:`DeadlineWrapper`) above each connection;
    ``clock`` (``callLater``) times their opening out after ``timeout`` seconds."""

    noisy = False  # no "Starting factory" line: the port's is enough

    def __init__(self, wrapped: Any, *, clock: Any, timeout: float) -> None:
        super().__init__(wrapped)
        self.clock = clock
        self.timeout = timeout


@implementer(IStreamServerEndpoint)
class DeadlineEndpoint:
    """``inner`` with its ``wrapper`` (a :class:`DeadlineFactory`) around every factory
    it listens with."""

    wrapper: type[DeadlineFactory]

    def __init__(self, inner: Any, *, clock: Any, timeout: float) -> None:
        self.inner, self.clock, self.timeout = inner, clock, timeout

    def listen(self, factory: Any) -> Any:
        return self.inner.listen(self.wrapper(factory, clock=self.clock, timeout=self.timeout))
