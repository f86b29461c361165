"""Seeks: parsing, the table, and seek/unseek/sought/play on a server with a fake clock."""

from __future__ import annotations

import re

import chess
import pytest
from hypothesis import given
from hypothesis import strategies as st

from ficsfen.server.clock import TimeControl
from ficsfen.server.seeks import (BadSeekArgumentsError, SeekLimitError, SeekRequest, Seeks,
                                  UnplayableVariantError, check_playable, parse_seek)
from ficsfen.server.testing import connect, make_server


# -- parsing ----------------------------------------------------------------------


@pytest.mark.parametrize("args, expected", [
    ("", SeekRequest()),
    ("5", SeekRequest(TimeControl(5, 0))),
    ("5 3 white", SeekRequest(TimeControl(5, 3), chess.WHITE)),
    ("b 1 0 u m", SeekRequest(TimeControl(1, 0), chess.BLACK, manual=True, rated=False)),
    ("5 0 r", SeekRequest(TimeControl(5, 0), rated=True)),
    ("3 0 zh", SeekRequest(TimeControl(3, 0), variant="crazyhouse")),
    ("3 0 crazyhouse", SeekRequest(TimeControl(3, 0), variant="crazyhouse")),
    ("3 0 wild fr", SeekRequest(TimeControl(3, 0), variant="wild/fr")),
    ("3 0 fr", SeekRequest(TimeControl(3, 0), variant="wild/fr")),
    ("3 0 w5", SeekRequest(TimeControl(3, 0), variant="wild/5")),
    ("15 0 1200-1800 f", SeekRequest(TimeControl(15, 0), formula=True, low=1200, high=1800)),
    ("auto 5 0", SeekRequest(TimeControl(5, 0))),
])
def test_parse_seek(args, expected):
    assert parse_seek(args) == expected


@pytest.mark.parametrize("args", ["1 2 3", "white black", "rated u", "5 0 fast", "1800-1200",
                                  "0-10000", "0 5", "1000 0", "zh suicide"])
def test_parse_seek_errors(args):
    with pytest.raises(BadSeekArgumentsError) as err:
        parse_seek(args)
    assert err.value.render("fr") != err.value.render("en")


@given(st.lists(st.text(alphabet="0123456789-abfmrwzhuWB ", max_size=6), max_size=6))
def test_parse_seek_never_crashes(words):
    try:
        request = parse_seek(" ".join(words))
    except BadSeekArgumentsError:
        return
    assert 0 <= request.low <= request.high <= 9999


def test_variants_are_kept_but_refused_in_one_place():
    check_playable(None)
    with pytest.raises(UnplayableVariantError) as err:
        check_playable("atomic")
    assert "atomic" in err.value.render("en")
    check_playable("crazyhouse")
    check_playable("wild/fr")


def test_table_numbers_limits_and_reuse():
    seeks = Seeks(max_per_player=2)
    one = seeks.add("alice", SeekRequest(TimeControl(5, 0)), registered=False)
    two = seeks.add("alice", SeekRequest(TimeControl(3, 0)), registered=False)
    assert (one.id, two.id) == (1, 2)
    with pytest.raises(SeekLimitError):
        seeks.add("ALICE", SeekRequest(TimeControl(5, 0)), registered=False)  # same terms
    with pytest.raises(SeekLimitError):
        seeks.add("alice", SeekRequest(TimeControl(1, 0)), registered=False)  # a third
    seeks.remove(1)
    assert seeks.add("bob", SeekRequest(TimeControl(1, 0)), registered=True).id == 1


def test_matching_needs_same_terms_and_fitting_colours():
    seeks = Seeks()
    a = seeks.add("alice", SeekRequest(TimeControl(5, 0), chess.WHITE), registered=False)
    b = seeks.add("bob", SeekRequest(TimeControl(5, 0), chess.WHITE), registered=False)
    c = seeks.add("carol", SeekRequest(TimeControl(5, 0), chess.BLACK), registered=False)
    never = lambda receiver, sender: False  # noqa: E731
    assert seeks.matching(b, never) is None or seeks.matching(b, never) is c
    assert not a.matches(b)
    assert a.matches(c)
    assert seeks.matching(c, never) is a
    assert seeks.matching(c, lambda receiver, sender: receiver == "alice") is b


# -- on a server ----------------------------------------------------------------


@pytest.fixture
def server():
    return make_server()


def _guests(server, *names):
    clients = []
    for name in names:
        client = connect(server)
        client.login(name)
        clients.append(client)
    return clients


def test_seek_sought_play_starts_the_game(server):
    alice, bob, carol = _guests(server, "alice", "bobby", "carol")
    out = alice.command("seek 5 0 white")
    assert "Your seek has been posted with index 1." in out
    assert "(2 players saw the seek.)" in out
    assert 'alice (++++) seeking 5 0 unrated blitz [white] ("play 1" to respond)' in bob.output()
    listing = bob.command("sought")
    assert re.search(r"^\s+1 \+\+\+\+ alice\s+5\s+0 unrated blitz\s+\[white\]\s+0-9999$",
                     listing, re.M), listing
    assert "1 ad displayed." in listing
    out = bob.command("play 1")
    assert "Creating: alice (++++) bobby (++++) unrated blitz 5 0" in out
    assert "bobby accepts your seek." in alice.output()
    assert "There are no" not in carol.command("games")
    assert "0 ads displayed." in carol.command("sought all")
    # Playing: no new seeks, and nobody plays twice.
    assert "You are already playing a game." in alice.command("seek 5 0")
    assert "You are already playing a game." in bob.command("play alice")


