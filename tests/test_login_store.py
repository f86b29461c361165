"""Store reads off the reactor thread, and logins at a shutdown.

The server runs on a private real reactor (its read thread and password
pool need one) with a real SQLite store, wrapped so that a test can hold
one read (``get_account``) on a :class:`threading.Event`: the disk of a
frozen filesystem.  While that read waits, the other players and new
connections are served.  The tests iterate the reactor (``wait_for``,
:func:`run_until`) and never measure time.

A test ends as the service stops (``FicsService``): the store is closed
only once no read is under way (:func:`end_reads`).  A login's arrival
reads (the stored messages, adjourned games) go on in the read thread after
the session exists; closing the read connection under one of them crashes
the process.
"""

from __future__ import annotations

import random
import sqlite3
import threading
import time
from dataclasses import replace
from typing import Any, Callable

import pytest
from twisted.internet.task import Clock
from twisted.logger import LogLevel, globalLogPublisher

from ficsfen.server.config import Config, hash_password
from ficsfen.server.serve import FicsService
from ficsfen.server.server import FicsServer
from ficsfen.server.store import SQLiteStore, StoreClosedError
from ficsfen.server.store.testing import private_reactor, wait_for
from ficsfen.server.telnet import FicsFactory
from ficsfen.server.testing import connect, make_server

PASSWORDS = {"alice": "ecila", "bob": "bob!", "carol": "lorac"}
ACCOUNTS = {name: hash_password(word, iterations=1000) for name, word in PASSWORDS.items()}
# Only keeps a broken test from hanging: no measure.
PATIENCE = 60.0


class FrozenReads:
    """A real store whose account reads can be held, as a frozen filesystem would.

    :meth:`freeze` makes the next ``get_account`` calls wait until :meth:`thaw`;
    :attr:`held` is set once one is waiting.  Everything else is the real
    store's.  Calls made after ``close`` are recorded in :attr:`after_close`.
    """

    def __init__(self, store: SQLiteStore) -> None:
        self.store = store
        self.path = store.path
        self._open = threading.Event()
        self._open.set()
        self.held = threading.Event()
        self.read_threads: list[int] = []  # the ident of each get_account's thread
        self.closed = False
        self.after_close: list[str] = []

    def freeze(self) -> None:
        self._open.clear()

    def thaw(self) -> None:
        self._open.set()

    def get_account(self, name: str) -> Any:
        self.read_threads.append(threading.get_ident())
        if not self._open.is_set():
            self.held.set()
            if not self._open.wait(PATIENCE):
                raise TimeoutError("the store was never thawed")
        return self.store.get_account(name)

    def close(self) -> Any:
        self.closed = True
        return self.store.close()

    def __getattr__(self, name: str) -> Any:
        attribute = getattr(self.store, name)
        if self.closed and callable(attribute):
            self.after_close.append(name)
        return attribute


def run_until(reactor: Any, done: Callable[[], bool]) -> None:
    """Iterate ``reactor`` (its timed calls and what threads hand it) until ``done()``."""
    deadline = time.monotonic() + PATIENCE
    while not done():
        if time.monotonic() > deadline:
            raise TimeoutError("the condition never came true")
        reactor.runUntilCurrent()
        reactor.doIteration(0.01)


def end_reads(reactor: Any, server: FicsServer) -> None:
    """Iterate ``reactor`` until none of ``server``'s store reads is under way.

    Read again after each wait: a read's answer may start another (an arrival's).
    No read starts between the last wait and the caller's next step, because
    reads are only started in the reactor thread, which is not iterated then.
    """
    while wait_for(reactor, server.reads_done()):
        pass


def enter_as_guest(reactor: Any, client: Any) -> None:
    """Log in as a guest; input may wait a turn or two on a real reactor (its rates)."""
    client.send_bytes(b"guest\r\n\r\n")
    run_until(reactor, lambda: client.session is not None)
    client.output()


@pytest.fixture
def reactor():
    reactor = private_reactor()
    yield reactor
    reactor.fireSystemEvent("shutdown")  # stops the server's thread pools


@pytest.fixture
def store(tmp_path, reactor):
    real = SQLiteStore.open(tmp_path / "data.sqlite3", reactor=reactor)
    wait_for(reactor, real.import_accounts(ACCOUNTS))
    store = FrozenReads(real)
    yield store
    store.thaw()
    if not store.closed:  # every server's reads have ended (the make fixture)
        wait_for(reactor, store.close())


