"""Notify lists: ``+notify``/``-notify``/``=notify``, arrival and departure notices,
``znotify``, ``gnotify`` and ``set notifiedby``, over the in-process client with the
exact bytes."""

from __future__ import annotations

import pytest

from ficsfen.server.config import hash_password
from ficsfen.server.store import SQLiteStore
from ficsfen.server.store.testing import private_reactor, wait_for
from ficsfen.server.testing import connect, make_server

NAMES = ("alice", "bob", "carol", "dora")
ACCOUNTS = {name: hash_password("pw", iterations=1000) for name in NAMES}


@pytest.fixture
def server():
    return make_server(accounts=ACCOUNTS)


def _client(server, name=None):
    client = connect(server)
    if name in NAMES:
        client.login(name, "pw")
    else:
        client.login(name)
    client.output()
    return client


def test_adding_removing_and_showing(server):
    alice = _client(server, "alice")
    _client(server, "bob")
    assert alice.command("+notify bob") == "[bob] added to your notify list.\n"
    assert alice.command("+notify bob") == "[bob] is already on your notify list.\n"
    assert alice.command("+not carol") == "[carol] added to your notify list.\n"  # offline account
    assert alice.command("=notify") == "-- notify list: 2 names --\nbob carol\n"
    assert alice.command("-notify carol") == "[carol] removed from your notify list.\n"
    assert alice.command("-notify carol") == "[carol] is not in your notify list.\n"
    assert alice.command("addlist notify dora") == "[dora] added to your notify list.\n"
    assert alice.command("showlist notify") == "-- notify list: 2 names --\nbob dora\n"


def test_refusals(server):
    alice = _client(server, "alice")
    guest = _client(server)
    assert alice.command("+notify alice") == "You cannot notify yourself.\n"
    assert alice.command("+gnotify alice") == "You cannot gnotify yourself.\n"
    assert alice.command(f"+notify {guest.handle}") == (
        "You cannot add an unregistered user to your notify list.\n")
    assert alice.command("+notify zed") == 'No player named "zed" is logged in.\n'
    assert alice.command("=notify") == "-- notify list: 0 names --\n"
    for line in ("+notify alice", "-notify alice", "=notify", "+gnotify alice", "=gnotify"):
        expected = "notify" if "gnotify" not in line else "gnotify"
        assert guest.command(line) == f"Only registered players can have {expected} lists.\n"
    guest.command("set lang fr")
    assert guest.command("=notify") == (
        "Seuls les joueurs enregistrés peuvent avoir une liste notify.\n")


def test_arrival_and_departure_notices_exact_bytes(server):
    alice = _client(server, "alice")
    alice.command("+notify bob")
    alice.command("+notify carol")
    carol = _client(server, "carol")
    assert alice.raw_output() == b"\r\nNotification: carol has arrived.\r\nfics% "
    bob = connect(server)
    bob.login("bob", "pw")
    assert bob.login_text.endswith(
        "**** Starting FICS session as bob ****\n\nfics% "
        "\nYour arrival was noted by: alice.\nfics% ")
    assert alice.raw_output() == b"\r\nNotification: bob has arrived.\r\nfics% "
    assert carol.output() == ""  # nobody else hears of it
    bob.send("quit")
    assert alice.raw_output() == b"\r\nNotification: bob has departed.\r\nfics% "
    carol.disconnect()
    assert alice.raw_output() == b"\r\nNotification: carol has departed.\r\nfics% "


class Stored:
    """A server on a fake clock with a real data file: lists saved with settings."""

    def __init__(self, path):
        self.reactor = private_reactor()
        self.store = SQLiteStore.open(path, reactor=self.reactor, synchronous="normal")
        for name, stored in ACCOUNTS.items():
            self.wait(self.store.add_account(name, stored))
        self.server = make_server(accounts=ACCOUNTS, store=self.store)

    def wait(self, d):
        return wait_for(self.reactor, d)

    def committed(self):
        """Every write asked for so far is committed (writes commit in order)."""
        self.wait(self.store.import_accounts({}))


@pytest.fixture
def stored(tmp_path):
    s = Stored(tmp_path / "data.sqlite3")
    yield s
    s.wait(s.store.close())


