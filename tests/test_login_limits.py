"""Login throttling, lockouts, the password prompt that holds no name, per-address limits.

Protocol tests run on the fake clock of :func:`make_server` (delays are
clock advances, never waits); the end-to-end tests drive ``ficsfen serve``
on loopback with tiny delays and assert on its messages and its log.
"""

from __future__ import annotations

import socket
import time
from contextlib import contextmanager

import pytest
from twisted.internet.defer import Deferred
from twisted.logger import formatEvent, globalLogPublisher

from ficsfen.server import config as config_module
from ficsfen.server.config import ConfigError, from_mapping, hash_password
from ficsfen.server.limits import AddressLimits, LoginThrottle, address_key
from ficsfen.server.testing import ServerProcess, TelnetClient, connect, make_server

ACCOUNTS = {"alice": hash_password("secret", iterations=1000),
            "bob": hash_password("bobpw", iterations=1000)}


@contextmanager
def captured_log():
    events: list[dict] = []
    globalLogPublisher.addObserver(events.append)
    try:
        yield events
    finally:
        globalLogPublisher.removeObserver(events.append)


def lines(events: list[dict]) -> list[str]:
    return [formatEvent(e) for e in events]


def counting_checks(server) -> list[str]:
    """Count the passwords that reach the hash (the real check still runs)."""
    calls: list[str] = []
    real = server.accounts.check_password

    def check_password(name, password):
        calls.append(name)
        return real(name, password)

    server.accounts.check_password = check_password
    return calls


def try_password(client, name: str, password: str) -> str:
    client.output()
    client.send(name)
    text = client.output()
    if "password: " in text:
        client.send(password)
        text += client.output()
    return text


# -- growing delays -----------------------------------------------------------------


def test_each_wrong_password_doubles_the_wait_before_the_next_login_prompt():
    server = make_server(accounts=ACCOUNTS, password_delay=1.0, password_delay_max=5.0)
    client = connect(server)
    for delay in (1, 2, 4, 5, 5):  # doubled, then capped
        text = try_password(client, "alice", "wrong")
        assert "**** Invalid password! ****" in text and "login: " not in text
        server.clock.advance(delay - 0.5)
        assert "login: " not in client.output()
        server.clock.advance(0.5)
        assert client.output().endswith("login: ")


def test_lines_typed_during_the_wait_are_read_after_it():
    server = make_server(accounts=ACCOUNTS)
    client = connect(server)
    client.output()
    client.send_bytes(b"alice\nwrong\nalice\nsecret\n")
    assert "Invalid password" in client.output()
    assert server.sessions.get("alice") is None
    server.clock.advance(server.config.password_delay)
    assert "Starting FICS session as alice" in client.output()


def test_an_attempt_during_the_wait_is_refused_without_reaching_the_hash():
    server = make_server(accounts=ACCOUNTS)
    checks = counting_checks(server)
    try_password(connect(server), "alice", "wrong")
    other = connect(server)  # another address: the account's wait refuses it
    text = try_password(other, "alice", "secret")
    assert ("A wrong password for alice was typed a moment ago: wait 1 second, then log in "
            "again.") in text
    assert text.endswith("login: ") and server.sessions.get("alice") is None
    assert checks == ["alice"]
    server.clock.advance(1)
    assert "Starting FICS session as alice" in try_password(other, "alice", "secret")


def test_a_password_being_checked_makes_another_for_the_account_wait():
    server = make_server(accounts=ACCOUNTS)
    pending: list[Deferred] = []
    server.accounts.check_password = lambda name, password: pending.append(Deferred()) or pending[-1]
    first, second = connect(server), connect(server)
    try_password(first, "alice", "x")
    text = try_password(second, "alice", "y")
    assert "A password for alice is being checked already" in text
    assert len(pending) == 1
    pending[0].callback(False)
    server.clock.advance(1)
    try_password(second, "alice", "z")
    assert len(pending) == 2


