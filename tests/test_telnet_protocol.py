"""The telnet protocol in-process: StringTransport, an injected Clock, no sockets."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from twisted.conch.telnet import AYT, DO, ECHO, IAC, NAWS, SB, SE, WILL, WONT
from twisted.internet.task import Clock

from ficsfen.server.config import hash_password
from ficsfen.server.session import encode_text, transliterate
from ficsfen.server.telnet import decode_line
from ficsfen.server.testing import connect, make_server

START_FEN = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
PROMPT = "fics% "


@pytest.fixture
def server():
    return make_server()


def logged_in(server):
    client = connect(server)
    client.output()
    client.login()
    return client


# -- login -------------------------------------------------------------------

def test_banner_then_login_prompt(server):
    client = connect(server)
    text = client.output()
    assert 'enter the login name "guest"' in text
    assert text.endswith("login: ")


def test_guest_login_fics_wording(server):
    client = connect(server)
    client.output()
    client.send("guest")
    text = client.output()
    handle = text.split('"')[1]
    assert handle.startswith("Guest") and len(handle) == 9 and handle[5:].isupper()
    assert f'Logging you in as "{handle}"; you may use this name to play unrated games.' in text
    assert text.endswith(f'Press return to enter the server as "{handle}": ')
    client.send("")
    text = client.output()
    assert f"**** Starting FICS session as {handle}(U) ****" in text
    assert text.endswith(PROMPT)
    assert server.sessions.get(handle) is not None


def test_every_line_ends_with_cr_lf(server):
    client = connect(server)
    client.send("guest")
    client.send("")
    client.send("examine")
    client.send("help fen")
    raw = client.raw_output()
    assert raw.count(b"\n") > 50
    assert raw.count(b"\n") == raw.count(b"\r\n")
    assert raw.count(b"\r") == raw.count(b"\r\n")


def test_latin1_output_doubles_iac_bytes(server):
    client = connect(server)
    client.login("Alice")
    client.command("set charset latin1")
    client.send("fen \u00ff")
    assert b'"\xff\xff" is logged in' in client.raw_output()


def test_guest_handles_are_unique():
    server = make_server(seed=7)
    handles = {logged_in(server).handle for _ in range(200)}
    assert len(handles) == 200


def test_unregistered_name_is_accepted(server):
    client = connect(server)
    client.output()
    client.send("Alice")
    text = client.output()
    assert '"Alice" is not a registered name.' in text
    client.send("")
    assert "Starting FICS session as Alice(U)" in client.output()


@pytest.mark.parametrize("name, reason", [
    ("al", "at least 3 characters"),
    ("a" * 18, "at most 17 characters"),
    ("al1ce", "only consist of lower and upper case letters"),
    ("élodie", "only consist of lower and upper case letters"),
    ("GuestABCD", 'Names starting with "Guest"'),
])
def test_bad_names_get_the_reason_and_login_again(server, name, reason):
    client = connect(server)
    client.output()
    client.send(name)
    text = client.output()
    assert reason in text
    assert text.endswith("login: ")


def test_name_in_use_is_refused_case_insensitively(server):
    first = connect(server)
    first.output()
    first.login("Alice")
    second = connect(server)
    second.output()
    second.send("alice")
    assert "already logged in" in second.output()


def test_login_timeout_closes_the_connection():
    clock = Clock()
    server = make_server(clock=clock, login_timeout=30)
    client = connect(server)
    clock.advance(29)
    assert client.connected
    clock.advance(2)
    assert "Login timeout" in client.output()
    assert not client.connected


def test_idle_timeout_and_activity_resets_it():
    clock = Clock()
    server = make_server(clock=clock, idle_timeout=600)
    client = logged_in(server)
    clock.advance(500)
    client.command("who")
    clock.advance(500)
    assert client.connected
    clock.advance(101)
    assert "Auto-logout because you were idle more than 10 minutes" in client.output()
    assert not client.connected
    assert len(server.sessions) == 0


def _aborted_lines(events):
    from twisted.logger import formatEvent

    return [formatEvent(e) for e in events if formatEvent(e).startswith("aborted ")]


def test_a_client_that_does_not_read_is_aborted_a_grace_after_its_idle_logout():
    from twisted.logger import globalLogPublisher

    clock = Clock()
    server = make_server(clock=clock, idle_timeout=600, close_grace=10)
    client = logged_in(server)
    client.protocol.pauseProducing()  # its buffers are full: it reads nothing more
    events: list[dict] = []
    globalLogPublisher.addObserver(events.append)
    try:
        clock.advance(600)
        assert "Auto-logout because you were idle" in client.output()  # queued for it
        assert client.transport.disconnecting and not client.transport.disconnected
        clock.advance(9.9)
        assert not client.transport.disconnected  # its output may still leave
        clock.advance(0.1)
        assert client.transport.disconnected  # abortConnection: the socket goes at once
    finally:
        globalLogPublisher.removeObserver(events.append)
    peer = client.protocol.wrappedProtocol.peer
    assert _aborted_lines(events) == [
        f"aborted {peer}: closed 10 s ago, its output still unsent (limits.close_grace)"]
    assert len(server.sessions) == 0 and len(client.protocol.factory.closing) == 0


def test_a_client_that_reads_closes_as_usual_and_zero_grace_waits_for_the_system():
    from twisted.logger import globalLogPublisher

    clock = Clock()
    server = make_server(clock=clock)
    reader = logged_in(server)
    reader.command("quit")
    assert reader.protocol in reader.protocol.factory.closing  # until the socket is closed
    reader.disconnect()  # its output was sent: the socket closed
    assert reader.protocol not in reader.protocol.factory.closing
    patient = logged_in(make_server(clock=clock, close_grace=0))
    patient.protocol.pauseProducing()
    patient.command("quit")
    events: list[dict] = []
    globalLogPublisher.addObserver(events.append)
    try:
        clock.advance(3600)
    finally:
        globalLogPublisher.removeObserver(events.append)
    assert not reader.transport.disconnected and not patient.transport.disconnected
    assert patient.transport.disconnecting and _aborted_lines(events) == []


def test_connection_limit():
    server = make_server(max_connections=1)
    logged_in(server)
    refused = connect(server)
    assert "the server is full" in refused.output()
    assert not refused.connected


def test_registered_account_password_is_hidden_with_will_wont_echo():
    server = make_server(accounts={"alice": hash_password("s3cret", iterations=1000)})
    client = connect(server)
    client.output()
    client.send("alice")
    out = client.raw_output()
    assert IAC + WILL + ECHO in out and out.endswith(b"password: ")
    client.send_bytes(IAC + DO + ECHO)  # the client agrees to let us echo
    client.send("wrong")
    out = client.raw_output()
    assert IAC + WONT + ECHO in out
    server.clock.advance(server.config.password_delay)
    out += client.raw_output()
    assert b"Invalid password" in out and out.endswith(b"login: ")
    client.send("alice")
    client.raw_output()
    client.send_bytes(IAC + DO + ECHO)
    client.send("s3cret")
    out = client.raw_output().decode()
    assert "Starting FICS session as alice ****" in out  # registered: no (U)
    assert server.sessions.get("alice").registered


def test_disconnect_before_return_releases_the_name(server):
    client = connect(server)
    client.output()
    client.send("Bobby")
    client.disconnect()
    again = connect(server)
    again.output()
    again.login("Bobby")
    assert again.handle == "Bobby"


# -- lines and bytes ---------------------------------------------------------

@pytest.mark.parametrize("end", [b"\r\n", b"\n", b"\r\0", b"\r"])
def test_line_ends(server, end):
    client = logged_in(server)
    client.send("fen", end=end)
    text = client.output()
    assert "You are not playing, examining or observing a game." in text
    assert text.endswith(PROMPT)
    client.send("who", end=end)
    assert "++++ " in client.output()


def test_line_end_split_across_packets(server):
    client = logged_in(server)
    for chunk in (b"ex", b"amine\r", b"\n", b"fen\r", b"\0"):
        client.send_bytes(chunk)
    text = client.output()
    assert text.count(PROMPT) == 2
    assert START_FEN in text


def test_iac_noise_never_kills_the_session(server):
    client = logged_in(server)
    noise = (IAC + b"\x01" + IAC + b"\xf0" + IAC + AYT + IAC + WILL + NAWS + IAC + SB + NAWS
             + b"\x00\x50\x00\x18" + IAC + SE + IAC + DO + b"\x99" + IAC + SB + b"junk" + IAC + IAC
             + IAC + b"x" + IAC + SE + IAC)
    client.send_bytes(noise)
    client.send_bytes(b"\xf1")  # the byte after a trailing IAC
    client.send("examine")
    client.send("fen")
    text = client.output()
    assert START_FEN in text
    assert client.connected


@pytest.mark.parametrize("cuts", [(), (3,), (4100,), (4104,), (4101, 4105), (4107,)])
def test_overlong_subnegotiation_is_discarded_up_to_iac_se(cuts):
    # Past the subnegotiation limit, the rest of it is still option data: the
    # "quit" inside must not run, and input after IAC SE must.
    client = logged_in(make_server(telnet_rate=0))  # 4 KB of option data at one instant
    body = SB + b"\x18" + b"A" * 4097 + b"\rquit\r" + IAC + IAC + b"B\r\n" + IAC + SE
    data = IAC + body + b"examine\r\nfen\r\n"
    bounds = [0, *cuts, len(data)]
    chunks = [data[a:b] for a, b in zip(bounds, bounds[1:])]  # (4101, 4105): "quit" alone
    for chunk in chunks:
        client.send_bytes(chunk)
    text = client.output()
    assert client.connected
    assert "Command not found" not in text
    assert START_FEN in text
    assert text.count(PROMPT) == 2  # examine and fen, nothing else


def test_doubled_iac_is_a_literal_byte_and_decodes_as_latin1(server):
    client = logged_in(server)
    client.send_bytes(b"fen caf" + IAC + IAC + b"\r\n")
    assert 'No player named "caf\u00ff" is logged in.' in client.output()


def test_decode_line_falls_back_to_latin1_per_byte():
    assert decode_line("café".encode()) == "café"
    assert decode_line(b"caf\xe9 \xc3\xa9t\xe9") == "café été"
    assert decode_line(b"a\x00b\x07c\td") == "abc\td"
    assert decode_line(b"x\x9b2Jy\xc2\x9bz") == "x2Jyz"  # C1 controls (CSI) dropped


@pytest.mark.slow
@given(st.binary(max_size=300))
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@example(b"\xff\xfa")  # IAC SB, never ended
def test_any_bytes_leave_the_session_working(data):
    server = make_server()
    client = logged_in(server)
    client.send_bytes(data)
    client.send_bytes(b"\r\n")
    text = client.output()
    assert "internal error" not in text
    if not client.connected:  # the bytes held a line such as "q" (quit)
        assert "Logging you out." in text
        return
    if client.protocol.wrappedProtocol.codec.state.startswith("subnegotiation"):
        # An IAC SB never ended takes what follows until subnegotiation_timeout.
        server.clock.advance(server.config.subnegotiation_timeout + 1)
    client.send("fen")
    text = client.output()
    assert text.endswith(PROMPT)
    assert "You are not playing" in text or "examined):" in text  # "e" examines


def test_100_kb_line_gets_a_message_and_the_session_continues():
    client = logged_in(make_server(input_rate=0))  # 100 KB at once: no input rate here
    client.send_bytes(b"x" * 100_000 + b"\r\n")
    text = client.output()
    assert "longer than 1024 bytes and has been ignored" in text
    assert text.endswith(PROMPT)
    for _ in range(0, 100_000, 4096):  # the same, in packets
        client.send_bytes(b"y" * 4096)
    client.send_bytes(b"\r\nfen\r\n")
    text = client.output()
    assert "has been ignored" in text
    assert "You are not playing" in text


def test_overlong_line_before_login(server):
    client = connect(server)
    client.output()
    client.send_bytes(b"z" * 5000 + b"\n")
    text = client.output()
    assert "has been ignored" in text and text.endswith("login: ")
    client.login()


# -- output charsets -----------------------------------------------------------

def test_transliteration():
    assert transliterate("Français « ça » œuvre") == 'Francais "ca" oeuvre'
    # French typography puts a no-break space (U+00A0 or U+202F) inside guillemets.
    assert transliterate("\u00ab\u00a0w\u00a0\u00bb, \u00ab\u202fb\u202f\u00bb") == '"w", "b"'
    assert transliterate("«x»\u00a0: 1\u202f000") == '"x" : 1 000'
    assert encode_text("é€", "latin1") == b"\xe9EUR"
    assert encode_text("é", "utf8") == "é".encode()


def test_set_charset_changes_what_reaches_the_client(server):
    client = logged_in(server)
    client.command("set lang fr")
    client.send("fen")
    assert "Vous ne jouez, n’examinez ni n’observez aucune partie.".encode() in client.raw_output()
    client.command("set charset ascii")
    client.send("fen")
    raw = client.raw_output()
    assert raw.isascii()
    assert b"Vous ne jouez, n'examinez ni n'observez aucune partie." in raw
    client.send("help fen")
    raw = client.raw_output()
    assert raw.isascii()
    assert b'l\'extension ".fen".' in raw
    assert b'" .fen "' not in raw
    client.command("set charset latin1")
    client.send("set lang Fran\xe7ais")
    assert "Langue\u00a0: Français.".encode("latin-1") in client.raw_output()
    client.send_bytes(b"set lang Fran\xe7ais\r\n")  # Latin-1 input is understood too
    assert "Langue\u00a0: Français.".encode("latin-1") in client.raw_output()


# -- session end -----------------------------------------------------------------

@pytest.mark.parametrize("word", ["quit", "exit", "bye", "logout"])
def test_quit_and_its_aliases(server, word):
    client = logged_in(server)
    client.send(word)
    text = client.output()
    assert "Logging you out." in text and not text.endswith(PROMPT)
    assert not client.connected
    assert len(server.sessions) == 0


def test_disconnect_ends_the_examined_game_and_frees_its_number(server):
    a = logged_in(server)
    a.command("examine")
    assert len(server.directory) == 1
    a.disconnect()
    assert len(server.directory) == 0
    b = logged_in(server)
    assert "Game 1 (" in b.command("examine")


def test_shutdown_says_goodbye(server):
    a = logged_in(server)
    server.shutdown()
    assert "shutting down" in a.output()
    assert not a.connected


@given(st.text(max_size=200))
def test_decode_line_keeps_valid_utf8(text):
    expected = "".join(c for c in text if not (ord(c) < 32 and c != "\t" or 127 <= ord(c) < 160))
    assert decode_line(text.encode("utf-8")) == expected


@pytest.mark.slow
@given(st.binary(max_size=200))
def test_decode_line_never_raises(data):
    assert isinstance(decode_line(data), str)


_WORDS = st.sampled_from(["fen", "who", "examine", "e4", "c5", "backward", "set style 12",
                          "refresh", "xyz", "bsetup fen 8/8/8/8/8/8/4P3/4K2k w - - 0 1", "games"])
_ENDS = st.sampled_from([b"\r\n", b"\n", b"\r\0", b"\r", b"\r" + IAC + b"\xf1"])


@pytest.mark.slow
@given(st.lists(st.tuples(_WORDS, _ENDS), min_size=1, max_size=12), st.data())
@settings(max_examples=60, deadline=None)
def test_how_bytes_are_split_into_packets_does_not_matter(lines, data):
    stream = b"guest\r\n\r\n" + b"".join(w.encode() + e for w, e in lines)
    cuts = sorted(data.draw(st.lists(st.integers(0, len(stream)), max_size=8)))

    def run(chunks):
        client = connect(make_server(seed=3))
        for chunk in chunks:
            client.send_bytes(chunk)
        return client.raw_output()

    pieces = [stream[a:b] for a, b in zip([0, *cuts], [*cuts, len(stream)])]
    assert run(pieces) == run([stream])
