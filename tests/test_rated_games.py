"""Rated games: the category of a game, who may play rated, and a rated game's end on a
real store (a SQLite file in tmp_path, then a PostgreSQL database, on a private reactor), commands run in-process
through the telnet protocol on a fake clock."""

from __future__ import annotations


import pytest
from pg_server import open_store, run_sql

from ficsfen.server.clock import TimeControl
from ficsfen.server.config import hash_password
from ficsfen.server.glicko import FICS_CONSTANTS, Category, Rating, update
from ficsfen.server.rated_games import RatedRefusedError, rate_end, rated_offer
from ficsfen.server.rating_view import RatingView
from ficsfen.server.ratings import Ratings, category_of
from ficsfen.server.store.testing import private_reactor, wait_for
from ficsfen.server.testing import connect, make_server

PASSWORD = "s3cret"
T0 = 1_700_000_000.0


# -- the category of a game --------------------------------------------------------------


@pytest.mark.parametrize(("minutes", "increment", "variant", "category"), [
    (1, 0, None, Category.LIGHTNING),
    (2, 0, None, Category.LIGHTNING),
    (3, 0, None, Category.BLITZ),
    (2, 12, None, Category.BLITZ),  # 2 + 2/3 * 12 = 10
    (14, 0, None, Category.BLITZ),
    (15, 0, None, Category.STANDARD),
    (10, 10, None, Category.STANDARD),
    (0, 0, None, None),  # untimed: never rated
    (3, 0, "wild/fr", Category.WILD),
    (30, 0, "wild/fr", Category.WILD),  # a variant's category, whatever the clock
    (1, 0, "crazyhouse", Category.CRAZYHOUSE),
    (3, 0, "suicide", None),  # no rating here
])
def test_category_of(minutes, increment, variant, category):
    assert category_of(TimeControl(minutes, increment), variant) is category


# -- who plays rated ---------------------------------------------------------------------


def _offer(asked, *, default=False, registered=True, opponent=True, tc=TimeControl(5, 0)):
    return rated_offer(asked, default=default, registered=registered, opponent_registered=opponent,
                       time_control=tc, variant=None)


def test_rated_offers():
    assert _offer(True) and not _offer(False) and not _offer(None)
    assert _offer(None, default=True) and not _offer(False, default=True)
    assert not _offer(True, opponent=False)  # to a guest: unrated, as lasker does
    assert _offer(True, opponent=None)  # a seek: whoever answers is checked then
    assert not _offer(True, tc=TimeControl(0, 0))  # untimed
    assert not _offer(None, default=True, registered=False)  # a guest's default never rates
    with pytest.raises(RatedRefusedError) as err:
        _offer(True, registered=False)
    assert err.value.message.render("en") == "Unregistered players cannot play rated games."


def test_rate_end_is_glicko_update_from_both_pre_game_ratings():
    alice, bob = Rating(1720, 350), Rating(1800, 120, wins=30, last_played=T0 - 86400)
    end = rate_end(Category.BLITZ, ("alice", alice), ("bob", bob), "1-0", T0, FICS_CONSTANTS)
    assert end.white.after == update(alice, bob, 1.0, T0, FICS_CONSTANTS)
    assert end.black.after == update(bob, alice, 0.0, T0, FICS_CONSTANTS)
    assert end.white.change == end.white.after.rating - 1720 > 0 > end.black.change
    assert rate_end(Category.BLITZ, ("alice", alice), ("bob", bob), "*", T0,
                    FICS_CONSTANTS) is None


def test_marks_and_texts():
    ratings = Ratings(FICS_CONSTANTS, registered=lambda handle: handle == "carol")
    ratings.arrived("alice", {Category.BLITZ: Rating(1834.4, 60.0, wins=40)})
    assert ratings.text("alice", Category.BLITZ) == "1834"
    view = RatingView(ratings)
    assert view.shown("alice", "blitz").marked == "1834 "  # RD 60: established
    assert ratings.text("alice", Category.STANDARD) == "----"
    assert view.shown("alice", "standard").marked == "0P"
    assert ratings.text("carol", Category.BLITZ) == "----"  # registered, not online
    assert ratings.text("Guest", Category.BLITZ) == "++++"


