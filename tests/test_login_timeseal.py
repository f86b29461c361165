"""FICS login texts, type-ahead, logging in twice, %b, $$ and timeseal.

The timeseal lines here are made by :func:`encode`, an encoder written from
the documented format (not the server's decoder run backwards).
"""

from __future__ import annotations

import random

import chess
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from twisted.conch.telnet import ECHO, IAC, WILL
from twisted.internet.defer import Deferred
from twisted.internet.error import ConnectionDone
from twisted.python.failure import Failure
from twisted.internet.task import Clock

from ficsfen.server import timeseal
from ficsfen.server.config import hash_password
from ficsfen.server.ivars import IVAR_DEFAULTS, IVARS
from ficsfen.server.telnet import MAX_TYPE_AHEAD
from ficsfen.server.testing import connect, make_server

PROMPT = "fics% "
KEY = b"Timestamp (FICS) v1.0 - programmed by Henrik Gram."
ACCOUNTS = {"alice": hash_password("secret", iterations=1000),
            "zipa": hash_password("zpass1", iterations=1000)}


# -- an encoder from the documented format ---------------------------------------

def encode(text: bytes, stamp: int, *, offset: int = 7, filler: bytes = b"1") -> bytes:
    """One line as a timeseal v1 client sends it (with its ``\\n``)."""
    buf = bytearray(text + b"\x18" + str(stamp).encode() + b"\x19")
    while len(buf) % 12:
        buf.append(filler[len(buf) % len(filler)])
    for n in range(0, len(buf), 12):
        for a, b in ((0, 11), (2, 9), (4, 7)):
            buf[n + a], buf[n + b] = buf[n + b], buf[n + a]
    for n in range(len(buf)):
        buf[n] = (((buf[n] | 0x80) ^ KEY[(n + offset) % 50]) - 32) & 0xFF
    return bytes(buf) + bytes([0x80 | offset]) + b"\n"


HELLO = b"TIMESTAMP|tester|Linux test 6.1 x86_64|"


class Sealed:
    """A FakeClient that speaks timeseal with a stamp it controls."""

    def __init__(self, server, stamp: int = 5_000_000) -> None:
        self.client = connect(server)
        self.stamp = stamp
        self.rng = random.Random(1)
        self.client.output()
        self.send_raw(HELLO)

    def send_raw(self, text: bytes, stamp: int | None = None) -> None:
        self.client.send_bytes(encode(text, self.stamp if stamp is None else stamp,
                                      offset=self.rng.randrange(50)))

    def send(self, line: str, stamp: int | None = None) -> None:
        self.send_raw(line.encode(), stamp)

    def output(self) -> str:
        return self.client.output()

    def command(self, line: str, stamp: int | None = None) -> str:
        self.output()
        self.send(line, stamp)
        text = self.output()
        return text[: -len(PROMPT)] if text.endswith(PROMPT) else text

    def login(self, name: str = "guest", password: str = "") -> None:
        self.send(name)
        self.send(password)  # the password, or return at "Press return..."
        assert "Starting FICS session" in self.output()


@pytest.fixture
def server():
    return make_server(accounts=ACCOUNTS)


def guest(server, name=None):
    client = connect(server)
    client.output()
    client.login(name)
    return client


def registered(server, name="alice", password="secret"):
    client = connect(server)
    client.output()
    client.send(name)
    client.send(password)
    assert f"Starting FICS session as {name} ****" in client.output()
    return client


def deferred_check(server):
    """Make the password check wait for the test to fire it (as the thread pool does)."""
    pending: list[tuple[Deferred, str, str]] = []

    def check_password(name, password):
        d = Deferred()
        pending.append((d, name, password))
        return d

    server.accounts.check_password = check_password
    return pending


# -- FICS login texts ---------------------------------------------------------------

def test_registered_name_texts_then_hidden_password_prompt(server):
    client = connect(server)
    client.output()
    client.send("alice")
    assert client.raw_output() == (
        b'"alice" is a registered name.  If it is yours, type the password.\r\n'
        b"If not, just hit return to try another name.\r\n\r\n" + IAC + WILL + ECHO + b"password: ")


