"""The byte flow of a connection: backpressure, the output cap, the input budget,
subnegotiations, keepalive and the listen backlog."""

from __future__ import annotations

import contextlib
import select
import socket
import threading
import time
from pathlib import Path

import pytest
from twisted.conch.telnet import DO, ECHO, IAC, NOP, SB, SE
from twisted.internet.address import IPv4Address
from twisted.internet.testing import MemoryReactorClock
from twisted.logger import LogLevel, globalLogPublisher

from ficsfen.server.config import Config
from ficsfen.server.listening import Connection
from ficsfen.server.serve import make_service, with_backlog
from ficsfen.server.telnet import FicsFactory
from ficsfen.server.testing import ServerProcess, connect, make_server

START_FEN = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
PROMPT = "fics% "


@pytest.fixture
def log_events():
    events: list[dict] = []
    globalLogPublisher.addObserver(events.append)
    yield events
    globalLogPublisher.removeObserver(events.append)


def _texts(events):
    from twisted.logger import formatEvent

    return [formatEvent(e) for e in events]


class _Port:
    """What a connection reads of its listening port: Twisted's constructor, our log prefix."""

    _realPortNumber = 5000
    connections_logstr = "ficsfen.server.telnet.FicsFactory,5000"

    def getHost(self) -> IPv4Address:  # noqa: N802 - Twisted's name
        return IPv4Address("TCP", "127.0.0.1", self._realPortNumber)


def _real_connection(server, reactor):
    """A FicsFactory connection (as a port of ours accepts it) on a real non-blocking socket
    pair under a MemoryReactor."""
    a, b = socket.socketpair()
    a.setblocking(False)
    b.settimeout(60)  # a guard against a hang, not a measure
    telnet = FicsFactory(server).buildProtocol(IPv4Address("TCP", "127.0.0.1", 40000))
    conn = Connection(a, telnet, ("127.0.0.1", 40000), _Port(), 1, reactor)
    telnet.makeConnection(conn)
    return telnet, conn, a, b


