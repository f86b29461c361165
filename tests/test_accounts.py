"""Accounts on their own: name rules, guests, reservations, and the password checker."""

from __future__ import annotations

import random

import pytest
from twisted.cred.checkers import ICredentialsChecker
from twisted.cred.credentials import ICredentials
from twisted.cred.portal import IRealm, Portal
from twisted.internet.defer import Deferred
from twisted.internet.task import Clock
from zope.interface import implementer
from zope.interface.verify import verifyObject

from ficsfen.server.accounts import (Accounts, BadPassword, IPasswordAttempt, LoginRefused,
                                     PasswordAttempt)
from ficsfen.server.config import Config, hash_password

PASSWORDS = {"alice": hash_password("secret", iterations=1000)}


def make_accounts(online: set[str] | None = None, **settings) -> tuple[Accounts, Clock]:
    clock = Clock()
    online = online if online is not None else set()
    config = Config(accounts=PASSWORDS, **settings)
    accounts = Accounts(config, clock=clock, store=None, rng=random.Random(0),
                        online=lambda name: name.lower() in online)
    return accounts, clock


def outcome(d: Deferred) -> object:
    """What a Deferred that has fired holds: its result, or its failure's exception."""
    results: list[object] = []
    d.addBoth(results.append)
    assert results, "the check has not finished"
    value = results[0]
    return value.value if hasattr(value, "value") and hasattr(value, "check") else value


def test_accounts_are_a_credentials_checker_for_password_attempts():
    accounts, _ = make_accounts()
    assert verifyObject(ICredentialsChecker, accounts)
    assert accounts.credentialInterfaces == (IPasswordAttempt,)
    attempt = PasswordAttempt("alice", "secret", "192.0.2.1")
    assert verifyObject(IPasswordAttempt, attempt) and ICredentials.providedBy(attempt)
    assert "secret" not in repr(attempt)


def test_a_portal_logs_in_through_the_accounts():
    accounts, _ = make_accounts()

    @implementer(IRealm)
    class Names:
        """The avatar is the name itself: what the checker let in."""

        def requestAvatar(self, avatar_id, mind, *interfaces):
            return interfaces[0], avatar_id.decode("utf-8"), lambda: None

    portal = Portal(Names(), [accounts])
    assert outcome(portal.login(PasswordAttempt("alice", "secret", "h"), None,
                                IPasswordAttempt))[1] == "alice"
    refused = outcome(portal.login(PasswordAttempt("alice", "wrong", "h"), None,
                                   IPasswordAttempt))
    assert isinstance(refused, BadPassword)


def test_a_right_password_gives_the_account_name():
    accounts, _ = make_accounts()
    assert outcome(accounts.requestAvatarId(PasswordAttempt("alice", "secret", "h"))) == b"alice"


def test_a_wrong_password_is_counted_and_the_next_attempt_waits_without_hashing():
    accounts, clock = make_accounts(password_delay=2.0)
    error = outcome(accounts.requestAvatarId(PasswordAttempt("alice", "wrong", "h1")))
    assert isinstance(error, BadPassword)
    assert error.failure.delay == 2.0 and error.failure.account_failures == 1
    hashed: list[str] = []
    real = accounts.check_password
    accounts.check_password = lambda name, password: hashed.append(name) or real(name, password)
    refused = outcome(accounts.requestAvatarId(PasswordAttempt("alice", "secret", "h2")))
    assert isinstance(refused, LoginRefused) and refused.refusal.scope == "account"
    assert hashed == []  # refused before the hash
    clock.advance(2.0)
    assert outcome(accounts.requestAvatarId(PasswordAttempt("alice", "secret", "h2"))) == b"alice"
    assert hashed == ["alice"]


def test_a_right_password_clears_the_failures_so_far():
    accounts, clock = make_accounts(password_delay=1.0, password_failures=3)
    for _ in range(2):
        outcome(accounts.requestAvatarId(PasswordAttempt("alice", "wrong", "h")))
        clock.advance(60)
    assert outcome(accounts.requestAvatarId(PasswordAttempt("alice", "secret", "h"))) == b"alice"
    error = outcome(accounts.requestAvatarId(PasswordAttempt("alice", "wrong", "h")))
    assert error.failure.account_failures == 1 and not error.failure.locked


def test_a_check_in_progress_makes_another_for_the_account_wait():
    accounts, _ = make_accounts()
    pending: list[Deferred] = []
    accounts.check_password = lambda name, password: pending.append(Deferred()) or pending[-1]
    first = accounts.requestAvatarId(PasswordAttempt("alice", "x", "h1"))
    refused = outcome(accounts.requestAvatarId(PasswordAttempt("alice", "y", "h2")))
    assert isinstance(refused, LoginRefused) and refused.refusal.kind == "busy"
    assert len(pending) == 1
    pending[0].callback(True)
    assert outcome(first) == b"alice"


def test_a_broken_check_fails_with_its_error_and_frees_the_account():
    accounts, _ = make_accounts()
    pending: list[Deferred] = []
    accounts.check_password = lambda name, password: pending.append(Deferred()) or pending[-1]
    d = accounts.requestAvatarId(PasswordAttempt("alice", "x", "h"))
    pending[0].errback(RuntimeError("the pool stopped"))
    assert isinstance(outcome(d), RuntimeError)
    accounts.requestAvatarId(PasswordAttempt("alice", "x", "h"))
    assert len(pending) == 2  # not refused as "being checked already"
    pending[1].callback(True)


@pytest.mark.parametrize("name, reason", [
    ("al", "at least 3 characters"),
    ("a" * 18, "at most 17 characters"),
    ("bob1", "only consist of lower and upper case letters"),
    ("Guestxyz", "given to guests"),
])
def test_names_that_cannot_be_used_say_why(name, reason):
    accounts, _ = make_accounts()
    assert reason in accounts.check_name(name).render("en")


def test_a_name_online_or_held_is_in_use_until_released():
    accounts, _ = make_accounts(online={"carol"})
    assert "already logged in" in accounts.check_name("Carol").render("en")
    assert accounts.check_name("dave") is None
    accounts.reserve("Dave")
    assert accounts.in_use("dave") and accounts.check_name("dave") is not None
    accounts.release("DAVE")
    assert not accounts.in_use("dave")


def test_guests_get_fresh_held_names():
    accounts, _ = make_accounts()
    first, second = accounts.allocate_guest(), accounts.allocate_guest()
    assert first != second and first.startswith("Guest") and len(first) == 9
    assert accounts.in_use(first) and accounts.in_use(second)
    assert accounts.is_guest_name(first) and not accounts.is_registered(first)


def test_registered_names_come_from_the_configuration_without_a_store():
    accounts, _ = make_accounts()
    assert accounts.is_registered("ALICE") and not accounts.is_registered("bob")
    settings = accounts.saved_settings("alice")  # nothing kept without a store
    assert settings.called and settings.result == {}