def test_invalid_password_goes_back_to_login(server):
    client = connect(server)
    client.output()
    client.send("alice")
    client.send("wrong")
    text = client.output()
    assert "**** Invalid password! ****\n" in text and "login: " not in text
    server.clock.advance(server.config.password_delay)  # login: again after a delay
    assert client.output() == "\nlogin: "
    assert server.sessions.get("alice") is None


def test_return_at_the_password_prompt_tries_another_name(server):
    client = connect(server)
    client.output()
    client.send("alice")
    client.output()
    client.send("")
    text = client.output()
    assert "Invalid password" not in text and text.endswith("login: ")
    client.login("bobby")
    assert client.handle == "bobby"


def test_unregistered_name_texts():
    server = make_server(language="fr")  # client-parsed texts stay FICS's English
    client = connect(server)
    client.output()
    client.send("bobby")
    text = client.output()
    assert ('"bobby" is not a registered name.  You may play unrated games as a guest.\n'
            '\nPress return to enter the server as "bobby": ') in text
    client.send("")
    assert "**** Starting FICS session as bobby(U) ****" in client.output()


def test_invalid_password_is_english_on_a_french_server():
    server = make_server(language="fr", accounts=ACCOUNTS)
    client = connect(server)
    client.output()
    client.send("alice")
    client.send("nope")
    assert "**** Invalid password! ****" in client.output()


# -- type-ahead -----------------------------------------------------------------------

def test_lines_typed_after_the_password_run_once_logged_in(server):
    pending = deferred_check(server)
    client = connect(server)
    client.output()
    client.send_bytes(b"alice\nsecret\nexamine\nwho\n")
    assert "Starting" not in client.output()
    ((d, name, password),) = pending
    assert (name, password) == ("alice", "secret")
    d.callback(True)
    text = client.output()
    start = text.index("**** Starting FICS session as alice ****")
    examined = text.index("Game 1 (alice vs. alice)") if "Game 1 (alice" in text else text.index(
        "alice", start + 40)
    assert start < examined < text.index("----#alice")  # examine ran, then who (alice examining)
    assert server.directory.game_of("alice") is not None


def test_xboard_login_bytes_with_the_password_typed_ahead(server):
    pending = deferred_check(server)
    client = connect(server)
    client.output()
    # xboard sends its name and password at once, then its setup lines
    client.send_bytes(b"zipa\n")
    client.send_bytes(b"zpass1\n")
    client.send_bytes(b"style 12\r\nwho\r\n")
    pending[0][0].callback(True)
    text = client.output()
    assert "**** Starting FICS session as zipa ****" in text
    assert "---- zipa" in text.split("Starting FICS session")[1]
    assert server.sessions.get("zipa").style == 12


def test_type_ahead_after_a_wrong_password_is_read_as_the_dialogue(server):
    pending = deferred_check(server)
    client = connect(server)
    client.output()
    client.send_bytes(b"alice\nwrong\nalice\nsecret\nwho\n")
    pending[0][0].callback(False)
    assert "**** Invalid password! ****" in client.output()
    assert len(pending) == 1  # the typed-ahead lines wait for the delay to end
    server.clock.advance(server.config.password_delay)
    (_, name, password) = pending[1]
    assert (name, password) == ("alice", "secret")
    pending[1][0].callback(True)
    assert "---- alice" in client.output()


def test_type_ahead_is_bounded_and_the_player_told(server):
    pending = deferred_check(server)
    client = connect(server)
    client.output()
    extra = 7
    client.send_bytes(b"alice\nsecret\n" + b"fen\n" * (MAX_TYPE_AHEAD + extra))
    pending[0][0].callback(True)
    text = client.output()
    assert f"{extra} lines typed before your login was complete were ignored." in text
    assert text.count("You are not playing, examining or observing a game.") == MAX_TYPE_AHEAD


