"""The cluster bus (ficsfen.server.cluster.bus) against a real Redis server.

Each test runs its buses on a private reactor (``ficsfen.server.store.testing``)
and iterates it until what it waits for has happened; a new namespace keeps
each test's channels and keys apart on the shared server.
"""

from __future__ import annotations

from typing import Any, Callable

import pytest
from redis_server import RedisServer, namespace
from twisted.internet.defer import Deferred

from ficsfen.server.store.testing import private_reactor, wait_for

bus_module = pytest.importorskip("ficsfen.server.cluster.bus")
Bus, BusDown, BusMessage, parse_url = (bus_module.Bus, bus_module.BusDown, bus_module.BusMessage,
                                       bus_module.parse_url)

pytestmark = pytest.mark.slow


def until(reactor: Any, condition: Callable[[], bool]) -> None:
    """Iterate ``reactor`` until ``condition()`` holds (60 s at most: a broken test, not a measure)."""
    d: Deferred[None] = Deferred()

    def check() -> None:
        if d.called:
            return
        if condition():
            d.callback(None)
        else:
            reactor.callLater(0.005, check)

    check()
    wait_for(reactor, d)


@pytest.fixture
def reactor() -> Any:
    return private_reactor()


@pytest.fixture
def make_bus(reactor: Any, redis: RedisServer) -> Any:
    made: list[Any] = []
    ns = namespace()

    def make(node: str, url: str | None = None) -> Any:
        bus = Bus(url or redis.url, node, reactor=reactor, namespace=ns,
                  initial_delay=0.02, max_delay=0.2)
        made.append(bus)
        bus.start()
        return bus

    yield make
    for bus in made:
        wait_for(reactor, bus.stop())


def collect(bus: Any, kind: str) -> list[Any]:
    got: list[Any] = []
    bus.on(kind, got.append)
    return got


def test_urls() -> None:
    a = parse_url("redis://:secret@example.org:6380/2")
    assert (a.host, a.port, a.db, a.username, a.password) == ("example.org", 6380, 2, None, "secret")
    a = parse_url("redis://bob:p%40ss@127.0.0.1")
    assert (a.host, a.port, a.db, a.username, a.password) == ("127.0.0.1", 6379, None, "bob", "p@ss")
    assert parse_url("unix:///run/redis.sock?db=3").path == "/run/redis.sock"
    assert parse_url("unix:///run/redis.sock?db=3").db == 3
    for bad in ("http://x", "redis://h:99999", "redis://h/x", "unix://", "nats://h"):
        with pytest.raises(ValueError):
            parse_url(bad)
    with pytest.raises(ValueError):
        Bus("redis://127.0.0.1", "", reactor=None)


def test_node_and_broadcast_messages_reach_the_other_node_only(reactor, make_bus) -> None:
    a, b, c = make_bus("a"), make_bus("b"), make_bus("c")
    until(reactor, lambda: a.up and b.up and c.up)
    to_b, to_c, to_a = collect(b, "hello"), collect(c, "hello"), collect(a, "hello")
    # to one node: its channel only; fires with the subscribers that got it (b alone)
    assert wait_for(reactor, a.to_node("b", "hello", {"text": "héllo", "n": [1, 2]})) == 1
    until(reactor, lambda: len(to_b) == 1)
    message = to_b[0]
    assert message == BusMessage("hello", "a", {"text": "héllo", "n": [1, 2]}, "node:b")
    # broadcast: every node subscribes (3 receivers) but the sender never hears itself
    assert wait_for(reactor, a.broadcast("hello", {"x": 1})) == 3
    until(reactor, lambda: len(to_c) == 1 and len(to_b) == 2)
    assert to_a == [] and to_c[0].channel == "all" and to_c[0].sender == "a"


def test_messages_of_one_node_arrive_in_order(reactor, make_bus) -> None:
    a, b = make_bus("a"), make_bus("b")
    until(reactor, lambda: a.up and b.up)
    got = collect(b, "n")
    for i in range(200):
        (a.to_node if i % 2 else a.broadcast)(*(("b",) if i % 2 else ()), "n", {"i": i})
    until(reactor, lambda: len(got) == 200)
    assert [m.body["i"] for m in got] == list(range(200))
    assert a.published == 200 and b.received == 200


def test_extra_channels_and_commands(reactor, make_bus, redis) -> None:
    a, b = make_bus("a"), make_bus("b")
    until(reactor, lambda: a.up and b.up)
    b.subscribe("games")
    got = collect(b, "g")
    until(reactor, lambda: wait_for(reactor, a.publish("games", "g", {})) == 1)
    until(reactor, lambda: len(got) >= 1)
    assert got[0].channel == "games"
    key = a.key("test", "h")
    assert key.endswith(":test:h")
    wait_for(reactor, a.execute("HSET", key, "alice", "1"))
    assert wait_for(reactor, b.execute("HGETALL", key)) == ["alice", "1"]
    from txredisapi import ResponseError
    with pytest.raises(ResponseError):
        wait_for(reactor, a.execute("NOSUCHCOMMAND"))


