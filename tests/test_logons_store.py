"""logons, llogons, handles, pstat and saved notes/time zones on a real store.

The store is a real SQLite file in tmp_path, then a real PostgreSQL database
(``tests/pg_server.py``), driven by a private reactor
(:mod:`ficsfen.server.store.testing`); commands run in-process through the
telnet protocol, the server on a fake clock; one test runs ``ficsfen serve``
on loopback and restarts it.
"""

from __future__ import annotations

import pytest
from pg_server import open_store

from ficsfen.server.config import hash_password
from ficsfen.server.store import EndCode, GameEnd, GameStart
from ficsfen.server.store.logon_rows import LogonRecord, LogonRows
from ficsfen.server.store.player_reads import PairRecord
from ficsfen.server.store.testing import private_reactor, wait_for
from ficsfen.server.testing import ServerProcess, connect, make_server

PASSWORD = "s3cret"
T0 = 1_700_000_000.0


class Store:
    def __init__(self, path, accounts=("alice", "bob", "carol", "al_x")):
        self.reactor = private_reactor()
        self.store = open_store(path, reactor=self.reactor, synchronous="normal")
        self.hash = hash_password(PASSWORD, iterations=1000)
        for name in accounts:
            self.wait(self.store.add_account(name, self.hash))

    def wait(self, d):
        return wait_for(self.reactor, d)

    def settle(self):
        """Every write asked for so far is committed (a no-op write after them fires last)."""
        self.wait(self.store.save_settings("carol", {}))

    def finish(self, white, black, result, *, rated=False):
        game_id, d = self.store.start_game(GameStart(white, black, 300, 0, T0, rated=rated))
        self.wait(d)
        code = EndCode.AGREED if result == "1/2-1/2" else EndCode.RESIGNATION
        self.wait(self.store.end_game(game_id, GameEnd(result, "over", code, T0 + 60)))

    def close(self):
        self.wait(self.store.close())


@pytest.fixture
def store(data_location):
    s = Store(data_location)
    yield s
    s.close()


def server_on(store):
    server = make_server(store=store.store, idle_timeout=0)
    server.wall = lambda: T0
    return server


def login(server, name=None):
    client = connect(server)
    if name is None:
        client.login()
    else:
        client.login(name, PASSWORD)
    client.output()
    return client


# -- the store's rows --------------------------------------------------------------------------


def test_logon_rows_are_kept_bounded(store):
    rows = LogonRows(store.store._writer, store.store._reader, kept=5, prune_every=3)
    for i in range(12):
        rows.record_logon(f"p{i}", "on" if i % 2 == 0 else "off", T0 + i, "10.0.0.1")
    store.settle()
    kept = rows.logons(None, 100)
    # pruned after the 3rd, 6th, 9th and 12th rows: the last 5, and none older
    assert [r.name for r in kept] == ["p7", "p8", "p9", "p10", "p11"]
    assert kept[0] == LogonRecord("p7", T0 + 7, "off", "10.0.0.1")
    assert rows.logons("P8", 10) == [LogonRecord("p8", T0 + 8, "on", "10.0.0.1")]
    with pytest.raises(ValueError):
        rows.record_logon("p", "in", T0)
    with pytest.raises(ValueError):
        LogonRows(store.store._writer, store.store._reader, kept=0)


def test_handles_by_prefix_and_pair_records(store):
    assert store.store.handles("AL") == ["al_x", "alice"]
    assert store.store.handles("al_") == ["al_x"]  # "_" is a character, not a wildcard
    assert store.store.handles("zz") == []
    assert store.store.handles("a", limit=1) == ["al_x"]
    store.finish("alice", "bob", "1-0")
    store.finish("bob", "alice", "1-0")
    store.finish("bob", "alice", "0-1", rated=True)
    store.finish("alice", "bob", "1/2-1/2")
    store.finish("alice", "carol", "1-0")
    store.finish("alice", "bob", "*")  # aborted: not counted
    assert store.store.pair_record("Alice", "bob") == PairRecord("Alice", "bob", 1, 0, 0, 1, 1, 1)
    assert store.store.pair_record("bob", "alice") == PairRecord("bob", "alice", 0, 1, 0, 1, 1, 1)


# -- the commands -------------------------------------------------------------------------------