@contextlib.contextmanager
def _accepted_socket():
    """A real accepted loopback TCP socket (non-blocking), its peer and address."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    peer = socket.create_connection(listener.getsockname())
    accepted, addr = listener.accept()
    accepted.setblocking(False)
    try:
        yield accepted, peer, addr
    finally:
        for s in (accepted, peer, listener):
            s.close()


def _read_all(sock):
    data = b""
    sock.setblocking(False)
    try:
        while True:
            chunk = sock.recv(1 << 20)
            if not chunk:
                break
            data += chunk
    except BlockingIOError:
        pass
    return data


def _login(telnet, reactor, b):
    telnet.dataReceived(b"guest\r\n")
    telnet.dataReceived(b"\r\n")
    _read_all(b)


# -- backpressure and the output cap ------------------------------------------

def test_a_client_that_stops_reading_stops_being_read_and_resumes_when_it_reads():
    reactor = MemoryReactorClock()
    # 300 lines at once; heavy_percent=0: the real CPU timer must not decide when lines run here
    server = make_server(clock=reactor, commands_per_second=0, heavy_percent=0)
    telnet, conn, a, b = _real_connection(server, reactor)
    try:
        _login(telnet, reactor, b)
        assert conn in reactor.getReaders()
        # Many help pages in one read; nothing is read by the client meanwhile.
        telnet.dataReceived(b"help fen\r\n" * 300)
        reactor.advance(0)
        for _ in range(50):  # the kernel takes what it can, the rest stays in Twisted's buffer
            conn.doWrite()
        assert telnet.holding
        assert conn not in reactor.getReaders()  # no more input read from it
        held = telnet.wrappedProtocol.framer.buffered.count(b"\n")
        assert held > 0  # lines wait, unrun
        # The client reads: the buffer drains, the waiting lines run, reading resumes.
        pages = 0
        for _ in range(10000):
            pages += _read_all(b).count(b"fics% ")
            conn.doWrite()
            reactor.advance(0)
            if not telnet.holding and not telnet.wrappedProtocol.framer.buffered and conn in reactor.getReaders():
                break
        for _ in range(1000):  # what is still in Twisted's buffer
            if not conn.queued:
                break
            conn.doWrite()
            pages += _read_all(b).count(b"fics% ")
        pages += _read_all(b).count(b"fics% ")
        assert conn in reactor.getReaders()
        assert pages == 300  # every line was answered, in the end
    finally:
        a.close()
        b.close()


def test_output_past_the_cap_closes_the_connection_with_a_log_line(log_events):
    reactor = MemoryReactorClock()
    # newcomer_seconds=0: its login answered in the turn it arrives, as _login reads it
    server = make_server(clock=reactor, output_buffer=200_000, newcomer_seconds=0)
    telnet, conn, a, b = _real_connection(server, reactor)
    try:
        _login(telnet, reactor, b)
        handle = telnet.wrappedProtocol.session.handle
        chunk = b"x" * 10_000 + b"\r\n"
        for _ in range(200):  # e.g. boards of games it observes, while it reads nothing
            telnet.write(chunk)
            for _ in range(3):
                conn.doWrite()
            if any("not reading its output" in t for t in _texts(log_events)):
                break
        # aborted: its unsent output is dropped, not flushed
        assert conn.queued > 200_000 and conn not in reactor.getWriters()
        texts = [t for t in _texts(log_events) if "not reading its output" in t]
        assert len(texts) == 1
        assert handle in texts[0] and "127.0.0.1:40000" in texts[0]
        assert int(texts[0].split(", ")[1].split()[0]) > 200_000  # the size
        reactor.advance(0)  # connectionLost: the session ends
        assert server.sessions.get(handle) is None
    finally:
        a.close()
        b.close()


def test_closing_a_connection_whose_output_is_paused_still_closes_it():
    # Twisted resumes a paused producer instead of closing when the buffer drains:
    # the producer must be unregistered first.
    reactor = MemoryReactorClock()
    server = make_server(clock=reactor)
    telnet, conn, a, b = _real_connection(server, reactor)
    try:
        _login(telnet, reactor, b)
        telnet.dataReceived(b"help fen\r\n" * 300)
        for _ in range(50):  # a few lines a turn, until the output is paused
            reactor.advance(0)
            conn.doWrite()
        assert telnet.holding
        telnet.wrappedProtocol.close()
        for _ in range(10000):
            _read_all(b)
            if conn.doWrite() is not None:  # CONNECTION_DONE once the goodbye has gone
                break
        else:
            pytest.fail("the connection never closed")
    finally:
        a.close()
        b.close()


# -- the input budget ---------------------------------------------------------

def test_input_beyond_the_budget_waits_for_the_next_turns_with_reading_paused():
    # newcomer_seconds=0: a connection's first turns are not queued behind others here
    server = make_server(input_budget=100, lines_per_turn=1000, commands_per_second=0,
                         newcomer_seconds=0)
    client = connect(server)
    client.login()
    client.output()
    data = b"fen\r\n" * 100  # 500 bytes: five turns
    client.protocol.dataReceived(data)
    first = client.output().count(PROMPT)
    assert first == 20  # 100 bytes of "fen\r\n"
    assert client.transport.producerState == "paused"
    other = connect(server)  # another connection is served between the turns
    other.login()
    assert client.protocol.input_waiting
    assert other.command("examine") and START_FEN in other.command("fen")
    assert client.output() == ""  # the rest of the first one's input still waits
    while client.protocol.input_waiting:
        server.clock.advance(0)
    assert client.output().count(PROMPT) == 80
    assert client.transport.producerState == "producing"


def _unread_lines(telnet) -> int:
    """Input lines the connection has not handed to its session yet."""
    waiting = telnet.pending_input + telnet.undelivered + telnet.wrappedProtocol.framer.buffered
    return waiting.count(b"\n")


def test_lines_beyond_the_turns_count_wait_for_the_next_turns():
    # "who" is 5 bytes in and tens of KiB out: bytes alone do not make input fair.
    server = make_server(lines_per_turn=4, newcomer_seconds=0)  # served in the turn it arrives
    client = connect(server)
    client.login()
    client.output()
    client.protocol.dataReceived(b"fen\r\n" * 20)  # one read
    assert client.output().count(PROMPT) == 4
    assert client.transport.producerState == "paused"
    assert client.protocol.input_waiting
    other = connect(server)  # served between the turns
    other.login()
    assert START_FEN in other.command("examine") + other.command("fen")
    assert client.output() == ""
    while client.protocol.input_waiting:
        server.clock.advance(0)
    assert client.output().count(PROMPT) == 16
    assert client.transport.producerState == "producing"


def test_commands_past_their_rate_wait_for_the_clock_and_are_logged_once(log_events):
    server = make_server(commands_per_second=10, command_burst=20, lines_per_turn=100)
    client = connect(server)
    client.login()  # two lines of the burst
    client.output()
    server.clock.advance(5)  # the burst is whole again
    client.send_bytes(b"fen\r\n" * 50)
    assert client.output().count(PROMPT) == 20  # the burst
    assert client.transport.producerState == "paused"
    server.clock.advance(1)
    assert client.output().count(PROMPT) == 10  # the rate
    other = connect(server)  # its own rate: answered at once
    other.login()
    assert START_FEN in other.command("examine") + other.command("fen")
    for _ in range(3):
        server.clock.advance(1)
    assert client.output().count(PROMPT) == 20
    assert client.transport.producerState == "producing"
    texts = [t for t in _texts(log_events) if "limits.commands_per_second" in t]
    assert len(texts) == 1 and client.transport.getPeer().host in texts[0]


def test_negotiations_between_lines_do_not_escape_the_lines_count():
    # Each negotiation hands the lines before it up separately: they count all the same.
    server = make_server(lines_per_turn=4, newcomer_seconds=0)  # served in the turn it arrives
    client = connect(server)
    client.login()
    client.output()
    client.protocol.dataReceived((b"fen\r\n" + IAC + DO + ECHO) * 20 + b"fen\r\n")
    assert client.output().count(PROMPT) == 4
    assert _unread_lines(client.protocol) == 17
    while client.protocol.input_waiting:
        server.clock.advance(0)
    assert client.output().count(PROMPT) == 17
    assert client.connected


def test_input_past_its_rate_waits_for_the_clock_and_is_logged_once(log_events):
    server = make_server(input_rate=1000, input_burst=2000, input_budget=100_000,
                         lines_per_turn=100_000, commands_per_second=0)
    client = connect(server)
    client.login()  # a few bytes of the burst
    client.output()
    server.clock.advance(10)  # the burst is whole again
    client.send_bytes(b"fen\r\n" * 800)  # 4000 bytes
    assert client.output().count(PROMPT) == 400  # the burst
    assert not client.protocol.input_waiting  # the rest is due later, not next turn
    assert client.transport.producerState == "paused"
    server.clock.advance(1)
    assert client.output().count(PROMPT) == 200
    server.clock.advance(1)
    assert client.output().count(PROMPT) == 200
    assert client.transport.producerState == "producing"
    texts = [t for t in _texts(log_events) if "limits.input_rate" in t]
    assert len(texts) == 1 and client.transport.getPeer().host in texts[0]
    server.clock.advance(2)
    client.send_bytes(b"fen\r\n" * 300)  # within the refilled burst: at once, not logged again
    assert client.output().count(PROMPT) == 300
    assert len([t for t in _texts(log_events) if "limits.input_rate" in t]) == 1


def test_a_rate_limited_flood_is_read_no_faster_than_the_rate():
    server = make_server(input_rate=4096, input_burst=8192, telnet_rate=0)  # input_rate alone
    client = connect(server)
    client.login()
    client.output()
    flood = (IAC + NOP) * 50_000  # 100 KB of nothing
    client.protocol.dataReceived(flood)
    for _ in range(10):
        server.clock.advance(1)
    parsed = len(flood) - client.protocol.unparsed
    assert 8192 + 9 * 4096 - 1024 <= parsed <= 8192 + 10 * 4096  # the burst, then the rate
    client.send("fen")  # typed behind the flood: answered once the flood is read
    assert client.output() == ""
    for _ in range(20):
        server.clock.advance(1)
    assert client.output() == "You are not playing, examining or observing a game.\n" + PROMPT


class _CpuTimer:
    """What the turn scheduler measures CPU with: here each command costs ``cost`` seconds."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def _costly_commands(server, cost: float) -> _CpuTimer:
    timer = _CpuTimer()
    FicsFactory(server).scheduler.timer = timer  # the server's one scheduler
    execute = server.dispatcher.execute

    def costly(session, line):
        timer.now += cost
        execute(session, line)

    server.dispatcher.execute = costly
    return timer


