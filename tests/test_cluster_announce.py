"""``iset pin``, ``iset allresults`` and the seeker's count across two real ``ficsfen serve``
nodes.

The scenario is written once, with the exact texts of a single server, and run
twice: every player on one ``ficsfen serve`` (no cluster), then the players
split over two nodes sharing a real Redis (:data:`test_cluster_watching.NODES`:
alice and carol on one, bob and dave on two).  Then, on two nodes only: the
bus going down and coming back announces nobody twice and tells who left
meanwhile, and a node killed takes its players away with a ``<wd>``.
"""

from __future__ import annotations

import re
import signal
from pathlib import Path

import pytest
from redis_server import RedisServer, namespace

from cluster_nodes import eventually, node_config
from test_cluster_watching import (  # noqa: F401 (fixtures)
    PASSWORDS, Place, everyone, login, place, single, split, start)

from ficsfen.server.testing import ServerProcess, TelnetClient

pytestmark = pytest.mark.slow

#: ``who I``'s entry of a registered player with no game and no rating (open, the default).
UNRATED = "000P0P0P0P0P0P0P0P0P"
DOWN = "The link between the servers is down: you see and reach the players of this server only."
BACK = "The link between the servers is back: you see and reach the players of every server again."


def pin_line(client: TelnetClient, start: str) -> str:
    """The next line ``client`` reads that starts with ``start`` (its prompt read too)."""
    line = client.read_until(start)
    line += client.read_until("\n")
    client.read_until("fics% ")
    return start + line.rsplit(start, 1)[1].rstrip("\n")


def sees(client: TelnetClient, *names: str) -> bool:
    answer = client.command("who")
    return all(re.search(rf"\b{n}\b", answer) for n in names)


def test_pin_and_allresults_read_as_on_one_server(place: Place) -> None:  # noqa: F811
    carol = login(place, "carol")
    carol.ask("iset pin 1", "pin set.")
    carol.ask("iset allresults 1", "allresults set.")
    dave = login(place, "dave")  # split: on the other node than carol's
    dave.ask("iset allresults 1", "allresults set.")
    clients = {"carol": carol, "dave": dave}
    try:
        assert pin_line(carol, "<wa> ") == f"<wa> dave {UNRATED}"
        for name in ("alice", "bob"):
            clients[name] = login(place, name)
            assert pin_line(carol, "<wa> ") == f"<wa> {name} {UNRATED}"
        alice, bob = clients["alice"], clients["bob"]
        eventually("alice and bob see each other", lambda: sees(alice, "bob") and sees(bob, "alice"))
        number = start(alice, bob, "alice bob")  # split: hosted by bob's node, two
        alice.ask("resign", "0-1")
        end = f"{{Game {number} (alice vs. bob) alice resigns}} 0-1"
        for listener in (carol, dave):  # neither plays nor observes: allresults
            assert pin_line(listener, "{Game ") == end
        bob.send("quit")
        assert pin_line(carol, "<wd> ") == "<wd> bob"
        alice.send("quit")
        assert pin_line(carol, "<wd> ") == "<wd> alice"
        dave.send("quit")
        assert pin_line(carol, "<wd> ") == "<wd> dave"
    finally:
        for client in clients.values():
            client.close()


def test_the_seeker_reads_how_many_players_of_every_node_saw_the_seek(
        place: Place) -> None:  # noqa: F811
    c = everyone(place, "alice", "bob", "carol", "dave")
    try:
        c["dave"].command("set seek 0")
        answer = c["alice"].ask("seek 5 0", "saw the seek.)")
        assert answer.splitlines()[-2] == "(2 players saw the seek.)"  # bob and carol
    finally:
        for client in c.values():
            client.close()


def test_an_outage_of_the_bus_announces_nobody_twice_and_a_dead_node_says_goodbye(
        redis: RedisServer, tmp_path: Path) -> None:
    ns = namespace("pin")
    one = ServerProcess("--config", str(node_config(tmp_path, "one", ns, PASSWORDS)),
                        "--cluster", redis.url)
    two = ServerProcess("--config", str(node_config(tmp_path, "two", ns, PASSWORDS)),
                        "--cluster", redis.url)
    with one, two:
        carol = one.connect()
        carol.login("carol", PASSWORDS["carol"])
        carol.ask("iset pin 1", "pin set.")
        bob, dave = two.connect(), two.connect()
        try:
            for name, client in (("bob", bob), ("dave", dave)):
                client.login(name, PASSWORDS[name])
                assert pin_line(carol, "<wa> ") == f"<wa> {name} {UNRATED}"
            redis.kill()
            carol.read_until(DOWN)
            carol.read_until("fics% ")
            dave.read_until(DOWN)
            dave.send("quit")  # node one cannot hear it
            dave.read_until("Thank you for using")
            redis.restart()  # empty: the nodes write their tables again
            carol.read_until(BACK)
            carol.read_until("fics% ")
            # bob, already announced, is not again; dave left meanwhile
            before = carol.read_until("<wd> dave")
            assert "<wa>" not in before and "<wd> bob" not in before
            carol.read_until("fics% ")
            eventually("node one sees bob again", lambda: sees(carol, "bob"))
            two.stop(signal.SIGKILL)
            assert pin_line(carol, "<wd> ") == "<wd> bob"
        finally:
            for client in (carol, bob, dave):
                client.close()
