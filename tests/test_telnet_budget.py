"""Telnet commands' own input budget (``[limits] telnet_rate``, ``telnet_burst``).

Typed text keeps ``input_burst``; IAC sequences and subnegotiation contents
are charged against a small budget of their own, so that a negotiation flood
is held after a few KiB.  In-process tests run on an injected clock; the last
one drives a real server on loopback.
"""

from __future__ import annotations

import socket

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from twisted.conch.telnet import DO, ECHO, IAC, NAWS, NOP, SB, SE, WILL

from ficsfen.server.iac import TelnetCodec
from ficsfen.server.testing import ServerProcess, connect, make_server
from test_flow import START_FEN, _texts, log_events  # noqa: F401  (a fixture)

RATE_LINE = "limits.telnet_rate"


@pytest.fixture
def log_texts(log_events):
    return lambda: _texts(log_events)


def test_a_negotiation_flood_is_read_at_the_telnet_rate_after_its_burst(log_texts):
    # newcomer_seconds=0: its input parsed in the turn it arrives (not queued as a newcomer's)
    server = make_server(input_rate=0, telnet_rate=256, telnet_burst=4096, newcomer_seconds=0)
    client = connect(server)
    client.login()
    client.output()
    flood = (IAC + NOP) * 50_000  # 100 KB of telnet commands
    client.protocol.dataReceived(flood)
    assert len(flood) - client.protocol.unparsed == 4096  # the burst, at once
    assert not client.protocol.input_waiting  # the rest is due later, not next turn
    assert client.transport.producerState == "paused"
    for _ in range(10):
        server.clock.advance(1)
    parsed = len(flood) - client.protocol.unparsed
    assert 4096 + 9 * 256 <= parsed <= 4096 + 10 * 256 + 64  # then the rate
    texts = [t for t in log_texts() if RATE_LINE in t]
    assert len(texts) == 1 and client.transport.getPeer().host in texts[0]
    assert "256 bytes/s, bursts of 4096" in texts[0]
    client.send("fen")  # typed behind the flood: it waits for the flood
    assert client.output() == ""
    assert client.connected


def test_typed_text_is_not_charged_to_the_telnet_budget():
    # A client that negotiated at the start still gets its typed text at input_burst.
    server = make_server(telnet_rate=1, telnet_burst=64, lines_per_turn=100_000, input_budget=100_000)
    client = connect(server)
    client.login()
    client.output()
    client.send_bytes(IAC + DO + ECHO + b"examine\r\n" + b"fen\r\n" * 2000)  # 12 KB
    assert client.output().count(START_FEN) == 2000  # no clock advance: not held by the rate
    client.send_bytes(IAC + WILL + NAWS + b"fen\r\n" * 10)
    assert client.output().count(START_FEN) == 10
    assert client.protocol.rates.telnet.tokens == pytest.approx(58)  # 64 - two negotiations


def test_text_before_telnet_commands_goes_on_when_their_budget_is_spent(log_texts):
    server = make_server(telnet_rate=10, telnet_burst=16)
    client = connect(server)
    client.login()
    client.send("examine")
    client.output()
    client.send_bytes((IAC + NOP) * 8)  # the whole telnet burst
    assert not [t for t in log_texts() if RATE_LINE in t]  # within it: nothing logged
    client.send_bytes(b"fen\r\n" + IAC + NOP + b"fen\r\nfen\r\n")
    assert client.output().count(START_FEN) == 1  # the line before the IAC
    assert [t for t in log_texts() if RATE_LINE in t]
    server.clock.advance(1)  # 10 bytes of telnet budget back
    assert client.output().count(START_FEN) == 2
    assert client.connected


def test_a_subnegotiation_counts_against_the_telnet_budget_and_its_limits_still_apply(log_texts):
    server = make_server(input_rate=0, telnet_rate=100, telnet_burst=1000, subnegotiation_timeout=5)
    client = connect(server)
    client.login()
    client.send("examine")
    client.output()
    client.send_bytes(IAC + SB + NAWS + b"\x00" * 3000)  # never ended
    assert client.protocol.unparsed == 3003 - 1000
    for _ in range(6):
        server.clock.advance(1)
    client.send("")  # after the time limit, its bytes not read yet are input again: a long line
    for _ in range(30):
        server.clock.advance(1)
    assert "longer than 1024 bytes" in client.output()
    client.send("fen")
    assert START_FEN in client.output()
    assert any("not ended within 5 seconds" in t for t in log_texts())


