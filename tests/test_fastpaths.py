"""The server's fast paths give the same bytes as the general ones.

Input: a chunk without IAC is handled with bytes.replace instead of the byte
parser, and a whole command line skips the protocol's buffering.  Output:
observers are kept grouped by their settings between moves, and each group's
bytes go to every member through ``TelnetConnection.write_all``.  Block
mode splits the usual ``ID COMMAND`` line without its regular expression,
and timeseal lines are decoded with C-level operations and cached tables:
both give what the plain reading of the rules gives.
"""

from __future__ import annotations

import re
import socket

import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from twisted.conch.telnet import IAC
from twisted.internet.address import IPv4Address
from twisted.internet.task import Clock
from twisted.internet.testing import MemoryReactorClock

from ficsfen.server import block, timeseal
from ficsfen.server.boards import fen_from_style12
from ficsfen.server.listening import Connection
from ficsfen.server.telnet import FicsFactory, TelnetConnection
from ficsfen.server.testing import connect, make_server

PROMPT = "fics% "


class _Port:
    """What a connection reads of its listening port: Twisted's constructor, our log prefix."""

    _realPortNumber = 5000
    connections_logstr = "ficsfen.server.telnet.FicsFactory,5000"

    def getHost(self) -> IPv4Address:  # noqa: N802 - Twisted's name
        return IPv4Address("TCP", "127.0.0.1", self._realPortNumber)


class _TLSLayer:
    """What startTLS makes a connection's protocol (with pyOpenSSL): writes go through it."""

    def __init__(self) -> None:
        self.written: list[bytes] = []

    def write(self, data: bytes) -> None:
        self.written.append(data)


def _telnet_pair(server):
    """A telnet connection of ``server`` on one end of a socket pair, its TCP side, and the other end."""
    a, b = socket.socketpair()
    a.setblocking(False)
    b.settimeout(60)
    governor = FicsFactory(server).buildProtocol(IPv4Address("TCP", "127.0.0.1", 40000))
    conn = Connection(a, governor, ("127.0.0.1", 40000), _Port(), 1, server.clock)
    governor.makeConnection(conn)
    b.recv(65536)  # the banner
    return governor.wrappedProtocol, conn, a, b


def test_write_all_doubles_iac_once_and_keeps_order_with_queued_data():
    server = make_server(clock=MemoryReactorClock())
    pairs = [_telnet_pair(server) for _ in range(3)]
    try:
        pairs[1][1].write(b"y" * (1 << 23))  # more than the socket takes: the rest waits in Twisted's buffer
        pairs[2][1].TLS = True  # as after startTLS: must not reach the socket directly
        pairs[2][1].protocol = tls = _TLSLayer()  # what startTLS puts in the protocol's place
        TelnetConnection.write_all([telnet for telnet, _, _, _ in pairs], b"board \xff\r\n")
        assert pairs[0][3].recv(100) == b"board \xff\xff\r\n"
        conn, peer = pairs[1][1], pairs[1][3]
        data = b""
        while conn.queued:
            conn.doWrite()
            data += peer.recv(1 << 20)
        while len(data) < (1 << 23) + 10:
            data += peer.recv(1 << 20)
        assert data.endswith(b"yyyboard \xff\xff\r\n")  # after what was queued
        pairs[2][3].setblocking(False)
        with pytest.raises(BlockingIOError):
            pairs[2][3].recv(100)  # left to Twisted (and its TLS layer)
        assert pairs[2][1].queued == 0  # nothing of ours to count
        assert tls.written in ([b"board \xff\xff\r\n"], [])  # to the TLS layer (without pyOpenSSL: Twisted's buffer)
    finally:
        for _, _, a, b in pairs:
            a.close()
            b.close()


def test_write_all_falls_back_when_the_socket_fails():
    server = make_server(clock=MemoryReactorClock())
    telnet, conn, a, b = _telnet_pair(server)
    b.close()
    a.close()  # send now raises: the bytes go to Twisted, which reports the error
    TelnetConnection.write_all([telnet], b"x")
    assert conn.queued == 1 and conn in server.clock.getWriters()


