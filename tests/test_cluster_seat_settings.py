"""A player's settings on the node hosting their game, two real ``ficsfen serve`` nodes
sharing one real Redis server.

A line forwarded to the owner carries the player's settings only when the owner
does not have them as they are (:class:`ficsfen.server.cluster.seats.SentStates`):
a setting changed at home applies to the next forwarded line, and a line that
reaches the owner after its seat was freed is run all the same (the owner asks
for it again with the settings).  Waits poll with a generous deadline; nothing
is timed.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Iterator

import pytest
from redis_server import RedisServer, namespace

from cluster_nodes import eventually, login, two_nodes
from ficsfen.server.cluster.seats import SentStates
from ficsfen.server.testing import ServerProcess

pytestmark = pytest.mark.slow


@pytest.fixture
def nodes(redis: RedisServer, tmp_path: Path) -> Iterator[tuple[ServerProcess, ServerProcess]]:
    with two_nodes(tmp_path, redis.url, namespace("settings")) as both:
        yield both


class Player:
    """What :func:`ficsfen.server.cluster.seats.snapshot` reads of a session."""

    def __init__(self, handle: str) -> None:
        self.handle, self.registered, self.admin = handle, True, False
        self.lang, self.charset, self.style, self.showfen = "en", "utf8", 12, False
        self.ivars: dict[str, bool] = {}
        self.timeseal, self.lag_ms, self.interface = False, 0, ""
        self.chosen_prompt = "fics% "
        self.variables: dict[str, int | bool] = {}


def test_settings_go_with_a_line_only_when_the_owner_lacks_them_as_they_are() -> None:
    sent, alice = SentStates(), Player("Alice")
    first = sent.body("two", alice, "e4")
    assert first["line"] == "e4" and first["state"]["style"] == 12
    assert sent.body("two", alice, "e5") == {"key": "alice", "line": "e5"}
    assert "state" in sent.body("three", alice, "observe 5")  # another owner: not sent there
    alice.style = 1
    assert sent.body("two", alice, "refresh")["state"]["style"] == 1  # changed
    assert sent.body("two", alice, "refresh") == {"key": "alice", "line": "refresh"}
    sent.forget("alice", "two")  # the seat was freed on two
    assert "state" in sent.body("two", alice, "refresh")
    assert "state" in sent.body("three", alice, "refresh")  # three has style 12
    assert "state" not in sent.body("three", alice, "refresh")
    sent.forget(node="three")  # node three went
    assert "state" in sent.body("three", alice, "refresh")
    assert "state" not in sent.body("two", alice, "refresh")
    alice.style = 12
    assert sent.record("two", alice)["style"] == 12  # pushed on their own (seat.state)
    assert "state" not in sent.body("two", alice, "refresh")
    sent.forget("alice")  # alice logged out
    assert "state" in sent.body("two", alice, "x") and "state" in sent.body("three", alice, "x")


def test_a_setting_changed_at_home_applies_to_the_next_forwarded_line(nodes) -> None:
    one, two = nodes
    with login(one, "alice") as alice, login(two, "bob") as bob, login(one, "carol") as carol:
        from test_cluster_serve import who_lists
        eventually("node one sees bob", lambda: who_lists(alice, "bob"))
        for client in (alice, carol):
            client.ask("set style 12", "Style 12 set.")
        alice.command("match bob 5 0 white")
        bob.read_until("Challenge: alice")
        bob.read_until("fics% ")
        number = int(re.search(r"\{Game (\d+) ", bob.command("accept")).group(1))
        alice.read_until("Creating unrated blitz match.}")
        alice.read_until("fics% ")
        assert "<12> " in alice.command("refresh")  # run on node two, for alice's seat
        assert alice.command("style 1") == "Style 1 set.\n"  # at home
        board = alice.command("refresh")
        assert "<12> " not in board and f"Game {number} (alice vs. bob)" in board
        assert "     8  | *R| *N| *B| *Q| *K| *B| *N| *R|" in board
        assert alice.command("style 12") == "Style 12 set.\n"
        assert "<12> " in alice.command("refresh")
        # carol observes the game on node two, then stops: her seat there is freed;
        # the line right behind (in the same packet) reaches node two without a seat
        assert f"You are now observing game {number}." in carol.command(f"observe {number}")
        carol.send_bytes(f"unobserve {number}\r\nobserve {number}\r\n".encode())
        carol.read_until(f"Removing game {number} from observation list.")
        carol.read_until(f"You are now observing game {number}.")
        carol.read_until("fics% ")
        assert alice.command("e4").startswith("<12> ")
        carol.read_until("P/e2-e4")
