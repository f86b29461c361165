"""Per-address rates of seeks, offers and messages (``[limits] address_*``), on a fake clock.

The per-player limits count handles; these count the address the sessions
came from, so that many guests of one script get no more than one player.
Each test floods from one address and checks: refused past the rate with a
clear message (English and French), nothing reaches anyone else, players
from other addresses unaffected, and the address allowed again once the
rate has refilled its bucket.
"""

from __future__ import annotations

import time
from contextlib import contextmanager

import pytest
from twisted.internet.task import Clock
from twisted.logger import formatEvent, globalLogPublisher

from ficsfen.server.rates import AddressRate
from ficsfen.server.testing import ServerProcess, connect, make_server

SPAMMER = "198.51.100.7"


@contextmanager
def captured_log():
    events: list[dict] = []
    globalLogPublisher.addObserver(events.append)
    try:
        yield events
    finally:
        globalLogPublisher.removeObserver(events.append)


def guests(server, count, host=None):
    clients = []
    for _ in range(count):
        client = connect(server, host=host)
        client.login()
        client.output()
        clients.append(client)
    return clients


def named(server, name, host=None):
    client = connect(server, host=host)
    client.login(name)
    client.output()
    return client


# -- the bucket itself -------------------------------------------------------------------


def test_a_burst_then_the_rate_per_address():
    clock = Clock()
    rate = AddressRate(clock, per_minute=6, burst=3)
    assert [rate.take("192.0.2.1") for _ in range(3)] == [None] * 3
    over = rate.take("192.0.2.1")
    assert over is not None and over.count == 6 and over.until == 10.0 and over.report
    assert rate.take("192.0.2.1").report is False  # logged once a minute at most
    assert rate.take("192.0.2.2") is None  # another address has its own bucket
    clock.advance(10)
    assert rate.take("192.0.2.1") is None
    assert rate.take("192.0.2.1") is not None


def test_an_ipv6_slash_64_is_one_address_and_exempt_or_unknown_ones_are_free():
    clock = Clock()
    rate = AddressRate(clock, per_minute=1, burst=1, exempt=["10.0.0.0/8"])
    assert rate.take("2001:db8:1:2::1") is None
    assert rate.take("2001:db8:1:2::ffff") is not None  # the same /64
    assert rate.take("2001:db8:1:3::1") is None
    assert all(rate.take("10.1.2.3") is None for _ in range(10))
    assert all(rate.take("") is None for _ in range(10))  # a session with no connection
    assert all(AddressRate(clock, per_minute=0, burst=1).take("192.0.2.1") is None
               for _ in range(10))


def test_sweep_forgets_the_addresses_whose_bucket_filled_up_again():
    clock = Clock()
    rate = AddressRate(clock, per_minute=60, burst=2)
    rate.take("192.0.2.1")
    rate.take("192.0.2.2")
    rate.take("192.0.2.2")
    clock.advance(1)
    rate.sweep()
    assert list(rate.buckets) == ["192.0.2.2"]  # one token back of two: still remembered
    clock.advance(1)
    rate.sweep()
    assert rate.buckets == {}


# -- seeks -------------------------------------------------------------------------------


def test_a_seek_unseek_loop_announces_no_more_than_the_rate():
    clock = Clock()
    server = make_server(clock=clock)  # the defaults: 12 a minute, 12 at once
    spammer = named(server, "spammer", host=SPAMMER)
    watcher = named(server, "watcher")
    refused = 0
    for _ in range(500):
        out = spammer.command("seek 5 0")
        if "Too many seeks are being posted from your address." in out:
            refused += 1
            assert out == ("Too many seeks are being posted from your address. Wait 5 seconds "
                           "before posting another.\n")
        spammer.command("unseek")
    assert refused == 488
    assert watcher.output().count("seeking 5 0") == 12
    assert len(server.seeks.seeks) == 0
    other = named(server, "other")  # another address: posts and is announced
    assert "Your seek has been posted" in other.command("seek 3 0")
    assert "other (++++) seeking 3 0" in watcher.output()
    clock.advance(5)  # one more seek a five seconds
    assert "Your seek has been posted" in spammer.command("seek 5 0")
    assert "spammer (++++) seeking 5 0" in watcher.output()


@pytest.mark.slow
def test_a_seek_unseek_loop_on_loopback_announces_the_burst_and_little_more():
    """End to end: every client here comes from 127.0.0.1, counted like any address."""
    with ServerProcess("--data", "none") as server:
        with server.connect() as watcher, server.connect() as spammer:
            watcher.login()
            spammer_name = spammer.login()
            started = time.monotonic()
            refused = 0
            for _ in range(200):
                refused += "from your address" in spammer.command("seek 5 0")
                spammer.command("unseek")
            elapsed = time.monotonic() - started
            watcher.send("sought all")
            text = watcher.read_until("displayed.")
            announced = text.count(f"{spammer_name} (++++) seeking 5 0")
            # 12 at once, then one every 5 s of the loop's own duration
            assert 12 <= announced <= 12 + elapsed / 5 + 1
            assert refused == 200 - announced


