"""Operators against a real ``ficsfen serve --data FILE`` over loopback: bans refused at
login (a handle before its password, the client's real address for everyone, guests
included), kept across a restart; ``shutdown`` counting down, then stopping the server as
SIGTERM does, the game in progress adjourned in the data file.
"""

from __future__ import annotations

import sqlite3

import pytest

from ficsfen.server.config import hash_password
from ficsfen.server.testing import ServerProcess

pytestmark = pytest.mark.slow

PASSWORDS = {"alice": "ecila", "bob": "bob!", "carol": "lorac"}


@pytest.fixture
def config(tmp_path):
    path = tmp_path / "ficsfen.toml"
    path.write_text('[server]\nadmins = ["alice"]\n[accounts]\n' + "".join(
        f'{name} = "{hash_password(word, iterations=1000)}"\n' for name, word in PASSWORDS.items()))
    return path


def ask(client, line: str, answer: str) -> str:
    """Send ``line``; the text up to ``answer`` and the prompt after it."""
    client.send(line)
    text = client.read_until(answer)
    return text + client.read_until(client.prompt)


def refused(server, name: str) -> str:
    """What a connection typing ``name`` at ``login:`` reads before it is closed."""
    client = server.connect()
    client.read_until("login: ")
    client.send(name)
    text = ""
    try:
        while True:
            text += client.read_until("\n")
    except ConnectionError as closed:
        text += str(closed)
    finally:
        client.close()
    return text


def test_bans_refuse_logins_by_handle_and_by_the_real_address(tmp_path, config) -> None:
    data = tmp_path / "data.sqlite3"
    with ServerProcess("--config", str(config), "--data", str(data)) as server:
        alice = server.connect()
        assert alice.login("alice", PASSWORDS["alice"]) == "alice"
        assert "carol is banned" in ask(alice, "ban carol abuse", "refused.")
        text = refused(server, "carol")
        assert 'Player "carol" is banned on this server.' in text and "password" not in text
        assert "127.0.0.1/32 is banned" in ask(alice, "ban 127.0.0.1", "refused.")
        assert "Logins from your address are banned" in refused(server, "guest")
        assert "Logins from your address are banned" in refused(server, "bob")
        assert "no longer banned" in ask(alice, "unban 127.0.0.1", "banned.")
        guest = server.connect()
        assert guest.login().startswith("Guest")
        assert ask(guest, "ban bob", "rights.") == "ban: Insufficient rights.\nfics% "
        guest.close()
        alice.close()
    log = "\n".join(server.log_lines)
    assert "operator alice: ban handle carol (abuse)" in log
    assert "operator alice: unban address 127.0.0.1/32" in log
    with ServerProcess("--config", str(config), "--data", str(data)) as server:
        assert 'Player "carol" is banned on this server.' in refused(server, "carol")
        bob = server.connect()
        assert bob.login("bob", PASSWORDS["bob"]) == "bob"
        bob.close()


def test_shutdown_counts_down_then_stops_the_server_adjourning_the_game(tmp_path,
                                                                        config) -> None:
    data = tmp_path / "data.sqlite3"
    server = ServerProcess("--config", str(config), "--data", str(data))
    server.start()
    try:
        alice, bob, carol = (server.connect() for _ in range(3))
        for client, name in ((alice, "alice"), (bob, "bob"), (carol, "carol")):
            client.login(name, PASSWORDS[name])
        ask(bob, "match carol 3 0 white", "Issuing:")
        carol.read_until("Challenge:")
        carol.send("accept")
        bob.read_until("Creating:")
        out = ask(alice, "shutdown 0:03 maintenance", "because: maintenance. ****")
        assert "    **** Server shutdown ordered by alice. ****" in out
        assert "    **** Server going down in 0 minutes and 3 seconds. ****" in out
        told = bob.read_until("because: maintenance. ****")
        assert "    **** Server going down in 0 minutes and 3 seconds. ****" in told
        assert "Server going down in 0 minutes and 3" in ask(carol, "whenshut", "****")
        end = bob.read_until("Goodbye.")
        assert "    **** Server shutdown ordered by alice. ****" in end
        assert "{Game 1 (bob vs. carol) Game adjourned by server shutdown} *" in end
        assert server.wait() == 0  # it stopped by itself, as on SIGTERM
        for client in (alice, bob, carol):
            client.close()
    finally:
        server.stop()
    assert any("operator alice: shutdown in 3 s (maintenance)" in line
               for line in server.log_lines)
    with sqlite3.connect(data) as db:
        assert db.execute("SELECT status, adjourn_reason FROM games").fetchall() == [
            ("adjourned", "Game adjourned by server shutdown")]
