"""Which language a table is in: French for a person, FICS's English for an interface.

A session that set ``lang fr`` reads ``who``, ``finger``, ``history``,
``date`` and ``moves`` in French, in FICS's columns; the same session, once
a program reads it (block mode, timeseal, ``set interface``, any ``iset``,
``%b`` at login), gets byte for byte what an English session gets: FICS's
text, which clients parse.  Run in-process through the telnet protocol
(:mod:`ficsfen.server.testing`) on a fake clock; dates in UTC.
"""

from __future__ import annotations

import re
import time

import pytest
from twisted.internet.task import Clock

from ficsfen.server.ivars import IVARS
from ficsfen.server.parsed import ParsedMessage, heading, parsed
from ficsfen.server.store import EndCode
from ficsfen.server.testing import connect
from ficsfen.i18n import msg
from test_history import PASSWORD, SCHOLARS_MATE, Games, login, server_on
from test_login_timeseal import Sealed

EPOCH = 1704636120  # Sun Jan  7 2024, 14:02 GMT
N = "\u202f"
START, SEP, END = "\x15", "\x16", "\x17"
COMMANDS = ("who", "finger alice", "date", "moves 1", "history alice", "showlist",
            "showlist noplay", "inchannel 1", "games", "observe 1")


@pytest.fixture
def utc(monkeypatch):
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


@pytest.fixture
def games(tmp_path):
    g = Games(tmp_path / "data.sqlite3")
    yield g
    g.close()


class Lobby:
    """alice (registered, English) playing bob, one move made, with a finished game in
    alice's history; others log in as the test needs."""

    def __init__(self, games: Games) -> None:
        games.record("alice", "bob", SCHOLARS_MATE, result="1-0", reason="bob checkmated",
                     code=EndCode.MATE)
        self.games = games
        self.clock = Clock()
        self.clock.advance(EPOCH)
        self.server = server_on(games, clock=self.clock)
        self.alice = login(self.server, "alice", PASSWORD)
        self.bob = login(self.server, "bob", PASSWORD)
        self.alice.command("+channel 1")
        self.alice.command("match bob 5 0 white")
        self.bob.command("accept")
        games.wait(games.store.import_accounts({}))  # the game's start is stored: it begins
        self.alice.command("e4")
        self.clock.advance(65)

    def guest(self, name: str, *lines: str):
        client = connect(self.server)
        client.output()
        client.login(name)
        for line in lines:
            client.command(line)
        return client


@pytest.fixture
def lobby(games, utc):
    return Lobby(games)


def unobserved(client, line: str) -> str:
    """``line``'s answer; an ``observe`` is undone after, so it can be asked again."""
    out = client.command(line)
    if line.startswith("observe"):
        client.command("unobserve")
    return out


# -- a French person ---------------------------------------------------------------------


def test_a_french_person_reads_french_tables_in_fics_columns(lobby):
    carol = lobby.guest("zoe", "set lang fr")
    assert carol.command("who") == (
        "----^alice\n----^bob\n++++ zoe(U)\n\n"
        " 3 joueurs affichés (sur 3). (*) signale un administrateur.\n")
    assert carol.command("date") == (
        "Heure locale   - dim janv  7, 14:03 UTC 2024\n"
        "Heure serveur  - dim janv  7, 14:03 UTC 2024\n"
        "GMT            - dim janv  7, 14:03 GMT 2024\n")
    assert carol.command("finger alice") == (
        f"Fiche de alice{N}:\n\n"
        f"Connecté depuis{N}: 1 min 5 s\n"
        f"(joue la partie 1{N}: alice contre bob)\n\n"
        f"Langue{N}:     English\n"
        f"Timeseal{N}:   désactivé\n")
    assert carol.command("moves 1") == (
        f"Coups de la partie 1{N}:\n\n"
        "alice (NC) contre bob (NC) --- dim janv  7, 14:02 UTC 2024\n"
        f"Partie blitz non classée, temps initial{N}: 5 minutes, incrément{N}: 0 secondes.\n\n"
        "Coup  alice                   bob\n"
        "----  ---------------------   ---------------------\n"
        "  1.  e4      (0:00)\n"
        "      {Partie en cours} *\n")
    history = carol.command("history alice").splitlines()
    assert history[:2] == [f"Historique de alice{N}:",
                           "                  Adversaire    Type         ECO Fin Date"]
    # each French label starts above its column, as FICS's English ones do
    row = history[2]
    for label, english in (("Adversaire", "Opponent"), ("Type", "Type"), ("Fin", "End"),
                           ("Date", "Date")):
        assert history[1].index(label) == (
            "                  Opponent      Type         ECO End Date".index(english))
    assert row.index("bob") == history[1].index("Adversaire")
    assert row.index("[") == history[1].index("Type")
    assert re.search(r"Mat \w{3} \w{3,4} +\d+, \d\d:\d\d UTC 2023$", row), row


def test_finger_values_start_in_one_column_in_french(lobby):
    lobby.alice.command("set interface xboard")
    lobby.alice.session.timeseal = True
    lobby.alice.session.lag_ms = 7
    carol = lobby.guest("zoe", "set lang fr")
    lines = carol.command("finger alice").splitlines()
    labelled = [line for line in lines if f"{N}:  " in line]
    assert [line[:line.index(N)] for line in labelled] == [
        "Langue", "Interface", "Latence", "Timeseal"]
    assert {len(line) - len(line[13:].lstrip(" ")) for line in labelled} == {13}
    assert labelled[1].endswith(f"«{N}xboard{N}»") and labelled[3].endswith("activé")