def _observers(server, count, settings):
    clients = []
    for i in range(count):
        c = connect(server)
        c.login()
        for line in settings(i):
            c.command(line)
        clients.append(c)
    return clients


def test_observer_groups_follow_setting_changes_between_moves():
    server = make_server(clock=Clock())
    mover = connect(server)
    mover.login()
    mover.command("examine")
    handle = mover.handle
    watchers = _observers(server, 6, lambda i: ("style 12", "set showfen 1", f"observe {handle}"))
    mover.command("e4")
    for w in watchers:
        assert w.output().count("<12> ") == 1
    watchers[0].command("style 1")
    watchers[1].command("set showfen 0")
    watchers[2].command("set lang fr")
    watchers[3].command("unobserve")
    watchers[4].disconnect()
    mover.command("e5")
    fen = server.directory.game_of(handle).tracker.fen
    out = [w.output() for w in watchers]
    assert "<12> " not in out[0] and "Move # : 2" in out[0] and fen in out[0]
    assert "<12> " in out[1] and fen not in out[1].splitlines()
    assert "Partie 1\u202f: " in out[2]  # the note, in French
    assert out[3] == ""
    lines = out[5].splitlines()
    board = next(line for line in lines if line.startswith("<12> "))
    assert fen_from_style12(board) == fen and lines[lines.index(board) + 1] == fen
    assert out[5].endswith(PROMPT)


def test_an_observer_running_the_command_gets_the_board_without_a_prompt():
    server = make_server(clock=Clock())
    mover = connect(server)
    mover.login()
    mover.command("examine")
    watcher = _observers(server, 1, lambda i: ("style 12", f"observe {mover.handle}"))[0]
    # The examiner's move reaches the watcher as a notification with a prompt.
    mover.command("d4")
    assert watcher.output().endswith("\n" + PROMPT)
    # bsetup and forward/backward by the examiner, likewise; the grouping is reused.
    mover.command("backward")
    text = watcher.output()
    assert text.count(PROMPT) == 1 and text.endswith(PROMPT)


def test_fen_reply_is_header_then_fen_and_follows_the_language():
    server = make_server(clock=Clock())
    c = connect(server)
    c.login()
    c.command("examine")
    c.command("e4")
    game = server.directory.game_of(c.handle)
    en = c.command("fen").splitlines()
    assert en == [f"Game {game.number} ({c.handle} vs. {c.handle}, examined):", game.tracker.fen]
    c.command("set lang fr")
    fr = c.command("fen").splitlines()
    assert fr[1] == game.tracker.fen and fr[0] != en[0]
    assert c.command("FEN").splitlines()[1] == game.tracker.fen  # not the exact-name path


def test_idle_timer_counts_from_the_last_line():
    clock = Clock()
    server = make_server(clock=clock, idle_timeout=600)
    client = connect(server)
    client.login()
    for _ in range(5):  # active every 590 s: never logged out
        clock.advance(590)
        client.command("who")
    assert client.connected
    clock.advance(599)
    assert client.connected
    clock.advance(2)
    assert "Auto-logout" in client.output() and not client.connected


def test_fast_line_path_matches_the_general_one():
    def run(chunks):
        server = make_server(seed=5)
        c = connect(server)
        for chunk in chunks:
            c.send_bytes(chunk)
        return c.raw_output()

    script = [b"guest\r\n", b"\r\n", b"examine\r\n", b"e4\r\n", b"fen\r\n", b"fen x\ty\r\n", b"\r\n",
              b"caf\xe9\r\n", b"who\n", b"fen\r\0", b"fen\r", b"\n", b"fen\r\r\n", b"\x01fen\r\n"]
    whole = b"".join(script)
    # An IAC NOP in every chunk sends it through the byte parser (not after a
    # trailing CR, where it would end the CR LF pair: a different input).
    with_iac = [(b"" if i and script[i - 1].endswith(b"\r") else IAC + b"\xf1") + chunk
                for i, chunk in enumerate(script)]
    assert run(script) == run([whole]) == run(with_iac)


