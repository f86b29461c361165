"""Seeks and players' details across two real ``ficsfen serve`` nodes sharing one real
Redis server and one real PostgreSQL database.

A seek posted on node one is listed in ``sought`` on node two, announced to
node two's players (the announcement, ``<s>``), and removed there (``<sr>``)
after ``unseek`` and after its owner logs out; ``who`` on node two shows a
node one player's status mark while they play and their rating once a rated
game ended; ``finger`` across shows the rating table; a tell to a remote
player in a game answers "who is playing"; ``say`` reaches the last opponent
on the other node.  Waits poll a condition with a
generous deadline; nothing is timed.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Iterator

import pytest
from redis_server import RedisServer, namespace

from cluster_nodes import eventually, login, node_config, two_nodes

from ficsfen.server.testing import ServerProcess, TelnetClient

pytestmark = pytest.mark.slow

@pytest.fixture
def nodes(redis: RedisServer, pg_url: str,
          tmp_path: Path) -> Iterator[tuple[ServerProcess, ServerProcess]]:
    with two_nodes(tmp_path, redis.url, namespace("seeks"), pg_url) as both:
        yield both


def settle(client: TelnetClient) -> None:
    """Read what ``client`` was sent unasked (game ends, rating lines...), up to the answer
    of a command typed now."""
    client.send("syncpoint")
    client.read_until("syncpoint: Command not found.")
    client.read_until("fics% ")


def who_line(client: TelnetClient, handle: str) -> str:
    """``handle``'s line in ``who`` (empty if not listed)."""
    found = re.search(rf"^.{{5}}{handle}\b.*$", client.command("who"), re.M)
    return found.group(0) if found else ""


def test_a_seek_on_one_node_is_seen_and_removed_on_the_other(nodes) -> None:
    one, two = nodes
    with login(two, "bob") as bob:
        bob.command("iset seekinfo 1")
        with login(one, "alice") as alice:
            eventually("node one sees bob", lambda: who_line(alice, "bob") != "")
            assert "Your seek has been posted with index 1." in alice.command("seek 5 0")
            # node two numbers it (its lowest free number) and tells bob FICS's lines
            bob.read_until("<s> 1 w=alice ti=00 rt=0P t=5 i=0 r=u tp=blitz c=? rr=0-9999 a=t f=f")
            bob.read_until('alice (----) seeking 5 0 unrated blitz ("play 1" to respond)')
            bob.read_until("fics% ")
            sought = bob.command("sought")
            assert re.search(r"^  1 ---- alice +5   0 unrated blitz", sought, re.M)
            assert "1 ad displayed." in sought
            # unseek on node one: <sr> on node two, gone from sought
            assert "Your seeks have been removed." in alice.command("unseek")
            bob.read_until("<sr> 1")
            settle(bob)
            assert "0 ads displayed." in bob.command("sought")
            # a seek with a rating range bob's rating (none: 0) is outside: not listed for him
            alice.command("seek 15 5 1400-1800")
            bob.read_until("<s> 1 w=alice")
            bob.read_until("fics% ")
            assert "0 ads displayed." in bob.command("sought")
            assert "1 ad displayed." in bob.command("sought all")
            alice.command("seek 3 0")
            bob.read_until("<s> 2 w=alice")
            bob.read_until('("play 2" to respond)')
            settle(bob)
            assert "2 ads displayed." in bob.command("sought all")
        # alice logs out: her seeks go on node two
        bob.read_until("<sr> ")
        assert re.match(r"(1 2|2 1)\n", bob.read_until("fics% "))
        settle(bob)
        assert "0 ads displayed." in bob.command("sought all")


def test_a_node_joining_reads_the_seeks_posted_and_a_dead_node_s_go(redis, pg_url, tmp_path) -> None:
    ns = namespace("seeksjoin")
    with ServerProcess("--config", str(node_config(tmp_path, "one", ns)), "--cluster", redis.url,
                       "--data", pg_url) as one, login(one, "alice") as alice:
        alice.command("seek 5 0")
        with ServerProcess("--config", str(node_config(tmp_path, "two", ns)), "--cluster",
                           redis.url, "--data", pg_url) as two, login(two, "bob") as bob:
            eventually("node two lists alice's seek",
                       lambda: re.search(r"^  1 ---- alice", bob.command("sought"), re.M)
                       is not None)
            # and bob's seek reaches node one
            bob.command("seek 2 12")
            eventually("node one lists bob's seek",
                       lambda: re.search(r"^  2 ---- bob", alice.command("sought"), re.M)
                       is not None)
            two.stop(9)  # no goodbye: only the heartbeat's expiry tells
            # bob's seek leaves node one with him
            eventually("bob's seek leaves node one", lambda: "1 ad displayed." in alice.command(
                "sought"))


def test_status_marks_ratings_finger_and_tells_across_nodes(nodes) -> None:
    one, two = nodes
    with login(one, "alice") as alice, login(one, "carol") as carol, login(two, "bob") as bob:
        eventually("node two sees alice", lambda: who_line(bob, "alice") != "")
        assert who_line(bob, "alice") == "---- alice"
        # a rated game on node one: alice is playing, as node two's who shows
        alice.command("match carol 5 0 rated white")
        carol.read_until("fics% ")
        carol.command("accept")
        eventually("alice marked as playing on node two",
                   lambda: who_line(bob, "alice") == "----^alice")
        assert bob.command("tell alice good luck") == "(told alice, who is playing)\n"
        alice.command("e4")
        carol.command("resign")
        # the game over: no mark, and alice's or carol's new blitz rating is shown
        eventually("the mark goes and the new ratings are shown on node two", lambda: (
            re.fullmatch(r" ?\d{3,4} alice", who_line(bob, "alice")) is not None
            and re.fullmatch(r" ?\d{3,4} carol", who_line(bob, "carol")) is not None))
        rating = who_line(bob, "alice").split()[0]
        # finger across: online, and the rating table from the entry (Blitz, one game)
        finger = bob.command("finger alice")
        assert "Finger of alice:" in finger and "On for:" in finger
        assert re.search(rf"^Blitz +{rating} ", finger, re.M), finger
        assert bob.command("tell alice gg") == "(told alice)\n"
        # carol moves to node two: alice's say after the game reaches her there
        carol.close()
        alice.read_until("bob tells you: gg")  # the tells came over the bus, whenever
        settle(alice)
        with login(two, "carol") as carol_two:
            eventually("node one sees carol on node two", lambda: who_line(alice, "carol") != "")
            assert alice.command("say good game") == "(told carol)\n"
            assert "alice says: good game" in carol_two.read_until("fics% ")
            assert carol_two.command("+censor alice") == "[alice] added to your censor list.\n"
            eventually("node one knows carol censors alice",
                       lambda: alice.command("say again") == "carol is censoring you.\n")

