"""Boards for many observers: formatted once per distinct view, written straight to the socket."""

from __future__ import annotations

import socket

from twisted.internet.address import IPv4Address
from twisted.internet.protocol import Protocol
from twisted.internet.task import Clock
from twisted.internet.testing import MemoryReactor

from ficsfen.server.boards import fen_from_style12
from ficsfen.server.listening import Connection
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


class _Port:
    """What a connection reads of its listening port: Twisted's constructor, our log prefix."""

    _realPortNumber = 5000
    connections_logstr = "ficsfen.server.telnet.FicsFactory,5000"

    def getHost(self) -> IPv4Address:  # noqa: N802 - Twisted's name
        return IPv4Address("TCP", "127.0.0.1", self._realPortNumber)


class _TLSLayer:
    """What startTLS makes a connection's protocol: everything written goes through it."""

    def __init__(self) -> None:
        self.written: list[bytes] = []

    def write(self, data: bytes) -> None:
        self.written.append(data)


def _connection_pair() -> tuple[Connection, MemoryReactor, socket.socket, socket.socket]:
    """A :class:`Connection` on one end of a socket pair (under a MemoryReactor), and the other end."""
    a, b = socket.socketpair()
    a.setblocking(False)
    b.settimeout(60)
    reactor = MemoryReactor()
    conn = Connection(a, Protocol(), ("127.0.0.1", 40000), _Port(), 1, reactor)
    return conn, reactor, a, b


def test_a_write_goes_to_the_socket_at_once_only_when_nothing_is_queued():
    conn, reactor, a, b = _connection_pair()
    try:
        conn.write(b"board\r\n")
        assert b.recv(100) == b"board\r\n"
        assert conn.queued == 0 and conn not in reactor.getWriters()  # the reactor has nothing to do
        conn.write(b"y" * (1 << 23))  # more than the socket takes at once: the rest is queued
        assert conn.queued > 0 and conn in reactor.getWriters()
        conn.write(b"later")  # behind what is queued: order kept
        queued = conn.queued
        data = b""
        while conn.queued:
            conn.doWrite()
            data += b.recv(1 << 20)
        while len(data) < (1 << 23) + 5:
            data += b.recv(1 << 20)
        assert data.endswith(b"y" * 100 + b"later") and len(data) == (1 << 23) + 5
        assert queued > 5 and conn.queued == 0
        conn.doWrite()  # the buffer drained: the reactor stops watching it
        conn.write(b"again")  # nothing queued any more: at once again
        assert b.recv(100) == b"again" and conn.queued == 0
    finally:
        a.close()
        b.close()


class _PullProducer:
    def resumeProducing(self) -> None:  # noqa: N802 - Twisted's name
        pass

    def stopProducing(self) -> None:  # noqa: N802 - Twisted's name
        pass


def test_a_write_goes_through_twisted_when_the_connection_is_not_plain_and_open():
    for change in ("TLS", "disconnecting", "half-closed", "pull producer"):
        conn, reactor, a, b = _connection_pair()
        try:
            if change == "TLS":
                # as after startTLS: the bytes must be encrypted first, by the TLS layer
                # Twisted then puts in the protocol's place (with pyOpenSSL installed)
                conn.TLS = True
                conn.protocol = _TLSLayer()
            elif change == "disconnecting":
                conn.loseConnection()
            elif change == "half-closed":
                conn.loseWriteConnection()
            else:
                conn.registerProducer(_PullProducer(), False)
            conn.write(b"x")
            b.setblocking(False)
            try:
                got = b.recv(100)
            except BlockingIOError:
                got = b""
            assert got == b"", change  # nothing sent at once
        finally:
            a.close()
            b.close()


def test_a_write_that_fails_at_once_is_left_to_twisted_which_reports_it():
    conn, reactor, a, b = _connection_pair()
    b.close()
    a.close()  # send raises: the bytes go to Twisted's buffer, its write loop reports the error
    conn.write(b"x")
    assert conn.queued == 1 and conn in reactor.getWriters()


def test_a_write_for_later_waits_for_the_reactor_and_later_writes_queue_behind_it():
    conn, reactor, a, b = _connection_pair()
    try:
        conn.write_later(b"\xff\xfc\x01")  # a negotiation answer: nobody waits for it at once
        conn.write(b"board\r\n")  # behind it, not ahead
        assert conn.queued == 10 and conn in reactor.getWriters()
        b.setblocking(False)
        try:
            early = b.recv(100)
        except BlockingIOError:
            early = b""
        assert early == b""
        conn.doWrite()  # the reactor's write pass: both in one send
        assert b.recv(100) == b"\xff\xfc\x01board\r\n" and conn.queued == 0
    finally:
        a.close()
        b.close()
