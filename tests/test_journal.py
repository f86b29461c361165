"""The journal: ``jsave``, ``journal``, ``jkill``, and its entries in ``smoves``/``examine``.

Entries are listed in FICS's layout, ``%01`` to ``%26``, which pychess 1.0.3
reads at login (``AdjournManager``: ``Journal for NAME:``, the column
header, then lines matched by its pattern below) and opens with ``smoves
NAME %01``.  Slots are kept in the player's saved settings: they survive a
new login.  A guest has no journal.
"""

from __future__ import annotations

import re

import pytest

from ficsfen.server.store import EndCode

from test_history import FOOLS_MATE, PASSWORD, SCHOLARS_MATE, Games, login, server_on

# pychess 1.0.3's journal line (AdjournManager.__onJournalResponseYES).
NAMES = r"(\w+)"
RATINGS = r"([0-9\ \-\+]{1,4}[P E]?|UNR)"
REASONS = r"(Adj|Agr|Dis|Fla|Mat|NM|Rep|Res|Sta|TM|WLM|WNM|50)"
PYCHESS_LINE = re.compile(
    r"\s*%%(\d+): %s\s+%s\s+%s\s+%s\s+\[([a-z ]{3})\s+(\d+)\s+(\d+)\]\s+"
    r"(---|\?\?\?|\*\*\*|[A-Z]\d+)\s+%s\s+(\*|1/2-1/2|1-0|0-1)"
    % (NAMES, RATINGS, NAMES, RATINGS, REASONS), re.I)
HEADER = re.compile(r"\s*White\s+Rating\s+Black\s+Rating\s+Type\s+ECO\s+End\s+Result", re.I)


@pytest.fixture
def games(tmp_path):
    g = Games(tmp_path / "data.sqlite3")
    g.record("alice", "bob", SCHOLARS_MATE, result="1-0", reason="bob checkmated",
             code=EndCode.MATE)
    g.record("bob", "alice", FOOLS_MATE, result="0-1", reason="bob checkmated",
             code=EndCode.MATE, minutes=2, increment=12)
    yield g
    g.close()


def test_jsave_journal_jkill_in_the_fics_layout(games):
    server = server_on(games)
    alice = login(server, "alice", PASSWORD)
    assert alice.command("journal") == "alice has no journal entries.\n"
    assert alice.command("jsave a alice 0") == (
        "Game alice vs. bob saved in your journal as %01.\n")
    assert alice.command("jsave C bob -1") == "Game bob vs. alice saved in your journal as %03.\n"
    lines = alice.command("journal").split("\n")
    assert lines[:4] == [
        "Journal for alice:",
        "     White         Rating  Black         Rating  Type         ECO End Result",
        "%01: alice            0    bob              0    [ bu  5   0] C23 Mat 1-0",
        "%03: bob              0    alice            0    [ bu  2  12] A00 Mat 0-1",
    ]
    assert HEADER.match(lines[1])
    assert [PYCHESS_LINE.match(line).group(1) for line in lines[2:4]] == ["01", "03"]
    carol = login(server, "carol", PASSWORD)
    assert carol.command("journal alice").split("\n")[2] == lines[2]
    assert carol.command("jsave z alice %c") == "Game bob vs. alice saved in your journal as %26.\n"
    assert alice.command("jkill 1") == "Journal entry %01 deleted.\n"
    assert alice.command("jkill a") == "Your journal has no entry %01.\n"
    assert alice.command("journal").split("\n")[2].startswith("%03: bob ")


def test_journal_entries_open_with_smoves_and_examine_as_pychess_asks(games):
    server = server_on(games)
    alice = login(server, "alice", PASSWORD)
    alice.command("jsave b alice 0")
    guest = login(server)
    moves = guest.command("smoves alice %02")
    assert moves.endswith("  4.  Qxf7#   (0:07)\n      {Black checkmated} 1-0\n")
    assert guest.command("smoves alice %b") == moves
    assert guest.command("smoves alice %05") == "alice has no journal entry %05.\n"
    out = guest.command("examine alice %02")
    assert "Game 1 (alice vs. bob)" in out
    assert guest.command("forward 7").count("Qxf7#") >= 1


def test_the_journal_survives_a_new_login(games):
    server = server_on(games)
    alice = login(server, "alice", PASSWORD)
    alice.command("jsave d alice 1")
    alice.disconnect()
    games.wait(games.store.import_accounts({}))  # writes commit in order: the settings are in
    alice = login(server, "alice", PASSWORD)
    assert alice.command("journal").split("\n")[2].startswith("%04: bob ")
    bob = login(server, "bob", PASSWORD)
    assert bob.command("journal alice").split("\n")[2].startswith("%04: bob ")


@pytest.mark.parametrize("lang, command, expected", [
    ("en", "jsave a alice 0", "Only registered players may keep a journal."),
    ("fr", "jsave a alice 0", "Seuls les joueurs enregistrés peuvent tenir un journal."),
    ("en", "jkill a", "Only registered players may keep a journal."),
    ("en", "jsave 27 alice 0", "\"27\" is not a journal slot: use a to z."),
    ("fr", "jkill ab", "«\u202fab\u202f» n’est pas une case de journal\u202f: utilisez a à z."),
])
def test_guests_and_errors(games, lang, command, expected):
    guest = login(server_on(games))
    guest.command(f"set lang {lang}")
    assert guest.command(command) == expected + "\n"
    assert guest.command("journal") == f"{guest.handle} has no journal entries.\n"


@pytest.mark.parametrize("command, expected", [
    ("jsave a alice x", "Usage: jsave SLOT HANDLE NUMBER|%SLOT"),
    ("jsave a alice 9", "There is no history game 9 for alice."),
    ("jsave a alice %q", "alice has no journal entry %17."),
    ("jsave %a alice 0", "\"%a\" is not a journal slot: use a to z."),
    ("jsave a nobody 0", "No player named \"nobody\" is logged in."),
])
def test_jsave_errors_of_a_registered_player(games, command, expected):
    bob = login(server_on(games), "bob", PASSWORD)
    assert bob.command(command) == expected + "\n"
    assert bob.command("journal") == "bob has no journal entries.\n"