# -- the flow on a real store ------------------------------------------------------------


class Room:
    """A server on a fake clock over a real store with accounts alice and bob (and nobody,
    whose settings are written to wait for the writes before them)."""

    def __init__(self, path):
        self.path = path
        self.reactor = private_reactor()
        self.store = open_store(path, reactor=self.reactor, synchronous="normal")
        for name in ("alice", "bob", "nobody"):
            self.wait(self.store.add_account(name, hash_password(PASSWORD, iterations=1000)))
        self.server = make_server(store=self.store, idle_timeout=0)
        self.server.wall = self.server.games.wall = lambda: T0
        self.server.games.journal.wall = lambda: T0
        self.server.games.rating.wall = lambda: T0

    def wait(self, d):
        return wait_for(self.reactor, d)

    def settle(self):
        """Every write asked for so far is committed, and its announcement made."""
        self.wait(self.store.save_settings("nobody", {}))

    def login(self, name=None):
        client = connect(self.server)
        if name is None:
            client.login()
        else:
            client.login(name, PASSWORD)
        self.settle()
        client.output()
        return client

    def start(self, alice, bob, terms="5 0 white rated"):
        alice.command(f"match bob {terms}")
        bob.command("accept")
        self.settle()
        alice.output(), bob.output()

    def close(self):
        self.wait(self.store.close())


@pytest.fixture
def room(data_location):
    r = Room(data_location)
    yield r
    r.close()


def _finger_rows(text):
    return [line for line in text.splitlines() if line.startswith(("Blitz ", "Standard "))]


def test_a_rated_game_changes_both_ratings_in_the_end_s_commit(room):
    alice, bob = room.login("alice"), room.login("bob")
    assert _finger_rows(alice.command("finger")) == []  # no rated game yet: no table
    alice.command("match bob 5 0 white rated")
    assert "Challenge: alice (----) [white] bob (----) rated blitz 5 0." in bob.output()
    bob.command("accept")
    room.settle()
    alice.output(), bob.output()
    alice.command("resign")
    room.settle()
    first = Rating.initial(FICS_CONSTANTS)
    alice_after = update(first, first, 0.0, T0, FICS_CONSTANTS)
    bob_after = update(first, first, 1.0, T0, FICS_CONSTANTS)
    said_alice, said_bob = alice.output(), bob.output()
    assert "{Game 1 (alice vs. bob) alice resigns} 0-1" in said_alice
    assert f"Blitz rating adjustment: 1720 --> {round(alice_after.rating)}" in said_alice
    assert f"Blitz rating adjustment: 1720 --> {round(bob_after.rating)}" in said_bob
    # finger shows the new ratings at once (the online ones replaced after the commit)
    row = _finger_rows(bob.command("finger"))
    assert row == [f"Blitz      {round(bob_after.rating)}{bob_after.rd:9.1f}"
                   f"{1:8d}{0:8d}{0:8d}{1:8d}"]  # RD above 80: no best yet
    kept = run_sql(room.path, "SELECT key, category, rating, rd, wins, losses, last_played "
                   "FROM ratings ORDER BY key")
    [game] = run_sql(room.path, "SELECT rated, white_rating, black_rating, white_change, "
                     "black_change FROM games")
    assert kept == [("alice", "blitz", alice_after.rating, alice_after.rd, 0, 1, T0),
                    ("bob", "blitz", bob_after.rating, bob_after.rd, 1, 0, T0)]
    assert game == (1, 0, 0, pytest.approx(alice_after.rating - 1720),
                    pytest.approx(bob_after.rating - 1720))


def test_an_aborted_or_unrated_game_changes_nothing(room):
    alice, bob = room.login("alice"), room.login("bob")
    room.start(alice, bob)
    alice.command("abort")
    room.settle()
    assert "No ratings adjustment done." in alice.output()
    room.start(alice, bob, "5 0 white")  # rated 0 by default: unrated
    alice.command("resign")
    room.settle()
    assert "No ratings adjustment done." in bob.output()
    assert run_sql(room.path, "SELECT count(*) FROM ratings") == [(0,)]
    assert run_sql(room.path, "SELECT rated, white_change FROM games ORDER BY id") == [
        (1, None), (0, None)]