def test_heavy_connections_wait_for_their_turn_and_light_ones_do_not():
    server = make_server(heavy_percent=1, heavy_turn_ms=10, newcomer_seconds=0)
    _costly_commands(server, 0.01)  # 10 ms a command, like "who" with thousands online
    heavy, other, light = connect(server), connect(server), connect(server)
    for c in (heavy, other, light):
        c.login()
        c.output()
    for c in (heavy, other):
        c.send("fen\r\nfen\r\nfen\r\nfen", end=b"\r\n")  # 40 ms of CPU: heavy now
        assert c.output().count(PROMPT) == 4
        c.protocol.dataReceived(b"fen\r\n" * 8)  # waits in the heavy queue
        assert c.output() == "" and c.protocol.waiting_turn
        assert c.transport.producerState == "paused"
    light.send("fen")  # 10 ms: still light, answered at once
    assert light.output().count(PROMPT) == 1 and not light.protocol.waiting_turn
    scheduler = FicsFactory(server).scheduler
    scheduler._turn()  # one reactor turn: the first heavy one's 4 lines, then the budget is spent
    assert (heavy.output().count(PROMPT), other.output().count(PROMPT)) == (4, 0)
    scheduler._turn()  # the next turn starts with the one left waiting
    assert (heavy.output().count(PROMPT), other.output().count(PROMPT)) == (0, 4)
    while heavy.protocol.input_waiting or other.protocol.input_waiting:
        server.clock.advance(0)
    assert (heavy.output().count(PROMPT), other.output().count(PROMPT)) == (4, 4)
    server.clock.advance(10)  # quiet for a while: light again, answered at once
    heavy.protocol.dataReceived(b"fen\r\n")
    assert heavy.output().count(PROMPT) == 1 and not heavy.protocol.waiting_turn


