"""Refusing players (noplay, censor), offer rate limits and adjourned-game expiry.

Protocol tests run the server on a fake clock (and a fake wall clock for
adjournment dates); the store tests use a real SQLite file restarted in
between; the spam attack and the refusals also run against a real
``ficsfen serve`` on loopback.
"""

from __future__ import annotations

import random
import time
from dataclasses import replace

import pytest
from twisted.internet.task import Clock

from ficsfen.server.commands.lists import PlayerLists
from ficsfen.server.config import Config, hash_password
from ficsfen.server.server import FicsServer
from ficsfen.server.store import GameStatus, SQLiteStore
from ficsfen.server.store.testing import private_reactor, wait_for
from ficsfen.server.testing import ServerProcess, connect, make_server

PASSWORDS = {"alice": "ecila", "bob": "bob!", "carol": "lorac"}
ACCOUNTS = {name: hash_password(word, iterations=1000) for name, word in PASSWORDS.items()}
DAY = 86400


def login(server, name):
    """``name`` logged in: with its password where the server knows the account."""
    client = connect(server)
    registered = name in PASSWORDS and server.accounts.is_registered(name)
    client.login(name, PASSWORDS[name] if registered else None)
    return client


# -- noplay and censor --------------------------------------------------------

def test_noplay_refuses_the_challenger_and_the_victim_never_sees_it():
    server = make_server()
    alice, bob = login(server, "alice"), login(server, "bob")
    assert "[bob] added to your noplay list." in alice.command("+noplay bob")
    alice.output()
    assert "You are on alice's noplay list." in bob.command("match alice 5 0")
    assert alice.output() == ""
    assert len(server.challenges) == 0
    assert "[bob] removed from your noplay list." in alice.command("-noplay bob")
    assert "Issuing:" in bob.command("match alice 5 0")
    assert "Challenge:" in alice.output()


def test_censor_refuses_with_fics_text():
    server = make_server()
    alice, bob = login(server, "alice"), login(server, "bob")
    assert "[bob] added to your censor list." in alice.command("addlist censor bob")
    assert "alice is censoring you." in bob.command("match alice")
    assert alice.output() == ""
    # the one who censors may still challenge
    assert "Issuing:" in alice.command("match bob")


def test_list_commands_in_fics_layout_and_errors():
    server = make_server(list_size=2)
    alice, bob, carol = (login(server, n) for n in ("alice", "bob", "carol"))
    assert alice.command("showlist").startswith(
        "Lists:\n\ncensor               is PERSONAL\nchannel              is PERSONAL\n"
        "gnotify              is PERSONAL\nnoplay               is PERSONAL\n"
        "notify               is PERSONAL")
    assert "-- noplay list: 0 names --" in alice.command("=noplay")
    alice.command("+nop Bob")  # a unique prefix of the list and of the handle
    alice.command("+noplay car")
    assert "-- noplay list: 2 names --\nbob carol" in alice.command("showlist noplay")
    assert "[bob] is already on your noplay list." in alice.command("+noplay bob")
    assert "Sorry, your noplay list is full (2 names)." in alice.command("+noplay alice")
    assert "[zed] is not in your noplay list." in alice.command("-noplay zed")
    assert '"friends" does not match any list name.' in alice.command("+friends bob")
    assert 'No player named "zed" is logged in.' in alice.command("+censor zed")
    assert "Usage: sublist LIST HANDLE" in alice.command("sublist noplay")
    assert "[bob] removed from your noplay list." in alice.command("sublist noplay b")
    alice.command("set lang fr")
    assert "[carol] est déjà dans votre liste noplay." in alice.command("+noplay carol")


def test_a_guests_lists_last_one_session():
    server = make_server()
    guest, bob = login(server, "guest"), login(server, "bob")
    guest.command("+noplay bob")
    assert "noplay list" in bob.command(f"match {guest.handle}")
    guest.disconnect()
    assert server.lists.refusal(guest.handle, "bob") is None  # forgotten with the session


def test_saved_lists_that_do_not_read_are_skipped():
    lists = PlayerLists.from_json({"noplay": ["bob", "Bob", 3, "no way", "carol"],
                                   "censor": "bob", "friends": ["dave"]}, size=5)
    assert lists.to_json() == {"noplay": ["bob", "carol"]}


# -- offer rate limits -----------------------------------------------------------

