"""Two real ``ficsfen serve`` nodes sharing one real Redis server (``--cluster``) and one
real PostgreSQL database (``--data postgresql://...``).

The accounts are the configuration's ``[accounts]`` (the same file for both
nodes, imported into the shared database); what the nodes tell each other
goes through Redis: who is online (``who``, ``finger``), tells, channel
tells, shouts, handle uniqueness, and what happens while Redis is gone.
Waits poll a condition with a generous deadline (a loaded machine is slow);
nothing is timed.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Iterator

import pytest
from redis_server import RedisServer, namespace

from cluster_nodes import PASSWORDS, eventually, login, two_nodes

from ficsfen.server.testing import ServerProcess, TelnetClient

pytestmark = pytest.mark.slow

@pytest.fixture
def nodes(redis: RedisServer, pg_url: str,
          tmp_path: Path) -> Iterator[tuple[ServerProcess, ServerProcess]]:
    with two_nodes(tmp_path, redis.url, namespace("serve"), pg_url) as both:
        yield both


def who_lists(client: TelnetClient, *handles: str) -> bool:
    text = client.command("who")
    return all(re.search(rf"\b{h}\b", text) for h in handles)


def test_who_tell_channels_and_shouts_across_nodes(nodes) -> None:
    one, two = nodes
    with login(one, "alice") as alice, login(two, "bob") as bob:
        eventually("who on node one lists bob", lambda: who_lists(alice, "alice", "bob"))
        eventually("who on node two lists alice", lambda: who_lists(bob, "alice", "bob"))
        eventually("two listed", lambda: "2 players displayed (of 2)" in alice.command("who"))
        # finger: the online part, from the other node's entry
        finger = alice.command("finger bob")
        assert "Finger of bob:" in finger and "On for:" in finger
        # a tell, by prefix, answered once Redis took it; bob reads FICS's line
        assert alice.command("tell bo hello from one") == "(told bob)\n"
        assert "alice tells you: hello from one" in bob.read_until("fics% ")
        # reply goes back across
        assert bob.command("reply hi back") == "(told alice)\n"
        assert "bob tells you: hi back" in alice.read_until("fics% ")
        # channel 50 on both nodes; the count includes the other node's member
        assert "added" in alice.command("+channel 50").lower()
        assert "added" in bob.command("+channel 50").lower()
        # the sender reads their own copy, then the count of the others who heard it
        eventually("node one sees bob in channel 50", lambda: alice.command(
            "tell 50 ping") == "alice(50): ping\n(told 1 player in channel 50)\n")
        assert "Channel 50: alice bob\n2 players are in channel 50." in alice.command("inchannel 50")
        bob.read_until("alice(50): ping")
        bob.read_until("fics% ")
        assert bob.command("tell 50 pong") == "bob(50): pong\n(told 1 player in channel 50)\n"
        assert "bob(50): pong" in alice.read_until("fics% ")
        # shouts and it-shouts reach both
        assert bob.command("shout all hear this") == "bob shouts: all hear this\n(shouted to 1 player)\n"
        assert "bob shouts: all hear this" in alice.read_until("fics% ")
        assert alice.command("it waves") == "--> alice waves\n(it-shouted to 1 player)\n"
        assert "--> alice waves" in bob.read_until("fics% ")
        assert alice.command("cshout e4!") == "alice c-shouts: e4!\n(c-shouted to 1 player)\n"
        assert "alice c-shouts: e4!" in bob.read_until("fics% ")
        # bob turns shouts off: node one learns it and counts him out
        bob.command("set shout 0")
        eventually("node one knows bob hears no shouts",
                   lambda: alice.command("shout quiet?").endswith("(shouted to 0 players)\n"))
        # censoring across nodes: the other node's censor list answers
        bob.command("+censor alice")
        eventually("node one knows bob censors alice",
                   lambda: alice.command("tell bob x") == "bob is censoring you.\n")
    # gone from node two: gone from who on node one
    with login(one, "carol") as carol:
        eventually("bob's logout reaches node one", lambda: not who_lists(carol, "bob"))
        assert "No player named \"bob\" is logged in." in carol.command("tell bob hi") or \
            "bob" in carol.command("tell bob hi")


def test_a_guests_channel_list_reaches_the_other_node(nodes) -> None:
    """A guest's lists are not saved, but the other nodes must still learn them: a channel
    tell from another node reaches a guest who joined the channel, and leaves them out once
    they left it."""
    one, two = nodes
    with one.connect() as here, two.connect() as there:
        here.login()
        sender = there.login()
        assert "added" in there.command("+channel 4").lower()
        assert "added" in here.command("+channel 4").lower()
        eventually("node two knows node one's guest is in channel 4", lambda: there.command(
            "tell 4 hello").endswith("(told 1 player in channel 4)\n"))
        assert f"{sender}(U)(4): hello" in here.read_until("fics% ")
        assert "removed" in here.command("-channel 4").lower()
        eventually("node two knows the guest left channel 4", lambda: there.command(
            "tell 4 anyone?").endswith("(told 0 players in channel 4)\n"))


def test_a_second_login_on_another_node_closes_the_first(nodes) -> None:
    one, two = nodes
    with login(one, "alice") as first, login(two, "bob") as bob:
        eventually("node two sees alice", lambda: who_lists(bob, "alice"))
        with two.connect() as second:
            second.read_until("login: ")
            second.send("alice")
            second.read_until("password: ")
            second.send(PASSWORDS["alice"])
            text = second.read_until("fics% ")
            assert "**** alice is already logged in - kicking them out. ****" in text
            assert "**** alice has arrived - you can't both be logged in. ****" in first.read_until(
                "can't both be logged in. ****")
            with pytest.raises(ConnectionError):
                first.read_until("never")
            eventually("alice listed once, on node two", lambda: bob.command("who").count(
                "alice") == 1 and "(of 2)" in bob.command("who"))
            assert second.command("tell bob still here") == "(told bob)\n"


def test_a_node_gone_silent_vanishes_from_the_other(nodes, redis) -> None:
    one, two = nodes
    with login(one, "alice") as alice, login(two, "bob") as bob:
        eventually("node one sees bob", lambda: who_lists(alice, "bob"))
        two.stop(9)  # no goodbye: only the heartbeat's expiry tells
        eventually("bob vanishes from node one", lambda: not who_lists(alice, "bob"))
        eventually("one player listed", lambda: "(of 1)" in alice.command("who"))
        del bob


def test_redis_down_nodes_serve_their_own_players_and_recover(nodes, redis) -> None:
    one, two = nodes
    with login(one, "alice") as alice, login(one, "carol") as carol, login(two, "bob") as bob:
        eventually("node one sees bob", lambda: who_lists(alice, "bob"))
        redis.kill()
        down = "The link between the servers is down: you see and reach the players of this server only."
        for client in (alice, carol, bob):  # a notice, with its prompt
            client.read_until(down)
            client.read_until("fics% ")
        # each node still serves its own players
        assert alice.command("tell carol local still works") == "(told carol)\n"
        carol.read_until("alice tells you: local still works")
        assert "No player named \"bob\" is logged in." in alice.command("tell bob hi")
        # (who's answers may be a second behind: [limits]-free WhoCache renewal)
        eventually("node one lists its own two", lambda: "(of 2)" in alice.command("who"))
        eventually("node two lists its own one", lambda: "(of 1)" in bob.command("who"))
        redis.restart()  # empty: the nodes write their tables again
        back = "The link between the servers is back: you see and reach the players of every server again."
        for client in (alice, carol, bob):
            client.read_until(back)
            client.read_until("fics% ")
        eventually("node one sees bob again", lambda: who_lists(alice, "alice", "bob", "carol"))
        eventually("node two sees alice again", lambda: who_lists(bob, "alice", "bob", "carol"))
        assert alice.command("tell bob welcome back") == "(told bob)\n"
        assert "alice tells you: welcome back" in bob.read_until("fics% ")