def test_malformed_and_unhandled_messages_are_dropped(reactor, make_bus, redis) -> None:
    a, b = make_bus("a"), make_bus("b")
    until(reactor, lambda: a.up and b.up)
    got = collect(b, "ok")
    channel = f"{b.namespace}:all"
    for raw in ("not json", "[1]", '{"k": 1, "n": "x", "b": {}}', '{"k": "ok", "n": "x", "b": 3}'):
        redis.command("PUBLISH", channel, raw)
    wait_for(reactor, a.broadcast("nobody-handles-this", {}))
    wait_for(reactor, a.broadcast("ok", {"last": True}))
    until(reactor, lambda: len(got) == 1)
    assert got[0].body == {"last": True} and b.received == 6


def test_bus_down_then_back(reactor, make_bus, redis) -> None:
    a, b = make_bus("a"), make_bus("b")
    states: list[bool] = []
    a.on_state(states.append)
    until(reactor, lambda: a.up and b.up)
    assert states == [True]
    got = collect(b, "after")
    redis.kill()
    until(reactor, lambda: not a.up and not b.up)
    assert states == [True, False]
    failure = []
    a.broadcast("lost", {}).addErrback(failure.append)
    assert failure and failure[0].check(BusDown)
    assert "other servers" in failure[0].value.render("en")
    assert "autres serveurs" in failure[0].value.render("fr")
    redis.restart()
    until(reactor, lambda: a.up and b.up)
    assert states == [True, False, True]
    # b subscribed again after reconnecting
    wait_for(reactor, a.broadcast("after", {"n": 1}))
    until(reactor, lambda: len(got) == 1)


def test_a_bus_started_before_redis_connects_when_it_comes(reactor, make_bus, redis) -> None:
    redis.kill()
    a = make_bus("a")
    states: list[bool] = []
    a.on_state(states.append)
    for _ in range(20):  # several failed attempts, backing off
        reactor.runUntilCurrent()
        reactor.doIteration(0.01)
    assert not a.up and states == []
    with pytest.raises(BusDown):
        wait_for(reactor, a.execute("PING"))
    redis.start()
    until(reactor, lambda: a.up)
    assert states == [True] and wait_for(reactor, a.execute("PING")) == "PONG"


def test_a_password_in_the_url_logs_in_and_a_wrong_one_stays_down(reactor, make_bus, redis) -> None:
    a = make_bus("a")
    until(reactor, lambda: a.up)
    wait_for(reactor, a.execute("CONFIG", "SET", "requirepass", "s3cret"))
    try:
        good = make_bus("good", redis.url.replace("redis://", "redis://:s3cret@"))
        bad = make_bus("bad", redis.url.replace("redis://", "redis://:wrong@"))
        until(reactor, lambda: good.up)
        assert wait_for(reactor, good.execute("PING")) == "PONG"
        for _ in range(20):  # refused, retried with backoff, never up
            reactor.runUntilCurrent()
            reactor.doIteration(0.01)
        assert not bad.up
    finally:
        wait_for(reactor, a.execute("CONFIG", "SET", "requirepass", ""))


def test_a_frozen_redis_fails_commands_after_the_reply_timeout(reactor, redis) -> None:
    import signal

    bus = Bus(redis.url, "f", reactor=reactor, namespace=namespace(), initial_delay=0.02,
              max_delay=0.2, reply_timeout=0.3)
    bus.start()
    try:
        until(reactor, lambda: bus.up)
        redis.process.send_signal(signal.SIGSTOP)
        try:
            with pytest.raises(BusDown):
                wait_for(reactor, bus.broadcast("x", {}))
            until(reactor, lambda: not bus.up)
        finally:
            redis.process.send_signal(signal.SIGCONT)
        until(reactor, lambda: bus.up)
    finally:
        wait_for(reactor, bus.stop())


def _sockets_to(port: int) -> dict[int, bool]:
    """This process's TCP sockets connected to 127.0.0.1:``port``: fd -> TCP_NODELAY set."""
    import os
    import socket

    found: dict[int, bool] = {}
    for name in os.listdir("/proc/self/fd"):
        fd = int(name)
        try:
            sock = socket.fromfd(fd, socket.AF_INET, socket.SOCK_STREAM)  # a duplicate
        except OSError:
            continue
        try:
            if sock.type == socket.SOCK_STREAM and sock.getpeername()[1] == port:
                found[fd] = bool(sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))
        except OSError:
            pass  # not a connected TCP socket
        finally:
            sock.close()
    return found


def test_both_connections_send_at_once_without_nagle_delay(make_bus, reactor, redis) -> None:
    # a message written while Redis has not acknowledged the one before leaves at once
    before = _sockets_to(redis.port)
    bus = make_bus("n")
    until(reactor, lambda: bus.up)
    made = {fd: nodelay for fd, nodelay in _sockets_to(redis.port).items() if fd not in before}
    assert len(made) == 2 and all(made.values())
