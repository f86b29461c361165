"""Boards for many observers: formatted once per distinct view, written straight to the socket."""

from __future__ import annotations

import socket

from twisted.internet.task import Clock

from ficsfen.server.boards import fen_from_style12
from ficsfen.server.telnet import _send_now
from ficsfen.server.testing import connect, make_server


def test_a_move_is_formatted_once_per_style_language_and_showfen_not_per_observer():
    server = make_server(clock=Clock())
    alice, bob = connect(server), connect(server)
    alice.login("alice")
    bob.login("bob")
    alice.command("match bob 0 0 white")
    bob.command("accept")
    settings = [("12", "en", "1"), ("12", "fr", "1"), ("1", "en", "0"), ("1", "fr", "1")]
    watchers = []
    for i in range(40):
        style, lang, showfen = settings[i % len(settings)]
        c = connect(server)
        c.login()
        for line in (f"style {style}", f"set lang {lang}", f"set showfen {showfen}", "observe alice"):
            c.command(line)
        watchers.append((c, settings[i % len(settings)]))
    calls = []
    original = server.broadcaster.board_text

    def counting(session, game, **kw):
        calls.append((session.style, session.lang, session.showfen))
        return original(session, game, **kw)

    server.broadcaster.board_text = counting
    alice.command("e4")
    # alice (caller) and bob, then three distinct observer views: style 12 ignores the
    # language when there is no note, style 1 does not.
    assert len(calls) == 2 + 3
    fen = server.directory.game_of("alice").tracker.fen
    for c, (style, lang, showfen) in watchers:
        lines = c.output().splitlines()
        if style == "12":
            board = next(line for line in lines if line.startswith("<12> "))
            assert fen_from_style12(board) == fen
            assert lines[lines.index(board) + 1] == fen
        else:
            assert ("Move # : 1 (Black)" if lang == "en" else "Coup n°\u202f: 1 (Noirs)") in "\n".join(lines)
            assert (fen in lines) == (showfen == "1")


class _Transport:
    """The attributes of a Twisted TCP transport that the fast path reads."""

    def __init__(self, sock: socket.socket) -> None:
        self.socket = sock
        self.dataBuffer = b""
        self._tempDataBuffer: list[bytes] = []
        self.producer = None
        self.connected = True
        self.disconnecting = False
        self.TLS = False
        self._writeDisconnecting = False
        self._writeDisconnected = False
        self.written: list[bytes] = []

    def write(self, data: bytes) -> None:
        self.written.append(data)


def test_send_now_writes_at_once_only_when_nothing_is_queued():
    a, b = socket.socketpair()
    try:
        a.setblocking(False)
        t = _Transport(a)
        assert _send_now(t, b"board\r\n")
        assert b.recv(100) == b"board\r\n" and t.written == []
        t._tempDataBuffer.append(b"earlier")
        assert not _send_now(t, b"later")  # order kept: Twisted writes it after "earlier"
        t._tempDataBuffer.clear()
        t.disconnecting = True
        assert not _send_now(t, b"x")
        t.disconnecting = False
        t.TLS = True  # startTLS: the bytes must go through the TLS layer
        assert not _send_now(t, b"x")
        t.TLS = False
        t._writeDisconnecting = True
        assert not _send_now(t, b"x")
        t._writeDisconnecting = False
        del t.producer  # not the Twisted transport we know: no fast path
        assert not _send_now(t, b"x")
        t.producer = None
        big = b"y" * (1 << 23)  # more than the socket buffer takes at once
        assert _send_now(t, big)
        assert t.written and len(t.written[0]) < len(big)  # the rest goes through Twisted
    finally:
        a.close()
        b.close()


def test_send_now_on_a_real_twisted_tcp_server_connection():
    """The private attributes _send_now reads exist on this Twisted's tcp.Server."""
    from twisted.internet import tcp
    from twisted.internet.protocol import Protocol
    from twisted.internet.testing import MemoryReactor

    class _Port:
        _realPortNumber = 5000

    a, b = socket.socketpair()
    try:
        a.setblocking(False)
        conn = tcp.Server(a, Protocol(), ("127.0.0.1", 40000), _Port(), 1, MemoryReactor())
        assert _send_now(conn, b"first\r\n")
        assert b.recv(100) == b"first\r\n"
        conn.write(b"queued")  # waits in Twisted's buffer for the reactor
        assert not _send_now(conn, b"later")  # would overtake "queued"
        conn.doWrite()
        assert b.recv(100) == b"queued"
        assert _send_now(conn, b"again")
        assert b.recv(100) == b"again"
    finally:
        a.close()
        b.close()