def test_500_match_withdraw_cycles_reach_the_victim_at_most_the_limit():
    clock = Clock()
    server = make_server(clock=clock, offers_per_minute=20)
    attacker, victim = login(server, "bob"), login(server, "alice")
    refused = 0
    for _ in range(500):
        out = attacker.command("match alice")
        refused += "You are making offers too quickly." in out
        attacker.command("withdraw")
    seen = victim.output()
    assert seen.count("Challenge:") == 20
    assert seen.count("withdraws the match offer") == 20
    assert refused == 480
    assert "Wait 60 seconds before making another." in attacker.command("match alice")
    clock.advance(60)  # a minute later the sender may offer again
    assert "Issuing:" in attacker.command("match alice")
    attacker.command("set lang fr")
    attacker.command("withdraw")
    clock.advance(1)
    for _ in range(19):
        attacker.command("match alice")
        attacker.command("withdraw")
    assert "Vous faites des offres trop vite" in attacker.command("match alice")


def test_in_game_offers_are_limited_too():
    clock = Clock()
    server = make_server(clock=clock, offers_per_minute=5)
    alice, bob = login(server, "alice"), login(server, "bob")
    alice.command("match bob 5 0")  # one offer counted
    bob.command("accept")
    bob.output()
    outs = []
    for _ in range(10):
        outs.append(alice.command("draw"))
        alice.command("withdraw")
    assert sum("Draw offer sent to bob." in o for o in outs) == 4
    assert bob.output().count("alice offers you a draw.") == 4
    assert "You are making offers too quickly." in outs[-1]


def test_an_offer_limit_of_zero_is_no_limit():
    server = make_server(offers_per_minute=0, address_offers_per_minute=0)
    attacker, victim = login(server, "bob"), login(server, "alice")
    for _ in range(100):
        attacker.command("match alice")
        attacker.command("withdraw")
    assert victim.output().count("Challenge:") == 100


# -- adjourned games: expiry and the most per player ------------------------------

class Wall:
    """Unix time for adjournments, moved by hand with the reactor's clock."""

    def __init__(self, clock: Clock, start: float = 1_700_000_000.0) -> None:
        self.clock = clock
        self.start = start

    def __call__(self) -> float:
        return self.start + self.clock.seconds()


def registered_server(**settings):
    clock = Clock()
    # heavy_percent=0: real time must not decide when input runs on this fake clock
    config = replace(Config(), accounts=ACCOUNTS, idle_timeout=0, heavy_percent=0, **settings)
    return FicsServer(config, clock=clock, rng=random.Random(0), wall=Wall(clock)), clock


def adjourn(server, white, black):
    white.command(f"match {black.handle} 5 0 white")
    black.command("accept")
    white.command("e4")
    white.command("adjourn")
    black.command("adjourn")
    white.output(), black.output()
    assert server.adjourned.between(white.handle, black.handle) is not None


def test_an_adjourned_game_expires_after_the_configured_days():
    server, clock = registered_server(adjourned_expiry_days=2)
    alice, bob = login(server, "alice"), login(server, "bob")
    adjourn(server, alice, bob)
    clock.advance(DAY)
    assert server.adjourned.between("alice", "bob") is not None
    for _ in range(25):
        clock.advance(3600)  # the periodic look, on the server's clock
    assert server.adjourned.between("alice", "bob") is None
    assert ("Your adjourned game with bob has expired: it was not resumed within 2 days."
            in alice.output())
    assert "alice has no adjourned games." in alice.command("stored")
    assert "You have no adjourned games." in alice.command("resume")
    assert not clock.getDelayedCalls()  # nothing left to look at: no more looks


def test_at_most_n_adjourned_games_per_player():
    server, clock = registered_server(adjourned_per_player=1)
    alice, bob, carol = (login(server, n) for n in ("alice", "bob", "carol"))
    adjourn(server, alice, bob)
    alice.command("match carol 5 0 white")
    carol.command("accept")
    out = alice.command("adjourn")
    assert ('alice has 1 adjourned game, the most allowed: this game cannot be adjourned.  '
            'Use "abort".') in out
    assert server.adjourned.between("alice", "carol") is None


class Site:
    """A server on a real store file, its game clock and wall clock fake."""

    def __init__(self, path, reactor, *, wall_start: float = 1_700_000_000.0, **settings):
        self.reactor = reactor
        self.store = SQLiteStore.open(path, reactor=reactor)
        wait_for(reactor, self.store.import_accounts(ACCOUNTS))
        self.clock = Clock()
        settings.setdefault("heavy_percent", 0)  # real time must not decide when input runs
        self.server = FicsServer(replace(Config(), accounts=ACCOUNTS, **settings),
                                 clock=self.clock, rng=random.Random(0), store=self.store,
                                 wall=Wall(self.clock, wall_start))
        wait_for(reactor, self.server.restore())

    def login(self, name):
        return login(self.server, name)

    def commit(self):
        wait_for(self.reactor, self.store.import_accounts({}))
        self.clock.advance(0)

    def close(self):
        wait_for(self.reactor, self.store.close())


