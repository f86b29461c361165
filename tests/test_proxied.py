"""The PROXY protocol layers (ficsfen.server.proxied) around Twisted's ``haproxy`` wrapper:
the protocol above starts once the header has been read, with the client's address."""

from __future__ import annotations

import ipaddress
import socket
import struct

import pytest
from twisted.internet.address import IPv4Address, IPv6Address
from twisted.internet.protocol import Factory, Protocol
from twisted.internet.task import Clock
from twisted.internet.testing import StringTransport
from twisted.python.failure import Failure
from twisted.internet.error import ConnectionDone

from ficsfen.server.proxied import ProxiedEndpoint, ProxyHeaderError, header_end

PROXY_HOST = IPv4Address("TCP", "127.0.0.1", 40000)
V1 = b"PROXY TCP4 203.0.113.7 127.0.0.1 5555 5000\r\n"
V2_SIGNATURE = b"\r\n\r\n\x00\r\nQUIT\n"


def v2_header(source: str, port: int, *, command: int = 1, extra: bytes = b"") -> bytes:
    """A PROXY version 2 header from ``source``:``port`` (command 1: PROXY, 0: LOCAL)."""
    ip = ipaddress.ip_address(source)
    if ip.version == 4:
        family, body = 0x11, socket.inet_aton(source) + socket.inet_aton("127.0.0.1") + struct.pack(
            "!HH", port, 5000)
    else:
        family, body = 0x21, ip.packed + ipaddress.ip_address("::1").packed + struct.pack(
            "!HH", port, 5000)
    body += extra
    return V2_SIGNATURE + bytes([0x20 | command, family]) + struct.pack("!H", len(body)) + body


class Recorder(Protocol):
    """The protocol above: what it saw, and when."""

    def __init__(self) -> None:
        self.peer_at_start = None
        self.data = b""
        self.lost = False

    def connectionMade(self) -> None:  # noqa: N802
        self.peer_at_start = self.transport.getPeer()

    def dataReceived(self, data: bytes) -> None:  # noqa: N802
        self.data += data

    def connectionLost(self, reason=None) -> None:  # noqa: N802
        self.lost = True


class Listening:
    """A ProxiedEndpoint on a fake inner endpoint; :meth:`connect` makes one connection."""

    def __init__(self, timeout: float = 10.0) -> None:
        self.clock = Clock()
        self.made: list[Recorder] = []
        outer = self

        class Inner:
            def listen(self, factory):
                outer.factory = factory
                return None

        top = Factory.forProtocol(Recorder)
        built = top.buildProtocol

        def build(addr):
            protocol = built(addr)
            self.made.append(protocol)
            return protocol

        top.buildProtocol = build
        ProxiedEndpoint(Inner(), clock=self.clock, timeout=timeout).listen(top)

    def connect(self):
        protocol = self.factory.buildProtocol(PROXY_HOST)
        transport = StringTransport(peerAddress=PROXY_HOST)
        protocol.makeConnection(transport)
        return protocol, transport, self.made[-1]


def test_the_protocol_starts_after_the_header_with_the_client_address() -> None:
    proxied = Listening()
    bottom, transport, top = proxied.connect()
    assert top.peer_at_start is None  # nothing before the header
    bottom.dataReceived(V1[:10])
    assert top.peer_at_start is None
    bottom.dataReceived(V1[10:] + b"guest\r\n")
    assert top.peer_at_start == IPv4Address("TCP", "203.0.113.7", 5555)
    assert top.transport.getPeer() == IPv4Address("TCP", "203.0.113.7", 5555)
    assert top.data == b"guest\r\n"
    bottom.dataReceived(b"more")
    assert top.data == b"guest\r\nmore"
    top.transport.write(b"hello")
    assert transport.value() == b"hello"
    assert proxied.clock.getDelayedCalls() == []  # the header's timer is gone


def test_a_header_sent_a_byte_at_a_time_is_read_whole() -> None:
    bottom, transport, top = Listening().connect()
    for i in range(len(V1)):
        assert top.peer_at_start is None
        bottom.dataReceived(V1[i:i + 1])
    assert top.peer_at_start.host == "203.0.113.7"
    assert not transport.disconnecting


@pytest.mark.parametrize("source, address", [
    ("203.0.113.7", IPv4Address("TCP", "203.0.113.7", 6000)),
    ("2001:db8::7", IPv6Address("TCP", "2001:db8:0:0:0:0:0:7", 6000)),  # as Twisted spells it
])
def test_version_2_headers_name_the_client(source, address) -> None:
    bottom, transport, top = Listening().connect()
    header = v2_header(source, 6000, extra=b"\x04\x00\x01x")  # an extension (TLV) the proxy added
    bottom.dataReceived(header[:14])
    bottom.dataReceived(header[14:20])
    assert top.peer_at_start is None
    bottom.dataReceived(header[20:] + b"fen\r\n")
    assert top.peer_at_start == address
    assert top.data == b"fen\r\n"