def test_set_seek_0_hides_announcements_not_sought(server):
    alice, bob = _guests(server, "alice", "bobby")
    bob.command("set seek 0")
    assert "(0 players saw the seek.)" in alice.command("seek 5 0")
    assert bob.output() == ""
    assert "1 ad displayed." in bob.command("sought")


def test_matching_seeks_pair_at_once(server):
    alice, bob = _guests(server, "alice", "bobby")
    alice.command("seek 3 0")
    out = bob.command("seek 3 0")
    assert "Your seek matches one posted by alice." in out
    assert "Creating:" in out
    assert "Your seek matches one posted by bobby." in alice.output()
    assert "0 ads displayed." in alice.command("sought all")


def test_different_seeks_do_not_pair(server):
    alice, bob = _guests(server, "alice", "bobby")
    alice.command("seek 3 0")
    assert "posted with index 2" in bob.command("seek 3 1")
    assert "posted with index 3" in bob.command("seek 3 0 zh")


def test_a_rating_range_filters_who_sees_and_answers(server):
    # No ratings here: everyone counts as 0, so 1000-2000 keeps everyone out.
    alice, bob = _guests(server, "alice", "bobby")
    bob.command("set seek 1")
    bob.output()
    assert "(0 players saw the seek.)" in alice.command("seek 5 0 1000-2000")
    assert "seeking" not in bob.output()
    assert "0 ads displayed." in bob.command("sought")
    assert "1 ad displayed." in bob.command("sought all")
    out = bob.command("play 1")
    assert "You do not fit the rating range of that seek (1000-2000)." in out
    assert "(1 player saw the seek.)" in alice.command("seek 5 0 0-1000")
    assert "Creating:" in bob.command("play 2")


def test_unseek_and_leaving_remove_seeks_with_sr_lines(server):
    alice, bob, carol = _guests(server, "alice", "bobby", "carol")
    assert carol.command("iset seekinfo 1") == "seekinfo set.\n<sc>\n"
    alice.command("seek 5 0")
    alice.command("seek 3 0")
    assert "<s> 1 w=alice ti=01 rt=0P t=5 i=0 r=u tp=blitz c=? rr=0-9999 a=t f=f" in carol.output()
    assert "Your seek 1 has been removed." in alice.command("unseek 1")
    assert "<sr> 1" in carol.output()
    assert "You have no seek 1." in alice.command("unseek 1")
    assert "index 1" in bob.command("seek 9 0")  # the lowest free number again
    bob.disconnect()
    assert "<sr> 1" in carol.output()
    out = alice.command("unseek")
    assert "Your seeks have been removed." in out
    assert "<sr> 2" in carol.output()
    assert "You have no active seeks." in alice.command("unseek")


def test_seekinfo_refresh_and_showownseek(server):
    alice, bob = _guests(server, "alice", "bobby")
    alice.command("seek 5 0")
    out = bob.command("iset seekinfo 1")
    assert out.index("<sc>") < out.index("<s> 1 w=alice")
    alice.command("iset seekinfo 1")
    alice.command("iset showownseek 0")
    out = alice.command("seek 7 0")
    assert "<s>" not in out
    assert "<s> 2 w=alice" in bob.output()


def test_a_game_started_by_match_removes_the_seeks(server):
    alice, bob, carol = _guests(server, "alice", "bobby", "carol")
    carol.command("iset seekinfo 1")
    alice.command("seek 5 0")
    alice.command("match bobby 1 0")
    carol.output()
    bob.command("accept")
    assert "<sr> 1" in carol.output()


def test_manual_seek_becomes_a_match_request(server):
    alice, bob = _guests(server, "alice", "bobby")
    alice.command("seek 5 0 white manual")
    out = bob.command("play alice")
    assert "Issuing match request since the seek was set to manual." in out
    assert "Issuing: bobby (++++) [black] alice (++++) unrated blitz 5 0." in out
    assert "Challenge: bobby" in alice.output()


def test_variant_seek_is_kept_and_its_game_refused(server):
    alice, bob = _guests(server, "alice", "bobby")
    bob.command("iset seekinfo 1")
    assert "posted with index 1" in alice.command("seek 3 0 atomic")
    assert "tp=atomic" in bob.output()
    out = bob.command("play 1")
    assert "Sorry, atomic games cannot be played on this server yet." in out
    bob.command("set language fr")
    assert "ne peuvent pas encore" in bob.command("play 1")
    # bob set an ivar: an interface reads sought's count line in FICS's English
    assert "\n1 ad displayed." in bob.command("sought all")


def test_censor_and_noplay_hide_seeks(server):
    alice, bob = _guests(server, "alice", "bobby")
    alice.command("+noplay bobby")
    alice.command("seek 5 0")
    assert "seeking" not in bob.output()
    assert "0 ads displayed." in bob.command("sought")
    assert "That seek is not available." in bob.command("play 1")


def test_play_errors(server):
    alice, bob = _guests(server, "alice", "bobby")
    assert "That seek is not available." in bob.command("play 4")
    assert "alice isn't seeking any games." in bob.command("play alice")
    alice.command("seek 5 0")
    alice.command("seek 3 0")
    assert "give the number" in bob.command("play alice")
    assert "You cannot respond to your own seek." in alice.command("play 1")
    assert "Usage:" in bob.command("sought nonsense")
    assert "No player named" in bob.command("play zzz")
