"""The telnet codec alone (:mod:`ficsfen.server.iac`): no connection, no clock."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from twisted.conch.telnet import (
    DO, DONT, ECHO, GA, IAC, NAWS, NOP, SB, SE, SGA, WILL, WONT, Telnet,
)
from twisted.internet.testing import StringTransport

from ficsfen.server.iac import MAX_SUBNEGOTIATION, TelnetCodec, escape


class Host:
    """A :class:`ficsfen.server.iac.TelnetHost` that keeps what it is told."""

    peer = "192.0.2.1:4000"

    def __init__(self, *, stall_after: int | None = None, local: tuple[bytes, ...] = (SGA,)) -> None:
        self.data: list[bytes] = []
        self.sent: list[bytes] = []
        self.stall_after = stall_after  # stall once this many pieces were handed up
        self.local = local

    def telnet_data(self, data: bytes) -> None:
        self.data.append(data)

    def telnet_stalled(self) -> bool:
        return self.stall_after is not None and len(self.data) >= self.stall_after

    def telnet_send(self, data: bytes) -> None:
        self.sent.append(data)

    def enable_local(self, option: bytes) -> bool:
        return option in self.local

    def enable_remote(self, option: bytes) -> bool:
        return False


class Recording(TelnetCodec):
    """The codec, keeping the commands and subnegotiations it handled, in order."""

    def __init__(self, host: Host, **kw: object) -> None:
        super().__init__(host, **kw)  # type: ignore[arg-type]
        self.events: list[tuple[bytes, bytes]] = []

    def command_received(self, command: bytes, option: bytes) -> None:
        self.events.append((command, option))
        super().command_received(command, option)

    def subnegotiation_received(self, payload: bytes) -> None:
        self.events.append((SB, payload))
        super().subnegotiation_received(payload)


def _run(chunks: list[bytes], **kw: object) -> tuple[bytes, bytes, list[tuple[bytes, bytes]], str]:
    """Typed text handed up, bytes sent, events, final state, for ``chunks`` fed in order."""
    host = Host()
    codec = Recording(host, **kw)
    for chunk in chunks:
        assert codec.feed(chunk, 0.0)[0] == len(chunk)  # never stalled: all consumed
    return b"".join(host.data), b"".join(host.sent), codec.events, codec.state


def test_every_line_end_becomes_one_lf():
    assert _run([b"a\rb\r\nc\r\0d\ne\r"])[0] == b"a\nb\nc\nd\ne\n"
    assert _run([b"a\r", b"\nb"])[0] == b"a\nb"  # CR LF across two reads is one line end
    assert _run([b"a\r", b"\0", b"b\r", b"c"])[0] == b"a\nb\nc"


def test_iac_iac_is_a_data_byte_and_option_less_commands_are_skipped():
    data, sent, events, state = _run([b"x" + IAC + IAC + b"y" + IAC + NOP + IAC + GA + b"z"
                                      + IAC + b"\x01" + b"w\r\n"])
    assert data == b"x\xffyzw\n" and sent == b"" and events == [] and state == "data"


def test_negotiation_answers():
    _, sent, events, _ = _run([IAC + DO + SGA, IAC + DO + ECHO, IAC + WILL + NAWS, IAC + DO + SGA,
                               IAC + WONT + NAWS, IAC + DONT + SGA])
    assert sent == (IAC + WILL + SGA  # agreed
                    + IAC + WONT + ECHO  # refused
                    + IAC + DONT + NAWS  # refused
                    # DO SGA again: on already, no answer; WONT NAWS: off already
                    + IAC + WONT + SGA)  # DONT SGA: acknowledged
    assert events == [(DO, SGA), (DO, ECHO), (WILL, NAWS), (DO, SGA), (WONT, NAWS), (DONT, SGA)]


def test_an_offer_is_sent_once_and_the_answer_settles_it():
    host = Host(local=())
    codec = TelnetCodec(host)
    codec.offer(ECHO, True)
    codec.offer(ECHO, True)  # still being negotiated: nothing more
    assert host.sent == [IAC + WILL + ECHO]
    codec.feed(IAC + DO + ECHO, 0.0)  # the client agrees: no answer to an answer
    state = codec.option_state(ECHO).us
    assert (state.state, state.negotiating) == ("yes", False) and host.sent == [IAC + WILL + ECHO]
    codec.offer(ECHO, False)
    codec.feed(IAC + DONT + ECHO, 0.0)
    assert host.sent[-1] == IAC + WONT + ECHO and (state.state, state.negotiating) == ("no", False)
    codec.offer(ECHO, True)
    codec.feed(IAC + DONT + ECHO, 0.0)  # refused this time
    assert (state.state, state.negotiating) == ("no", False) and len(host.sent) == 3


_CLIENT_COMMANDS = st.lists(st.tuples(st.sampled_from([WILL, WONT, DO, DONT]),
                                      st.sampled_from([ECHO, SGA, NAWS])), max_size=30)


@given(_CLIENT_COMMANDS)
@settings(max_examples=200, deadline=None)
def test_the_answers_to_a_client_are_twisteds(commands):
    class Reference(Telnet):
        def enableLocal(self, option: bytes) -> bool:  # noqa: N802 - Twisted's name
            return option == SGA

        def disableLocal(self, option: bytes) -> None:  # noqa: N802 - Twisted's name
            pass

    reference = Reference()
    transport = StringTransport()
    reference.makeConnection(transport)
    stream = b"".join(IAC + command + option for command, option in commands)
    reference.dataReceived(stream)
    assert _run([stream])[1] == transport.value()


def test_a_subnegotiation_is_handed_over_whole():
    data, _, events, state = _run([b"a" + IAC + SB + NAWS + b"\x00\x50" + IAC + IAC + b"\x00\x18"
                                   + IAC + SE + b"b\r\n"])
    assert events == [(SB, NAWS + b"\x00\x50\xff\x00\x18")]
    assert data == b"ab\n" and state == "data"
    assert _run([IAC + SB + IAC + SE + b"c"])[2] == []  # names no option: nothing to hand over


def test_an_overlong_subnegotiation_is_skipped_up_to_its_end():
    body = b"A" * (MAX_SUBNEGOTIATION + 10) + b"quit\r\n"
    data, _, events, state = _run([IAC + SB + b"\x18" + body + IAC + SE + b"fen\r\n"])
    assert data == b"fen\n" and events == [] and state == "data"


def test_a_subnegotiation_past_its_byte_limit_is_abandoned_and_the_rest_is_input():
    data, _, events, state = _run([IAC + SB + b"\x18" + b"A" * 100 + b"\r\n"], sb_limit=50)
    assert data == b"A" * 51 + b"\n" and events == [] and state == "data"


def test_a_subnegotiation_past_its_time_limit_is_abandoned():
    host = Host()
    codec = TelnetCodec(host, sb_timeout=10)
    codec.feed(IAC + SB + b"\x18abc", 100.0)
    codec.feed(b"def\r\n", 105.0)
    assert host.data == [] and codec.state == "subnegotiation"
    codec.feed(b"fen\r\n", 111.0)
    assert host.data == [b"fen\n"] and codec.state == "data"


def test_parsing_stops_when_the_host_stalls_and_goes_on_where_it_stopped():
    stream = b"one\r\n" + IAC + DO + SGA + b"two\r\n" + IAC + NOP + IAC + DO + SGA + b"three\r\n"
    host = Host(stall_after=1)
    codec = TelnetCodec(host)
    consumed, commands = codec.feed(stream, 0.0)
    assert host.data == [b"one\n"] and host.sent == [IAC + WILL + SGA]  # the command before it ran
    assert stream[consumed:].startswith(b"two") and commands == 3
    host.stall_after = None
    consumed2, commands2 = codec.feed(stream[consumed:], 0.0)
    assert consumed + consumed2 == len(stream) and commands + commands2 == 8
    assert b"".join(host.data) == b"one\ntwo\nthree\n"


def test_plain_prefix_and_escape():
    codec = TelnetCodec(Host())
    assert codec.plain_prefix(b"ab" + IAC + NOP, 0, 4) == 2
    assert codec.plain_prefix(b"abcd", 1, 3) == 2
    codec.feed(IAC, 0.0)  # an IAC waiting for its command: nothing is plain text now
    assert codec.plain_prefix(b"abcd", 0, 4) == 0
    assert escape(b"a\xffb") == b"a\xff\xffb" and escape(b"ab") == b"ab"


_PIECES = st.lists(st.one_of(
    st.sampled_from([IAC + NOP, IAC + IAC, IAC + DO + ECHO, IAC + DO + SGA, IAC + WILL + NAWS,
                     IAC + SB + NAWS, IAC + SE, IAC + SB + NAWS + b"\x00\x50\x00\x18" + IAC + SE,
                     IAC, b"\r", b"\r\n", b"\r\0", b"\n", b"\0", b"fen", b"who"]),
    st.binary(max_size=12)), max_size=40)


@pytest.mark.slow
@given(_PIECES, st.data())
@settings(max_examples=300, deadline=None)
def test_any_bytes_in_any_chunks_decode_the_same(pieces, data):
    stream = b"".join(pieces)
    cuts = sorted(data.draw(st.lists(st.integers(0, len(stream)), max_size=8)))
    chunks = [stream[a:b] for a, b in zip([0, *cuts], [*cuts, len(stream)])]
    limit = data.draw(st.sampled_from([8, 64, 65536]))
    assert _run(chunks, sb_limit=limit) == _run([stream], sb_limit=limit)