def test_a_heavy_connection_that_closes_leaves_the_queue():
    server = make_server(heavy_percent=1)
    _costly_commands(server, 0.05)
    client = connect(server)
    client.login()
    client.send("fen")
    client.protocol.dataReceived(b"fen\r\n")
    assert client.protocol.waiting_turn
    client.disconnect()
    assert FicsFactory(server).scheduler.waiting() == []
    server.clock.advance(0)  # nothing left to serve, nothing raised


def test_accepted_connections_get_the_configured_send_buffer():
    with _accepted_socket() as (accepted, peer, addr):
        default = accepted.getsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF)
        reactor = MemoryReactorClock()
        server = make_server(clock=reactor, send_buffer=8192)
        telnet = FicsFactory(server).buildProtocol(IPv4Address("TCP", *addr))
        conn = Connection(accepted, telnet, addr, _Port(), 1, reactor)
        telnet.makeConnection(conn)
        size = accepted.getsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF)
        assert 8192 <= size < default or size == 8192 * 2  # Linux doubles what it is asked
        assert conn.bufferSize == 8192  # Twisted pauses the connection's input past it


@pytest.mark.slow
def test_a_client_that_does_not_read_has_fewer_commands_run_with_a_send_buffer():
    """Real loopback sockets: what a non-reader gets run before its input waits."""

    def commands_run(send_buffer: int) -> int:
        reactor = MemoryReactorClock()
        server = make_server(clock=reactor, send_buffer=send_buffer, input_rate=0, heavy_percent=0,
                             commands_per_second=0)
        with _accepted_socket() as (accepted, peer, addr):
            telnet = FicsFactory(server).buildProtocol(IPv4Address("TCP", *addr))
            conn = Connection(accepted, telnet, addr, _Port(), 1, reactor)
            telnet.makeConnection(conn)
            _login(telnet, reactor, peer)
            sent = 3000
            telnet.dataReceived(b"help fen\r\n" * sent)
            for _ in range(sent):  # turns until its input waits for its output to go
                reactor.advance(0)
                conn.doWrite()
                if telnet.holding:
                    break
            return sent - _unread_lines(telnet)

    bounded, unbounded = commands_run(16384), commands_run(0)
    assert bounded * 4 < unbounded  # the kernel's own buffer grows to megabytes when let