def test_connection_lost_while_checking_drops_the_queue(server):
    pending = deferred_check(server)
    client = connect(server)
    client.output()
    client.send_bytes(b"alice\nsecret\nwho\n")
    # a real reason: the telnet layer fails its pending ECHO negotiation with it
    client.protocol.connectionLost(Failure(ConnectionDone()))
    pending[0][0].callback(True)
    assert server.sessions.get("alice") is None


@pytest.mark.slow
def test_type_ahead_over_a_real_socket(tmp_path):
    """printf 'alice\\nsecret\\nwho\\n' | telnet: the password is hashed in a thread."""
    from ficsfen.server.testing import ServerProcess

    config = tmp_path / "accounts.toml"
    config.write_text(f'[accounts]\nalice = "{hash_password("secret", iterations=20000)}"\n'
                      f'zipa = "{hash_password("zpass1", iterations=20000)}"\n')
    with ServerProcess("--config", str(config)) as process:
        with process.connect() as c:
            c.read_until("login: ")
            c.send_bytes(b"alice\nsecret\nwho\n")
            text = c.read_until("fics% ")
            assert "**** Starting FICS session as alice ****" in text
            assert "---- alice" in c.read_until("fics% ")
        with process.connect() as c:
            c.read_until("login: ")
            c.send_bytes(b"zipa\nzpass1\nstyle 12\r\nwho\r\n")
            assert "**** Starting FICS session as zipa ****" in c.read_until("fics% ")
            c.read_until("fics% ")  # style 12
            assert "---- zipa" in c.read_until("fics% ")


# -- logging in twice -----------------------------------------------------------------

def test_second_login_closes_the_first_and_keeps_its_game(server):
    old = registered(server)
    bob = guest(server, "bob")
    old.command("match bob 5 0 white")
    bob.command("accept")
    old.command("e4")
    bob.command("e5")
    game = server.directory.game_of("alice")
    new = connect(server)
    new.output()
    new.send("ALICE")
    new.send("secret")
    told = old.output()
    assert "**** alice has arrived - you can't both be logged in. ****" in told
    assert not old.connected
    text = new.output()
    assert "**** alice is already logged in - kicking them out. ****" in text
    assert "**** Starting FICS session as alice ****" in text
    assert "You are still playing game 1 against bob." in text
    assert "Game 1 (alice vs. bob)" in text  # the board
    # the old connection's end must not log the new session out
    old.protocol.connectionLost(Failure(ConnectionDone()))
    assert server.sessions.get("alice") is new.session
    assert server.directory.game_of("alice") is game and game.result is None
    assert "adjourned" not in bob.output()
    new.command("Nf3")
    assert game.tracker.ply == 3
    assert "Nf3" in bob.output()


def test_a_second_login_with_a_wrong_password_changes_nothing(server):
    old = registered(server)
    intruder = connect(server)
    intruder.output()
    intruder.send("alice")
    intruder.send("guess")
    assert "Invalid password" in intruder.output()
    assert old.connected and server.sessions.get("alice") is old.session


# -- %b at the login prompt -----------------------------------------------------------

def test_percent_b_sets_ivars_by_position_before_login(server):
    client = connect(server)
    client.output()
    bits = "0000001" + "0" * 10 + "1"  # block (6) and ms (17)
    client.send("%b" + bits)
    assert client.output() == "#Ivars set.\nlogin: "
    client.login()
    ivars = client.session.ivars
    assert ivars["block"] and ivars["ms"]
    assert [name for name in IVARS if ivars[name] != IVAR_DEFAULTS[name]] == ["block", "ms"]


def test_percent_b_with_all_35_digits(server):
    client = connect(server)
    client.output()
    client.send("%b" + "1" * len(IVARS))
    assert "#Ivars set." in client.output()
    client.login()
    assert all(client.session.ivars.values())


@pytest.mark.parametrize("junk, reason", [
    ("%b01x1", 'must be followed by the digits 0 and 1 only'),
    ("%b 0101", 'must be followed by the digits 0 and 1 only'),
    ("%b" + "0" * 36, "sets at most 35 interface variables; you gave 36 digits"),
])
def test_percent_b_junk_is_refused(server, junk, reason):
    client = connect(server)
    client.output()
    client.send(junk)
    text = client.output()
    assert reason in text and text.endswith("login: ")
    client.login()
    assert client.session.ivars == IVAR_DEFAULTS


