"""The server's own text frames (ficsfen.server.wsframes.text_frame), the fast path of
a board broadcast to WebSocket observers: the bytes wsproto would send, no extension
ever negotiated, closing connections skipped."""

from __future__ import annotations

from typing import Any

import pytest
from test_websocket import WsClient
from twisted.internet.address import IPv4Address
from twisted.internet.testing import StringTransport
from wsproto import ConnectionType, WSConnection
from wsproto.connection import Connection
from wsproto.events import AcceptConnection, CloseConnection, Request, TextMessage
from wsproto.extensions import PerMessageDeflate

from ficsfen.server.testing import connect, make_server
from ficsfen.server.websocket import WebConnection, WebFactory
from ficsfen.server.wsframes import text_frame, utf8_payload


@pytest.mark.parametrize("size", [0, 1, 125, 126, 127, 65535, 65536, 70000])
def test_text_frame_is_wsprotos_frame_and_reads_back(size):
    text = ("é" * size)[: size // 2] + "x" * (size - 2 * (size // 2))  # UTF-8: size bytes
    payload = text.encode("utf-8")
    assert len(payload) == size
    frame = text_frame(payload)
    assert frame == Connection(ConnectionType.SERVER).send(TextMessage(text))
    client = Connection(ConnectionType.CLIENT)
    client.receive_data(frame)
    events = list(client.events())
    assert "".join(e.data for e in events) == text and events[-1].message_finished


def test_utf8_payload_keeps_valid_bytes_and_replaces_bad_ones():
    good = "Kasparov – Deep Blue\r\nfics% ".encode()
    assert utf8_payload(good) is good
    assert utf8_payload(b"a\xffb\xc3") == "a\ufffdb\ufffd".encode("utf-8")


class DeflateClient(WsClient):
    """A WebSocket client whose upgrade request offers permessage-deflate, as browsers' do."""

    def __init__(self, server: Any) -> None:
        self.server = server
        self.transport = StringTransport(peerAddress=IPv4Address("TCP", "10.9.1.1", 41000))
        self.factory = WebFactory(server)
        self.factory.doStart()
        self.protocol = self.factory.buildProtocol(None)
        self.protocol.makeConnection(self.transport)
        self.ws = WSConnection(ConnectionType.CLIENT)
        self.events: list[Any] = []
        self.send_bytes(self.ws.send(Request(host="localhost:8080", target="/ws",
                                             extensions=[PerMessageDeflate()])))
        self.read()


def test_a_client_offering_compression_gets_none():
    """The frames are built once for all recipients: valid only with no extension."""
    server = make_server()
    client = DeflateClient(server)
    accepted = [e for e in client.events if isinstance(e, AcceptConnection)]
    assert accepted and accepted[0].extensions == []
    client.login()
    assert "fics% " in client.command("date")


def test_board_reaches_web_observers_once_a_closing_one_is_skipped():
    server = make_server()
    player = connect(server)
    handle = player.login()
    player.command("examine")
    watchers = [WsClient(server) for _ in range(3)]
    for w in watchers:
        w.login()
        w.command("style 12")
        assert "You are now observing game" in w.command(f"observe {handle}")
    leaving = watchers[0]
    leaving.send_bytes(leaving.ws.send(CloseConnection(code=1000)))
    leaving.read()
    assert any(isinstance(e, CloseConnection) for e in leaving.events)  # the server's answer
    connection = leaving.protocol.wrappedProtocol
    assert isinstance(connection, WebConnection) and connection.closed
    player.command("forward")
    player.command("e4")
    for w in watchers[1:]:
        out = w.read()
        assert out.count("<12> ") == 1 and " P/e2-e4 " in out
    assert leaving.transport.value() == b""  # nothing after its Close