def test_every_guest_of_an_address_shares_its_seeks():
    clock = Clock()
    server = make_server(clock=clock, address_seeks_per_minute=2, address_seek_burst=2)
    first, second, third = guests(server, 3, host=SPAMMER)
    watcher = named(server, "watcher")
    assert "posted" in first.command("seek 5 0")
    assert "posted" in second.command("seek 3 0")
    third.command("set language fr")
    assert third.command("seek 1 0") == (
        "Trop d’annonces sont publiées depuis votre adresse. Attendez 30 secondes avant d’en "
        "publier une autre.\n")
    assert watcher.output().count("seeking") == 2
    clock.advance(30)
    assert "publiée" in third.command("seek 1 0")


def test_a_refused_seek_is_logged_once_a_minute_per_address():
    server = make_server(address_seeks_per_minute=1, address_seek_burst=1)
    spammer = named(server, "spammer", host=SPAMMER)
    with captured_log() as events:
        spammer.command("seek 5 0")
        for _ in range(50):
            spammer.command("seek 3 0")
    lines = [formatEvent(e) for e in events if "seek rate limit" in formatEvent(e)]
    assert lines == [f"seek rate limit: more than 1 seeks a minute from address {SPAMMER} "
                     "(limits.address_seeks_per_minute; last from spammer); more refusals for "
                     "this address within a minute are not logged"]


# -- offers ------------------------------------------------------------------------------


def test_45_guests_of_one_address_challenge_no_more_than_the_rate():
    clock = Clock()
    server = make_server(clock=clock)  # the defaults: 40 a minute, 40 at once
    victim = named(server, "victim")
    crowd = guests(server, 45, host=SPAMMER)
    answers = [guest.command("match victim") for guest in crowd]
    refused = [a for a in answers if "from your address" in a]
    assert len(refused) == 5
    assert refused[0] == ("Too many offers are being made from your address. Wait 2 seconds "
                          "before making another.\n")
    assert victim.output().count("Challenge:") == 40
    friend = named(server, "friend")  # another address: unaffected
    assert "Issuing:" in friend.command("match victim")
    assert victim.output().count("Challenge:") == 1
    clock.advance(1.5)  # 40 a minute: one more offer every 1.5 s
    assert "Issuing:" in crowd[-1].command("match victim")
    assert "from your address" in crowd[-2].command("match victim")


def test_in_game_offers_count_against_the_address_too():
    clock = Clock()
    server = make_server(clock=clock, address_offers_per_minute=3, address_offer_burst=3)
    white, black = named(server, "whitey", host=SPAMMER), named(server, "blacky", host=SPAMMER)
    white.command("match blacky 5 0 white")  # the address's first offer
    black.command("accept")
    white.output()
    for _ in range(2):  # its second and third
        assert white.command("draw") == "Draw offer sent to blacky.\n"
        black.command("decline")
    assert white.command("draw") == (
        "Too many offers are being made from your address. Wait 20 seconds before making "
        "another.\n")
    black.command("set language fr")
    assert black.command("draw") == (
        "Trop d’offres sont faites depuis votre adresse. Attendez 20 secondes avant d’en faire "
        "une autre.\n")
    clock.advance(20)
    assert black.command("draw") == "Proposition de nulle envoyée à whitey.\n"


# -- talk --------------------------------------------------------------------------------


def test_rotating_guests_of_one_address_talk_no_more_than_the_rate():
    clock = Clock()
    server = make_server(clock=clock)  # the defaults: 90 a minute, 60 at once
    listener = named(server, "listener")
    listener.command("+channel 5")
    crowd = guests(server, 10, host=SPAMMER)
    for guest in crowd:
        guest.command("+channel 5")
    listener.output()
    sent = refused = 0
    for i in range(20):
        for guest in crowd:
            out = guest.command(f"tell listener spam {i}" if i % 2 else f"tell 5 spam {i}")
            if "from your address" in out:
                refused += 1
                assert out == ("Too many messages are being sent from your address. Wait 1 "
                               "second before sending another.\n")
            else:
                sent += 1
    assert (sent, refused) == (60, 140)
    assert listener.output().count("spam") == 60
    other = named(server, "other")
    assert other.command("tell listener hello") == "(told listener)\n"
    crowd[0].command("set language fr")
    assert crowd[0].command("tell listener hi") == (
        "Trop de messages sont envoyés depuis votre adresse. Attendez 1 seconde avant d’en "
        "envoyer un autre.\n")
    clock.advance(1)
    assert crowd[1].command("tell listener back") == "(told listener)\n"


def test_a_message_refused_for_the_sender_takes_nothing_from_the_address():
    clock = Clock()
    server = make_server(clock=clock, talk_per_minute=2, address_talk_per_minute=3,
                         address_talk_burst=3)
    named(server, "listener")  # logged in: the messages' recipient
    first, second = guests(server, 2, host=SPAMMER)
    for _ in range(5):  # two pass, three are refused as the player's own
        first.command("tell listener one")
    assert "You are sending messages too quickly" in first.command("tell listener one")
    assert second.command("tell listener two") == "(told listener)\n"  # the third of the address
    assert "from your address" in second.command("tell listener two")


@pytest.mark.parametrize("settings", [
    {"address_talk_per_minute": 0},
    {"exempt": (SPAMMER,)},
])
def test_no_address_limit_when_off_or_exempt(settings):
    server = make_server(**{"address_talk_burst": 1, "address_talk_per_minute": 1, **settings})
    named(server, "listener")  # logged in: the messages' recipient
    crowd = guests(server, 3, host=SPAMMER)
    for guest in crowd:
        assert guest.command("tell listener hi") == "(told listener)\n"
        assert guest.command("tell listener again") == "(told listener)\n"