def test_a_failure_counts_even_if_the_connection_leaves_during_the_check():
    server = make_server(accounts=ACCOUNTS)
    pending: list[Deferred] = []
    server.accounts.check_password = lambda name, password: pending.append(Deferred()) or pending[-1]
    client = connect(server)
    try_password(client, "alice", "guess")
    client.disconnect()
    pending[0].callback(False)
    assert "wait 1 second" in try_password(connect(server), "alice", "again")


# -- lockout ------------------------------------------------------------------------


def test_lockout_after_n_failures_then_it_ends_and_success_resets():
    server = make_server(accounts=ACCOUNTS, password_failures=3, password_lockout=600.0)
    client = connect(server, host="192.0.2.50")
    with captured_log() as events:
        for _ in range(3):
            text = try_password(client, "alice", "wrong")
            assert "**** Invalid password! ****" in text
            server.clock.advance(30)
    assert ("Too many wrong passwords for alice: its password logins are refused for 10 minutes. "
            "Try again then, or log in as a guest.") in text
    log = lines(events)
    assert sum("bad password for alice from 192.0.2.50:" in line for line in log) == 3
    assert any("(failure 3 for the account, 3 for the address" in line for line in log)
    assert any(line.startswith("locked out account alice for 600 s after 3 bad passwords")
               for line in log)
    assert any(line.startswith("locked out address 192.0.2.50 for 600 s") for line in log)
    # Locked: not even asked for the password, from anywhere, and the hash is spared.
    server.clock.advance(180)
    checks = counting_checks(server)
    elsewhere = connect(server)
    text = try_password(elsewhere, "alice", "secret")
    assert "password: " not in text
    assert "its password logins are refused for 7 minutes" in text  # 210 s of 600 gone
    assert text.endswith("login: ") and checks == []
    # Guests still get in from the locked address.
    assert connect(server, host="192.0.2.50").login().startswith("Guest")
    server.clock.advance(390)
    elsewhere = connect(server)
    assert "Starting FICS session as alice" in try_password(elsewhere, "alice", "secret")
    # Success reset the account: the next failure waits 1 second again.
    assert "**** Invalid password! ****" in try_password(connect(server), "alice", "no")
    assert "wait 1 second," in try_password(connect(server), "alice", "no")


def test_an_address_guessing_many_accounts_is_locked_out_and_nobody_else_is():
    server = make_server(accounts=ACCOUNTS, password_failures=4)
    guesser = connect(server, host="192.0.2.9")
    for name in ("alice", "bob", "alice", "bob"):
        text = try_password(guesser, name, "guess")
        server.clock.advance(30)
    assert ("Too many wrong passwords from your address: password logins from it are refused "
            "for") in text
    assert "refused" in try_password(connect(server, host="192.0.2.9"), "alice", "secret")
    # Alice's and bob's own failures (2 each) are below the limit: elsewhere they get in.
    assert "Starting FICS session as bob" in try_password(connect(server), "bob", "bobpw")


def test_an_exempt_address_is_not_throttled_by_address():
    server = make_server(accounts=ACCOUNTS, password_failures=2, exempt=("192.0.2.0/24",))
    for name in ("alice", "bob", "alice", "bob", "alice"):
        try_password(connect(server, host="192.0.2.5"), name, "guess")
        server.clock.advance(1000)  # past every window: only the address could still count
    assert "Starting FICS session as bob" in try_password(
        connect(server, host="192.0.2.5"), "bob", "bobpw")


def test_lockout_message_in_the_server_language():
    server = make_server(accounts=ACCOUNTS, language="fr", password_failures=1)
    text = try_password(connect(server), "alice", "wrong")
    assert "**** Invalid password! ****" in text  # parsed by clients: FICS's English
    assert ("Trop de mots de passe erronés pour alice\u202f: ses connexions par mot de passe "
            "sont refusées pendant 15 minutes.") in text


# -- the password prompt holds no name ------------------------------------------------