# The block-mode id rule as FICS states it: optional blanks, 1 to 9 ASCII
# digits, then blanks and the command, or the end of the line.
_ID_RULE = re.compile(r"[ \t]*([0-9]{1,9})(?:[ \t]+(.*))?", re.DOTALL)


@given(st.text(alphabet=st.sampled_from("0123456789 \t\n\u0663\u00b2xg$"), max_size=16) | st.text())
@example("12 games")
@example("12   games  ")
@example("1234567890 games")
@example("\u0661\u0662 games")
@example("12\tgames")
@example("12 ")
@example("")
def test_split_id_fast_path_follows_the_rule(line):
    m = _ID_RULE.fullmatch(line)
    if m is None:
        try:
            block.split_id(line)
        except block.BlockIdError:
            return
        raise AssertionError(f"{line!r} has no valid id but was split")
    assert block.split_id(line) == (m.group(1), m.group(2) or "")


def _decode_by_the_rules(line: bytes) -> tuple[bytes, int] | str:
    """A timeseal line read byte by byte from the format; a str names the fault."""
    size = len(line) - 1
    if size <= 0 or size % 12:
        return "length"
    offset = line[-1] - 0x80
    if not 0 <= offset < len(timeseal.KEY):
        return "offset"
    buf = bytearray(size)
    for n in range(size):
        if not 0x60 <= line[n] <= 0xDF:
            return "bytes"
        buf[n] = (((line[n] + 32) & 0xFF) ^ timeseal.KEY[(n + offset) % len(timeseal.KEY)]) & 0x7F
    for base in range(0, size, 12):
        for a, b in ((0, 11), (2, 9), (4, 7)):
            buf[base + a], buf[base + b] = buf[base + b], buf[base + a]
    start = buf.rfind(b"\x18")
    end = buf.find(b"\x19", start + 1) if start >= 0 else -1
    digits = bytes(buf[start + 1:end])
    if end < 0 or not 1 <= len(digits) <= 20 or not all(0x30 <= d <= 0x39 for d in digits) or size - end - 1 > 12:
        return "stamp"
    return bytes(buf[:start]), int(digits) % 10**7


_FAULTS = {"length": "its length", "offset": "its last byte", "bytes": "it holds bytes", "stamp": "it carries no"}


def _sealed(text: bytes, stamp: bytes, filler: bytes, offset: int) -> bytes:
    body = bytearray(text + b"\x18" + stamp + b"\x19")
    body += filler[:(-len(body)) % 12]
    for base in range(0, len(body), 12):
        for a, b in ((0, 11), (2, 9), (4, 7)):
            body[base + a], body[base + b] = body[base + b], body[base + a]
    key = timeseal.KEY
    return bytes(((c | 0x80) ^ key[(n + offset) % len(key)]) - 32 for n, c in enumerate(body)) + bytes([0x80 | offset])


_ascii = st.binary(max_size=80).map(lambda b: bytes(c & 0x7F for c in b))
_encoded = st.builds(_sealed, _ascii, st.sampled_from([b"", b"7", b"1234567", b"99999999999", b"12a", b"1" * 21]),
                     st.sampled_from([b"1" * 12, b"\x18" * 12, b"\x19" * 12, b"9" * 12]),
                     st.integers(0, 49))


def _corrupt(line: bytes, where: int, byte: int) -> bytes:
    where %= len(line) - 1
    return line[:where] + bytes([byte]) + line[where + 1:]


@given(_encoded | st.binary(max_size=120) | _encoded.map(lambda b: b[:-1] + bytes([b[-1] + 50]))
       | st.builds(_corrupt, _encoded, st.integers(0, 200), st.integers(0, 255)))
def test_timeseal_decode_fast_path_follows_the_format(line):
    expected = _decode_by_the_rules(line)
    for _ in range(2):  # the second time from the cached tables
        if isinstance(expected, str):
            try:
                timeseal.decode(line)
            except timeseal.TimesealError as e:
                assert _FAULTS[expected] in e.render("en")
            else:
                raise AssertionError(f"{line!r} decoded, but the format says: bad {expected}")
        else:
            assert timeseal.decode(line) == expected
