"""The store's operator rows: account flags, bans and news (schema version 4), on both stores."""

from __future__ import annotations

import pytest
from pg_server import open_store
from zope.interface.verify import verifyObject

from ficsfen.server.store import Ban, IStore, NoSuchAccountError
from ficsfen.server.store.testing import private_reactor, wait_for


@pytest.fixture
def store(data_location):
    reactor = private_reactor()
    opened = open_store(data_location, reactor=reactor)
    opened.wait = lambda d: wait_for(reactor, d)
    yield opened
    wait_for(reactor, opened.close())


def test_the_store_provides_the_operator_methods(store) -> None:
    assert verifyObject(IStore, store)


def test_flags_are_kept_on_the_account(store) -> None:
    store.wait(store.add_account("Alice", "pbkdf2_sha256$1$00$00"))
    assert (store.get_account("alice").admin, store.get_account("alice").muzzled) == (False, False)
    store.wait(store.set_admin("ALICE", True))
    store.wait(store.set_muzzled("alice", True))
    account = store.get_account("alice")
    assert (account.name, account.admin, account.muzzled) == ("Alice", True, True)
    store.wait(store.set_admin("alice", False))
    assert [(a.name, a.admin, a.muzzled) for a in store.accounts()] == [("Alice", False, True)]
    with pytest.raises(NoSuchAccountError):
        store.wait(store.set_muzzled("nobody", True))


def test_bans_are_added_replaced_and_lifted(store) -> None:
    assert store.bans() == []
    assert store.wait(store.add_ban(Ban("handle", "bob", "alice", 10.0, "spam"))) is True
    assert store.wait(store.add_ban(Ban("address", "10.0.0.0/8", "alice", 11.0))) is True
    assert store.wait(store.add_ban(Ban("handle", "bob", "carol", 12.0, "again"))) is False
    assert store.bans() == [Ban("address", "10.0.0.0/8", "alice", 11.0, ""),
                            Ban("handle", "bob", "carol", 12.0, "again")]
    assert store.wait(store.remove_ban("handle", "bob")) is True
    assert store.wait(store.remove_ban("handle", "bob")) is False
    assert [b.value for b in store.bans()] == ["10.0.0.0/8"]
    with pytest.raises(ValueError):
        store.add_ban(Ban("planet", "mars", "alice", 1.0))


def test_news_items_are_numbered_and_get_their_lines(store) -> None:
    assert store.news() == [] and store.news_item(1) is None
    first = store.wait(store.add_news("alice", "First", posted=100.0))
    numbers = [store.wait(store.add_news("alice", f"Item {n}", posted=100.0 + n))
               for n in range(2, 13)]
    assert first == 1 and numbers == list(range(2, 13))
    assert store.wait(store.add_news_line(1, "Line one.")) is True
    assert store.wait(store.add_news_line(1, "")) is True
    assert store.wait(store.add_news_line(1, "Last line.")) is True
    assert store.wait(store.add_news_line(99, "nowhere")) is False
    item = store.news_item(1)
    assert (item.number, item.posted, item.author, item.title) == (1, 100.0, "alice", "First")
    assert item.text == "Line one.\n\nLast line."
    assert store.news_item(2).text == ""
    assert [n.number for n in store.news(10)] == list(range(3, 13))  # the last ten, oldest first
    assert len(store.news()) == 12
    assert store.wait(store.remove_news(12)) is True
    assert store.wait(store.remove_news(12)) is False
    assert store.wait(store.remove_news(5)) is True
    assert store.wait(store.add_news("bob", "Next")) == 12  # after the highest kept