def test_the_person_catalogue_entries_are_translated_and_marked():
    # the lines clients parse are ParsedMessages, and each has its French
    assert isinstance(parsed(msg("History for {handle}:", handle="a")), ParsedMessage)
    assert parsed(msg("History for {handle}:", handle="a")).render("fr") == f"Historique de a{N}:"
    with pytest.raises(ValueError):
        heading(((parsed(msg("Opponent")), 5), ("", 0)), "fr")  # does not fit: refused


# -- the same French session as an interface: FICS's bytes ---------------------------------------


def english_answers(lobby) -> dict[str, str]:
    """What an English person (dave, logged in now) reads for each of :data:`COMMANDS`."""
    dave = lobby.guest("dave")
    return {line: unobserved(dave, line) for line in COMMANDS}


def block_payload(text: str) -> str:
    m = re.fullmatch(f"{START}(\\d+){SEP}(\\d+){SEP}(.*){END}\n", text, re.S)
    assert m is not None, text
    return m.group(3)


@pytest.mark.parametrize("how", ["set interface", "iset", "%b"])
def test_a_french_interface_reads_exactly_the_english_bytes(lobby, how):
    if how == "%b":
        zoe = connect(lobby.server)
        zoe.output()
        zoe.send("%b" + "0" * len(IVARS))
        assert "#Ivars set." in zoe.output()
        zoe.login("zoe")
        zoe.command("set lang fr")
    else:
        zoe = lobby.guest("zoe", "set lang fr",
                          "set interface xboard 4.9.1" if how == "set interface" else "iset ms 0")
    assert zoe.session.parsed_lang == "en" and zoe.session.lang == "fr"
    expected = english_answers(lobby)
    assert {line: unobserved(zoe, line) for line in COMMANDS} == expected
    assert expected["who"].endswith("\n 4 players displayed (of 4). (*) indicates system "
                                    "administrator.\n")


def test_a_french_interface_in_block_mode_reads_the_english_bytes(lobby):
    zoe = lobby.guest("zoe", "set lang fr", "iset block 1")
    expected = english_answers(lobby)
    for number, line in enumerate(("who", "finger alice", "date", "moves 1", "history alice",
                                   "showlist", "inchannel 1", "games"), 1):
        zoe.send(f"{number} {line}")
        assert block_payload(zoe.output()) == expected[line], line


def test_a_french_timeseal_session_reads_the_english_bytes(lobby):
    zoe = Sealed(lobby.server)
    zoe.login("zoe")
    zoe.command("set lang fr")
    assert zoe.client.session.timeseal
    expected = english_answers(lobby)
    for line in ("who", "finger alice", "date", "moves 1", "history alice", "showlist"):
        assert zoe.command(line) == expected[line], line


def test_an_english_person_reads_fics_text(lobby):
    dave = lobby.guest("dave")
    assert dave.command("date") == (
        "Local time     - Sun Jan  7, 14:03 UTC 2024\n"
        "Server time    - Sun Jan  7, 14:03 UTC 2024\n"
        "GMT            - Sun Jan  7, 14:03 GMT 2024\n")
    assert dave.command("finger alice") == (
        "Finger of alice:\n\nOn for: 1 min 5 secs\n(playing game 1: alice vs. bob)\n\n"
        "Language   : English\nTimeseal   : Off\n")
    assert dave.command("moves 1") == (
        "Movelist for game 1:\n\n"
        "alice (UNR) vs. bob (UNR) --- Sun Jan  7, 14:02 UTC 2024\n"
        "Unrated blitz match, initial time: 5 minutes, increment: 0 seconds.\n\n"
        "Move  alice                   bob\n"
        "----  ---------------------   ---------------------\n"
        "  1.  e4      (0:00)\n"
        "      {Still in progress} *\n")
    assert dave.command("who").endswith(
        "\n\n 3 players displayed (of 3). (*) indicates system administrator.\n")
    assert dave.command("history alice").splitlines()[:2] == [
        "History for alice:", "                  Opponent      Type         ECO End Date"]


def test_a_game_start_is_french_for_a_person_and_fics_for_an_interface(lobby):
    carol = lobby.guest("zoe", "set lang fr")
    dave = lobby.guest("dave", "set lang fr", "set interface pychess")
    carol.command("match dave 3 0 white")
    dave.command("accept")
    lobby.games.wait(lobby.games.store.import_accounts({}))  # the game's start is stored
    french, english = carol.output(), dave.output()
    assert f"Création{N}: zoe (++++) dave (++++) non classée blitz 3 0\n" in french
    assert "{Partie 2 (zoe contre dave) Début d’une partie blitz non classée.}" in french
    assert "Creating: zoe (++++) dave (++++) unrated blitz 3 0\n" in english
    assert "{Game 2 (zoe vs. dave) Creating unrated blitz match.}" in english
    carol.command("resign")
    lobby.games.wait(lobby.games.store.import_accounts({}))  # the game's end is stored
    assert "{Game 2 (zoe vs. dave) zoe resigns} 0-1" in dave.output()
    assert "{Partie 2 (zoe contre dave) zoe abandonne} 0-1" in carol.output()