# -- $$ is not activity ---------------------------------------------------------------

@pytest.mark.parametrize("chunked", [False, True])
def test_double_dollar_lines_do_not_reset_the_idle_timer(chunked):
    clock = Clock()
    server = make_server(clock=clock, idle_timeout=600)
    client = guest(server)
    clock.advance(500)
    if chunked:  # two lines in one packet: the line-by-line path
        client.send_bytes(b"$$who\r\n$$who\r\n")
    else:  # one line: the fast path
        client.send("$$who")
    clock.advance(101)
    assert "Auto-logout because you were idle" in client.output()
    assert not client.connected


# -- timeseal: the codec ---------------------------------------------------------------

@given(text=st.binary().map(lambda b: bytes(c & 0x7F for c in b)),
       stamp=st.integers(0, 10**13), offset=st.integers(0, 49),
       filler=st.binary(min_size=1, max_size=12).map(
           lambda b: bytes(0x30 + c % 10 for c in b)))
def test_decode_undoes_the_documented_encoding(text, stamp, offset, filler):
    line = encode(text, stamp, offset=offset, filler=filler)
    assert b"\n" not in line[:-1] and b"\r" not in line and b"\xff" not in line
    decoded = timeseal.decode(line[:-1])
    assert decoded.text == text and decoded.stamp == stamp % 10**7


@given(st.binary(max_size=300))
def test_decode_never_fails_but_with_timeseal_error(data):
    try:
        line = timeseal.decode(data)
    except timeseal.TimesealError as e:
        assert e.render("en").startswith("Bad timeseal line") and e.render("fr")
    else:
        assert line.stamp < 10**7
    timeseal.detect(data)  # never raises


def test_detect_only_a_hello():
    assert timeseal.detect(encode(HELLO, 1)[:-1])[1] == timeseal.PING
    assert timeseal.detect(encode(b"TIMESEAL2|x|y|", 1)[:-1])[1] == timeseal.PING_V2
    assert timeseal.detect(encode(b"guest", 1)[:-1]) is None
    assert timeseal.detect(b"guest") is None
    assert timeseal.detect("élodie1234é".encode()) is None


@pytest.mark.parametrize("received, moved, wall_ms, expected", [
    (1_000, 11_000, 10_300, 10_000),
    (9_999_000, 9_000, 10_400, 10_000),  # the stamps wrapped around 10**7
    (5_000, 4_000, 200, -1_000),  # moved before the board arrived
    (0, 0, 10**7 + 5, 10**7),  # a move over 2 h 46 min long: a whole turn of the stamps
])
def test_client_elapsed_ms(received, moved, wall_ms, expected):
    assert timeseal.client_elapsed_ms(received, moved, wall_ms) == expected


@pytest.mark.parametrize("client, wall, expected", [
    (10.0, 10.6, 10.0),  # 0.6 s of lag forgiven
    (1.0, 10.6, 9.6),  # at most 1 s forgiven
    (20.0, 10.6, 10.6),  # never more than the wall clock
    (-3.0, 0.5, 0.0),
])
def test_lag_charge(client, wall, expected):
    assert timeseal.lag_charge(client, wall, 1.0) == pytest.approx(expected)


# -- timeseal: the session ------------------------------------------------------------

def test_timeseal_login_and_commands(server):
    alice = Sealed(server)
    assert alice.output() == ""  # the hello is not a login name
    alice.login()
    session = alice.client.session
    assert session.timeseal and session.move_timer is not None
    assert "++++ Guest" in alice.command("who")


def test_timeseal_registered_login_with_type_ahead(server):
    pending = deferred_check(server)
    alice = Sealed(server)
    alice.send("alice")
    alice.send("secret")
    alice.send("who")
    pending[0][0].callback(True)
    text = alice.output()
    assert "**** Starting FICS session as alice ****" in text and "---- alice" in text
    assert alice.client.session.timeseal