def test_alice_logs_in_while_a_squatter_sits_at_her_password_prompt():
    server = make_server(accounts=ACCOUNTS)
    squatter = connect(server)
    squatter.output()
    squatter.send("alice")
    assert squatter.output().endswith("password: ")
    alice = connect(server)
    assert alice.login("alice", "secret") == "alice"
    squatter.disconnect()  # leaving must not free a name it never held
    assert server.sessions.get("alice") is alice.session
    assert not server.accounts.in_use("bob") and server.accounts.check_name("alice") is not None


def test_two_at_the_password_prompt_whoever_is_right_first_gets_in():
    server = make_server(accounts=ACCOUNTS)
    first, second = connect(server), connect(server)
    for c in (first, second):
        c.output()
        c.send("alice")
    second.send("secret")
    assert server.sessions.get("alice") is second.session
    first.send("secret")
    assert server.sessions.get("alice") is first.session
    assert "has arrived - you can't both be logged in" in second.output()


def test_a_silent_password_prompt_times_out():
    server = make_server(accounts=ACCOUNTS, login_timeout=120.0)
    client = connect(server)
    client.send("alice")
    server.clock.advance(119)
    assert client.connected
    server.clock.advance(1)
    assert "Login timeout" in client.output() and not client.connected


# -- per-address limits ----------------------------------------------------------------


def test_connections_per_address_are_limited_with_a_message_and_one_log_line():
    server = make_server(connections_per_address=2, language="fr")
    with captured_log() as events:
        a, b = connect(server, host="192.0.2.1"), connect(server, host="192.0.2.1")
        third = connect(server, host="192.0.2.1")
        fourth = connect(server, host="192.0.2.1")
    assert a.connected and b.connected and not third.connected
    assert ("Désolé, 2 connexions sont déjà ouvertes depuis votre adresse, le maximum admis "
            "par ce serveur.") in third.output()
    assert sum("connections already open from 192.0.2.1" in line
               for line in lines(events)) == 1  # not one per refusal
    assert not fourth.connected
    assert connect(server, host="192.0.2.2").connected  # other addresses: unaffected
    a.disconnect()
    assert connect(server, host="192.0.2.1").connected


def test_logins_per_minute_per_address():
    server = make_server(logins_per_minute=3)
    for _ in range(3):
        connect(server, host="192.0.2.1").login()
    late = connect(server, host="192.0.2.1")
    late.output()
    late.send("guest")
    assert ("Sorry, too many logins from your address: this server allows 3 a minute. "
            "Try again in 60 seconds.") in late.output()
    assert not late.connected
    connect(server, host="192.0.2.2").login()
    server.clock.advance(60)
    connect(server, host="192.0.2.1").login()


def test_ipv6_peers_are_counted_by_their_64():
    assert address_key("2001:db8::1") == address_key("2001:db8::ffff") == "2001:db8::/64"
    assert address_key("::ffff:192.0.2.1") == "192.0.2.1"
    assert address_key("192.0.2.1") == "192.0.2.1"


@pytest.mark.slow
def test_stale_entries_are_swept_as_tables_grow():
    from twisted.internet.task import Clock
    clock = Clock()
    throttle = LoginThrottle(clock, window=10.0)
    for i in range(5000):
        throttle.failed(f"user{i}", f"10.0.{i >> 8 & 255}.{i & 255}")
        clock.advance(1)
    assert len(throttle.accounts) < 2100 and len(throttle.addresses) < 2100
    limits = AddressLimits(clock, logins_per_minute=5)
    for i in range(5000):
        limits.login_attempt(f"10.1.{i >> 8 & 255}.{i & 255}")
        clock.advance(1)
    assert len(limits._logins) < 2100


