"""Connections behind a proxy that speaks the PROXY protocol (``haproxy:`` endpoints).

A TCP proxy (HAProxy, nginx's ``stream``, a cloud load balancer) that
connects to the server on a client's behalf sends, before the client's
bytes, a header naming the client's address: the PROXY protocol, version 1
(a text line) or 2 (binary).  Twisted's ``haproxy:`` endpoint
(:func:`twisted.protocols.haproxy.proxyEndpoint`) reads it, and from then on
its transport's ``getPeer()`` is the client's address, not the proxy's.

But Twisted's wrapper starts the protocol above it as soon as the TCP
connection is made, before the header has arrived: everything a
connection does first (the per-address connection limit, the ``connection
from`` log line, the banner) would see the proxy's address.
:class:`ProxiedEndpoint` is Twisted's endpoint with a layer on each side of
its wrapper:

- under it, :class:`HeaderFraming` keeps the bytes until a whole header
  has arrived (version 1: a line ending in CR LF, 107 bytes at most;
  version 2: 16 bytes, then as many as they announce), hands the header to
  Twisted's wrapper in one piece (which parses it), then
- opens the :class:`PeerGate` above it: the protocol's ``makeConnection``
  (so its ``connectionMade``) runs only then, when ``getPeer()`` already
  gives the client's address.  Bytes after the header follow.

Every later reader of the address (logins, bans, throttling, ``finger``,
``logons``) asks the same transport, after the header: one address for a
connection, the client's.  A connection whose first bytes are no PROXY
header, whose header Twisted refuses, or that sends none within
``timeout`` seconds is closed without reaching the protocol (one log line,
info level, namespace ``ficsfen.server.proxied.HeaderFraming``).  A header
of command ``LOCAL`` or family ``UNKNOWN`` (a proxy's own health check)
names no client: the connection keeps the proxy's address.
"""

from __future__ import annotations

import ipaddress
from typing import Any

from twisted.internet.address import IPv4Address, IPv6Address
from twisted.internet.interfaces import IStreamServerEndpoint
from twisted.internet.protocol import Protocol
from twisted.logger import Logger
from twisted.protocols.haproxy import proxyEndpoint
from twisted.protocols.policies import ProtocolWrapper, WrappingFactory
from zope.interface import directlyProvides, implementer, providedBy

from ficsfen.server.addresses import peer_text
from ficsfen.server.opening_deadline import DeadlineEndpoint, DeadlineFactory, DeadlineWrapper

__all__ = ["HeaderFraming", "PeerGate", "ProxiedEndpoint", "ProxyHeaderError", "header_end"]

#: The first 12 bytes of a version 2 header.
V2_SIGNATURE = b"\r\n\r\n\x00\r\nQUIT\n"
#: The longest version 1 header, CR LF included (the protocol's bound).
V1_LONGEST = 107
#: The longest version 2 header taken: 16 bytes and addresses (36 for IPv6, 216 for
#: UNIX sockets) with room for the proxy's extensions (TLVs).
V2_LONGEST = 16 + 4096


class ProxyHeaderError(ValueError):
    """The first bytes of a connection are no PROXY protocol header (``str()`` says why)."""


def header_end(data: bytes) -> int | None:
    """Where the PROXY header at the start of ``data`` ends (the index of its first byte
    after it), or ``None`` while more bytes are needed to tell.

    Only the header's frame is read (its signature and length); its fields are
    Twisted's to parse.

    :raises ProxyHeaderError: ``data`` starts with neither version's signature,
        or the header is longer than either version allows.
    """
    n = min(len(data), len(V2_SIGNATURE))
    if data[:n] == V2_SIGNATURE[:n]:
        if len(data) < 16:
            return None
        end = 16 + int.from_bytes(data[14:16], "big")
        if end > V2_LONGEST:
            raise ProxyHeaderError(f"a version 2 header of {end} bytes (at most {V2_LONGEST} taken)")
        return end if len(data) >= end else None
    n = min(len(data), 6)
    if data[:n] != b"PROXY "[:n]:
        raise ProxyHeaderError("no PROXY protocol header")
    k = data.find(b"\r\n")
    if k < 0:
        if len(data) >= V1_LONGEST:
            raise ProxyHeaderError(f"a version 1 header longer than {V1_LONGEST} bytes")
        return None
    if k + 2 > V1_LONGEST:
        raise ProxyHeaderError(f"a version 1 header longer than {V1_LONGEST} bytes")
    return k + 2