def test_a_telnet_budget_of_zero_leaves_input_rate_alone():
    server = make_server(input_rate=0, telnet_rate=0)
    client = connect(server)
    client.login()
    client.send("examine")
    client.output()
    client.send_bytes((IAC + NOP) * 50_000 + b"fen\r\n")  # all of it, turn after turn
    assert START_FEN in client.output()


# -- the budget changes when bytes are parsed, never what they mean -----------

_TELNET = st.sampled_from([IAC + NOP, IAC + IAC, IAC + DO + ECHO, IAC + WILL + NAWS, IAC + SB + NAWS,
                           IAC + SE, IAC + SB + NAWS + b"\x00\x50\x00\x18" + IAC + SE, IAC, b"\r",
                           b"\r\n", b"\r\0", b"\n"])
_TEXT = st.sampled_from([b"fen", b"examine", b"e4", b"who", b"xyz", b"games", b"refresh"])
_PIECES = st.lists(st.one_of(_TELNET, _TEXT, st.binary(max_size=8)), min_size=1, max_size=60)


@pytest.mark.slow
@given(_PIECES, st.data())
@settings(max_examples=80, deadline=None)
def test_the_telnet_budget_gives_the_same_session_as_no_budget(pieces, data):
    stream = b"guest\r\n\r\n" + b"".join(pieces) + b"\r\nexamine\r\nfen\r\n"
    cuts = sorted(data.draw(st.lists(st.integers(0, len(stream)), max_size=6)))
    chunks = [stream[a:b] for a, b in zip([0, *cuts], [*cuts, len(stream)])]
    burst = data.draw(st.integers(1, 40))

    def run(**limits) -> tuple[bytes, list[tuple[bytes, ...]], bool]:
        """What the session side was handed, the telnet commands handled, in order, and
        whether the connection is still open (the stream may hold "q", a prefix of quit)."""
        server = make_server(seed=5, subnegotiation_timeout=1000, **limits)
        client = connect(server)
        connection = client.protocol.wrappedProtocol
        handed: list[bytes] = []
        commands: list[tuple[bytes, ...]] = []
        deliver = connection.lines_received

        def delivered(data: bytes) -> None:
            handed.append(data)
            deliver(data)

        class Recording(TelnetCodec):
            def command_received(self, command: bytes, option: bytes) -> None:
                commands.append((command, option))
                super().command_received(command, option)

            def subnegotiation_received(self, payload: bytes) -> None:
                commands.append((SB, payload))
                super().subnegotiation_received(payload)

        connection.lines_received = delivered
        connection.codec = Recording(connection, sb_limit=server.config.subnegotiation_limit,
                                     sb_timeout=server.config.subnegotiation_timeout)
        for chunk in chunks:
            client.send_bytes(chunk)
            server.clock.advance(0.01)
        for _ in range(400):  # 4 s of the clock: far more than the stream needs at the rate
            server.clock.advance(0.01)
        return b"".join(handed), commands, client.connected

    budgeted = run(telnet_rate=2000, telnet_burst=burst)
    assert budgeted == run(telnet_rate=0)


# -- a real server on loopback -------------------------------------------------

@pytest.mark.slow
def test_a_real_server_holds_a_negotiation_flood_and_reads_it_later(tmp_path):
    config = tmp_path / "ficsfen.toml"
    config.write_text("[limits]\ntelnet_rate = 2000\ntelnet_burst = 1000\n")
    with ServerProcess("--config", str(config)) as server:
        honest = server.connect()
        honest.login()
        flood = socket.create_connection(("127.0.0.1", server.port))
        try:
            flood.settimeout(server.timeout)
            port = flood.getsockname()[1]
            flood.sendall((IAC + NOP) * 3000 + b"guest\r\n")  # 6,000 bytes: the burst, then the rate
            received = b""
            while b"Press return to enter the server as" not in received:
                got = flood.recv(4096)
                assert got, received
                received += got
            honest.command("examine")
            assert START_FEN in honest.command("fen")
        finally:
            flood.close()
        lines = [line for line in server.log_lines if RATE_LINE in line]
        assert len(lines) == 1 and f":{port} " in lines[0], server.log_lines
        assert "2000 bytes/s, bursts of 1000" in lines[0]
        honest.close()
