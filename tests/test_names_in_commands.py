"""Every command resolves names the same way (ficsfen.names): ``ſam`` names nobody.

``str.casefold`` turns ``ſ`` (long s) into ``s``: ``fen ſam`` and ``observe
ſam`` used to reach player ``sam`` while ``match ſam`` refused it.
"""

from __future__ import annotations

import pytest

from ficsfen.server.config import hash_password
from ficsfen.server.testing import connect, make_server

NOBODY = 'No player named "ſam" is logged in.'


@pytest.fixture
def room():
    """sam examines game 1; alice watches; carol can be challenged."""
    server = make_server()
    clients = {}
    for name in ("sam", "alice", "carol"):
        clients[name] = connect(server)
        clients[name].output()
        clients[name].login(name)
    clients["sam"].command("examine")
    clients["sam"].command("e4")
    return server, clients


@pytest.mark.parametrize("line", ["fen ſam", "observe ſam", "match ſam", "variables ſam",
                                  "refresh ſam", "moves ſam", "allobservers ſam",
                                  "unobserve ſam", "fen ſ", "fen SAſ"])
def test_long_s_names_nobody(room, line):
    server, clients = room
    out = clients["alice"].command(line)
    assert out.strip() == NOBODY.replace("ſam", line.split()[1])
    assert server.directory.observed_games("alice") == []
    assert len(server.challenges) == 0


def test_the_ascii_spellings_still_reach_sam(room):
    server, clients = room
    alice = clients["alice"]
    assert alice.command("fen SAM").splitlines()[0] == "Game 1 (sam vs. sam, examined):"
    assert "You are now observing game 1." in alice.command("observe Sa")
    assert "Variable settings of sam:" in alice.command("variables s")  # sam is the only s


def test_the_french_refusal_names_the_kind_of_name(room):
    _, clients = room
    clients["alice"].command("set language fr")
    out = clients["alice"].command("fen ſam")
    assert "ſam" in out and "connecté" in out


@pytest.mark.parametrize("line, expected", [
    ("set ſhowfen 1", 'No such variable "ſhowfen".'),
    ("set showfen ſ", 'Bad value "ſ" for showfen. Try one of: 1 on true yes 0 off false no'),
    ("set language ſ", 'Unknown language "ſ". Available: English (en), Français (fr)'),
    ("ſet showfen 1", "ſet: Command not found."),
])
def test_long_s_is_no_s_for_variables_values_and_commands(room, line, expected):
    _, clients = room
    assert clients["carol"].command(line).strip() == expected


def test_bsetup_words_with_a_long_s_get_the_usage_line(room):
    _, clients = room
    sam = clients["sam"]
    sam.command("bsetup")
    out = sam.command("bsetup ſtart")
    assert out.startswith("Usage: bsetup [fen RECORD | start")
    assert sam.command("bsetup tomove blaſk").startswith("Usage: bsetup")
    assert sam.command("bsetup START").startswith("Setup position: rnbqkbnr/")


def test_a_registered_name_cannot_be_reached_with_a_long_s():
    server = make_server(accounts={"sam": hash_password("pw", iterations=1000)})
    client = connect(server)
    client.output()
    client.send("ſam")
    out = client.output()
    assert "password" not in out
    assert "names can only consist of lower and upper case letters" in out


def test_the_guest_login_word_is_matched_by_the_same_rule():
    server = make_server()
    client = connect(server)
    client.output()
    client.send("gueſt")
    out = client.output()
    assert "Logging you in as" not in out
    client.send("GUEST")
    assert "Logging you in as" in client.output()


def test_resume_with_a_long_s_names_no_adjourned_opponent():
    server = make_server(accounts={"sam": hash_password("pw", iterations=1000),
                                   "alice": hash_password("pa", iterations=1000)})
    sam, alice = connect(server), connect(server)
    sam.login("sam", "pw")
    alice.login("alice", "pa")
    alice.command("match sam 5 0 white")
    sam.command("accept")
    alice.command("e4")
    sam.command("e5")
    alice.command("adjourn")
    sam.command("adjourn")
    assert len(server.adjourned) == 1
    assert alice.command("resume ſam").strip() == "You have no adjourned game with ſam."
    assert "(adjourned)." in alice.command("resume SA")
    assert "Continuing unrated" in sam.command("accept")