class PeerGate(ProtocolWrapper):
    """Above Twisted's PROXY wrapper: starts its protocol once the header is read (:meth:`open`)."""

    opened = False

    def makeConnection(self, transport: Any) -> None:  # noqa: N802 - Twisted's name
        # ProtocolWrapper's, without starting the wrapped protocol: open() does.
        directlyProvides(self, providedBy(transport))
        Protocol.makeConnection(self, transport)
        self.factory.registerProtocol(self)

    def open(self) -> None:
        """The header is read: the protocol's connection is made (once; not once closing)."""
        if not self.opened and not self.disconnecting:
            self.opened = True
            myself: Any = self  # a transport by delegation (ProtocolWrapper), not by declaration
            self.wrappedProtocol.makeConnection(myself)

    def dataReceived(self, data: bytes) -> None:  # noqa: N802 - Twisted's name
        if self.opened:
            self.wrappedProtocol.dataReceived(data)

    def connectionLost(self, reason: Any = None) -> None:  # noqa: N802 - Twisted's name
        if self.opened:
            super().connectionLost(reason)
        else:  # the protocol never started: nothing to tell it
            self.factory.unregisterProtocol(self)


class HeaderFraming(DeadlineWrapper):
    """Under Twisted's PROXY wrapper: hands it the header whole, then opens the :class:`PeerGate`."""

    log = Logger()
    factory: HeaderFramingFactory
    _buffer = b""
    _state = "header"  # "header" (reading it), "open" (passing bytes on), "refused"

    @property
    def proxy(self) -> str:
        """``host:port`` of the proxy (the TCP peer)."""
        return peer_text(self.transport)

    def dataReceived(self, data: bytes) -> None:  # noqa: N802 - Twisted's name
        if self._state == "open":
            self.wrappedProtocol.dataReceived(data)
            return
        if self._state != "header":
            return
        buffer = self._buffer + data
        try:
            end = header_end(buffer)
        except ProxyHeaderError as e:
            self._refuse(str(e))
            return
        if end is None:
            self._buffer = buffer
            return
        self._buffer = b""
        self._stop_timer()
        try:
            self.wrappedProtocol.dataReceived(buffer[:end])  # Twisted's wrapper parses it
        except ValueError:  # a port that is no number (Twisted 26.10 lets it through)
            self._refuse("a PROXY header with a bad port")
            return
        if self.disconnecting:  # it refused the header and closed
            self._refuse("a PROXY header Twisted cannot parse", close=False)
            return
        gate = getattr(self.wrappedProtocol, "wrappedProtocol", None)
        if not isinstance(gate, PeerGate):  # pragma: no cover - ProxiedEndpoint builds the stack
            self._refuse("no protocol above the PROXY header")
            return
        client = gate.getPeer()
        if not _names_an_ip(client):
            self._refuse(f"a PROXY header naming no IP address ({getattr(client, 'host', client)!r})")
            return
        self._state = "open"
        gate.open()
        rest = buffer[end:]
        if rest and not self.disconnecting:
            self.wrappedProtocol.dataReceived(rest)

    def _refuse(self, reason: str, *, close: bool = True) -> None:
        self._state = "refused"
        self._buffer = b""
        self._stop_timer()
        self.log.info("closed {proxy}: {reason}", proxy=self.proxy, reason=reason)
        if close:
            self.loseConnection()

    def _timed_out(self) -> None:
        self._timer = None
        self._refuse(f"no PROXY header within {self.factory.timeout:g} s")


def _names_an_ip(address: Any) -> bool:
    """Whether ``address`` (a header's client, or the proxy's for LOCAL and UNKNOWN) is
    an IP address of its family: Twisted takes a version 1 header's words as they are."""
    if isinstance(address, IPv4Address | IPv6Address):
        try:
            ip = ipaddress.ip_address(address.host)
        except ValueError:
            return False
        return ip.version == (4 if isinstance(address, IPv4Address) else 6)
    return True  # a UNIX socket's peer (the proxy on the same machine)


class HeaderFramingFactory(DeadlineFactory):
    """Builds a :class:`HeaderFraming` under each connection of Twisted's PROXY wrapper."""

    protocol = HeaderFraming


class PeerGateFactory(WrappingFactory):
    """Builds a :class:`PeerGate` above each connection of Twisted's PROXY wrapper."""

    protocol = PeerGate
    noisy = False


class _FramedEndpoint(DeadlineEndpoint):
    """``inner`` with a :class:`HeaderFraming` under each connection."""

    wrapper = HeaderFramingFactory


@implementer(IStreamServerEndpoint)
class ProxiedEndpoint:
    """A listening endpoint whose connections start with a PROXY header (see the module).

    ``inner`` is the endpoint the proxy connects to (e.g. ``tcp:5000``);
    ``clock`` (``callLater``) times the header out after ``timeout`` seconds.
    ``listen(factory)``: the factory's protocols start once the header is
    read, with the client's address as their transport's peer.
    """

    def __init__(self, inner: Any, *, clock: Any, timeout: float) -> None:
        self._endpoint = proxyEndpoint(_FramedEndpoint(inner, clock=clock, timeout=timeout))

    def listen(self, factory: Any) -> Any:
        return self._endpoint.listen(PeerGateFactory(factory))
