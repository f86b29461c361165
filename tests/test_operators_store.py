"""Operators with a real SQLite store: the admin flag, kept muzzles, bans across a restart,
news items.

The server runs on a fake clock; the store's writer answers through a private
real reactor, which the tests iterate (``wait_for``) until writes are committed.
"""

from __future__ import annotations

import random
import time
from dataclasses import replace

import pytest
from pg_server import open_store
from twisted.internet.task import Clock

from ficsfen.server.commands.news import index_line
from ficsfen.server.config import Config, hash_password
from ficsfen.server.server import FicsServer
from ficsfen.server.store import NewsItem
from ficsfen.server.store.testing import private_reactor, wait_for
from ficsfen.server.testing import connect

PASSWORDS = {"alice": "ecila", "bob": "bob!", "carol": "lorac"}
ACCOUNTS = {name: hash_password(word, iterations=1000) for name, word in PASSWORDS.items()}


class Site:
    """A server on ``path``: alice an operator by the store's flag (not the configuration)."""

    def __init__(self, path, reactor, *, admin: bool = True) -> None:
        self.reactor = reactor
        self.store = open_store(path, reactor=reactor)
        wait_for(reactor, self.store.import_accounts(ACCOUNTS))
        if admin:
            wait_for(reactor, self.store.set_admin("alice", True))
        self.clock = Clock()
        self.server = FicsServer(replace(Config(), accounts=ACCOUNTS),
                                 clock=self.clock, rng=random.Random(0), store=self.store)
        wait_for(reactor, self.server.restore())

    def login(self, name: str | None = None):
        client = connect(self.server)
        if name in PASSWORDS:
            client.login(name, PASSWORDS[name])
        else:
            client.login(name)
        client.output()
        return client

    def ask(self, client, line: str) -> str:
        """``line``'s answer once the writes it made are committed."""
        client.output()
        client.send(line)
        wait_for(self.reactor, self.store.import_accounts({}))  # after every earlier write
        return client.output().removesuffix("fics% ")

    def close(self) -> None:
        wait_for(self.reactor, self.store.close())


@pytest.fixture
def reactor():
    return private_reactor()


@pytest.fixture
def site(data_location, reactor):
    opened = Site(data_location, reactor)
    yield opened
    opened.close()


def test_the_store_flag_makes_an_operator_at_the_next_login(data_location, reactor) -> None:
    site = Site(data_location, reactor, admin=False)
    try:
        bob = site.login("bob")
        assert site.ask(bob, "announce hi") == "announce: Insufficient rights.\n"
        wait_for(reactor, site.store.set_admin("bob", True))  # ficsfen accounts admin bob on
        assert site.ask(bob, "announce hi") == "announce: Insufficient rights.\n"
        again = connect(site.server)
        again.login("bob", PASSWORDS["bob"])
        assert "Starting FICS session as bob(*)" in again.login_text
        assert site.ask(again, "announce hi") == "(0) **ANNOUNCEMENT** from bob: hi\n"
    finally:
        site.close()


def test_a_registered_players_muzzle_is_kept_and_can_be_given_while_away(site) -> None:
    alice, bob = site.login("alice"), site.login("bob")
    assert site.ask(alice, "muzzle bob") == "bob muzzled.\n"
    assert site.store.get_account("bob").muzzled
    bob.command("quit")
    bob = site.login("bob")
    assert site.ask(bob, "shout hi") == "You are muzzled.\n"
    bob.command("quit")
    assert site.ask(alice, "muzzle bob") == "bob unmuzzled.\n"  # away: the store's flag
    assert not site.store.get_account("bob").muzzled
    assert site.ask(alice, "muzzle carol") == "carol muzzled.\n"
    assert site.store.get_account("carol").muzzled
    assert site.ask(alice, "muzzle nobody") == "There is no player matching the name nobody.\n"
    bob = site.login("bob")
    assert site.ask(bob, "shout hi").endswith("(shouted to 1 player)\n")


def test_bans_are_kept_across_a_restart(data_location, reactor) -> None:
    path = data_location
    first = Site(path, reactor)
    alice = first.login("alice")
    assert first.ask(alice, "ban bob spam") == "bob is banned: its logins are refused.\n"
    assert first.ask(alice, "ban 192.0.2.0/24") == (
        "192.0.2.0/24 is banned: its logins are refused.\n")
    assert [(b.kind, b.value, b.by, b.reason) for b in first.store.bans()] == [
        ("address", "192.0.2.0/24", "alice", ""), ("handle", "bob", "alice", "spam")]
    wait_for(reactor, first.server.shutdown())
    first.close()

    second = Site(path, reactor)
    try:
        bob = connect(second.server)
        bob.output()
        bob.send("bob")
        assert 'Player "bob" is banned on this server.' in bob.output()
        guest = connect(second.server, host="192.0.2.9")
        guest.output()
        guest.send("guest")
        assert "Logins from your address are banned on this server." in guest.output()
        alice = second.login("alice")
        assert second.ask(alice, "unban bob") == "bob is no longer banned.\n"
        assert [b.value for b in second.store.bans()] == ["192.0.2.0/24"]
        assert second.login("bob").handle == "bob"
    finally:
        second.close()


def test_news_is_written_by_operators_and_read_by_everyone(site) -> None:
    alice, guest = site.login("alice"), site.login()
    assert site.ask(guest, "news") == "There is no news.\n"
    assert site.ask(alice, "cnewsi " + "x" * 46) == (
        "The news title exceeds the 45-character maximum length; not posted.\n")
    assert site.ask(alice, "cnewsi Welcome to our server") == "Created news item 1.\n"
    assert site.ask(alice, "cnewsf 1 Games are kept.") == "News item 1 updated.\n"
    assert site.ask(alice, "cnewsf 1") == "News item 1 updated.\n"
    assert site.ask(alice, "cnewsf 1 Have fun.") == "News item 1 updated.\n"
    assert site.ask(alice, "cnewsf 9 Nowhere.") == "News item 9 not found.\n"
    for n in range(2, 13):
        site.ask(alice, f"cnewsi Item {n}")
    items = site.store.news()
    line = index_line(items[0])
    assert line.startswith("   1 (") and line.endswith(") Welcome to our server")
    index = site.ask(guest, "news").splitlines()
    assert index[0] == "Index of the last few news items:" and len(index) == 11
    assert index[1].startswith("   3 (") and index[-1].startswith("  12 (")
    assert site.ask(guest, "news all").splitlines()[:2] == ["Index of all news items:", line]
    assert site.ask(guest, "news 1") == (
        f"{line}\n\nGames are kept.\n\nHave fun.\n\nPosted by alice.\n")
    assert site.ask(alice, "cnewse 12") == "Deleted news item 12.\n"
    assert site.ask(alice, "cnewse 12") == "News item 12 not found.\n"
    assert site.ask(guest, "news 12") == "News item 12 not found.\n"


def test_the_index_line_is_the_one_pychess_reads() -> None:
    import re

    posted = time.mktime((2026, 6, 23, 12, 0, 0, 0, 0, -1))  # a Tuesday
    line = index_line(NewsItem(7, posted, "alice", "New time controls"))
    assert line == "   7 (Tue, Jun 23) New time controls"
    pychess = re.compile(r"(\d+) \((Mon|Tue|Wed|Thu|Fri|Sat|Sun), "
                         r"(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) +(\d+)\) (.+)")
    assert pychess.match(line.strip()).groups() == ("7", "Tue", "Jun", "23", "New time controls")
