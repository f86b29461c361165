"""Ratings where they show, and the rating lists, over the in-process telnet and a real store.

The online players' ratings are put into the server's
:class:`~ficsfen.server.ratings.Ratings` (as logins and game ends do); the
stored ones are written into the SQLite file with plain SQL, as a game end's
transaction leaves them.  Every line is checked byte for byte: clients
parse most of them.
"""

from __future__ import annotations

import io
import sqlite3

import pytest

from ficsfen.server.admin import games_main
from ficsfen.server.glicko import FICS_CONSTANTS, Category, GlickoConstants, Rating
from ficsfen.server.rating_view import provshow
from ficsfen.server.store import EndCode

from test_history import PASSWORD, T0, Games, login, server_on

DAY = 86400.0
NAMES = ("alice", "bob", "carol", "dave", "erin")


@pytest.fixture
def games(tmp_path):
    g = Games(tmp_path / "data.sqlite3", accounts=NAMES)
    yield g
    g.close()


def online(games):
    """A server on ``games``' store at T0 with alice (blitz 1850, established), bob
    (blitz 1620, provisional), carol (registered, unrated) and a guest logged in."""
    server = server_on(games)
    server.wall = lambda: T0
    alice, bob, carol = (login(server, name, PASSWORD) for name in ("alice", "bob", "carol"))
    guest = login(server)
    server.ratings.arrived("alice", {
        Category.BLITZ: Rating(1850, 50, wins=20, losses=5, draws=5, last_played=T0),
        Category.STANDARD: Rating(1402.6, 150, wins=1, losses=1)})
    server.ratings.arrived("bob", {Category.BLITZ: Rating(1620.4, 120, wins=3, losses=2)})
    return server, alice, bob, carol, guest


def start(games, white, black, terms="5 0"):
    """``white`` challenges ``black``, who accepts; the game's start is stored."""
    white.command(f"match {black.handle} {terms} white")
    black.command("accept")
    games.wait(games.store.import_accounts({}))
    white.output(), black.output()


def test_provshow_marks():
    assert provshow(None, FICS_CONSTANTS) == "P"
    assert provshow(Rating(1500, 350), FICS_CONSTANTS) == "P"  # never played
    assert provshow(Rating(1700, 80, wins=3), FICS_CONSTANTS) == " "
    assert provshow(Rating(1700, 80.5, wins=30), FICS_CONSTANTS) == "E"
    assert provshow(Rating(1700, 120, wins=3), FICS_CONSTANTS) == "P"


def test_who_shows_the_sort_orders_rating_and_sorts_by_it(games):
    server, alice, bob, carol, guest = online(games)
    trailer = "\n 4 players displayed (of 4). (*) indicates system administrator.\n"
    g = guest.handle
    assert carol.command("who") == (
        f"1850 alice\n1620 bob\n---- carol\n++++ {g}(U)\n" + trailer)
    # standard: alice's only; the others tie at none, registered first, then by handle
    assert carol.command("who s") == (
        f"1403 alice\n---- bob\n---- carol\n++++ {g}(U)\n" + trailer)
    # lightning: nobody has one
    assert carol.command("who L") == (
        f"---- alice\n---- bob\n---- carol\n++++ {g}(U)\n" + trailer)
    # a rating changed by a game's end shows at once (the cached answer is renewed)
    server.ratings.changed("carol", Category.BLITZ, Rating(1900, 100, wins=1))
    server.ratings.arrived("carol", {Category.BLITZ: Rating(1900, 100, wins=1)})
    assert carol.command("who b").startswith("1900 carol\n1850 alice\n1620 bob\n")
    assert carol.command("who A").startswith("1850 alice\n1620 bob\n1900 carol\n")
    assert carol.command("who l").startswith("     alice\n     bob\n     carol\n")


def test_who_i_and_pin_lines_carry_each_rating_and_its_mark(games):
    server, alice, bob, carol, guest = online(games)
    out = carol.command("who IbsL")
    assert out.splitlines()[:4] == [
        "alice 001850 1403P0P", "bob 001620P0P0P", "carol 000P0P0P",
        f"{guest.handle} 010P0P0P"]
    carol.command("iset pin 1")
    carol.output()
    login(server, "dave", PASSWORD)
    assert "<wa> dave 00" + "0P" * 9 in carol.output()


