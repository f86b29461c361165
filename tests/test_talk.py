"""Talking: tells, says, kibitzes, shouts, channels, censoring and limits,
on a server with a fake clock."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st
from twisted.internet.task import Clock

from ficsfen.server.config import hash_password
from ficsfen.server.talk import Channels, clean_text
from ficsfen.server.testing import connect, make_server

# pychess's patterns for what it shows as chat (ChatManager): a tell or say,
# a channel tell, a shout.
NAMES = r"([A-Za-z]+)(?:\([A-Z*]+\))*"
PRIVATE = re.compile(NAMES + r"(\*)?(?:\[(\d+)\])? (?:tells you|says): (.*)")
CHANNEL = re.compile(NAMES + r"(\*)?\((\d+)\): (.*)")
SHOUT = re.compile(NAMES + r"(\*)? (c-)?shouts: (.*)")


@pytest.fixture
def clock():
    return Clock()


# Hashed once, cheaply: the hash's strength is not what these tests are about.
ACCOUNTS = {"alice": hash_password("pw1", iterations=1000), "dora": hash_password("pw2", iterations=1000)}


@pytest.fixture
def server(clock):
    return make_server(clock=clock, accounts=ACCOUNTS)


def _clients(server, *names):
    out = []
    for name in names:
        client = connect(server)
        if name in ("alice", "dora"):
            client.login(name, {"alice": "pw1", "dora": "pw2"}[name])
        else:
            client.login(name)
        client.output()
        out.append(client)
    return out


def _lines(text):
    return [line for line in text.split("\n") if line and line != "fics% "]


# -- cleaning ----------------------------------------------------------------------


@given(st.text())
def test_clean_text_leaves_no_control_characters(text):
    cleaned = clean_text(text)
    assert not any(ord(c) < 32 or 0x7f <= ord(c) < 0xa0 for c in cleaned)
    assert "\u202e" not in cleaned  # bidi override
    assert cleaned == cleaned.strip()


def test_clean_text_keeps_words_and_accents():
    assert clean_text("  bonne\tpartie, élégant\x1b[2J \x07! ") == "bonne partie, élégant[2J !"


def test_channels_both_ways():
    channels = Channels()
    channels.join("Alice", 5)
    channels.join("bob", 5)
    channels.join("alice", 7)
    assert list(channels.members(5)) == ["alice", "bob"]
    assert channels.of("ALICE") == [5, 7]
    channels.forget("alice")
    assert list(channels.members(5)) == ["bob"] and list(channels.members(7)) == []


# -- tell ---------------------------------------------------------------------------


def test_tell_reaches_exactly_the_player_in_their_language(server):
    alice, bob, carol = _clients(server, "alice", "bobby", "carol")
    carol.command("set language fr")
    assert alice.command("tell bob hello there") == "(told bobby)\n"
    got = bob.output()
    assert PRIVATE.search(got).groups() == ("alice", None, None, "hello there")
    assert carol.output() == ""
    assert alice.command("tell carol bonjour") == "(told carol)\n"
    assert "alice vous dit\u202f: bonjour" in carol.output()


def test_dot_and_comma_use_the_last_told(server):
    alice, bob, carol = _clients(server, "alice", "bobby", "carol")
    assert "No previous tell." in alice.command(". hi")
    assert "No previous channel." in alice.command(", hi")
    alice.command("tell bobby one")
    carol.command("tell alice from carol")
    assert alice.command(". two") == "(told bobby)\n"  # the last *told*, not the last teller
    assert "alice tells you: two" in bob.output()
    assert alice.command("reply back") == "(told carol)\n"
    assert "alice tells you: back" in carol.output()
    alice.command("+channel 3")
    alice.command("tell 3 chan")
    alice.command("xtell bobby aside")
    assert alice.command(". three") == "(told carol)\n"  # reply and xtell leave it alone
    assert "(told 0 players in channel 3)" in alice.command(", again")


def test_tell_says_what_the_player_is_doing(server):
    alice, bob, carol = _clients(server, "alice", "bobby", "carol")
    alice.command("match bobby 1 0")
    bob.command("accept")
    assert carol.command("tell alice hi") == "(told alice, who is playing)\n"
    carol.command("examine")
    assert alice.command("tell carol hi") == "(told carol, who is examining a game)\n"


def test_guest_tells_and_set_tell(server):
    alice, bob = _clients(server, "alice", "bobby")
    alice.command("set tell 0")
    out = bob.command("tell alice hi")
    assert out == "Player \"alice\" isn't listening to unregistered users' tells.\n"
    assert alice.output() == ""
    assert alice.command("tell bobby hi") == "(told bobby)\n"  # registered senders still do


def test_censor_keeps_every_kind_of_message_away(server):
    alice, bob, carol = _clients(server, "alice", "bobby", "carol")
    bob.command("+censor alice")
    assert alice.command("tell bobby hi") == "bobby is censoring you.\n"
    for client in (alice, bob, carol):
        client.command("+channel 9")
    out = alice.command("tell 9 all")
    assert "(told 1 player in channel 9)" in out
    assert "alice(9): all" in carol.output() and bob.output() == ""
    out = alice.command("shout loud")
    assert "(shouted to 1 player)" in out and bob.output() == ""
    alice.command("match carol 1 0")
    carol.command("accept")
    bob.command("observe 1")
    bob.output()
    assert "(kibitzed to 1 player)" in alice.command("kibitz look")
    assert bob.output() == ""


def test_control_characters_never_reach_another_terminal(server):
    alice, bob = _clients(server, "alice", "bobby")
    alice.command("tell bobby a\x1b[31mred\x07\x9b")
    data = bob.raw_output()
    assert b"alice tells you: a[31mred" in data
    assert b"\x1b" not in data and b"\x07" not in data and b"\xc2\x9b" not in data


# -- say, kibitz, whisper ------------------------------------------------------------


def test_say_during_and_after_the_game(server):
    alice, bob, carol = _clients(server, "alice", "bobby", "carol")
    assert alice.command("say hi") == "I don't know whom to say that to.\n"
    alice.command("match bobby 1 0")
    bob.command("accept")
    alice.output()
    assert alice.command("say good luck") == "(told bobby, who is playing)\n"
    assert PRIVATE.search(bob.output()).groups() == ("alice", None, "1", "good luck")
    assert carol.output() == ""
    bob.command("resign")
    alice.output()
    assert bob.command("say thanks") == "(told alice)\n"
    assert "bobby(U) says: thanks" in alice.output()


def test_kibitz_and_whisper_reach_players_and_observers(server):
    alice, bob, carol, dave, erin = _clients(server, "alice", "bobby", "carol", "davey", "erin")
    assert "You are not playing, examining, or observing a game." in carol.command("kibitz x")
    alice.command("match bobby 1 0")
    bob.command("accept")
    carol.command("observe 1")
    dave.command("observe 1")
    dave.command("set language fr")
    for c in (alice, bob, carol, dave):
        c.output()
    out = carol.command("kibitz nice")
    assert "carol(U)(++++)[1] kibitzes: nice" in out and "(kibitzed to 3 players)" in out
    assert "carol(U)(++++)[1] kibitzes: nice" in alice.output()
    assert "carol(U)(++++)[1] kibitzes: nice" in bob.output()
    assert "carol(U)(++++)[1] commente\u202f: nice" in dave.output()
    assert erin.output() == ""
    out = carol.command("whisper psst")
    assert "(whispered to 1 player)" in out
    assert alice.output() == "" and bob.output() == ""
    assert "chuchote" in dave.output()
    assert "(kibitzed to 3 players)" in alice.command("kibitz from a player")


# -- shouts and channels -------------------------------------------------------------


def test_shouts_follow_set_shout_and_cshout(server):
    alice, dora, bob = _clients(server, "alice", "dora", "bobby")
    assert "Only registered players can use the shout command." in bob.command("shout hi")
    assert "Only registered players can use the cshout command." in bob.command("cshout hi")
    bob.command("set shout 0")
    out = alice.command("shout hello")
    assert SHOUT.search(out).groups() == ("alice", None, None, "hello")
    assert "(shouted to 1 player)" in out
    assert "alice shouts: hello" in dora.output() and bob.output() == ""
    dora.command("set cshout 0")
    out = alice.command("cshout e4!")
    assert "(c-shouted to 1 player)" in out
    assert SHOUT.search(bob.output()).groups() == ("alice", None, "c-", "e4!")
    assert dora.output() == ""


def test_channels_join_tell_leave_and_inchannel(server):
    alice, bob, carol = _clients(server, "alice", "bobby", "carol")
    assert alice.command("+channel 5") == "[5] added to your channel list.\n"
    bob.command("+channel 5")
    assert "(Not sent because you are not in channel 5.)" in carol.command("tell 5 hi")
    assert "The channel number must be from 0 to 255." in alice.command("+channel 256")
    assert "The channel number must be from 0 to 255." in alice.command("tell 300 hi")
    out = alice.command("tell 5 hello")
    assert out == "alice(5): hello\n(told 1 player in channel 5)\n"
    assert CHANNEL.search(bob.output()).groups() == ("alice", None, "5", "hello")
    assert carol.output() == ""
    assert carol.command("inchannel 5") == "Channel 5: alice bobby(U)\n2 players are in channel 5.\n"
    assert carol.command("inchannel bobby") == "bobby is in the following channels:\n5\n"
    assert carol.command("inchannel") == "carol is in no channels.\n"
    assert carol.command("inchannel 6") == "Channel 6 is empty.\n"
    assert "-- channel list: 1 names --\n5" in alice.command("=channel")
    bob.command("set chanoff 1")
    assert "(told 0 players in channel 5)" in alice.command("tell 5 anyone?")
    assert bob.output() == ""
    assert alice.command("-channel 5") == "[5] removed from your channel list.\n"
    assert "(Not sent" in alice.command("tell 5 hi")


def test_registered_channels_and_talk_settings_come_back_at_the_next_login(tmp_path):
    from test_refuse import Site  # a server on a real store file
    from ficsfen.server.store.testing import private_reactor

    reactor = private_reactor()
    path = tmp_path / "data.sqlite3"
    site = Site(path, reactor)
    alice = site.login("alice")
    alice.command("+channel 42")
    alice.command("set shout 0")
    site.commit()
    site.close()
    site = Site(path, reactor)
    alice, bob = site.login("alice"), site.login("bob")
    assert "alice is in the following channels:\n42" in bob.command("inchannel alice")
    bob.command("+channel 42")
    assert "(told 1 player in channel 42)" in bob.command("tell 42 welcome back")
    assert "bob(42): welcome back" in alice.output()
    assert "shout=0" in alice.command("variables")
    site.close()


# -- limits --------------------------------------------------------------------------


def test_a_flood_is_rate_limited_without_harming_anyone_else(clock):
    server = make_server(clock=clock, talk_per_minute=5)
    alice, bob, carol = _clients(server, "alicia", "bobby", "carol")
    for i in range(5):
        assert alice.command(f"tell bobby spam {i}") == "(told bobby)\n"
    out = alice.command("tell bobby spam 5")
    assert "You are sending messages too quickly. Wait 60 seconds before sending another." in out
    assert bob.output().count("spam") == 5
    assert carol.command("tell bobby hello") == "(told bobby)\n"  # others are not held back
    assert "carol(U) tells you: hello" in bob.output()
    alice.command("set language fr")
    alice.output()
    clock.advance(30)
    assert "Attendez 30 secondes avant d’en envoyer un autre." in alice.command("tell bobby again")
    clock.advance(31)
    assert alice.command("tell bobby back") == "(dit à bobby)\n"


def test_a_long_text_is_refused_not_cut(clock):
    server = make_server(clock=clock, talk_max_length=10)
    alice, bob = _clients(server, "alicia", "bobby")
    out = alice.command("tell bobby " + "x" * 11)
    assert out == "Your message is too long: at most 10 characters are sent.\n"
    assert bob.output() == ""
    assert alice.command("tell bobby " + "x" * 10) == "(told bobby)\n"


def test_empty_after_cleaning_is_a_usage_error(server):
    alice, bob = _clients(server, "alice", "bobby")
    assert "Usage: tell" in alice.command("tell bobby \x1b\x07")
    assert bob.output() == ""


# -- block mode ---------------------------------------------------------------------


@pytest.mark.parametrize("line, code", [
    ("seek 5 0", 155), ("unseek", 156), ("sought", 157), ("play 9", 158), ("tell bobby hi", 132),
    (". again", 132), (", nothing", 132), ("xtell bobby hi", 150), ("reply hi", 153),
    ("say hi", 107), ("kibitz hi", 62), ("whisper hi", 145), ("shout hi", 110),
    ("cshout hi", 31), ("inchannel", 53), ("+channel 5", 12), ("-channel 5", 129),
])
def test_every_talk_and_seek_command_answers_with_its_fics_block_code(server, line, code):
    alice, bob = _clients(server, "alicia", "bobby")
    alice.command("iset block 1")
    alice.send(f"7 {line}")
    frame = alice.raw_output()
    assert frame.startswith(b"\x157\x16%d\x16" % code), frame
    assert frame.endswith(b"\x17\r\n")