def test_an_iac_flood_costs_one_match_per_run_and_keeps_escaped_bytes(log_events):
    server = make_server(input_rate=0, telnet_rate=0)  # 100 KB at once: the rates are tested elsewhere
    client = connect(server)
    client.login()
    client.output()
    client.send_bytes((IAC + NOP) * 50_000 + b"fen caf" + (IAC + IAC) + (IAC + NOP) * 3 + b"\r\n")
    assert 'No player named "caf\u00ff" is logged in.' in client.output()
    client.send_bytes((IAC + IAC) * 3000)  # 3000 bytes of 255 and no line end: too long a line
    client.send("")
    assert "longer than 1024 bytes" in client.output()
    assert client.connected


# -- subnegotiations ----------------------------------------------------------

def test_an_unterminated_subnegotiation_is_dropped_after_its_size_limit(log_events):
    server = make_server(subnegotiation_limit=10_000, input_rate=0, telnet_rate=0)
    client = connect(server)
    client.login()
    client.output()
    client.send_bytes(IAC + SB + b"\x18" + b"A" * 20_000)
    client.send("")  # the rest of the As, read as input again: a line too long
    assert "longer than 1024 bytes" in client.output()
    client.send("examine")
    client.send("fen")
    text = client.output()
    assert START_FEN in text  # the session goes on after the limit
    texts = [t for t in _texts(log_events) if "subnegotiation" in t]
    assert len(texts) == 1 and "10000 bytes" in texts[0] and client.transport.getPeer().host in texts[0]


def test_an_unterminated_subnegotiation_is_dropped_after_its_time_limit(log_events):
    server = make_server(subnegotiation_timeout=10)
    client = connect(server)
    client.login()
    client.output()
    client.send_bytes(IAC + SB + b"\x18" + b"abc")
    client.send("fen")  # still inside the subnegotiation: option data, not a command
    assert client.output() == ""
    server.clock.advance(11)
    client.send("examine")
    client.send("fen")
    assert START_FEN in client.output()
    assert any("not ended within 10 seconds" in t for t in _texts(log_events))


def test_an_empty_subnegotiation_is_ignored_without_an_alarm(log_events):
    server = make_server()
    client = connect(server)
    client.login()
    client.output()
    client.send_bytes(IAC + SB + IAC + SE)
    client.send_bytes(IAC + SB + IAC + SE + IAC + SB)
    client.send_bytes(IAC + SE + b"examine\r\nfen\r\n")
    assert START_FEN in client.output()
    alarms = [e for e in log_events if e.get("log_level") in (LogLevel.critical, LogLevel.error)]
    assert alarms == []