@pytest.fixture
def reactor():
    return private_reactor()


def test_lists_of_registered_players_survive_a_restart(tmp_path, reactor):
    path = tmp_path / "data.sqlite3"
    site = Site(path, reactor)
    alice, bob = site.login("alice"), site.login("bob")
    alice.command("+noplay bob")
    alice.command("+censor carol")  # not logged in, but registered
    alice.command("set style 12")  # saving settings keeps the lists
    guest = site.login("guest")
    guest.command("+noplay bob")
    site.commit()
    site.close()
    site = Site(path, reactor)
    alice, bob = site.login("alice"), site.login("bob")
    assert "-- noplay list: 1 names --\nbob" in alice.command("=noplay")
    assert "-- censor list: 1 names --\ncarol" in alice.command("=censor")
    assert "You are on alice's noplay list." in bob.command("match alice")
    assert alice.output() == ""
    alice.command("-noplay bob")
    site.commit()
    site.close()
    site = Site(path, reactor)
    alice, bob = site.login("alice"), site.login("bob")
    assert "-- noplay list: 0 names --" in alice.command("=noplay")
    assert "Issuing:" in bob.command("match alice")
    site.close()


def test_an_adjourned_game_expires_across_a_restart(tmp_path, reactor):
    path = tmp_path / "data.sqlite3"
    site = Site(path, reactor, adjourned_expiry_days=7)
    alice, bob = site.login("alice"), site.login("bob")
    alice.command("match bob 5 0 white")
    bob.command("accept")
    site.commit()
    alice.command("e4")
    site.commit()
    alice.command("adjourn")
    bob.command("adjourn")
    site.commit()
    game = site.server.adjourned.between("alice", "bob")
    record = game.record_id
    site.close()
    # six days later: still there
    site = Site(path, reactor, wall_start=1_700_000_000.0 + 6 * DAY, adjourned_expiry_days=7)
    assert site.server.adjourned.between("alice", "bob") is not None
    site.close()
    # eight days later: it ends, aborted, at start-up
    site = Site(path, reactor, wall_start=1_700_000_000.0 + 8 * DAY, adjourned_expiry_days=7)
    assert site.server.adjourned.between("alice", "bob") is None
    stored = site.store.get_game(record)
    assert stored.status is GameStatus.FINISHED
    assert (stored.end.result, stored.end.reason) == ("*", "Game adjourned too long; aborted")
    assert site.store.unfinished_games("alice") == []
    alice = site.login("alice")
    assert "alice has no adjourned games." in alice.command("stored")
    site.close()


# -- a real server on loopback ---------------------------------------------------------

def _wait_for_log(process, text, timeout=60.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = [line for line in process.log_lines if text in line]
        if found:
            return found
        time.sleep(0.02)
    raise AssertionError(f"{text!r} not in the server log")


@pytest.mark.slow
def test_spam_attack_and_refusals_on_loopback(tmp_path):
    conf = tmp_path / "spam.toml"
    conf.write_text("[limits]\noffers_per_minute = 10\n")
    end = "GMT            - "
    with ServerProcess("--config", str(conf)) as server:
        with server.connect() as victim, server.connect() as attacker:
            name = victim.login()
            spammer = attacker.login()
            attacker.send(f"match {name}\r\nwithdraw\r\n" * 500 + "date")
            text = attacker.read_until(end) + attacker.read_until("fics% ")
            assert text.count("You are making offers too quickly.") == 490
            victim.send("date")
            seen = victim.read_until(end) + victim.read_until("fics% ")
            assert seen.count("Challenge:") == 10
            assert seen.count("withdraws the match offer.") == 10
            assert len(_wait_for_log(server, f"offer rate limit: {spammer} made 10 offers")) == 1
            # noplay and censor: the challenger is told, the victim sees nothing
            victim.command(f"+noplay {spammer}")
            assert f"You are on {name}'s noplay list." in attacker.command(f"match {name}")
            victim.command(f"-noplay {spammer}")
            victim.command(f"+censor {spammer}")
            assert f"{name} is censoring you." in attacker.command(f"match {name}")
            victim.send("date")
            assert "Challenge:" not in victim.read_until(end)
