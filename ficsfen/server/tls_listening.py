"""TLS listening (``ssl:`` endpoints): a connection starts once its handshake is over.

Twisted's ``ssl:`` endpoint (pyOpenSSL, the ``tls`` extra) starts the
protocol above its TLS layer as soon as the TCP connection is made.  The
telnet side writes at once (its negotiation, the banner); until the
handshake is over, Twisted's TLS layer keeps those bytes and pauses the
protocol's producer, and the input governor
(:class:`ficsfen.server.governor.InputGovernor`), paused, stops reading the
socket: the handshake's own bytes are never read, and the connection hangs.
:class:`HandshakeGate` sits above the TLS layer and starts the protocol only
when Twisted says the handshake is complete
(:class:`twisted.internet.interfaces.IHandshakeListener`); a client that
does not finish it within ``timeout`` seconds is closed, and one whose
handshake fails is closed by Twisted, both with one log line (info,
namespace ``ficsfen.server.tls_listening.HandshakeGate``) and without
reaching the protocol.
"""

from __future__ import annotations

from typing import Any

from twisted.internet.interfaces import IHandshakeListener
from twisted.logger import Logger
from zope.interface import implementer

from ficsfen.server.addresses import peer_text
from ficsfen.server.opening_deadline import DeadlineEndpoint, DeadlineFactory, DeadlineWrapper
from ficsfen.server.proxied import PeerGate

__all__ = ["HandshakeGate", "HandshakeGatedEndpoint"]


@implementer(IHandshakeListener)
class HandshakeGate(DeadlineWrapper, PeerGate):
    """Above Twisted's TLS layer: starts its protocol when the handshake is complete."""

    log = Logger()
    factory: HandshakeGateFactory

    def write_later(self, data: bytes) -> None:
        """Through the TLS layer, as every write: the governor's ``write_later`` would
        otherwise reach, through the wrappers' attribute forwarding, a TCP connection's own
        (:meth:`ficsfen.server.listening.Connection.write_later`) under the encryption."""
        self.write(data)

    def handshakeCompleted(self) -> None:  # noqa: N802 - Twisted's name
        self._stop_timer()
        self.open()

    def _timed_out(self) -> None:
        self._timer = None
        self.log.info("closed {peer}: no TLS handshake within {seconds:g} s",
                      peer=peer_text(self.transport), seconds=self.factory.timeout)
        transport: Any = self.transport  # Twisted's TLS layer (an ITCPTransport)
        transport.abortConnection()

    def connectionLost(self, reason: Any = None) -> None:  # noqa: N802 - Twisted's name
        if self._timer is not None:  # before the handshake ended (not timed out)
            self.log.info("closed {peer} before the end of its TLS handshake: {reason}",
                          peer=peer_text(self.transport),
                          reason=reason.getErrorMessage() if reason is not None else "?")
        super().connectionLost(reason)  # the timer stopped, then PeerGate's


class HandshakeGateFactory(DeadlineFactory):
    """Builds a :class:`HandshakeGate` above each connection of Twisted's TLS layer."""

    protocol = HandshakeGate


class HandshakeGatedEndpoint(DeadlineEndpoint):
    """A TLS endpoint (``ssl:``) whose protocols start once their handshake is complete.

    ``clock`` (``callLater``) closes a connection whose handshake takes more
    than ``timeout`` seconds.
    """

    wrapper = HandshakeGateFactory
