"""What the server keeps after a crowd of connections has gone (memory after an attack).

After an attack of a few thousand connections the entries they left in the
server's tables (login counts per address, offer counts per sender, the
``finger`` times of guests) and the dict tables sized for them must go, or
each keeps CPython's allocator from giving a whole arena back.  All on an
injected clock.
"""

from __future__ import annotations

import gc
import re
import sys
import time
import tracemalloc
import types
import weakref
from array import array

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from twisted.internet.task import Clock

from ficsfen import i18n as i18n_module
from ficsfen.i18n import Message, available_languages, load_catalogs, translation
from ficsfen.server.challenges import OfferLimiter, OfferRateError
from ficsfen.server.config import hash_password
from ficsfen.server.ivars import IVAR_DEFAULTS
from ficsfen.server.limits import AddressLimits, LoginThrottle, MemoryTrimmer, compact
from ficsfen.server.telnet import FicsFactory
from ficsfen.server.testing import connect, make_server


def test_compact_shrinks_a_dict_that_held_thousands_and_keeps_its_identity():
    table = {f"10.0.{i >> 8}.{i & 255}": i for i in range(3000)}
    get = table.get
    big = sys.getsizeof(table)
    for key in list(table)[5:]:
        del table[key]
    assert sys.getsizeof(table) == big  # deleting never shrinks a dict
    compact(table)
    assert sys.getsizeof(table) < big / 20
    assert list(table.items()) == [(f"10.0.0.{i}", i) for i in range(5)]  # order kept
    assert get("10.0.0.3") == 3  # bound methods held elsewhere see the same dict


def test_address_limits_forget_a_crowd_a_minute_after_its_logins():
    clock = Clock()
    limits = AddressLimits(clock, connections=5, logins_per_minute=3)
    hosts = [f"10.1.{i >> 8}.{i & 255}" for i in range(2000)]
    for host in hosts:
        assert limits.connect(host) is None
        assert limits.login_attempt(host) is None
    grown = sys.getsizeof(limits.open)
    for host in hosts[1:]:
        limits.disconnect(host)
    clock.advance(30)
    limits.sweep()
    assert len(limits._logins) == 2000  # still counted within the minute
    clock.advance(31)
    limits.sweep()
    assert len(limits._logins) == 0
    assert limits.open == {hosts[0]: 1}
    assert sys.getsizeof(limits.open) < grown / 20
    assert sys.getsizeof(limits._logins.records) < grown / 20


def test_login_throttle_sweep_keeps_what_still_counts():
    clock = Clock()
    throttle = LoginThrottle(clock, window=900.0, lockout=900.0, failures=3)
    for i in range(500):
        throttle.failed("alice", f"10.2.{i >> 8}.{i & 255}")
    clock.advance(600)
    throttle.failed("bob", "10.3.0.1")
    throttle.sweep()
    assert "alice" in throttle.accounts.records  # locked out for 900 s: kept
    clock.advance(301)
    throttle.sweep()
    assert list(throttle.accounts.records) == ["bob"]
    assert list(throttle.addresses.records) == ["10.3.0.1"]
    assert throttle.refusal("bob", "10.3.0.1") is None  # the 1 s delay passed long ago


def test_offer_counts_of_senders_who_left_go_a_minute_after_their_last_offer():
    clock = Clock()
    limiter = OfferLimiter(clock.seconds, per_minute=2)
    for i in range(300):
        limiter.check(f"Guest{i:04d}")
        limiter.forget(f"Guest{i:04d}")  # logged out at once: kept for the minute
    assert len(limiter) == 300
    clock.advance(30)
    limiter.check("alice")
    limiter.sweep()
    assert len(limiter) == 301
    clock.advance(30)
    limiter.sweep()
    assert len(limiter) == 1  # alice's offer is 30 s old: it still counts
    limiter.check("alice")
    with pytest.raises(OfferRateError):  # the third within a minute: the sweep kept the count
        limiter.check("alice")


def test_guests_leave_no_finger_time_registered_players_do():
    clock = Clock()
    server = make_server(clock=clock, accounts={"sam": hash_password("pw", iterations=1000)})
    for _ in range(20):
        guest = connect(server)
        guest.login()
        guest.command("quit")
    sam = connect(server)
    sam.login("sam", "pw")
    sam.command("quit")
    assert list(server.sessions.last_seen) == ["sam"]


@pytest.mark.slow
def test_the_trimmer_tidies_the_server_after_a_burst_and_once_more_later():
    clock = Clock()
    server = make_server(clock=clock, trim_after=50, logins_per_minute=5)
    trimmer = FicsFactory(server).trimmer
    assert trimmer.tidy == server.tidy
    guests = [connect(server) for _ in range(60)]
    for guest in guests:
        guest.login()
        guest.disconnect()
    assert len(server.address_limits._logins) == 60
    clock.advance(5)  # the burst's run: the login counts are not a minute old yet
    assert trimmer.runs == 1
    assert len(server.address_limits._logins) == 60
    clock.advance(29)
    assert trimmer.runs == 1
    clock.advance(1)  # the second run, 30 s later: still within the minute
    assert trimmer.runs == 2
    assert len(server.address_limits._logins) == 60
    clock.advance(600)
    assert trimmer.runs == 2  # no more runs without new disconnections
    trimmer.run()
    assert len(server.address_limits._logins) == 0
    assert len(server.sessions) == 0 and sys.getsizeof(server.sessions._sessions) == sys.getsizeof({})