def test_game_lines_show_both_ratings(games):
    server, alice, bob, carol, guest = online(games)
    carol.command("iset gameinfo 1")
    carol.command("+gnotify alice")
    alice.command("match bob 5 0 white")
    assert bob.output() == ("\nChallenge: alice (1850) [white] bob (1620) unrated blitz 5 0.\n"
                            "You can \"accept\" or \"decline\", or propose different "
                            "parameters.\nfics% ")
    assert bob.command("pending").endswith(
        "Offers from other players:\n  alice (1850) [white] bob (1620) unrated blitz 5 0.\n")
    bob.command("accept")
    games.wait(games.store.import_accounts({}))
    assert bob.output().startswith(
        "\nCreating: alice (1850) bob (1620) unrated blitz 5 0\n"
        "{Game 1 (alice vs. bob) Creating unrated blitz match.}\n")
    assert "Game notification: alice (1850) vs. bob (1620) unrated blitz 5 0: Game 1" in (
        carol.output())
    assert carol.command("games") == (
        "\n  1 1850 alice       1620 bob        [ bu  5   0]   5:00 -  5:00 (39-39) W:  1\n"
        "\n  1 games displayed.\n")
    observed = carol.command("observe 1")
    assert "\nGame 1: alice (1850) bob (1620) unrated blitz 5 0\n\n" in observed
    assert ("<g1> 1 p=0 t=blitz r=0 u=1,1 it=300,0 i=300,0 pt=0 rt=1850 ,1620P ts=0,0 "
            "m=2 n=0\n") in observed
    assert "\nalice (1850) vs. bob (1620) --- " in carol.command("moves 1")
    # a guest's game: "++++" and FICS's 0P / UNR
    dave = login(server, "dave", PASSWORD)
    start(games, guest, dave, "1 0")
    line = [x for x in carol.command("games").splitlines() if guest.handle in x][0]
    assert line.startswith(f"  2 ++++ {guest.handle:<11} ---- dave       [ lu  1   0]")
    assert f"\n{guest.handle} (UNR) vs. dave (UNR) --- " in carol.command("moves 2")


def test_seeks_show_the_owners_rating_and_ranges_filter_on_the_callers(games):
    server, alice, bob, carol, guest = online(games)
    for client in (bob, carol, guest):
        client.command("iset seekinfo 1")
        client.output()
    assert alice.command("seek 5 0 1600-1700") == (
        "Your seek has been posted with index 1.\n(1 player saw the seek.)\n")
    assert "<s> 1 " in guest.output()  # the seek graph draws it, out of range or not
    told = bob.output()
    assert "\n<s> 1 w=alice ti=00 rt=1850  t=5 i=0 r=u tp=blitz c=? rr=1600-1700 a=t f=f\n" in told
    assert 'alice (1850) seeking 5 0 unrated blitz ("play 1" to respond)' in told
    assert bob.command("sought") == (
        "  1 1850 alice               5   0 unrated blitz              1600-1700\n"
        "1 ad displayed.\n")
    # carol (no blitz rating: 0) and the guest (0) are out of the range
    assert carol.command("sought") == "0 ads displayed.\n"
    assert guest.command("sought") == "0 ads displayed.\n"
    assert carol.command("play 1") == (
        "You do not fit the rating range of that seek (1600-1700).\n")
    # a guest's seek: rt=0P, "++++"; lightning has no rating for alice
    guest.command("seek 1 0")
    assert ("<s> 2 w=%s ti=01 rt=0P t=1 i=0 r=u tp=lightning c=? rr=0-9999 a=t f=f"
            % guest.handle) in bob.output()
    assert carol.command("sought").startswith(f"  2 ++++ {guest.handle:<17}   1   0 unrated")
    bob.command("play 1")
    games.wait(games.store.import_accounts({}))
    assert "Creating: alice (1850) bob (1620) unrated blitz 5 0" in bob.output()


def _store_rows(games, rows, game_ratings=()):
    db = sqlite3.connect(games.store.path)
    db.executemany("INSERT INTO ratings (key, category, rating, rd, wins, losses, draws, best, "
                   "best_at, last_played) VALUES (?,?,?,?,?,?,?,?,?,?)", rows)
    db.executemany("UPDATE games SET white_rating = ?, black_rating = ?, white_change = ?, "
                   "black_change = ? WHERE id = ?", game_ratings)
    db.commit()
    db.close()