def test_lists_are_kept_and_present_company_is_named_at_login(stored):
    server = stored.server
    alice = _client(server, "alice")
    alice.command("+notify carol")
    alice.command("+notify dora")
    alice.command("+notify bob")
    alice.command("+gnotify bob")
    alice.send("quit")
    stored.committed()
    _client(server, "carol")
    bob = _client(server, "bob")
    alice = connect(server)
    alice.login("alice", "pw")
    assert alice.login_text.endswith("\nPresent company includes: bob carol.\nfics% ")
    assert bob.raw_output() == (
        b"\r\nNotification: alice has arrived and isn't on your notify list.\r\nfics% ")
    assert alice.command("=notify") == "-- notify list: 3 names --\ncarol dora bob\n"
    assert alice.command("=gnotify") == "-- gnotify list: 1 names --\nbob\n"
    assert server.lists.watching("notify", "dora") == {"alice"}


def test_notifiedby_is_kept_and_heard(stored):
    server = stored.server
    bob = _client(server, "bob")
    alice = _client(server, "alice")
    alice.command("+notify bob")
    alice.send("quit")
    assert bob.raw_output() == (
        b"\r\nNotification: alice has departed and isn't on your notify list.\r\nfics% ")
    assert bob.command("set notifiedby 0") == "notifiedby set to 0.\n"
    bob.send("quit")
    stored.committed()
    bob = _client(server, "bob")
    assert "notifiedby=0" in bob.command("variables")
    alice = _client(server, "alice")
    assert bob.output() == ""
    bob.command("set notifiedby")
    bob.command("+notify alice")  # both ways: the plain notice only, once
    alice.send("quit")
    assert bob.raw_output() == b"\r\nNotification: alice has departed.\r\nfics% "


def test_guests_are_never_announced(server):
    alice = _client(server, "alice")
    alice.command("+notify bob")
    guest = _client(server)
    guest.send("quit")
    assert alice.output() == ""


def test_french_person_reads_french_an_interface_reads_fics(server):
    alice, dora = _client(server, "alice"), _client(server, "dora")
    alice.command("set lang fr")
    dora.command("set lang fr")
    dora.command("iset pin 1")  # an interface: FICS's English, and its <wa> line unchanged
    alice.command("+notify bob")
    dora.command("+notify bob")
    _client(server, "bob")
    assert alice.output() == "\nNotification\u202f: bob vient d’arriver.\nfics% "
    out = dora.output()
    assert "\nNotification: bob has arrived.\nfics% " in out
    assert "\n<wa> bob " in out


def test_znotify(server):
    alice, bob = _client(server, "alice"), _client(server, "bob")
    assert alice.command("znotify") == (
        "No one from your notify list is logged on.\n"
        "No one logged in has you on their notify list.\n")
    alice.command("+notify bob")
    _client(server, "carol").command("+notify alice")
    assert alice.command("znotify") == (
        "Present company on your notify list:\n   bob.\n"
        "The following players have you on their notify list:\n   carol.\n")
    assert bob.command("znotl") == (
        "No one from your notify list is logged on.\n"
        "The following players have you on their notify list:\n   alice.\n")
    assert bob.command("znotify x") == "Usage: znotify\n"
    guest = _client(server)
    assert guest.command("znotify") == (
        "No one from your notify list is logged on.\n"
        "No one logged in has you on their notify list.\n")


def test_gnotify_announces_games_of_the_listed(server):
    alice, bob, carol = _client(server, "alice"), _client(server, "bob"), _client(server, "carol")
    assert alice.command("+gnotify bob") == "[bob] added to your gnotify list.\n"
    carol.command("+gnotify bob")
    bob.command("examine")  # an examined game is not announced
    assert alice.output() == ""
    bob.command("unexamine")
    bob.command("match carol 5 0")
    carol.command("accept")
    game = server.directory.game_of("bob")
    assert alice.raw_output() == (
        f"\r\nGame notification: {game.white} (----) vs. {game.black} (----) unrated blitz 5 0: "
        f"Game {game.number}\r\nfics% ").encode()
    assert "Game notification" not in carol.output()  # not of one's own game
    assert alice.command("=gnotify") == "-- gnotify list: 1 names --\nbob\n"
    assert alice.command("-gnotify bob") == "[bob] removed from your gnotify list.\n"


def test_lists_index_follows_changes(server):
    lists = server.lists
    lists.load("alice", {"notify": ["bob"], "gnotify": ["bob"]})
    assert lists.watching("notify", "BOB") == {"alice"}
    lists.remove("alice", "notify", "bob")
    assert lists.watching("notify", "bob") == set()
    assert lists.watching("gnotify", "bob") == {"alice"}
    lists.forget("alice")
    assert lists.watching("gnotify", "bob") == set()