@pytest.mark.slow
def test_a_new_burst_replaces_the_pending_second_run():
    clock = Clock()
    tidied = []
    trimmer = MemoryTrimmer(clock, after=2, delay=5.0, again=30.0, tidy=lambda: tidied.append(clock.seconds()),
                            trim=lambda pad: 0)
    trimmer.closed()
    trimmer.closed()
    clock.advance(5)
    assert tidied == [5.0]
    clock.advance(10)
    trimmer.closed()
    trimmer.closed()  # a second burst before the follow-up
    clock.advance(5)
    assert tidied == [5.0, 20.0]
    clock.advance(30)
    assert tidied == [5.0, 20.0, 50.0]  # one follow-up, 30 s after the last burst
    clock.advance(100)
    assert tidied == [5.0, 20.0, 50.0]
    off = MemoryTrimmer(clock, after=2, again=0.0, tidy=lambda: tidied.append(-1), trim=lambda pad: 0)
    off.closed()
    off.closed()
    clock.advance(100)
    assert tidied[-1] == -1 and tidied.count(-1) == 1


# -- what each connection and each record is made of ------------------------------------
#
# Fewer objects per hostile connection means fewer arenas made at an attack's
# peak, and fewer arenas that a few long-lived objects can keep after it.


def _dispatch_tables_of_bound_methods(obj: object) -> list[str]:
    return [name for name, value in vars(obj).items()
            if isinstance(value, dict) and any(isinstance(v, types.MethodType) for v in value.values())]


def test_a_connection_holds_no_dispatch_table_of_bound_methods():
    server = make_server()
    client = connect(server)
    client.login()
    governor, protocol = client.protocol, client.protocol.wrappedProtocol
    assert _dispatch_tables_of_bound_methods(governor) == []
    assert _dispatch_tables_of_bound_methods(protocol) == []  # the line handlers' table is the class's
    assert protocol.dialogue is None  # the login dialogue is dropped once logged in
    # made on first use only: a login that never types ahead or sets ivars has neither
    waiting = connect(server)
    dialogue = waiting.protocol.wrappedProtocol.dialogue
    assert dialogue.type_ahead is None and dialogue.ivars is None
    assert not hasattr(dialogue, "__dict__")  # its fields in slots
    # and the tables still answer: a telnet negotiation, a command
    client.output()
    client.send_bytes(bytes([255, 253, 1]))  # IAC DO ECHO: refused with IAC WONT ECHO
    assert bytes([255, 252, 1]) in client.raw_output()
    assert client.handle in client.command("who")


def test_throttle_and_offer_records_keep_their_times_as_doubles_in_one_array():
    clock = Clock()
    throttle = LoginThrottle(clock, failures=10)
    for _ in range(5):
        clock.advance(60)
        throttle.failed("alice", "10.0.0.1")
    record = throttle.accounts.get("alice")
    assert record is not None and not hasattr(record, "__dict__")
    assert isinstance(record.failures, array) and list(record.failures) == [60, 120, 180, 240, 300]
    limits = AddressLimits(clock, logins_per_minute=3)
    limits.login_attempt("10.0.0.2")
    assert isinstance(limits._logins.get("10.0.0.2").failures, array)
    offers = OfferLimiter(clock.seconds, per_minute=5)
    offers.check("Spammer")
    assert all(isinstance(sent, array) for sent in offers._sent.values())


def test_rendering_any_message_once_the_catalogs_are_loaded_keeps_nothing_alive():
    load_catalogs()  # what the server does when it is made
    ids = sorted({m for lang in available_languages() for m in _catalog_ids(lang)})
    messages = [Message(m) for m in ids] + [Message("A message no catalog has, rendered late")]
    tracemalloc.start()
    try:
        before = tracemalloc.take_snapshot()
        texts = [m.render(lang) for lang in available_languages() for m in messages]
        del texts
        gc.collect()
        after = tracemalloc.take_snapshot()
    finally:
        tracemalloc.stop()
    i18n = tracemalloc.Filter(True, i18n_module.__file__)
    kept = [s for s in after.filter_traces([i18n]).compare_to(before.filter_traces([i18n]), "lineno")
            if s.size_diff > 0]
    assert kept == []


def _catalog_ids(lang: str) -> set[str]:
    """The msgids of ``lang``'s .po files (public text, not gettext's internals)."""
    folder = i18n_module.LOCALE_DIR / lang / "LC_MESSAGES"
    ids: set[str] = set()
    for po in folder.glob("*.po"):
        ids.update(m for m in re.findall(r'^msgid "(.*)"$', po.read_text("utf-8"), re.M) if m)
    return ids


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(sorted(_catalog_ids("fr") | _catalog_ids("en"))) | st.text(max_size=30),
       st.sampled_from(["en", "fr", "de"]))
