"""A real ``ficsfen serve --listen haproxy:tcp:...`` over loopback: clients arrive through
a "proxy" (this test, writing the PROXY header a proxy writes) that claims addresses from
the documentation ranges; the server logs, limits, bans, throttles and shows the claimed
address, never the proxy's (127.0.0.1)."""

from __future__ import annotations

import re
import sqlite3

import pytest

from ficsfen.server.config import hash_password
from ficsfen.server.testing import ServerProcess, TelnetClient
from tests.test_proxied import v2_header

pytestmark = pytest.mark.slow

PROXY = "haproxy:tcp:0:interface=127.0.0.1"
PASSWORDS = {"alice": "ecila", "bob": "bob!", "carol": "lorac"}


def config_file(tmp_path, limits: str = "") -> str:
    path = tmp_path / "ficsfen.toml"
    path.write_text('[server]\nadmins = ["alice"]\n[limits]\n' + limits + '[accounts]\n' + "".join(
        f'{name} = "{hash_password(word, iterations=1000)}"\n' for name, word in PASSWORDS.items()))
    return str(path)


def proxied(server, source: str, port: int = 5555, *, version: int = 1) -> TelnetClient:
    """A connection to the PROXY port whose header claims ``source``:``port``."""
    client = TelnetClient("127.0.0.1", server.ports[PROXY], timeout=server.timeout)
    if version == 1:
        client.send_bytes(f"PROXY TCP4 {source} 127.0.0.1 {port} 5000\r\n".encode())
    else:
        client.send_bytes(v2_header(source, port))
    return client


def until_closed(client: TelnetClient) -> str:
    """Everything ``client`` reads until the server closes it."""
    text = ""
    try:
        while True:
            text += client.read_until("\n")
    except ConnectionError as closed:
        text += str(closed)
    finally:
        client.close()
    return text


def ask(client, line: str, answer: str) -> str:
    client.send(line)
    return client.read_until(answer) + client.read_until(client.prompt)


def test_the_claimed_address_is_logged_banned_and_shown_to_operators(tmp_path) -> None:
    data = tmp_path / "data.sqlite3"
    with ServerProcess("--config", config_file(tmp_path), "--data", str(data), "--listen", PROXY,
                       listeners=2) as server:
        alice = server.connect()  # directly, from 127.0.0.1
        assert alice.login("alice", PASSWORDS["alice"]) == "alice"
        bob = proxied(server, "203.0.113.7")
        assert bob.login("bob", PASSWORDS["bob"]) == "bob"
        assert "Address    : 203.0.113.7\n" in ask(alice, "finger bob", "Timeseal")
        assert "Address" not in ask(bob, "finger alice", "Timeseal")  # operators only
        assert "203.0.113.0/24 is banned" in ask(alice, "ban 203.0.113.0/24", "refused.")
        refused = proxied(server, "203.0.113.8", version=2)
        refused.read_until("login: ")
        refused.send("guest")
        assert "Logins from your address are banned" in until_closed(refused)
        other = proxied(server, "198.51.100.9", 6001, version=2)
        guest = other.login()
        assert guest.startswith("Guest")
        assert "Address    : 198.51.100.9\n" in ask(alice, f"finger {guest}", "Timeseal")
        direct = server.connect()  # the proxy's own address is not banned
        assert direct.login().startswith("Guest")
        for client in (alice, bob, other, direct):
            client.close()
    log = "\n".join(server.log_lines)
    assert "connection from 203.0.113.7:5555" in log
    assert "connection from 203.0.113.8:5555" in log
    assert "connection from 198.51.100.9:6001" in log
    assert re.search(r"login bob from 203\.0\.113\.7:5555", log)
    assert re.search(r"refused .*203\.0\.113\.8", log)
    with sqlite3.connect(data) as db:
        hosts = {key: host for key, host in db.execute("SELECT key, host FROM logons WHERE event = 'on'")}
    assert (hosts["alice"], hosts["bob"], hosts[guest.lower()]) == ("127.0.0.1", "203.0.113.7", "198.51.100.9")


def test_per_address_limits_and_throttling_count_claimed_addresses(tmp_path) -> None:
    limits = "connections_per_address = 2\npassword_failures = 1\n"
    with ServerProcess("--config", config_file(tmp_path, limits), "--listen", PROXY,
                       listeners=2) as server:
        # three connections through one proxy, two claimed addresses
        first, second = proxied(server, "203.0.113.7", 1), proxied(server, "203.0.113.7", 2)
        for client in (first, second):
            client.read_until("login: ")
        over = proxied(server, "203.0.113.7", 3)
        assert "2 connections are open from your address" in until_closed(over)
        elsewhere = proxied(server, "198.51.100.9", 4)  # logs in below
        # a wrong password from 203.0.113.7 locks that address (and carol) out ...
        first.send("carol")
        first.read_until("password: ")
        first.send("wrong")
        assert "Too many wrong passwords" in first.read_until("login: ")
        second.send("bob")  # not even asked its password
        assert "Too many wrong passwords from your address" in second.read_until("login: ")
        # ... not the proxy's other clients
        assert elsewhere.login("bob", PASSWORDS["bob"]) == "bob"
        for client in (first, second, elsewhere):
            client.close()
    log = "\n".join(server.log_lines)
    assert "refused 203.0.113.7:3: 2 connections already open from 203.0.113.7" in log
    assert "bad password for carol from 203.0.113.7:1" in log
    assert "locked out address 203.0.113.7" in log
    assert "127.0.0.1" not in "\n".join(line for line in server.log_lines if "203.0.113" in line)


def test_a_client_without_a_header_is_closed_without_a_banner(tmp_path) -> None:
    with ServerProcess("--listen", PROXY, listeners=2) as server:
        client = TelnetClient("127.0.0.1", server.ports[PROXY], timeout=server.timeout)
        client.send("guest")
        assert "Welcome" not in until_closed(client)
        direct = server.connect()
        assert direct.login().startswith("Guest")
        direct.close()
    assert any("no PROXY protocol header" in line for line in server.log_lines)


def test_the_web_side_behind_the_proxy_sees_the_claimed_address(tmp_path) -> None:
    with ServerProcess("--web", PROXY, listeners=2) as server:
        client = proxied(server, "203.0.113.7", 7777)
        client.send_bytes(b"GET / HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
        assert until_closed(client).startswith("HTTP/1.1 200 OK")
    assert any('"203.0.113.7" - - [' in line and '"GET / HTTP/1.1" 200' in line
               for line in server.log_lines)