def test_a_local_header_keeps_the_proxy_address() -> None:
    bottom, transport, top = Listening().connect()
    bottom.dataReceived(v2_header("203.0.113.7", 6000, command=0))
    assert top.peer_at_start == PROXY_HOST


@pytest.mark.parametrize("first", [b"guest\r\n", b"\xff\xfd\x03", b"PROXZ"])
def test_no_header_closes_before_the_protocol_starts(first) -> None:
    proxied = Listening()
    bottom, transport, top = proxied.connect()
    bottom.dataReceived(first)
    assert transport.disconnecting
    bottom.dataReceived(V1)  # too late
    bottom.connectionLost(Failure(ConnectionDone()))
    assert top.peer_at_start is None and top.data == b"" and not top.lost
    assert proxied.clock.getDelayedCalls() == []


@pytest.mark.parametrize("header", [
    b"PROXY TCP5 203.0.113.7 127.0.0.1 1 2\r\n",  # Twisted refuses it
    b"PROXY TCP4 not-an-address 127.0.0.1 1 2\r\n",  # Twisted takes it; no address to count
    b"PROXY TCP4 2001:db8::7 127.0.0.1 1 2\r\n",  # the wrong family
    b"PROXY TCP4 203.0.113.7 127.0.0.1 port 2\r\n",  # Twisted raises ValueError
])
def test_a_bad_header_closes_before_the_protocol_starts(header) -> None:
    bottom, transport, top = Listening().connect()
    bottom.dataReceived(header + b"guest\r\n")
    assert transport.disconnecting
    bottom.connectionLost(Failure(ConnectionDone()))
    assert top.peer_at_start is None and top.data == b"" and not top.lost


def test_a_silent_connection_is_closed_after_the_timeout() -> None:
    proxied = Listening(timeout=30)
    bottom, transport, top = proxied.connect()
    bottom.dataReceived(V1[:20])
    proxied.clock.advance(29)
    assert not transport.disconnecting
    proxied.clock.advance(1)
    assert transport.disconnecting
    assert top.peer_at_start is None


def test_a_closed_connection_tells_a_started_protocol() -> None:
    bottom, transport, top = Listening().connect()
    bottom.dataReceived(V1)
    bottom.connectionLost(Failure(ConnectionDone()))
    assert top.lost


def test_header_end() -> None:
    assert header_end(V1) == len(V1)
    assert header_end(V1 + b"rest") == len(V1)
    assert header_end(V1[:-1]) is None
    assert header_end(b"PRO") is None
    assert header_end(b"\r\n\r\n") is None
    header = v2_header("203.0.113.7", 1)
    assert header_end(header + b"x") == len(header)
    assert header_end(header[:-1]) is None
    for bad in (b"GET / HTTP/1.1\r\n", b"PROXY" + b" " * 110, b"PROXY " + b"1" * 120 + b"\r\n",
                V2_SIGNATURE + b"\x21\x11\xff\xff"):
        with pytest.raises(ProxyHeaderError):
            header_end(bad)


def test_the_client_address_is_written_one_way() -> None:
    from ficsfen.server.addresses import peer_host, peer_text

    bottom, transport, top = Listening().connect()
    bottom.dataReceived(v2_header("2001:db8::7", 6000))
    assert peer_host(top.transport) == "2001:db8::7"
    assert peer_text(top.transport) == "2001:db8::7:6000"
    mapped = StringTransport(peerAddress=IPv6Address("TCP", "::ffff:192.0.2.7", 1))
    assert peer_host(mapped) == "192.0.2.7"
    assert peer_host(object()) == "?" and peer_text(object()) == "?"


def test_socket_options_reach_the_tcp_connection_under_the_wrappers() -> None:
    """``[limits] send_buffer`` is the TCP connection's high-water mark and SO_SNDBUF, also
    under the PROXY protocol's layers (a wrapper's own attribute would bound nothing)."""
    from types import SimpleNamespace

    from twisted.internet import tcp
    from twisted.internet.testing import MemoryReactor

    from ficsfen.server.sockets import tune

    class Port:  # what Twisted's tcp.Server reads of its listening port
        _realPortNumber = 5000

    listener = socket.create_server(("127.0.0.1", 0))
    client = socket.create_connection(listener.getsockname())
    accepted, _ = listener.accept()
    try:
        proxied = Listening()
        bottom = proxied.factory.buildProtocol(PROXY_HOST)
        connection = tcp.Server(accepted, bottom, ("127.0.0.1", 40000), Port(), 1, MemoryReactor())
        bottom.makeConnection(connection)
        bottom.dataReceived(V1)
        top = proxied.made[-1]
        tune(top.transport, SimpleNamespace(keepalive_idle=0, send_buffer=16384), "test")
        assert connection.bufferSize == 16384
        assert accepted.getsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF) >= 16384  # Linux doubles it
        assert accepted.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) == 1
    finally:
        for sock in (client, accepted, listener):
            sock.close()