def test_limits_settings_are_read_and_checked():
    config = from_mapping({"limits": {"connections_per_address": 0, "logins_per_minute": 5,
                                      "exempt": ["127.0.0.1", "10.0.0.0/8"],
                                      "password_failures": 3, "password_lockout": 60}})
    assert config.connections_per_address == 0 and config.logins_per_minute == 5
    assert config.exempt == ("127.0.0.1/32", "10.0.0.0/8")
    assert config.password_failures == 3 and config.password_lockout == 60.0
    with pytest.raises(ConfigError) as e:
        from_mapping({"limits": {"exempt": ["localhost"]}})
    assert "setting limits.exempt: expected a list of addresses or networks" in e.value.render("en")
    assert "une liste d’adresses ou de réseaux" in e.value.render("fr")
    with pytest.raises(ConfigError):
        from_mapping({"limits": {"logins_per_minute": -1}})
    assert config_module.Config().connections_per_address == 50


# -- refused passwords in the log: summarised per address ----------------------------------


def test_refused_passwords_make_one_line_then_one_count_a_minute_per_address():
    server = make_server(accounts=ACCOUNTS, password_failures=1, logins_per_minute=0,
                         login_timeout=0)
    guesser = connect(server, host="192.0.2.66")
    with captured_log() as events:
        try_password(guesser, "alice", "wrong")  # locks alice out
        for _ in range(200):  # each refused at once: alice is locked
            assert "its password logins are refused" in try_password(guesser, "alice", "x")
        other = connect(server, host="192.0.2.67")
        try_password(other, "alice", "x")
        refused = [line for line in lines(events) if "refused a password" in line]
        assert len(refused) == 2  # the first from each address, in full, at once
        assert refused[0].startswith("refused a password for alice from 192.0.2.66:")
        assert refused[0].endswith("more refusals from this address are counted")
        server.clock.advance(59)
        assert not any("refused passwords from" in line for line in lines(events))
        server.clock.advance(1)
        counts = [line for line in lines(events) if "refused passwords from" in line]
        assert counts == ["199 refused passwords from 192.0.2.66 in the last 60 s"]
        for _ in range(30):
            try_password(guesser, "alice", "x")
        server.clock.advance(60)
        server.clock.advance(60)  # a quiet minute: nothing to say, the address is forgotten
        counts = [line for line in lines(events) if "refused passwords from" in line]
        assert counts[1:] == ["30 refused passwords from 192.0.2.66 in the last 60 s"]
        assert len(server.accounts.password_refusals) == 0
        try_password(guesser, "alice", "x")  # after the quiet minute: in full again
        refused = [line for line in lines(events) if "refused a password" in line]
        assert len(refused) == 3


def test_address_rate_settings_are_read_and_checked():
    config = from_mapping({"limits": {"address_seeks_per_minute": 0, "address_seek_burst": 3,
                                      "address_offers_per_minute": 5, "address_offer_burst": 6,
                                      "address_talk_per_minute": 7, "address_talk_burst": 8,
                                      "close_grace": 2.5}})
    assert (config.address_seeks_per_minute, config.address_seek_burst) == (0, 3)
    assert (config.address_offers_per_minute, config.address_offer_burst) == (5, 6)
    assert (config.address_talk_per_minute, config.address_talk_burst) == (7, 8)
    assert config.close_grace == 2.5
    for bad in ({"address_talk_burst": 0}, {"address_seeks_per_minute": -1},
                {"close_grace": -1}):
        with pytest.raises(ConfigError):
            from_mapping({"limits": bad})


# -- end to end, on loopback -------------------------------------------------------------


def _config(tmp_path, limits: str) -> str:
    path = tmp_path / "limits.toml"
    path.write_text(f'[limits]\n{limits}\n[accounts]\nalice = "{ACCOUNTS["alice"]}"\n')
    return str(path)


def _wait_for_log(process: ServerProcess, text: str, timeout: float = 60.0) -> list[str]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = [line for line in process.log_lines if text in line]
        if found:
            return found
        time.sleep(0.02)
    raise AssertionError(f"{text!r} not in the server log:\n" + "\n".join(process.log_lines))


