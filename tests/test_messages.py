"""Stored messages (``messages``, ``clearmessages``) between registered players, on a
server with a real data file: exact bytes, acknowledgement only once committed, the
login notice, guests' refusals and bad input."""

from __future__ import annotations

import pytest
from pg_server import open_store

from ficsfen.server.config import hash_password
from ficsfen.server.store.errors import MailboxFullError, NoSuchAccountError
from ficsfen.server.store.testing import private_reactor, wait_for
from ficsfen.server.testing import connect, make_server

NAMES = ("alice", "bob", "carol", "dora")
ACCOUNTS = {name: hash_password("pw", iterations=1000) for name in NAMES}

T0 = 1_700_000_000.0  # Tue Nov 14, 22:13 GMT 2023
DATE = "Tue Nov 14, 22:13 GMT 2023"


class Stored:
    """A server on a fake clock with a real data file."""

    def __init__(self, path, **settings):
        self.reactor = private_reactor()
        self.store = open_store(path, reactor=self.reactor, synchronous="normal")
        for name, stored in ACCOUNTS.items():
            self.wait(self.store.add_account(name, stored))
        self.server = make_server(accounts=ACCOUNTS, store=self.store, **settings)
        self.server.wall = lambda: T0

    def wait(self, d):
        return wait_for(self.reactor, d)

    def committed(self):
        """Every write asked for so far is committed and its callbacks have run."""
        self.wait(self.store.import_accounts({}))

    def client(self, name=None):
        client = connect(self.server)
        if name in NAMES:
            client.login(name, "pw")
        else:
            client.login(name)
        self.committed()
        client.output()
        return client

    def run(self, client, line):
        """Send ``line``, let the data file commit, return what came back (prompt kept)."""
        client.output()
        client.send(line)
        self.committed()
        return client.output()


@pytest.fixture
def stored(data_location):
    s = Stored(data_location)
    yield s
    s.wait(s.store.close())


def test_a_message_is_confirmed_once_committed_and_shown_at_once(stored):
    alice, bob = stored.client("alice"), stored.client("bob")
    alice.send("message bob hello there")
    assert alice.output() == ""  # not yet committed: no answer, no prompt
    assert bob.output() == ""
    stored.committed()
    assert alice.output() == (
        f"The following message was sent to bob:\nalice at {DATE}: hello there\nfics% ")
    assert bob.raw_output() == (
        f"\r\nThe following message was received:\r\nalice at {DATE}: hello there\r\n"
        f"fics% ").encode()
    assert [m.text for m in stored.store.messages("bob")] == ["hello there"]


def test_offline_recipient_hears_at_login_and_reads(stored):
    alice = stored.client("alice")
    stored.run(alice, "messages carol first")
    stored.run(alice, "mess Carol second one")
    carol = connect(stored.server)
    carol.login("carol", "pw")
    stored.committed()
    assert carol.login_text + carol.output() == (
        "\n**** Starting FICS session as carol ****\n\nfics% "
        "\nYou have 2 messages (2 unread).\n"
        "Use \"messages u\" to view unread messages and \"clearmessages *\" to clear all.\n"
        "fics% ")
    assert stored.run(carol, "messages u") == (
        f"Unread messages:\n1. alice at {DATE}: first\n2. alice at {DATE}: second one\nfics% ")
    assert stored.run(carol, "messages u") == "You have no unread messages.\nfics% "
    assert stored.run(carol, "messages") == (
        f"Messages:\n1. alice at {DATE}: first\n2. alice at {DATE}: second one\nfics% ")
    assert stored.run(carol, "messages 2") == f"2. alice at {DATE}: second one\nfics% "
    assert stored.run(carol, "messages 1-2") == (
        f"1. alice at {DATE}: first\n2. alice at {DATE}: second one\nfics% ")
    assert stored.run(carol, "messages alice") == (
        f"You have no messages to alice.\n\nMessages from alice:\n1. alice at {DATE}: first\n"
        f"2. alice at {DATE}: second one\nfics% ")
    assert stored.run(alice, "messages carol") == (
        f"Messages to carol:\nalice at {DATE}: first\nalice at {DATE}: second one\n\n"
        "You have no messages from carol.\nfics% ")
    carol.send("quit")
    carol = connect(stored.server)
    carol.login("carol", "pw")
    stored.committed()
    assert "You have 2 messages (0 unread)." in carol.login_text + carol.output()


def test_no_notice_without_messages(stored):
    dora = connect(stored.server)
    dora.login("dora", "pw")
    stored.committed()
    assert dora.login_text + dora.output() == (
        "\n**** Starting FICS session as dora ****\n\nfics% ")


@pytest.mark.parametrize("line, expected", [
    ("messages 3", "There is no such message."),
    ("messages 5-2", "Invalid message range."),
    ("messages 0", "Invalid message range."),
    ("messages 0-1", "Invalid message range."),
    ("messages nobody", "There is no player matching the name nobody."),
    ("message nobody hi", "There is no player matching the name nobody."),
    ("clearmessages", "Use \"clearmessages *\" to clear all your messages."),
    ("clearmessages 9", "There is no such message."),
    ("clearmessages 3-1", "Invalid message range."),
    ("clearmessages dora", "You have no messages from dora."),
    ("clearmessages a b", "Usage: clearmessages * | NUMBER | FROM-TO | HANDLE"),
])
def test_bad_input(stored, line, expected):
    alice, bob = stored.client("alice"), stored.client("bob")
    stored.run(alice, "message bob one")
    assert stored.run(bob, line) == expected + "\nfics% "


