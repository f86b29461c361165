"""Presence across nodes (ficsfen.server.cluster.presence) on a real Redis server.

Two or three :class:`Presence` objects, each on its own bus, on one private
reactor; their heartbeats are run by hand (:meth:`Presence.heartbeat`), so
a node's expiry is a number of steps, not a wait.  A last check runs a real
``ficsfen serve`` with no ``[cluster]`` and verifies the Redis client is
never loaded.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from redis_server import RedisServer, namespace
from test_cluster_bus import until

from ficsfen.server.store.testing import private_reactor, wait_for

presence_module = pytest.importorskip("ficsfen.server.cluster.presence")
from ficsfen.server.cluster.bus import Bus  # noqa: E402

Presence = presence_module.Presence

pytestmark = pytest.mark.slow
REPO = Path(__file__).resolve().parents[1]


class Node:
    """A bus, its presence, and the players "logged in" there (entries by folded handle)."""

    def __init__(self, name: str, reactor: Any, url: str, ns: str, wall: list[float]) -> None:
        self.bus = Bus(url, name, reactor=reactor, namespace=ns, initial_delay=0.02, max_delay=0.2)
        self.local: dict[str, dict[str, Any]] = {}
        self.replaced: list[str] = []
        self.changes = 0
        self.presence = Presence(
            self.bus, clock=reactor, wall=lambda: wall[0], interval=3600.0, timeout=1.0,
            entries=lambda: list(self.local.values()),
            local=lambda key: self.local[key]["login"] if key in self.local else None,
            replaced=self.replace, changed=self.changed)

    def replace(self, key: str) -> None:
        self.replaced.append(key)
        del self.local[key]
        self.presence.departed(key)

    def changed(self) -> None:
        self.changes += 1

    def login(self, handle: str, login: float, **extra: Any) -> None:
        entry = {"handle": handle, "registered": True, "login": login, **extra}
        self.local[handle.lower()] = entry
        self.presence.arrived(entry)

    def logout(self, handle: str) -> None:
        del self.local[handle.lower()]
        self.presence.departed(handle)

    def sees(self) -> set[str]:
        return {p.handle for p in self.presence.players()}


@pytest.fixture
def reactor() -> Any:
    return private_reactor()


@pytest.fixture
def cluster(reactor: Any, redis: RedisServer) -> Any:
    ns, wall, made = namespace(), [1000.0], []

    def node(name: str) -> Node:
        n = Node(name, reactor, redis.url, ns, wall)
        made.append(n)
        n.bus.start()
        until(reactor, lambda: n.bus.up)
        return n

    yield node
    for n in made:
        wait_for(reactor, n.presence.stop())
        wait_for(reactor, n.bus.stop())


def test_players_appear_change_and_leave_on_the_other_nodes(reactor, cluster, redis) -> None:
    one, two = cluster("one"), cluster("two")
    one.login("Alice", 1.0, channels=[50], variables={"shout": False})
    two.login("bob", 2.0)
    until(reactor, lambda: two.sees() == {"Alice"} and one.sees() == {"bob"})
    alice = two.presence.get("alice")
    assert alice.node == "one" and alice.channels == {50} and alice.variables == {"shout": False}
    assert alice.display_name() == "Alice" and list(two.presence.handles()) == ["Alice"]
    one.presence.updated({**one.local["alice"], "channels": [1, 2]})
    until(reactor, lambda: two.presence.get("alice").channels == {1, 2})
    # a third node starting late reads both tables whole
    three = cluster("three")
    until(reactor, lambda: three.sees() == {"Alice", "bob"})
    one.logout("Alice")
    until(reactor, lambda: two.sees() == set() and three.sees() == {"bob"})
    assert two.changes >= 3
    # what Redis keeps: one table per node, with the number of its last change
    table = redis.command("HGETALL", f"{one.bus.namespace}:presence:one")
    assert b"alice" not in table and b"~seq" in table


def test_a_lost_change_is_repaired_at_the_next_heartbeat(reactor, cluster, redis) -> None:
    one, two = cluster("one"), cluster("two")
    one.login("alice", 1.0)
    until(reactor, lambda: two.sees() == {"alice"})
    # a change written to Redis behind the bus's back: nobody heard it
    key = f"{one.bus.namespace}:presence:one"
    entry = json.dumps({"handle": "carol", "login": 3.0})
    redis.command("HSET", key, "carol", entry, "~seq", f"{one.presence.run}:{one.presence.seq + 5}")
    assert two.sees() == {"alice"}
    wait_for(reactor, two.presence.heartbeat())
    until(reactor, lambda: two.sees() == {"alice", "carol"})


def test_a_node_whose_heartbeat_expired_is_gone(reactor, cluster, redis) -> None:
    one, two = cluster("one"), cluster("two")
    two.login("bob", 1.0)
    until(reactor, lambda: one.sees() == {"bob"})
    # node two goes silent (its bus closed without a goodbye); its heartbeat key expires
    wait_for(reactor, two.bus.stop())
    alive = f"{one.bus.namespace}:alive:two"
    redis.command("PEXPIRE", alive, "1")
    until(reactor, lambda: redis.command("EXISTS", alive) == b":0\r\n")
    wait_for(reactor, one.presence.heartbeat())
    until(reactor, lambda: one.sees() == set())
    assert redis.command("EXISTS", f"{one.bus.namespace}:presence:two") == b":0\r\n"
    assert one.presence.nodes() == {}


def test_the_older_of_two_logins_of_one_handle_is_closed(reactor, cluster) -> None:
    one, two = cluster("one"), cluster("two")
    one.login("alice", 10.0)
    until(reactor, lambda: two.sees() == {"alice"})
    two.login("Alice", 20.0)  # later: node one closes its own
    until(reactor, lambda: one.replaced == ["alice"])
    until(reactor, lambda: two.sees() == set() and one.sees() == {"Alice"})
    assert two.replaced == []


def test_the_copy_is_emptied_while_the_bus_is_down_and_rebuilt_after(reactor, cluster, redis) -> None:
    one, two = cluster("one"), cluster("two")
    two.login("bob", 1.0)
    until(reactor, lambda: one.sees() == {"bob"})
    redis.kill()
    until(reactor, lambda: not one.bus.up)
    assert one.sees() == set()
    two.login("carol", 2.0)  # while down: written whole when the bus is back
    redis.restart()
    until(reactor, lambda: one.sees() == {"bob", "carol"})


def test_a_server_without_cluster_never_loads_the_redis_client(tmp_path) -> None:
    code = ("import sys\n"
            "from ficsfen.server.testing import make_server, connect\n"
            "server = make_server()\n"
            "connect(server).login('alice')\n"
            "import ficsfen.server.serve, ficsfen.server.config\n"
            "print(sorted(m for m in sys.modules if 'redis' in m or 'cluster.' in m))\n")
    result = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().splitlines()[-1] == "[]"