# -- keepalive and backlog ----------------------------------------------------

def test_every_connection_has_tcp_keepalive_with_the_configured_timings():
    reactor = MemoryReactorClock()
    server = make_server(clock=reactor, keepalive_idle=45, keepalive_interval=15, keepalive_count=4)
    with _accepted_socket() as (accepted, peer, addr):
        telnet = FicsFactory(server).buildProtocol(IPv4Address("TCP", *addr))
        conn = Connection(accepted, telnet, addr, _Port(), 1, reactor)
        telnet.makeConnection(conn)
        assert accepted.getsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE) == 1
        if hasattr(socket, "TCP_KEEPIDLE"):
            assert accepted.getsockopt(socket.IPPROTO_TCP, socket.TCP_KEEPIDLE) == 45
            assert accepted.getsockopt(socket.IPPROTO_TCP, socket.TCP_KEEPINTVL) == 15
            assert accepted.getsockopt(socket.IPPROTO_TCP, socket.TCP_KEEPCNT) == 4


@pytest.mark.parametrize("description, expected", [
    ("tcp:5000", "tcp:5000:backlog=511"),
    ("tcp:5000:interface=127.0.0.1", "tcp:5000:interface=127.0.0.1:backlog=511"),
    ("TCP6:5000:interface=\\:\\:1", "TCP6:5000:interface=\\:\\:1:backlog=511"),
    ("tcp:5000:backlog=64", "tcp:5000:backlog=64"),
    ("ssl:5001:privateKey=k.pem", "ssl:5001:privateKey=k.pem:backlog=511"),
    ("unix:/tmp/f.sock", "unix:/tmp/f.sock:backlog=511"),
    ("stdio:", "stdio:"),
])
def test_with_backlog_adds_the_default_only_where_it_is_missing(description, expected):
    assert with_backlog(description, 511) == expected


def test_listening_endpoints_get_the_configured_backlog():
    reactor = MemoryReactorClock()
    config = Config(listen=("tcp:0:interface=127.0.0.1", "tcp:0:backlog=7"), data_file=None, web=None,
                    listen_backlog=300)
    service = make_service(config, reactor=reactor)
    backlogs = [endpoint._backlog for _, endpoint in service.endpoints]
    assert backlogs == [300, 7]


# -- a real server against hostile clients ------------------------------------

def _rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError("no VmRSS")


def _push(sock: socket.socket, data: bytes, *, stall: float = 2.0) -> int:
    """Send ``data`` without ever reading; stop when the peer has stopped taking it."""
    sock.setblocking(False)
    sent = 0
    while sent < len(data):
        _, writable, _ = select.select([], [sock], [], stall)
        if not writable:
            break  # the server reads no more of it (or the kernel buffers are full)
        try:
            sent += sock.send(data[sent:sent + 65536])
        except BlockingIOError:
            continue
        except OSError:
            break  # closed by the server
    return sent


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="needs /proc")
def test_clients_that_never_read_cannot_grow_the_server(tmp_path):
    # 60 guests from one loopback address: spared the per-address limits here.
    config = tmp_path / "ficsfen.toml"
    config.write_text('[limits]\nexempt = ["127.0.0.0/8"]\n')
    with ServerProcess("--config", str(config)) as server:
        pid = server.process.pid
        honest = server.connect()
        honest.login()
        crowd = []  # guests, so that "who" says a lot
        for _ in range(60):
            c = server.connect()
            c.login()
            crowd.append(c)
        start = _rss_kib(pid)
        pager = socket.create_connection(("127.0.0.1", server.port))
        whoer = socket.create_connection(("127.0.0.1", server.port))
        login = b"guest\r\n\r\n"
        # 3 MB of "help fen", and "who" (60 lines of output for 5 bytes of input).
        pushed = [_push(pager, login + b"help fen\r\n" * 300_000),
                  _push(whoer, login + b"who\r\n" * 600_000)]
        grown = _rss_kib(pid) - start
        assert honest.command("examine") and START_FEN in honest.command("fen")
        # Bound: per connection at most one read (64 KiB), the output cap (1 MiB) and
        # Twisted's high-water mark, plus allocator slack; before, 3 MB of "help fen"
        # took 600 MB.
        assert grown < 50 * 1024, (grown, pushed)
        assert server.process.poll() is None
        # Each hog is paused (it may read again) or closed by the cap, never dropped silently.
        for hog in (pager, whoer):
            hog.setblocking(True)
            hog.settimeout(60)  # a guard against a hang, not a measure
            try:
                got = hog.recv(65536)
            except ConnectionResetError:
                got = b""
            if not got:  # closed: its log line is read by the process's log thread
                deadline = time.monotonic() + 60  # a guard, not a measure
                while not any("not reading its output" in line for line in server.log_lines):
                    assert time.monotonic() < deadline, server.log_lines[-20:]
                    time.sleep(0.02)
        for c in (pager, whoer, honest, *crowd):
            c.close()