def test_logins_and_logouts_are_recorded_and_listed(store):
    server = server_on(store)
    alice = login(server, "alice")
    visitor = login(server)
    server.wall = lambda: T0 + 120
    visitor.send("quit")
    store.settle()
    alice.command("set tzone Europe/Paris")
    assert alice.command("llogons") == (
        "Tue Nov 14, 23:13 CET 2023: alice             login\n"
        f"Tue Nov 14, 23:13 CET 2023: {visitor.handle:<17} login\n"
        f"Tue Nov 14, 23:15 CET 2023: {visitor.handle:<17} logout\n")
    assert alice.command("llogons 1") == (
        f"Tue Nov 14, 23:15 CET 2023: {visitor.handle:<17} logout\n")
    assert alice.command("logons") == "Tue Nov 14, 23:13 CET 2023: alice             login\n"
    assert alice.command("logons bob") == "bob has not logged on.\n"
    assert alice.command("logons nobody") == "No player named \"nobody\" is logged in.\n"
    assert alice.command("llogons 0") == "Usage: llogons [COUNT]\n"
    # a guest may see their own logons, not the server's
    other = login(server)
    store.settle()
    assert other.command("llogons") == "Sorry, guest users may not use this command\n"
    assert other.command("logons").endswith(f"{other.handle:<17} login\n")
    # the address is kept for the operator (each FakeClient comes from one in 10.0.0.0/8)
    assert all(r.host.startswith("10.") for r in store.store.logons(None, 10))


def test_handles_and_pstat_commands(store):
    store.finish("alice", "bob", "1-0")
    store.finish("bob", "alice", "1/2-1/2")
    server = server_on(store)
    alice = login(server, "alice")
    visitor = login(server)
    assert visitor.command("handles al") == "-- Matches: 2 players --\nal_x   alice\n"
    assert visitor.command("handles ca") == "-- Matches: 1 player --\ncarol\n"
    assert visitor.command("handles q") == (
        "You need to specify at least two characters of the name.\n")
    assert visitor.command("handles qq") == "There is no player matching the name qq.\n"
    table = ("Record for alice vs. bob:\n"
             "                            wins     losses     draws\n"
             "                rated          0          0         0\n"
             "              unrated          1          0         1\n")
    assert visitor.command("pstat alice bob") == table
    assert alice.command("pstat bob") == table
    assert visitor.command("pstat alice") == (
        f"{visitor.handle} is not a registered player: only registered players have a "
        "record.\n")
    assert alice.command("pstat alice") == "A player has no record against themselves.\n"
    assert alice.command("pstat nobody") == "No player named \"nobody\" is logged in.\n"
    assert alice.command("pstat") == "You are not playing a game.\n"
    bob = login(server, "bob")
    alice.command("match bob 5 0")
    bob.command("accept")
    store.settle()  # the game is announced once its start is stored
    assert alice.command("pstat").startswith("Record for alice vs. bob:\n")


def test_notes_and_time_zone_are_saved_for_the_next_login(store):
    server = server_on(store)
    server.clock.advance(T0)
    alice = login(server, "alice")
    alice.command("set 2 Ask me for a game")
    alice.command("set tz Europe/Paris")
    alice.send("quit")
    store.settle()
    again = login(server, "alice")
    assert again.session.tzone == "Europe/Paris"
    assert again.command("finger").endswith("Timeseal   : Off\n\n 1:\n 2: Ask me for a game\n")
    again.send("quit")
    store.settle()
    bob = login(server, "bob")
    bob.command("set tzone UTC")
    # a registered player who is not logged in: the saved notes, after the date they left
    assert bob.command("finger alice") == (
        "Finger of alice:\n\nLast disconnected: Tue Nov 14, 22:13 UTC 2023\n"
        "\n 1:\n 2: Ask me for a game\n")


def test_without_a_store_nothing_is_listed():
    server = make_server(accounts={"alice": hash_password(PASSWORD, iterations=1000)})
    alice = login(server, "alice")
    assert alice.command("llogons") == "Sorry, no login information available.\n"
    assert alice.command("logons") == "Sorry, no login information available.\n"
    assert alice.command("handles al") == "-- Matches: 1 player --\nalice\n"
    assert alice.command("pstat alice alice") == "A player has no record against themselves.\n"


# -- over loopback, across a restart ----------------------------------------------------------


@pytest.mark.slow
def test_logons_survive_a_restart_of_the_server(data_location):
    path = data_location
    setup = Store(path, accounts=("alice",))
    setup.close()
    with ServerProcess("--data", str(path)) as server:
        with server.connect() as alice:
            assert alice.login("alice", PASSWORD) == "alice"
            alice.send("quit")
            alice.read_until("Goodbye!")
        with server.connect() as visitor:
            guest = visitor.login()
            visitor.send("quit")
            visitor.read_until("Goodbye!")
    with ServerProcess("--data", str(path)) as server, server.connect() as alice:
        alice.login("alice", PASSWORD)
        alice.command("set tzone UTC")
        lines = alice.command("llogons").strip("\n").split("\n")
        events = [(line.split(": ", 1)[1].split()[0], line.split()[-1]) for line in lines]
        # the login of this session may be committed yet or not: the earlier ones are
        assert events[:4] == [("alice", "login"), ("alice", "logout"), (guest, "login"),
                              (guest, "logout")]
        assert events[4:] in ([], [("alice", "login")])
        assert all(line.endswith(("login", "logout")) and " UTC 20" in line for line in lines)