def test_history_smoves_and_pgn_show_the_ratings_kept_with_the_game(games):
    rated = games.record("alice", "bob", ["e4", "e5"], result="1-0", reason="bob resigns",
                         code=EndCode.RESIGNATION)
    games.record("bob", "alice", ["d4"], result="1/2-1/2", reason="Game drawn by mutual "
                 "agreement", code=EndCode.AGREED)  # no ratings kept: 0, UNR, no tags
    _store_rows(games, [], [(1840, 1710, 10.4, -9.6, rated)])
    server = server_on(games)
    bob = login(server, "bob", PASSWORD)
    lines = bob.command("history alice").splitlines()
    assert lines[2].startswith(" 0: + 1850 W 1700 bob           [ bu  5   0] C20 Res ")
    assert lines[3].startswith(" 1: =    0 B    0 bob           [ bu  5   0] A40 Agr ")
    assert "\nalice (1840) vs. bob (1710) --- " in bob.command("smoves alice 0")
    assert "\nbob (UNR) vs. alice (UNR) --- " in bob.command("smoves alice 1")
    out = io.StringIO()
    assert games_main(["export", "--data", str(games.store.path)], lang="en", out=out,
                      err=io.StringIO()) == 0
    pgn = out.getvalue()
    first, second = pgn.split('[Event "', 2)[1:]
    assert '[Result "1-0"]\n[WhiteElo "1840"]\n[BlackElo "1710"]\n' in first
    assert "Elo" not in second


def _lists_store(games):
    _store_rows(games, [
        ("alice", "blitz", 1850, 50, 20, 5, 5, 1900, T0 - 30 * DAY, T0 - DAY),
        ("bob", "blitz", 1700, 60, 10, 10, 2, 1750, T0 - 60 * DAY, T0),
        ("carol", "blitz", 1700, 70, 10, 10, 2, 1720, T0 - 60 * DAY, T0),
        ("dave", "blitz", 1990, 200, 1, 0, 0, 1990, T0, T0),  # RD too high: not active
        # RD 79 when last played, 900 days ago: grown past 80 (c = 0.5)
        ("erin", "blitz", 1500, 79, 9, 9, 9, 2100, T0 - 900 * DAY, T0 - 900 * DAY),
        ("alice", "standard", 1600, 40, 30, 1, 0, 1650, T0 - DAY, T0)])
    server = server_on(games)
    server.wall = lambda: T0
    server.ratings.constants = GlickoConstants(c=0.5, active_rd=80.0)
    return server


def test_best_lists_active_players_and_hbest_the_best_ratings(games):
    server = _lists_store(games)
    alice = login(server, "alice", PASSWORD)
    assert alice.command("best") == (
        "          Blitz                  Standard\n"
        "\n"
        "   1. alice        1850     1. alice        1600\n"
        "   2. bob          1700\n"
        "      carol        1700\n")
    assert alice.command("best bz") == (
        "          Blitz\n\n   1. alice        1850\n   2. bob          1700\n"
        "      carol        1700\n")
    assert alice.command("best l") == "No ratings to show.\n"
    assert alice.command("hbest b") == (
        "          Blitz\n\n   1. erin         2100\n   2. dave         1990\n"
        "   3. alice        1900\n   4. bob          1750\n   5. carol        1720\n")
    assert alice.command("best q") == "Usage: best [b][s][l][w][z]\n"


def test_rank_places_a_player_among_the_active_ones(games):
    server = _lists_store(games)
    bob = login(server, "bob", PASSWORD)
    assert bob.command("rank") == (
        "          Blitz\n\n   1. alice        1850\n   2. bob          1700\n"
        "      carol        1700\n")
    # dave is not active: shown where his rating puts him, with ---- and no place taken
    assert bob.command("rank dave") == (
        "          Blitz\n\n----  dave         1990\n   1. alice        1850\n"
        "   2. bob          1700\n      carol        1700\n")
    assert bob.command("rank 2-3 b") == (
        "          Blitz\n\n   2. bob          1700\n      carol        1700\n")
    assert bob.command("rank 7-9") == "No ratings to show.\n"


def test_ratings_lists_a_players_table(games):
    server = _lists_store(games)
    alice = login(server, "alice", PASSWORD)
    from ficsfen.server.commands.info import fics_date
    assert alice.command("ratings") == (
        "Ratings for alice:\n\n"
        "              rating      RD     win    loss    draw   total   best\n"
        f"Blitz           1850    50.0      20       5       5      30   1900 "
        f"({fics_date(T0 - 30 * DAY)})\n"
        f"Standard        1600    40.0      30       1       0      31   1650 "
        f"({fics_date(T0 - DAY)})\n")
    guest = login(server)
    assert guest.command("ratings") == "Only registered players have ratings.\n"
    assert guest.command("ratings carol").startswith("Ratings for carol:\n")
    login(server, "zed", None)  # a guest of that name
    assert alice.command("ratings zed") == "zed has not played any rated games.\n"
    assert alice.command("set lang fr") != ""
    assert alice.command("ratings").startswith(
        "Classements de alice\u202f:\n\n"
        "              niveau      RD    gain   perte   nulle   total   record\n"
        "Blitz           1850")


def test_statistics_without_a_store():
    from ficsfen.server.testing import connect, make_server
    server = make_server()
    client = connect(server)
    client.output()
    client.login("alice")
    assert client.command("best") == "This server keeps no data file: it has no ratings.\n"