@pytest.fixture
def make(store, reactor):
    """``make(clock)``: a server on ``store``; at the end of the test, the store is
    thawed and each server's reads end (:func:`end_reads`) before the store closes."""
    servers: list[FicsServer] = []

    def build(clock: Any) -> FicsServer:
        # newcomer_seconds=0: a command runs in the turn it arrives
        config = replace(Config(), accounts=ACCOUNTS, newcomer_seconds=0)
        server = FicsServer(config, clock=clock, rng=random.Random(0), store=store)
        server.start_threads()
        servers.append(server)
        return server

    yield build
    store.thaw()
    for server in servers:
        end_reads(reactor, server)


def test_a_frozen_account_read_leaves_other_players_and_new_connections_served(
        store, reactor, make):
    server = make(reactor)
    guest = connect(server)
    enter_as_guest(reactor, guest)
    alice = connect(server)
    alice.output()
    store.freeze()
    alice.send("alice")
    run_until(reactor, store.held.is_set)  # the lookup waits on the disk, in the read thread
    assert "password" not in alice.output()
    guest.output()
    guest.send("date")  # answered by the reactor while the read waits
    run_until(reactor, lambda: b"Server time" in guest.transport.value())
    newcomer = connect(server)
    banner = newcomer.output()
    assert "Welcome to ficsfen" in banner and banner.endswith("login: ")
    alice.send("ecila")  # typed ahead, before the password prompt: kept for it
    store.thaw()
    run_until(reactor, lambda: server.sessions.get("alice") is not None)
    # the lookups (the name, the password's hash, then the account's flags with its
    # settings, and any the arrival makes) in one thread, not the reactor's
    assert len(store.read_threads) >= 3 and len(set(store.read_threads)) == 1
    assert threading.get_ident() not in store.read_threads


def test_the_login_dialogue_reads_the_same_with_reads_in_a_thread(store, reactor, make):
    """Off the reactor thread or inline (a test clock), a login writes the same bytes."""
    seen = []
    for clock in (reactor, Clock()):
        server = make(clock)
        alice, bob, zed = connect(server), connect(server), connect(server)
        alice.send_bytes(b"alice\r\necila\r\n")  # one packet: name and password
        run_until(reactor, lambda: server.sessions.get("alice") is not None)
        bob.send_bytes(b"bob\r\nnot his\r\n")
        run_until(reactor, lambda: b"Invalid password" in bob.transport.value())
        zed.send_bytes(b"Zed\r\n\r\n")  # not registered: press return, typed ahead too
        run_until(reactor, lambda: server.sessions.get("Zed") is not None)
        seen.append([client.raw_output() for client in (alice, bob, zed)])
        for client in (alice, bob, zed):
            client.disconnect()
        end_reads(reactor, server)  # the arrivals' reads: the next server reads inline
    threaded, inline = seen
    assert b"**** Starting FICS session as alice ****" in threaded[0]
    assert b"Starting FICS session as Zed" in threaded[2]
    assert threaded == inline


def test_a_login_finishing_during_a_shutdown_is_refused_and_the_game_is_adjourned(
        store, reactor, make):
    server = make(reactor)
    service = FicsService(server, FicsFactory(server), [], reactor=reactor, store=store)
    criticals: list[dict] = []

    def observe(event: dict) -> None:
        if event.get("log_level") in (LogLevel.critical, LogLevel.error):
            criticals.append(event)

    globalLogPublisher.addObserver(observe)
    try:
        clients = {}
        for name in ("alice", "bob"):
            clients[name] = connect(server)
            clients[name].send(name)
            run_until(reactor, lambda c=clients[name]: b"password: " in c.transport.value())
            clients[name].send(PASSWORDS[name])
            run_until(reactor, lambda n=name: server.sessions.get(n) is not None)
        alice, bob = clients["alice"], clients["bob"]
        alice.send("match bob 5 0 white")
        run_until(reactor, lambda: b"Challenge:" in bob.transport.value())
        bob.send("accept")
        run_until(reactor, lambda: server.directory.game_of("alice") is not None)
        game_id = server.directory.game_of("alice").record_id
        carol = connect(server)
        carol.send("carol")
        run_until(reactor, lambda: b"password: " in carol.transport.value())
        store.freeze()
        carol.send("lorac")  # its hash is read: that read waits
        run_until(reactor, store.held.is_set)

        stopped = service.stopService()
        run_until(reactor, lambda: server.sessions.get("alice") is None and server.sessions.get("bob") is None)
        for client in (alice, bob):
            out = client.output()
            assert "Game adjourned by server shutdown" in out
            assert "The server is shutting down. Goodbye." in out
            client.disconnect()
        assert not store.closed  # a read is under way: its connection stays open
        store.thaw()
        run_until(reactor, lambda: not carol.connected)
        text = carol.output()
        assert "The server is shutting down. Goodbye." in text
        assert "Starting FICS session" not in text and server.sessions.get("carol") is None
        carol.disconnect()
        wait_for(reactor, stopped)
    finally:
        globalLogPublisher.removeObserver(observe)
    assert store.closed and store.after_close == []
    with pytest.raises(StoreClosedError):
        store.store.get_account("alice")
    assert criticals == []
    with sqlite3.connect(store.path) as conn:
        status = conn.execute("SELECT status FROM games WHERE id = ?", (game_id,)).fetchone()
    assert status == ("adjourned",)