def test_set_rated_makes_offers_rated_and_a_finger_of_an_absent_player_reads_the_store(room):
    alice, bob = room.login("alice"), room.login("bob")
    assert alice.command("set rated 1").strip() == "rated set to 1."
    room.start(alice, bob, "3 0 white")
    bob.command("resign")
    room.settle()
    assert "Blitz rating adjustment: 1720 -->" in alice.output()
    bob.command("quit")
    room.settle()
    text = alice.command("finger bob")
    room.settle()
    text += alice.output()
    assert len(_finger_rows(text)) == 1 and "       0       1       0       1" in text


def test_guests_play_unrated_only(room):
    alice = room.login("alice")
    guest = room.login()
    name = guest.session.handle
    assert guest.command("set rated 1").strip() == "You cannot change your rated status."
    assert guest.command("match alice 5 0 rated").strip() == (
        "Unregistered players cannot play rated games.")
    assert "Unregistered players cannot play rated games." in guest.command("seek 5 0 r")
    alice.command(f"match {name} 5 0 rated")  # to a guest: an unrated offer
    assert f"alice (----) {name} (++++) unrated blitz 5 0" in guest.output()
    alice.command(f"withdraw {name}")
    alice.command("seek 5 0 rated")
    said = guest.output()
    assert "seeking 5 0 rated blitz" in said
    number = said.split('"play ')[1].split('"')[0]
    assert guest.command(f"play {number}").strip() == (
        "Unregistered players cannot play rated games.")


def test_an_adjourned_rated_game_stays_rated(room):
    alice, bob = room.login("alice"), room.login("bob")
    room.start(alice, bob)
    alice.command("e4")
    room.settle()
    bob.command("e5")
    room.settle()
    alice.command("adjourn")
    bob.command("adjourn")
    room.settle()
    alice.output(), bob.output()
    bob.command("resume alice")
    assert "rated blitz 5 0 (adjourned)" in alice.output()
    alice.command("accept")
    room.settle()
    alice.output(), bob.output()
    bob.command("resign")
    room.settle()
    assert "Blitz rating adjustment: 1720 -->" in alice.output()


def test_a_rated_game_is_named_rated_wherever_fics_names_it(room):
    alice, bob = room.login("alice"), room.login("bob")
    carol = room.login()  # a guest, watching with the game lines interfaces read
    carol.command("iset gameinfo 1")
    bob.command("iset gameinfo 1")
    alice.command("match bob 5 0 white rated")
    said = bob.command("accept")
    room.settle()
    said += bob.output()
    assert "Creating: alice (----) bob (----) rated blitz 5 0" in said
    assert "{Game 1 (alice vs. bob) Creating rated blitz match.}" in said
    assert "<g1> 1 p=0 t=blitz r=1 " in said
    assert "[ br  5   0]" in carol.command("games")
    assert "Game 1: alice (----) bob (----) rated blitz 5 0" in carol.command("observe 1")
    alice.command("abort")
    bob.command("abort")
    room.settle()
    alice.command("match bob 5 0 white unrated")
    said = bob.command("accept")
    room.settle()
    said += bob.output()
    assert "Creating: alice (----) bob (----) unrated blitz 5 0" in said
    assert "<g1> 1 p=0 t=blitz r=0 " in said
    assert "[ bu  5   0]" in carol.command("games")


def test_a_rated_games_move_list_says_rated(room):
    alice, bob = room.login("alice"), room.login("bob")
    room.start(alice, bob)
    assert "Rated blitz match, initial time: 5 minutes, increment: 0 seconds." in alice.command(
        "moves")
    alice.command("abort")
    bob.command("abort")
    room.settle()
    room.start(alice, bob, terms="5 0 white unrated")
    assert "Unrated blitz match, initial time" in alice.command("moves")