def test_percent_b_over_timeseal(server):
    alice = Sealed(server)
    alice.send("%b0000001")
    assert alice.output() == "#Ivars set.\nlogin: "
    alice.login()
    assert alice.client.session.ivars["block"]


def test_bad_timeseal_lines_are_refused_and_the_session_goes_on(server):
    alice = Sealed(server)
    alice.client.send_bytes(b"guest\r\n")  # plain text after the hello
    text = alice.output()
    assert "Bad timeseal line" in text and text.endswith("login: ")
    alice.login()
    good = encode(b"who", 1)
    for bad in (b"\x90" * 13 + b"\n", good[:-2] + b"\xf0\n", good[:-1] + b"\x7f\n",
                good[:5] + good[6:], b"x" * 2000 + b"\n"):
        alice.client.send_bytes(bad)
        text = alice.output()
        assert ("Bad timeseal line" in text or "longer than" in text) and text.endswith(PROMPT)
    assert "++++ Guest" in alice.command("who")


@settings(max_examples=60, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.binary(max_size=400), sealed=st.booleans())
def test_any_bytes_in_the_login_dialogue_harm_nobody(server, data, sealed):
    other = guest(server)
    client = connect(server)
    if sealed:
        client.send_bytes(encode(HELLO, 3))
    client.send_bytes(data)
    client.send_bytes(b"\r\n")
    assert "++++ " in other.command("who")
    fresh = connect(server)
    fresh.output()
    fresh.login()


# -- timeseal: pings and move times ---------------------------------------------------

@pytest.fixture
def table():
    """alice (timeseal, White) against bob (plain), 5 0, on a fake clock, both first moves made."""
    clock = Clock()
    server = make_server(clock=clock, accounts=ACCOUNTS)
    alice = Sealed(server, stamp=1_000)
    alice.login("alice", "secret")
    bob = guest(server, "bob")
    alice.command("match bob 5 0 white")
    bob.command("accept")
    alice.command("e4")
    bob.command("e5")  # alice's clock starts: board and ping go to her
    game = server.directory.game_of("alice")
    return clock, server, alice, bob, game


def test_ping_follows_the_board_of_the_player_to_move(table):
    clock, server, alice, bob, game = table
    raw = alice.client.raw_output()
    assert raw.endswith(timeseal.PING) and b"Game 1 (alice vs. bob)" in raw
    assert raw.index(b"e5") < raw.index(b"[G]")
    assert timeseal.PING not in bob.raw_output()


def test_ping_reply_is_not_a_command(table):
    clock, server, alice, bob, game = table
    alice.output()
    alice.send_raw(timeseal.PING_REPLY, stamp=2_000)
    assert alice.output() == ""
    assert game.tracker.ply == 2


def _move_with_stamps(table, *, reply_at, move_at, lag_out=0.3, think=10.0, lag_in=0.3,
                      reply=True):
    clock, server, alice, bob, game = table
    clock.advance(lag_out)
    if reply:
        alice.send_raw(timeseal.PING_REPLY, stamp=reply_at)
    clock.advance(think + lag_in)
    alice.command("d4", stamp=move_at)
    assert game.tracker.ply == 3
    return game


def test_move_charged_by_client_stamps_lag_excluded(table):
    game = _move_with_stamps(table, reply_at=50_000, move_at=60_000)
    assert game.move_times[-1] == pytest.approx(10.0)
    assert game.clock.remaining(chess.WHITE) == pytest.approx(300 - 10.0)
    assert table[2].client.session.lag_ms == 600


def test_wall_clock_bound_limits_a_client_claiming_little_time(table):
    game = _move_with_stamps(table, reply_at=50_000, move_at=51_000)  # claims 1 s of 10.6
    assert game.move_times[-1] == pytest.approx(10.6 - 1.0)
    assert game.clock.remaining(chess.WHITE) == pytest.approx(300 - 9.6)


def test_a_client_never_gains_more_than_wall_clock(table):
    game = _move_with_stamps(table, reply_at=50_000, move_at=90_000)  # claims 40 s of 10.6
    assert game.move_times[-1] == pytest.approx(10.6)
    assert game.clock.remaining(chess.WHITE) == pytest.approx(300 - 10.6)


