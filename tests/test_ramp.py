"""A crowd arriving at once (an attack's ramp): newcomers queued after the players
already there, ``who`` renewed at most once a second while the listing keeps
changing, and a bounded number of connections accepted per reactor turn."""

from __future__ import annotations

import socket

import pytest
from twisted.internet import reactor as real_reactor
from twisted.internet.protocol import Factory, Protocol
from twisted.internet.testing import MemoryReactorClock

from ficsfen.server.config import Config, ConfigError, load
from ficsfen.server.load import TurnScheduler
from ficsfen.server.listening import AcceptLimitedPort, AcceptLimitedReactor, Connection
from ficsfen.server.serve import make_service
from ficsfen.server.telnet import FicsFactory
from ficsfen.server.testing import connect, make_server
from ficsfen.server.wholist import WhoCache, parse_who_options

PROMPT = "fics% "


class _Served:
    def __init__(self, name: str, served: list[str]) -> None:
        self.name, self.served = name, served

    def take_turn(self) -> None:
        self.served.append(self.name)


def test_scheduler_serves_established_connections_before_newcomers():
    from twisted.internet.task import Clock

    served: list[str] = []
    scheduler = TurnScheduler(Clock(), budget=1.0)
    scheduler.wait(_Served("new, cheap", served), 0.0, newcomer=True)
    scheduler.wait(_Served("old, costly", served), 0.5)
    scheduler.wait(_Served("new, costly", served), 0.2, newcomer=True)
    scheduler.wait(_Served("old, cheap", served), 0.1)
    scheduler.clock.advance(0)
    assert served == ["old, cheap", "old, costly", "new, cheap", "new, costly"]


def _logged_in(server, count):
    clients = [connect(server) for _ in range(count)]
    for c in clients:
        c.login()
        c.output()
    return clients


def test_a_newcomers_input_waits_in_the_queue_and_an_established_players_does_not():
    server = make_server(heavy_percent=1, newcomer_seconds=5)
    old = _logged_in(server, 1)[0]
    server.clock.advance(5)  # old is established now
    new = connect(server)
    new.output()
    new.protocol.dataReceived(b"guest\r\n")  # its login waits for the queue's turn
    assert new.protocol.waiting_turn and new.session is None
    old.protocol.dataReceived(b"fen\r\n")  # answered at once, in the same reactor turn
    assert old.output().count(PROMPT) == 1 and not old.protocol.waiting_turn
    server.clock.advance(0)  # the queue's turn
    assert "Logging you in as" in new.output()
    server.clock.advance(5)  # established: its input is no longer queued
    new.protocol.dataReceived(b"fen\r\n")
    assert new.output().count(PROMPT) == 1 and not new.protocol.waiting_turn


def test_newcomers_are_served_after_established_heavy_connections():
    server = make_server(heavy_percent=1, heavy_turn_ms=10, newcomer_seconds=5)
    scheduler = FicsFactory(server).scheduler
    heavy = _logged_in(server, 1)[0]
    server.clock.advance(5)
    heavy.protocol.charge(1.0)  # a second of CPU lately
    newcomers = [connect(server) for _ in range(3)]
    for c in newcomers:
        c.output()
        c.protocol.dataReceived(b"guest\r\n")
    heavy.protocol.dataReceived(b"fen\r\n")  # queued last, served first
    assert scheduler.waiting()[0] is heavy.protocol
    assert [w for w in scheduler.waiting()[1:]] == [c.protocol for c in newcomers]


def test_newcomer_seconds_zero_serves_a_new_connection_at_once():
    server = make_server(heavy_percent=1, newcomer_seconds=0)
    client = connect(server)
    client.output()
    client.protocol.dataReceived(b"guest\r\n")
    assert not client.protocol.waiting_turn and "Logging you in as" in client.output()


# -- who while logins stream in ----------------------------------------------------


class _Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_who_cache_renews_at_once_after_quiet_and_once_a_second_while_changing():
    version, clock = [0], _Clock()
    cache = WhoCache(lambda: version[0], clock=clock, refresh=1.0)
    render = lambda request: f"v{version[0]}"  # noqa: E731
    who = parse_who_options("")
    assert cache.answer(who, render) == "v0"
    version[0] = 1  # a change after a quiet while: shown at once
    assert cache.answer(who, render) == "v1"
    clock.now += 0.3
    version[0] = 2  # changes within the second after that renewal wait for the next one
    assert cache.answer(who, render) == "v1"
    clock.now += 0.5
    version[0] = 3
    assert cache.answer(who, render) == "v1"
    clock.now += 0.2  # a second after the last renewal: everything so far shows
    assert cache.answer(who, render) == "v3"
    assert cache.renders == 3