def test_once_the_server_stops_no_step_of_the_login_dialogue_goes_on():
    server = make_server(accounts=ACCOUNTS)
    at_login, at_password, at_return = connect(server), connect(server), connect(server)
    at_password.send("alice")
    at_return.send("guest")
    for client in (at_login, at_password, at_return):
        client.output()
    server.shutdown()
    at_login.send("bob")
    at_password.send("ecila")
    at_return.send("")
    for client in (at_login, at_password, at_return):
        assert client.output() == "The server is shutting down. Goodbye.\n"
        assert not client.connected
    assert server.sessions.get("alice") is None and not server.sessions.sorted()


def test_a_command_waiting_for_a_frozen_read_answers_as_before_and_in_order(
        store, reactor, make):
    """``history``, ``finger`` of an absent player: the answer, its prompt or block frame,
    and the lines typed after it come when the read is back, byte for byte as inline."""
    lines = b"history carol\r\nfinger carol\r\niset block 1\r\n5 history carol\r\n6 finger carol\r\n"
    seen = []
    for clock in (reactor, Clock()):
        server = make(clock)
        alice, guest = connect(server), connect(server)
        alice.send_bytes(b"alice\r\necila\r\n")
        run_until(reactor, lambda: server.sessions.get("alice") is not None)
        enter_as_guest(reactor, guest)
        alice.output()
        if clock is reactor:
            store.freeze()
        alice.send_bytes(lines)
        if clock is reactor:
            run_until(reactor, store.held.is_set)
            guest.output()
            guest.send("date")  # answered while alice's read waits
            run_until(reactor, lambda: b"Server time" in guest.transport.value())
            assert alice.raw_output() == b""  # not even the prompt before the answer
            store.thaw()
        run_until(reactor, lambda: alice.transport.value().count(b"Finger of carol") == 2)
        seen.append(alice.raw_output())
        alice.disconnect()
        guest.disconnect()
        end_reads(reactor, server)  # the arrival's reads: the next server reads inline
    threaded, inline = seen
    assert threaded.startswith(b"carol has no history games.\r\nfics% Finger of carol:")
    assert threaded == inline


def test_lines_beyond_the_limit_while_a_read_waits_are_dropped_and_counted(
        store, reactor, make):
    from ficsfen.server.reply import MAX_WAITING_LINES

    server = make(reactor)
    alice = connect(server)
    alice.send_bytes(b"alice\r\necila\r\n")
    run_until(reactor, lambda: server.sessions.get("alice") is not None)
    alice.output()
    store.freeze()
    alice.send("finger carol")
    run_until(reactor, store.held.is_set)
    for _ in range(MAX_WAITING_LINES + 3):
        alice.send("date")
    session = server.sessions.get("alice")
    # every line past the telnet side's rates (a few turns), all while the read waits
    run_until(reactor, lambda: len(session.reply.queued) + session.reply.dropped
              == MAX_WAITING_LINES + 3)
    store.thaw()
    run_until(reactor, lambda: alice.transport.value().count(b"Server time") == MAX_WAITING_LINES)
    out = alice.output()
    assert out.startswith("Finger of carol:")
    assert "3 lines typed while your previous command waited for the data file were ignored." in out
    assert out.index("were ignored") < out.index("Server time")


def test_a_failed_account_read_refuses_the_login_with_a_message(store):
    import sqlite3 as sqlite

    server = FicsServer(replace(Config(), accounts=ACCOUNTS), clock=Clock(), store=store)
    failing = store.get_account

    def broken(name: str) -> Any:
        raise sqlite.OperationalError("disk I/O error")

    store.get_account = broken
    errors: list[dict] = []
    globalLogPublisher.addObserver(errors.append)
    try:
        client = connect(server)
        client.output()
        client.send("alice")
    finally:
        globalLogPublisher.removeObserver(errors.append)
        store.get_account = failing
    assert client.output() == "Sorry, your login could not be completed; please try again later.\n"
    assert not client.connected
    assert any(e.get("log_failure") is not None and "alice" in str(e.get("name")) for e in errors)
