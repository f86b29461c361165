"""The seats' outbox (ficsfen.server.cluster.seats.Outbox) against a real Redis server:
what the owner writes to another node's seats during one turn leaves as one message,
in order, and before any later message of the node."""

from __future__ import annotations

import pytest
from redis_server import RedisServer, namespace

from ficsfen.server.store.testing import private_reactor, wait_for

seats = pytest.importorskip("ficsfen.server.cluster.seats")
from ficsfen.server.cluster.bus import Bus  # noqa: E402
from test_cluster_bus import collect, until  # noqa: E402

pytestmark = pytest.mark.slow


def test_one_message_per_node_and_turn_in_order(redis: RedisServer) -> None:
    reactor = private_reactor()
    ns = namespace()
    a, b, c = (Bus(redis.url, n, reactor=reactor, namespace=ns, initial_delay=0.02,
                   max_delay=0.2) for n in ("a", "b", "c"))
    for bus in (a, b, c):
        bus.start()
    try:
        until(reactor, lambda: a.up and b.up and c.up)
        to_b: list = []
        b.on("seat.out", to_b.append)
        b.on("mark", to_b.append)
        out_c = collect(c, "seat.out")
        outbox = seats.Outbox(a)
        x, y, z = (seats.SeatSink(outbox, "b", "x"), seats.SeatSink(outbox, "b", "y"),
                   seats.SeatSink(outbox, "c", "z"))
        x.write(b"one ")
        x.write(b"two")  # the same players: joined to the entry before
        seats.SeatSink.write_all([x, y, z], b"board \xe9\r\n")  # bytes as they are (latin-1)
        assert a.published == 0  # nothing leaves before the turn ends...
        a.to_node("b", "mark", {})  # ...or before another message of the node
        assert a.published == 3
        y.write(b"later")  # the next batch, sent when the turn ends
        until(reactor, lambda: len(to_b) == 3 and len(out_c) == 1)
        assert [m.kind for m in to_b] == ["seat.out", "mark", "seat.out"]
        assert to_b[0].body == {"w": [["x", "one two"], ["x y", "board \xe9\r\n"]]}
        assert out_c[0].body == {"w": [["z", "board \xe9\r\n"]]}
        assert to_b[2].body == {"w": [["y", "later"]]}
        assert a.published == 4 and b.received == 3
    finally:
        for bus in (a, b, c):
            wait_for(reactor, bus.stop())
