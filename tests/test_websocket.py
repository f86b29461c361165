"""The WebSocket door (ficsfen.server.websocket) over StringTransport, on a fake clock:
the upgrade, the origin check, the login and commands over text messages, the frame
limits, a non-reader's output cap."""

from __future__ import annotations

import re
import struct
from typing import Any

import pytest
from twisted.internet.address import IPv4Address
from twisted.internet.testing import StringTransport
from wsproto import ConnectionType, WSConnection
from wsproto.events import AcceptConnection, CloseConnection, RejectConnection, RejectData, Request, TextMessage

from ficsfen.server.testing import connect, make_server
from ficsfen.server.web import origin_allowed
from ficsfen.server.websocket import WebFactory
from ficsfen.server.wsframes import FrameWatch, close_frame

GUEST = re.compile(r'Logging you in as "(Guest[A-Z]{4})"')


class WsClient:
    """A WebSocket client (wsproto) on a StringTransport to a WebFactory's connection."""

    _n = 0

    def __init__(self, server: Any, *, origin: str | None = None, host: str = "localhost:8080") -> None:
        WsClient._n += 1
        self.server = server
        addr = IPv4Address("TCP", f"10.9.0.{WsClient._n % 250 + 1}", 40000 + WsClient._n)
        self.transport = StringTransport(peerAddress=addr)
        self.factory = WebFactory(server)
        self.factory.doStart()
        self.protocol = self.factory.buildProtocol(addr)
        self.protocol.makeConnection(self.transport)
        self.ws = WSConnection(ConnectionType.CLIENT)
        headers = [(b"origin", origin.encode())] if origin is not None else []
        self.events: list[Any] = []
        self.send_bytes(self.ws.send(Request(host=host, target="/ws", extra_headers=headers)))
        self.read()

    def send_bytes(self, data: bytes) -> None:
        self.protocol.dataReceived(data)
        clock = self.server.clock
        while self.protocol.input_waiting:
            clock.advance(0)

    def send(self, text: str) -> None:
        self.send_bytes(self.ws.send(TextMessage(text)))

    def read(self) -> str:
        """Text received since the last read; other events kept in :attr:`events`."""
        data = self.transport.value()
        self.transport.clear()
        self.ws.receive_data(data)
        text = []
        for event in self.ws.events():
            if isinstance(event, TextMessage):
                text.append(event.data)
            else:
                self.events.append(event)
        return "".join(text).replace("\r\n", "\n")

    def command(self, line: str) -> str:
        self.read()
        self.send(line)
        return self.read()

    def login(self) -> str:
        self.send("guest")
        m = GUEST.search(self.read())
        assert m is not None
        self.send("")
        self.read()
        return m.group(1)


def test_guest_login_and_commands_over_text_messages():
    server = make_server()
    client = WsClient(server)
    assert any(isinstance(e, AcceptConnection) for e in client.events)
    handle = client.login()
    assert server.sessions.get(handle) is not None
    out = client.command("examine")
    assert "Starting a game in examine (scratch) mode." in out
    client.command("forward")
    out = client.command("e4")
    telnet = connect(server)
    telnet.login()
    telnet.command(f"observe {handle}")
    telnet_fen = telnet.command("fen 1")
    ws_fen = client.command("fen")
    fen = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1"
    assert fen in telnet_fen.splitlines() and telnet_fen == ws_fen[:-len("fics% ")]
    assert out.endswith("fics% ")


def test_several_lines_in_one_message_and_talk_to_telnet():
    server = make_server()
    client = WsClient(server)
    handle = client.login()
    telnet = connect(server)
    other = telnet.login()
    client.send(f"tell {other} hello from the web\nfinger")
    out = client.read()
    assert "(told " in out and "Finger of" in out
    assert f"{handle}(U) tells you: hello from the web" in telnet.output()
    telnet.send(f"tell {handle} hi back")
    assert f"{other}(U) tells you: hi back" in client.read()


def test_block_mode_codes_as_over_telnet():
    server = make_server()
    client = WsClient(server)
    client.login()
    client.command("iset block 1")
    out = client.command("5 fen")
    assert out.startswith("\x155\x16")  # BLOCK_START id BLOCK_SEPARATOR ...