@pytest.mark.slow
def test_an_iac_flood_does_not_starve_other_clients():
    with ServerProcess() as server:
        honest = server.connect()
        honest.login()
        flood = socket.create_connection(("127.0.0.1", server.port))
        stop = threading.Event()
        sent = [0]

        def stream():
            chunks = [(IAC + NOP) * 32768, (IAC + IAC) * 32768]
            k = 0
            try:
                while not stop.is_set():
                    flood.sendall(chunks[k % 2])
                    sent[0] += 65536
                    k += 1
            except OSError:
                pass

        thread = threading.Thread(target=stream, daemon=True)
        thread.start()
        try:
            deadline = time.monotonic() + 60  # a guard, not a measure
            while sent[0] < 1 << 18:  # the flood is under way (the input rate slows it)
                time.sleep(0.01)
                assert thread.is_alive() and time.monotonic() < deadline
            honest.command("examine")
            for _ in range(5):
                assert START_FEN in honest.command("fen")
            assert thread.is_alive() and not stop.is_set()  # answered while the flood went on
        finally:
            stop.set()
            flood.close()
            thread.join(10)
        assert START_FEN in honest.command("fen")
        assert server.process.poll() is None
        honest.close()


def test_the_direct_send_serves_a_connection_registered_as_its_own_producer():
    reactor = MemoryReactorClock()
    server = make_server(clock=reactor)
    telnet, conn, a, b = _real_connection(server, reactor)
    try:
        _login(telnet, reactor, b)
        assert conn.producer is telnet and conn.streamingProducer
        telnet.wrappedProtocol.write(b"board\r\n")  # nothing queued: straight to the socket
        assert conn.queued == 0 and conn not in reactor.getWriters()
        assert b.recv(100) == b"board\r\n"
    finally:
        a.close()
        b.close()


@pytest.mark.slow
def test_memory_is_given_back_a_while_after_a_burst_of_disconnections():
    server = make_server(trim_after=3)
    trimmer = FicsFactory(server).trimmer
    clients = [connect(server) for _ in range(5)]
    for c in clients[:2]:
        c.disconnect()
    server.clock.advance(60)
    assert trimmer.runs == 0  # two closed: no burst
    clients[2].disconnect()
    server.clock.advance(4)
    assert trimmer.runs == 0  # not at once: the burst may go on
    for c in clients[3:]:
        c.disconnect()
    server.clock.advance(1)
    assert trimmer.runs == 1 and trimmer.closed_since == 0  # once for the whole burst
    server.clock.advance(29)
    assert trimmer.runs == 1
    server.clock.advance(1)  # and once more (trim_again), for what expired meanwhile
    assert trimmer.runs == 2
    server.clock.advance(600)
    assert trimmer.runs == 2
