"""The closing line of a movelist names the loser by colour, as FICS's does.

``{White resigns} 0-1`` rather than ``{alice resigns} 0-1``: pychess waits
for ``{.*(White|Black|Game drawn|Neither|adjourned|Still in progress)...}``
after ``smoves`` and stalls otherwise.  The game-end notice players and
observers read (``{Game 1 (alice vs. bob) alice resigns} 0-1``) keeps the
handles.  Stored games (``smoves``), an adjourned game (``smoves NAME
OPPONENT``) and a game being played (``moves``) are checked byte for byte.
"""

from __future__ import annotations

import pytest

from ficsfen.server.game_values import movelist_reason
from ficsfen.server.store import EndCode

from test_history import FOOLS_MATE, Games, login, server_on
from test_play import Table

#: Stored end (result, English reason, code) -> the movelist's closing line.
ENDINGS = [
    ("0-1", "alice resigns", EndCode.RESIGNATION, "{White resigns} 0-1"),
    ("1-0", "bob resigns", EndCode.RESIGNATION, "{Black resigns} 1-0"),
    ("1-0", "bob checkmated", EndCode.MATE, "{Black checkmated} 1-0"),
    ("0-1", "alice forfeits on time", EndCode.FLAG, "{White forfeits on time} 0-1"),
    ("1-0", "bob forfeits by disconnection", EndCode.DISCONNECTION,
     "{Black forfeits by disconnection} 1-0"),
    ("1/2-1/2", "alice ran out of time and bob has no material to mate", EndCode.TIME_NO_MATERIAL,
     "{White ran out of time and Black has no material to mate} 1/2-1/2"),
    ("1/2-1/2", "Game drawn by repetition", EndCode.REPETITION,
     "{Game drawn by repetition} 1/2-1/2"),
    ("1/2-1/2", "Game drawn by mutual agreement", EndCode.AGREED,
     "{Game drawn by mutual agreement} 1/2-1/2"),
    ("1/2-1/2", "Neither player has mating material", EndCode.NO_MATERIAL,
     "{Neither player has mating material} 1/2-1/2"),
    ("1/2-1/2", "Game drawn by stalemate", EndCode.STALEMATE, "{Game drawn by stalemate} 1/2-1/2"),
]


@pytest.fixture
def games(tmp_path):
    g = Games(tmp_path / "data.sqlite3")
    yield g
    g.close()


@pytest.mark.parametrize("result, reason, code, closing", ENDINGS)
def test_smoves_closes_with_the_colour_of_the_loser(games, result, reason, code, closing):
    games.record("alice", "bob", FOOLS_MATE[:2], result=result, reason=reason, code=code)
    guest = login(server_on(games))
    assert guest.command("smoves alice 0").endswith("\n      " + closing + "\n")


def test_a_handle_that_looks_like_a_reason_is_not_taken_for_one():
    """Only a whole reason naming one of the two players is rewritten."""
    assert movelist_reason("Game resigns", "Game", "Neither").render() == "White resigns"
    assert movelist_reason("Neither resigns", "Game", "Neither").render() == "Black resigns"
    assert (movelist_reason("Game drawn by repetition", "Game", "Neither").render()
            == "Game drawn by repetition")
    assert movelist_reason("carol resigns", "alice", "bob").render() == "carol resigns"


def test_a_french_person_reads_the_ending_in_french_an_interface_in_english(games):
    games.record("alice", "bob", FOOLS_MATE, result="0-1", reason="alice checkmated",
                 code=EndCode.MATE)
    server = server_on(games)
    person = login(server)
    person.command("set lang fr")
    assert person.command("smoves alice 0").endswith("\n      {Les Blancs sont mats} 0-1\n")
    client = login(server)
    client.command("set lang fr")
    client.command("set interface PyChess 1.0.3")
    assert client.command("smoves alice 0").endswith("\n      {White checkmated} 0-1\n")


def test_moves_of_a_game_in_progress_and_the_end_notice_keeps_the_handles():
    table = Table()
    table.start()
    table.play("e4", "e5")
    assert table.carol.command("moves alice").endswith(
        "  1.  e4      (0:00)          e5      (0:00)\n      {Still in progress} *\n")
    out = table.alice.command("resign")
    assert "{Game 1 (alice vs. bob) alice resigns} 0-1" in out


def test_smoves_of_an_adjourned_game_names_the_colour_that_lost_connection():
    table = Table(registered=True)
    table.start()
    table.play("e4", "e5", "Nf3")
    table.bob.disconnect()
    assert "{Game 1 (alice vs. bob) bob lost connection; game adjourned} *" in (
        table.alice.output())
    lines = table.carol.command("smoves alice bob").split("\n")
    assert lines[-4:] == ["  1.  e4      (0:00)          e5      (0:00)",
                          "  2.  Nf3     (0:00)",
                          "      {Black lost connection; game adjourned} *",
                          ""]
    assert table.alice.command("smoves alice bob").split("\n")[-4:] == lines[-4:]