def test_clearing(stored):
    alice, bob = stored.client("alice"), stored.client("bob")
    dora = stored.client("dora")
    for n in range(1, 5):
        stored.run(alice, f"message bob a{n}")
    stored.run(dora, "message bob from dora")
    assert stored.run(bob, "clearmessages *x") == "You have no messages from *x.\nfics% "
    bob.send("clearmessages 2")
    assert bob.output() == ""  # answered once the deletion is committed
    stored.committed()
    assert bob.output() == "Cleared 1 message.\nfics% "
    assert stored.run(bob, "clearmessages 1-2") == "Cleared 2 messages.\nfics% "
    assert stored.run(bob, "messages") == (
        f"Messages:\n1. alice at {DATE}: a4\n2. dora at {DATE}: from dora\nfics% ")
    assert stored.run(bob, "clearmessages do") == "Cleared 1 message.\nfics% "
    assert stored.run(bob, "clearmessages *") == "Cleared 1 message.\nfics% "
    assert stored.run(bob, "clearmessages *") == "You have no messages.\nfics% "
    assert stored.run(bob, "messages") == "You have no messages.\nfics% "
    assert stored.store.message_counts("bob") == (0, 0)


def test_guests_cannot_send_or_receive(stored):
    alice, guest = stored.client("alice"), stored.client()
    refusal = "Unregistered players may not send or receive messages.\nfics% "
    for line in ("messages", "messages u", "message alice hi", "clearmessages *"):
        assert stored.run(guest, line) == refusal
    assert stored.run(alice, f"message {guest.handle} hi") == (
        f"Player \"{guest.handle}\" is unregistered and cannot receive messages.\nfics% ")
    named = stored.client("zed")  # an unregistered name is no account either
    assert stored.run(named, "messages") == refusal
    guest.command("set lang fr")
    assert stored.run(guest, "messages") == (
        "Les joueurs non enregistrés ne peuvent ni envoyer ni recevoir de messages.\nfics% ")


def test_limits_and_censors(data_location):
    stored = Stored(data_location, messages_per_player=2, message_max_length=10)
    try:
        alice, bob = stored.client("alice"), stored.client("bob")
        assert stored.run(alice, "message bob " + "x" * 11) == (
            "A message may be at most 10 printable characters long; it was not sent.\nfics% ")
        stored.run(alice, "message bob one")
        stored.run(alice, "message bob two")
        assert stored.run(alice, "message bob three") == (
            "Couldn't send message to bob. Message buffer full.\nfics% ")
        stored.run(bob, "+censor alice")
        assert stored.run(alice, "message bob four") == "bob is censoring you.\nfics% "
        bob.send("quit")  # a censor list is read from the data file when its owner is away
        stored.committed()
        assert stored.run(alice, "message bob five") == "bob is censoring you.\nfics% "
        assert stored.store.message_counts("bob") == (2, 2)
    finally:
        stored.wait(stored.store.close())


def test_french_texts_and_the_interface_keeps_the_fics_line(stored):
    alice = stored.client("alice")
    stored.run(alice, "message bob salut")
    bob = connect(stored.server)
    bob.send("%b" + "0" * 16 + "1")  # an interface (pin set before login)
    bob.output()
    bob.login("bob", "pw")
    stored.committed()
    assert "\nYou have 1 message (1 unread).\n" in bob.output() + bob.login_text
    bob.command("set lang fr")
    assert stored.run(bob, "messages") == f"Messages\u202f:\n1. alice at {DATE}: salut\nfics% "
    dora = stored.client("dora")
    stored.run(dora, "set lang fr")
    dora.send("quit")
    stored.run(alice, "message dora coucou")
    dora = connect(stored.server)
    dora.login("dora", "pw")
    stored.committed()
    assert (dora.login_text + dora.output()).endswith(
        "\nVous avez 1 message (1 non lu).\nTapez «\u202fmessages u\u202f» pour lire les "
        "messages non lus et «\u202fclearmessages *\u202f» pour tout effacer.\nfics% ")


def test_without_a_data_file():
    server = make_server(accounts=ACCOUNTS)
    alice = connect(server)
    alice.login("alice", "pw")
    alice.output()
    assert alice.command("messages") == (
        "Messages are not kept on this server: it has no data file.\n")


def test_store_rows(stored):
    store = stored.store
    with pytest.raises(NoSuchAccountError):
        stored.wait(store.send_message("alice", "nobody", "x", limit=5))
    first = stored.wait(store.send_message("alice", "BOB", "one", limit=2, sent=T0))
    assert (first.number, first.sender, first.text, first.unread) == (1, "alice", "one", True)
    stored.wait(store.send_message("carol", "bob", "two", limit=2, sent=T0 + 1))
    with pytest.raises(MailboxFullError):
        stored.wait(store.send_message("dora", "bob", "three", limit=2))
    assert store.message_counts("bob") == (2, 2)
    stored.wait(store.mark_read("bob", [first.id]))
    assert store.message_counts("bob") == (2, 1)
    assert stored.wait(store.clear_messages("bob", [first.id, first.id + 100])) == 1
    assert [(m.number, m.sender) for m in store.messages("bob")] == [(1, "carol")]
    assert stored.wait(store.clear_messages("alice", [m.id for m in store.messages("bob")])) == 0