def _read_either(client: TelnetClient, *markers: str) -> str:
    """Text up to whichever of ``markers`` comes first."""
    deadline = time.monotonic() + client.timeout
    while True:
        found = [(client.buffer.find(m.encode()), m) for m in markers if m.encode() in client.buffer]
        if found:
            return client.read_until(min(found)[1])
        client.sock.settimeout(max(0.01, deadline - time.monotonic()))
        chunk = client.sock.recv(65536)
        if not chunk:
            raise ConnectionError(f"closed before any of {markers!r}")
        client.buffer += chunk


def _read_to_eof(sock: socket.socket) -> str:
    data = b""
    sock.settimeout(60)
    while chunk := sock.recv(4096):
        data += chunk
    return data.decode("utf-8", "replace").replace("\r\n", "\n")


@pytest.mark.slow
def test_thirty_wrong_passwords_are_throttled_then_locked_out(tmp_path):
    conf = _config(tmp_path, "password_delay = 0.01\npassword_delay_max = 0.04\n"
                             "password_failures = 5\npassword_lockout = 600\n"
                             "logins_per_minute = 100")
    with ServerProcess("--config", conf) as server, server.connect() as c:
        invalid = refused = 0
        for _ in range(30):
            c.read_until("login: ")
            c.send("alice")
            text = _read_either(c, "password: ", "Try again then, or log in as a guest.")
            if text.endswith("password: "):
                c.send("wrong")
                text = c.read_until("****")
                text += c.read_until("\n")
                if "Invalid password" in text:
                    invalid += 1
            else:
                refused += 1
        assert (invalid, refused) == (5, 25)
        # The right password is refused too while locked, from this address.
        c.read_until("login: ")
        c.send("alice")
        assert "its password logins are refused for 10 minutes" in c.read_until("guest.")
        failures = _wait_for_log(server, "bad password for alice from 127.0.0.1")
        assert len(failures) == 5
        assert any("next attempt in 0.01 s" in line for line in failures)
        assert any("next attempt in 0.02 s" in line for line in failures)
        assert any("next attempt in 0.04 s" in line for line in failures)  # capped
        _wait_for_log(server, "locked out account alice for 600 s after 5 bad passwords")
        _wait_for_log(server, "locked out address 127.0.0.1")
        # The first refusal is logged in full; the 25 after it are counted (a line a minute).
        refusals = _wait_for_log(server, "refused a password for alice from 127.0.0.1:")
        assert len(refusals) == 1 and "locked by account" in refusals[0]


@pytest.mark.slow
def test_real_alice_logs_in_past_a_squatter_on_loopback(tmp_path):
    with ServerProcess("--config", _config(tmp_path, "")) as server:
        with server.connect() as squatter, server.connect() as alice:
            squatter.read_until("login: ")
            squatter.send("alice")
            squatter.read_until("password: ")
            assert alice.login("alice", "secret") == "alice"
            squatter.send("secret")  # the right one too: takes over, as on FICS
            assert "Starting FICS session as alice" in squatter.read_until("fics% ")
            assert "you can't both be logged in" in alice.read_until("logged in. ****")


@pytest.mark.slow
def test_connection_limit_per_address_on_loopback(tmp_path):
    with ServerProcess("--config", _config(tmp_path, "connections_per_address = 3")) as server:
        clients = [server.connect() for _ in range(3)]
        try:
            for c in clients:
                c.read_until("login: ")
            extra = socket.create_connection(("127.0.0.1", server.port), timeout=60)
            with extra:
                text = _read_to_eof(extra)
            assert ("Sorry, 3 connections are open from your address already, the most this "
                    "server allows. Close one and try again.") in text
            assert "login:" not in text
            _wait_for_log(server, "3 connections already open from 127.0.0.1")
            clients[0].send("guest")
            clients[0].read_until('":')
            clients[0].send("")
            clients[0].read_until("fics% ")
            clients[0].send("quit")
            _read_to_eof(clients[0].sock)  # the server closed it: no longer counted
            with TelnetClient("127.0.0.1", server.port) as again:
                assert again.login().startswith("Guest")
        finally:
            for c in clients:
                c.close()
