"""Timeseal across real nodes: a timeseal player of node two in a game hosted by node
one is charged what a single server charges for the same stamps; the pings reach
their client after the boards, and their answers are not commands.

Real Redis, real ``ficsfen serve`` processes; the timeseal lines are made by the
encoder of ``test_login_timeseal.py`` (written from the documented format).  The
client claims 40 ms of thought and waits at least 50 ms before sending its move, so
every wall clock on the way measured more than it claims: a lower bound, nothing
is timed.  The outbox's pings are checked against the real Redis server too.
"""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest
from redis_server import RedisServer, namespace
from test_cluster_bus import collect, until
from test_login_timeseal import HELLO, encode

from cluster_nodes import PASSWORDS, eventually, node_config
from test_cluster_serve import who_lists

from ficsfen.server import timeseal
from ficsfen.server.store.testing import private_reactor, wait_for
from ficsfen.server.testing import ServerProcess, TelnetClient, accounts_config

seats = pytest.importorskip("ficsfen.server.cluster.seats")
from ficsfen.server.cluster.bus import Bus  # noqa: E402

pytestmark = pytest.mark.slow

#: Seconds of lag a move may be forgiven: more than any wall clock here, so that what
#: is charged is the client's claim (a larger allowance changes no rule).
ALLOWANCE = "[limits]\nlag_compensation = 60\n"
THOUGHT_MS = 40


class SealedClient:
    """A timeseal client on a real connection: every line encoded with a stamp."""

    def __init__(self, client: TelnetClient) -> None:
        self.client = client

    def send(self, line: str, stamp: int = 0) -> None:
        self.client.send_bytes(encode(line.encode(), stamp))

    def login(self, name: str) -> None:
        self.client.read_until("login: ")
        self.client.send_bytes(encode(HELLO, 0) + encode(name.encode(), 0))
        self.client.read_until("password: ")
        self.send(PASSWORDS[name])
        self.client.read_until("fics% ")

    def command(self, line: str, answer: str) -> str:
        self.send(line)
        return self.client.read_until(answer)


def _board_fields(text: str) -> list[str]:
    """The fields of the last style 12 board in ``text``."""
    boards = re.findall(r"^<12> (.*)$", text, re.M)
    assert boards, f"no board in {text!r}"
    return boards[-1].split()


def _play(alice_node: ServerProcess, bob_node: ServerProcess) -> tuple[str, str]:
    """bob (timeseal, on ``bob_node``) challenges alice (plain, on ``alice_node``): the
    game is hosted by alice's node.  Returns bob's remaining time (ms) and the time his
    second move took, as his own board after it shows them."""
    with alice_node.connect() as plain, bob_node.connect() as raw:
        bob = SealedClient(raw)
        bob.login("bob")
        plain.login("alice", PASSWORDS["alice"])
        for setting, answer in (("set style 12", "Style 12 set."), ("iset ms 1", "ms set.")):
            plain.ask(setting, answer)
            bob.command(setting, answer)
            raw.read_until("fics% ")
        if alice_node is not bob_node:
            eventually("alice's node sees bob", lambda: who_lists(plain, "bob"))
        bob.command("match alice 5 0 black", "Issuing:")
        plain.read_until("Challenge:")
        plain.read_until("fics% ")
        plain.command("accept")
        raw.read_until("Creating unrated")
        plain.send("e4")
        # the board, then the ping (its bytes as a single server writes them)
        text = raw.read_bytes_until(timeseal.PING)
        assert b"e2-e4" in text and text.endswith(b"fics% " + timeseal.PING)
        bob.send(timeseal.PING_REPLY.decode(), 1_000)
        bob.send("e5", 1_000)  # a player's first move is not timed
        plain.read_until("P/e7-e5")
        plain.read_until("fics% ")
        plain.send("d4")
        text = raw.read_bytes_until(timeseal.PING)
        assert b"P/d2-d4" in text
        bob.send(timeseal.PING_REPLY.decode(), 50_000)  # the board's arrival
        time.sleep((THOUGHT_MS + 10) / 1000)  # a lower bound on every wall clock measured
        bob.send("Nc6", 50_000 + THOUGHT_MS)  # claims 40 ms of thought
        fields = _board_fields(raw.read_until("N/b8-c6") + raw.read_until("\n"))
        assert "N/b8-c6" in plain.read_until("N/b8-c6")
        return fields[24], fields[27]


def test_a_timeseal_player_of_another_node_is_charged_as_on_a_single_node(
        redis: RedisServer, tmp_path: Path) -> None:
    single = accounts_config(tmp_path / "single.toml", dict(PASSWORDS))
    single.write_text(single.read_text() + ALLOWANCE)
    with ServerProcess("--config", str(single)) as alone:
        charged_alone = _play(alone, alone)
    ns = namespace("seal")
    configs = []
    for name in ("one", "two"):
        path = node_config(tmp_path, name, ns)
        path.write_text(path.read_text() + ALLOWANCE)
        configs.append(path)
    one = ServerProcess("--config", str(configs[0]), "--cluster", redis.url)
    two = ServerProcess("--config", str(configs[1]), "--cluster", redis.url)
    with one, two:
        charged_across = _play(one, two)
    assert charged_alone == (str(300_000 - THOUGHT_MS), "(0:00.040)")
    assert charged_across == charged_alone


def test_the_outbox_pings_after_the_bytes_of_the_turn(redis: RedisServer) -> None:
    reactor = private_reactor()
    ns = namespace()
    a, b = (Bus(redis.url, n, reactor=reactor, namespace=ns, initial_delay=0.02,
                max_delay=0.2) for n in ("a", "b"))
    for bus in (a, b):
        bus.start()
    try:
        until(reactor, lambda: a.up and b.up)
        out_b = collect(b, "seat.out")
        outbox = seats.Outbox(a)
        x, y = seats.SeatSink(outbox, "b", "x"), seats.SeatSink(outbox, "b", "y")
        x.ping()  # asked before the board is written: still sent after it
        seats.SeatSink.write_all([x, y], b"board\r\n")
        until(reactor, lambda: len(out_b) == 1)
        y.ping()  # a ping alone is a message of its own
        until(reactor, lambda: len(out_b) == 2)
        assert out_b[0].body == {"w": [["x y", "board\r\n"]], "p": ["x"]}
        assert out_b[1].body == {"w": [], "p": ["y"]}
    finally:
        for bus in (a, b):
            wait_for(reactor, bus.stop())