def test_stamps_wrapping_around(table):
    game = _move_with_stamps(table, reply_at=9_995_000, move_at=5_000)
    assert game.move_times[-1] == pytest.approx(10.0)


def test_no_reply_to_the_ping_forgives_only_the_allowance(table):
    game = _move_with_stamps(table, reply_at=0, move_at=60_000, reply=False)
    assert game.move_times[-1] == pytest.approx(10.6 - 1.0)


def test_clock_charges_what_it_is_told_within_the_time_it_ran():
    from ficsfen.server.clock import ChessClock, TimeControl

    reactor = Clock()
    clock = ChessClock(time_control=TimeControl(5, 0), reactor=reactor)
    clock.moved(chess.WHITE)
    clock.moved(chess.BLACK)
    reactor.advance(10)
    assert clock.moved(chess.WHITE, used=4.0) == 4.0
    assert clock.remaining(chess.WHITE) == pytest.approx(296)
    reactor.advance(10)
    assert clock.moved(chess.BLACK, used=60.0) == 10.0  # never more than it ran
    reactor.advance(10)
    assert clock.moved(chess.WHITE, used=-5.0) == 0.0
    assert clock.remaining(chess.WHITE) == pytest.approx(296)


def test_lag_compensation_is_configurable():
    clock = Clock()
    server = make_server(clock=clock, accounts=ACCOUNTS, lag_compensation=0.25)
    alice = Sealed(server, stamp=1_000)
    alice.login("alice", "secret")
    bob = guest(server, "bob")
    alice.command("match bob 5 0 white")
    bob.command("accept")
    alice.command("e4")
    bob.command("e5")
    game = _move_with_stamps((clock, server, alice, bob, server.directory.game_of("alice")),
                             reply_at=50_000, move_at=60_000)
    assert game.move_times[-1] == pytest.approx(10.6 - 0.25)


def test_plain_players_are_charged_by_the_server_clock(table):
    clock, server, alice, bob, game = table
    alice.command("d4")
    clock.advance(7.5)
    bob.command("d5")
    assert game.move_times[-1] == pytest.approx(7.5)
    assert game.clock.remaining(chess.BLACK) == pytest.approx(300 - 7.5)


# -- over a real socket ---------------------------------------------------------------

@pytest.mark.slow
def test_timeseal_client_over_loopback_from_login_to_a_move():
    from ficsfen.server.testing import ServerProcess

    with ServerProcess() as process, process.connect() as sealed, process.connect() as plain:
        sealed.read_until("login: ")
        sealed.send_bytes(encode(HELLO, 100) + encode(b"guest", 110))
        handle = sealed.read_until('":').rsplit('"', 2)[1]
        sealed.send_bytes(encode(b"", 120))
        sealed.read_until("fics% ")
        plain.login()
        plain.send(f"match {handle} 5 0 white")
        sealed.read_until("Challenge:")
        sealed.send_bytes(encode(b"accept", 200))
        sealed.read_until("Creating unrated")
        sealed.read_until("fics% ")
        plain.read_until("Creating unrated")
        plain.send("e4")
        text = sealed.read_bytes_until(timeseal.PING)  # the board, then the ping
        assert b"'e4" in text and text.endswith(b"fics% " + timeseal.PING)
        sealed.send_bytes(encode(timeseal.PING_REPLY, 300))
        sealed.send_bytes(encode(b"e5", 1_300))
        assert "Black Moves : 'e5" in sealed.read_until("fics% ")
        assert "Black Moves : 'e5" in plain.read_until("Black Moves : 'e5")


def test_lag_compensation_in_the_configuration_file(tmp_path):
    from ficsfen.server.config import ConfigError, load

    path = tmp_path / "ficsfen.toml"
    path.write_text("[limits]\nlag_compensation = 0.5\n")
    assert load(path).lag_compensation == 0.5
    path.write_text("[limits]\nlag_compensation = -1\n")
    with pytest.raises(ConfigError):
        load(path)
