"""Game numbers unique across nodes (ficsfen.server.cluster.numbers) against a real Redis.

Two nodes' buses run on a private reactor (``ficsfen.server.store.testing``),
each with its :class:`GameNumbers`: many games starting at once on both nodes
(more than a pool holds: they wait for the claims), then Redis down (each node
numbers from its own range) and back (reserved numbers again).  Waits iterate
the reactor until a condition holds; nothing is timed.
"""

from __future__ import annotations

from typing import Any

import pytest
from redis_server import RedisServer, namespace
from twisted.internet.defer import Deferred, gatherResults

from ficsfen.server.store.testing import private_reactor, wait_for
from test_cluster_bus import until

bus_module = pytest.importorskip("ficsfen.server.cluster.bus")
numbers_module = pytest.importorskip("ficsfen.server.cluster.numbers")
GameNumbers = numbers_module.GameNumbers
OUTAGE_BASE, POOL, SPAN = numbers_module.OUTAGE_BASE, numbers_module.POOL, numbers_module.SPAN

pytestmark = pytest.mark.slow


@pytest.fixture
def nodes(redis: RedisServer) -> Any:
    """Nodes ``a`` and ``b``: (reactor, [(bus, numbers), ...]), their pools full."""
    reactor = private_reactor()
    ns = namespace("numbers")
    made = []
    for node in ("a", "b"):
        bus = bus_module.Bus(redis.url, node, reactor=reactor, namespace=ns,
                             initial_delay=0.02, max_delay=0.2)
        made.append((bus, GameNumbers(bus)))
        bus.start()
    until(reactor, lambda: all(n.slot is not None and n.at_hand == POOL for _, n in made))
    yield reactor, made
    for bus, numbers in made:
        if bus.up:
            wait_for(reactor, numbers.release())
        wait_for(reactor, bus.stop())


def _start(reactor: Any, made: list[Any], games: int) -> list[list[int]]:
    """``games`` games starting on each node in one turn of the reactor: their numbers."""
    asked: list[list[Deferred[Any]]] = [[n.reserve() for _ in range(games)] for _, n in made]
    return [wait_for(reactor, gatherResults(d)) for d in asked]


def _held(redis: RedisServer, bus: Any) -> dict[int, str]:
    """Redis's hash of reserved numbers (number -> node)."""
    lines = redis.command("HGETALL", bus.key("numbers")).decode().split("\r\n")[1:]
    flat = [line for line in lines if line and not line.startswith("$")]
    return {int(k): v for k, v in zip(flat[::2], flat[1::2])}


def test_many_games_starting_at_once_on_two_nodes_get_distinct_reserved_numbers(
        nodes, redis) -> None:
    reactor, made = nodes
    a, b = _start(reactor, made, 3 * POOL)  # most wait for a claim
    everything = a + b
    assert None not in everything and len(set(everything)) == len(everything)
    assert max(everything) < OUTAGE_BASE  # reserved in Redis, none of a node's own range
    held = _held(redis, made[0][0])
    assert all(held[n] == "a" for n in a) and all(held[n] == "b" for n in b)


def test_the_bus_down_each_node_numbers_from_its_own_range_then_reserved_ones_again(
        nodes, redis) -> None:
    reactor, made = nodes
    (bus_a, a), (bus_b, b) = made
    assert a.slot != b.slot
    redis.kill()
    until(reactor, lambda: not bus_a.up and not bus_b.up)
    down = [[n.take() for _ in range(POOL + 4)] for n in (a, b)]
    for numbers, own in zip(down, (a, b)):
        first = OUTAGE_BASE + SPAN * own.slot
        assert numbers == list(range(first, first + POOL + 4))
    redis.restart()
    until(reactor, lambda: all(bus.up and n.slot is not None and n.at_hand == POOL
                               for bus, n in made))
    back = _start(reactor, made, POOL + 4)
    everything = down[0] + down[1] + back[0] + back[1]
    assert len(set(everything)) == len(everything)
    assert max(back[0] + back[1]) < OUTAGE_BASE  # reserved again
    held = _held(redis, bus_a)
    assert all(held[n] == "a" for n in back[0]) and all(held[n] == "b" for n in back[1])