def test_foreign_origin_refused_own_and_configured_accepted():
    server = make_server()
    client = WsClient(server, origin="http://evil.example")
    rejected = [e for e in client.events if isinstance(e, RejectConnection)]
    assert rejected and rejected[0].status_code == 403
    body = b"".join(e.data for e in client.events if isinstance(e, RejectData))
    assert b"does not accept WebSocket connections from http://evil.example" in body
    assert server.connections == 0
    own = WsClient(server, origin="http://localhost:8080")
    assert any(isinstance(e, AcceptConnection) for e in own.events)
    assert origin_allowed("https://chess.example.org", "127.0.0.1:8080", ("https://chess.example.org",))
    assert not origin_allowed("http://chess.example.org", "chess.example.org", ("https://chess.example.org",))
    assert origin_allowed("https://localhost", "localhost:443", ())
    assert origin_allowed(None, None, ())


def _frame(opcode: int, payload: bytes, *, fin: bool = True) -> bytes:
    """A masked client frame (mask zero: the payload as it is)."""
    head = bytes([(0x80 if fin else 0) | opcode])
    n = len(payload)
    if n < 126:
        head += bytes([0x80 | n])
    elif n < 65536:
        head += bytes([0x80 | 126]) + struct.pack("!H", n)
    else:
        head += bytes([0x80 | 127]) + struct.pack("!Q", n)
    return head + b"\0\0\0\0" + payload


def _close_of(client: WsClient) -> CloseConnection:
    client.read()
    closes = [e for e in client.events if isinstance(e, CloseConnection)]
    assert closes, client.events
    return closes[0]


def test_oversized_message_closed_with_a_reason():
    server = make_server()
    client = WsClient(server)
    client.login()
    # the header alone says it: the payload never has to arrive
    client.send_bytes(_frame(1, b"x" * 2000)[:8])
    close = _close_of(client)
    assert close.code == 1009 and close.reason == "Message longer than 1024 bytes."
    assert client.transport.disconnecting


def test_fragments_summed_and_binary_refused():
    server = make_server()
    client = WsClient(server)
    client.login()
    client.send_bytes(_frame(1, b"f", fin=False) + _frame(0, b"en", fin=True))
    assert "<fen>" not in client.read()  # the text "fen": answered (not examining)
    binary = WsClient(server)
    binary.send_bytes(_frame(2, b"fen\n"))
    close = _close_of(binary)
    assert close.code == 1003 and "text" in close.reason


def test_frame_watch_counts_messages_across_reads():
    watch = FrameWatch(10)
    data = _frame(1, b"12345", fin=False) + _frame(0, b"123456")
    assert watch.scan(data[:3]) == 3 and watch.scan(data[3:11]) == 8
    assert watch.scan(data[11:]) == len(data) - 11 - len(_frame(0, b"123456"))
    assert watch.refused == "too big"
    assert close_frame(1000, "é" * 100)[1] <= 125


def test_non_reader_closed_after_output_cap_others_unaffected():
    server = make_server(output_buffer=4096)
    client = WsClient(server)
    client.login()
    other = WsClient(server)
    other_handle = other.login()
    client.protocol.pauseProducing()  # Twisted: the socket's buffer is full
    for _ in range(40):
        client.protocol.wrappedProtocol.session.write_text("x" * 200 + "\n")
    assert client.transport.disconnected  # aborted: Twisted's StringTransport says so
    assert server.sessions.get(other_handle) is not None
    assert "fics% " in other.command("finger")
    assert not other.transport.disconnecting


@pytest.mark.parametrize("path", [b"/index.html", b"/ws/x", b"/static/", b"/game/x"])
def test_other_paths_are_404(path):
    server = make_server()
    factory = WebFactory(server)
    factory.doStart()
    transport = StringTransport(peerAddress=IPv4Address("TCP", "10.9.9.9", 1))
    protocol = factory.buildProtocol(None)
    protocol.makeConnection(transport)
    protocol.dataReceived(b"GET " + path + b" HTTP/1.1\r\nHost: localhost\r\n\r\n")
    while protocol.input_waiting:
        server.clock.advance(0)
    assert transport.value().startswith(b"HTTP/1.1 404 ")