def test_a_message_renders_as_gettext_translates_it(msgid, lang):
    assert Message(msgid).render(lang) == translation(lang).gettext(msgid)


def test_sessions_share_the_default_ivars_until_one_is_set():
    server = make_server()
    a, b = connect(server), connect(server)
    a.login()
    b.login()
    assert a.session.ivars is b.session.ivars  # one table for every session that set none
    a.command("iset ms 1")
    assert a.session.ivars["ms"] and not b.session.ivars["ms"]
    assert b.session.ivars == IVAR_DEFAULTS


def test_connections_at_the_prompt_share_one_login_timer_and_hold_no_objects_of_their_own():
    """A connection's login timeout, negotiation table and line reader cost no objects per connection."""
    server = make_server(login_timeout=120)
    clock = server.clock
    before = len(clock.getDelayedCalls())
    clients = [connect(server, host=f"192.0.2.{i}") for i in range(30)]
    assert len(clock.getDelayedCalls()) <= before + 1  # not one DelayedCall per connection
    logins = clients[0].protocol.factory.logins
    assert len(logins) == 30
    for client in clients:
        protocol = client.protocol.wrappedProtocol
        # one empty option table for every connection that negotiated nothing
        assert protocol.codec.options == {}
        assert protocol.codec.options is clients[0].protocol.wrappedProtocol.codec.options
        assert [k for k, v in vars(protocol).items() if isinstance(v, types.MethodType)] == []
        assert [k for k, v in vars(client.protocol).items() if isinstance(v, types.MethodType)] == []
    clock.advance(60)
    clients[0].login()
    assert clients[0].protocol.wrappedProtocol not in logins and len(logins) == 29
    clock.advance(59)
    assert all(client.connected for client in clients)
    clock.advance(1)
    assert clients[0].connected
    assert all(not client.connected and "Login timeout" in client.output() for client in clients[1:])
    assert len(logins) == 0


def test_a_negotiation_makes_the_connections_own_option_table_and_still_works():
    server = make_server()
    client, other = connect(server), connect(server)
    client.output()
    client.send_bytes(bytes([255, 253, 3]))  # IAC DO SGA: accepted with IAC WILL SGA
    assert bytes([255, 251, 3]) in client.raw_output()
    codec, others = client.protocol.wrappedProtocol.codec, other.protocol.wrappedProtocol.codec
    assert set(codec.options) == {bytes([3])}
    assert others.options == {} and others.options is not codec.options


def test_log_lines_are_timed_as_twisteds_text_observer_times_them(monkeypatch):
    from twisted.logger import formatTime

    from ficsfen.server.serve import log_time

    for zone in ("UTC", "Europe/Paris", "America/St_Johns", "Asia/Kolkata"):
        monkeypatch.setenv("TZ", zone)
        time.tzset()
        for when in (0.0, 1719900000.5, 1796113369.25, time.time()):
            assert log_time(when) == formatTime(when)
    monkeypatch.delenv("TZ")
    time.tzset()
    assert log_time(None) == formatTime(None) == "-"


def test_settle_collects_and_gives_the_free_heap_back():
    trims: list[int] = []
    trimmer = MemoryTrimmer(Clock(), trim=trims.append)
    gc.disable()  # only settle may collect the cycle
    try:
        ref = weakref.ref(_Holder([]))  # kept alive only by its own cycle
        assert ref() is not None
        trimmer.settle()
    finally:
        gc.enable()
    assert ref() is None and trims == [0]


class _Holder:
    def __init__(self, cycle: list) -> None:
        self.cycle = cycle
        cycle.append(self)


def test_a_password_prompt_never_answered_holds_no_deferred_and_ends_quietly():
    from twisted.conch.telnet import DONT, ECHO, IAC
    from twisted.internet.defer import Deferred
    from twisted.logger import globalLogPublisher

    server = make_server(accounts={"alice": hash_password("s3cret", iterations=1000)})
    silent, refusing = connect(server), connect(server)
    for client in (silent, refusing):
        client.output()
        client.send("alice")
    state = silent.protocol.wrappedProtocol.codec.option_state(ECHO).us
    assert state.negotiating and not any(isinstance(r, Deferred) for r in gc.get_referents(state))
    events: list[dict] = []
    globalLogPublisher.addObserver(events.append)
    try:
        refusing.send_bytes(IAC + DONT + ECHO)  # refused: the password is typed visibly
        refusing.send("s3cret")
        silent.disconnect()  # mid-negotiation
    finally:
        globalLogPublisher.removeObserver(events.append)
    assert "Starting FICS session as alice" in refusing.output()
    assert [e for e in events if "log_failure" in e] == []


def test_a_silent_connection_has_no_token_buckets_until_its_first_input():
    server = make_server(commands_per_second=10)
    client = connect(server)
    governor = client.protocol
    assert governor.rates is None
    client.output()
    client.send("guest")
    rates = governor.rates
    assert rates.rate is not None and rates.telnet is not None and rates.commands is not None
    assert rates.rate.rate == server.config.input_rate
    assert rates.commands.rate == 10