def test_who_lists_a_crowd_logging_in_within_a_second_of_each_login():
    server = make_server(heavy_percent=0)
    watcher = _logged_in(server, 1)[0]
    renders = server.who_cache.renders
    crowd = []
    for _ in range(10):  # ten logins a tenth of a second apart, watcher asking after each
        crowd += _logged_in(server, 1)
        watcher.command("who")
        server.clock.advance(0.1)
    assert server.who_cache.renders - renders <= 2  # not one rendering per login
    server.clock.advance(1)
    listed = watcher.command("who")
    assert all(c.session.handle in listed for c in crowd)


# -- accepting connections ----------------------------------------------------------


def test_accepts_per_turn_and_newcomer_seconds_are_read_from_limits(tmp_path):
    path = tmp_path / "f.toml"
    path.write_text("[limits]\naccepts_per_turn = 4\nnewcomer_seconds = 2.5\n")
    config = load(path)
    assert (config.accepts_per_turn, config.newcomer_seconds) == (4, 2.5)
    path.write_text("[limits]\naccepts_per_turn = 0\n")
    with pytest.raises(ConfigError):
        load(path)


def test_tcp_endpoints_listen_with_the_accept_limit():
    reactor = MemoryReactorClock()
    config = Config(listen=("tcp:0:interface=127.0.0.1", "unix:/tmp/nowhere.sock"), data_file=None, web=None,
                    accepts_per_turn=7)
    service = make_service(config, reactor=reactor)
    (_, tcp_endpoint), (_, unix_endpoint) = service.endpoints
    assert isinstance(tcp_endpoint._reactor, AcceptLimitedReactor)
    assert tcp_endpoint._reactor.accepts_per_turn == 7 and tcp_endpoint._reactor.reactor is reactor
    assert unix_endpoint._reactor is reactor


class _Count(Protocol):
    def connectionMade(self) -> None:
        self.factory.made.append(self.transport)


def test_a_port_accepts_at_most_its_limit_per_turn_on_loopback():
    """Real loopback sockets: each readable turn of the port accepts at most 3 of 8 waiting."""
    factory = Factory.forProtocol(_Count)
    factory.made = []
    port = AcceptLimitedReactor(real_reactor, 3).listenTCP(0, factory, 50, "127.0.0.1")
    clients = []
    try:
        assert isinstance(port, AcceptLimitedPort)
        address = port.getHost()
        clients = [socket.create_connection((address.host, address.port), timeout=60) for _ in range(8)]
        counts = []
        for _ in range(4):
            before = len(factory.made)
            port.doRead()  # what the reactor calls when the listening socket is readable
            counts.append(len(factory.made) - before)
        assert counts == [3, 3, 2, 0]
        # Its connections keep no log prefix or repr of their own (memory after an attack).
        connection = factory.made[0]
        assert isinstance(connection, Connection) and type(connection) is port.transport
        assert "logstr" not in vars(connection) and "repstr" not in vars(connection)
        assert connection.logPrefix() == f"twisted.internet.protocol.Factory,{address.port}"
        assert connection.logPrefix() is factory.made[1].logPrefix()  # one string per port
        assert repr(connection) == f"<Connection #{connection.sessionno} on {address.port}>"
    finally:
        for transport in factory.made:
            real_reactor.removeReader(transport)
            real_reactor.removeWriter(transport)
            transport.socket.close()
        for c in clients:
            c.close()
        port.stopReading()
        port.socket.close()


def test_a_newcomer_quitting_in_its_queued_turn_reads_no_more():
    server = make_server(heavy_percent=1, newcomer_seconds=5)
    client = connect(server)
    client.login()
    client.output()
    client.protocol.dataReceived(b"quit\r\n")  # waits for the queue's turn, then closes
    assert client.protocol.waiting_turn
    server.clock.advance(0)
    assert client.transport.disconnecting and client.transport.producerState == "paused"
