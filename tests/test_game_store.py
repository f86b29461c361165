"""Played games, accounts and settings through a real SQLite store, in process.

The server's game clocks run on a fake clock (deterministic); the store runs
its writer thread and answers through a private real reactor, which the tests
iterate (``wait_for``) to let commits arrive.  So each test can look at the
moment between a move and its commit: nothing may be announced then.
"""

from __future__ import annotations

import random
from dataclasses import replace

import chess
import pytest
from pg_server import open_store, run_sql
from twisted.internet.task import Clock

from ficsfen.server.config import Config, hash_password
from ficsfen.server.server import FicsServer
from ficsfen.server.store import GameStatus
from ficsfen.server.store.testing import private_reactor, wait_for
from ficsfen.server.testing import connect

PASSWORDS = {"alice": "ecila", "bob": "bob!", "carol": "lorac"}
ACCOUNTS = {name: hash_password(word, iterations=1000) for name, word in PASSWORDS.items()}
AFTER_E4_E5 = "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq e6 0 2"


class Site:
    """A server with a store on ``path``: the game clock is fake, the store's reactor real."""

    def __init__(self, path, reactor) -> None:
        self.reactor = reactor
        self.store = open_store(path, reactor=reactor)
        wait_for(reactor, self.store.import_accounts(ACCOUNTS))
        self.clock = Clock()
        # heavy_percent=0: a command runs in the turn it arrives, before the store answers
        # (no input waits in the heavy connections' queue, which real time would decide)
        self.server = FicsServer(replace(Config(), accounts=ACCOUNTS, heavy_percent=0),
                                 clock=self.clock, rng=random.Random(0), store=self.store)
        wait_for(reactor, self.server.restore())

    def login(self, name: str):
        client = connect(self.server)
        if name in PASSWORDS:
            client.login(name, PASSWORDS[name])
        else:
            client.login(name)
        return client

    def commit(self) -> None:
        """Wait until every write asked for so far is committed and announced."""
        wait_for(self.reactor, self.store.import_accounts({}))  # a write after all the others
        self.clock.advance(0)  # a failed write is handled on the game's own clock

    def crash(self) -> None:
        """Stop as kill -9 would, as far as the file is concerned: no adjournment written."""
        wait_for(self.reactor, self.store.close())


@pytest.fixture
def reactor():
    return private_reactor()


@pytest.fixture
def site(data_location, reactor):
    site = Site(data_location, reactor)
    yield site
    wait_for(reactor, site.store.close())


def start(site, white, black, time="5 0"):
    white.command(f"match {black.handle} {time} white")
    black.command("accept")
    site.commit()
    white.output()
    black.output()
    return site.server.directory.game_of(white.handle)


def test_a_move_is_announced_only_once_committed(site):
    alice, bob, carol = (site.login(n) for n in ("alice", "bob", "carol"))
    alice.command("match bob 5 0 white")
    bob.command("accept")
    # the game's start is not stored yet: nobody has heard of it, both are busy
    assert "Creating" not in alice.output()
    assert site.server.directory.game_of("alice") is None
    assert "already playing" in alice.command("match carol")
    site.commit()
    assert "{Game 1 (alice vs. bob) Creating unrated blitz match.}" in alice.output()
    assert "Creating unrated blitz match" in bob.output()
    game = site.server.directory.game_of("alice")
    carol.command("observe 1")
    carol.output()

    out = alice.command("e4")
    assert "Move #" not in out and bob.output() == "" and carol.output() == ""
    assert site.store.get_game(game.record_id).moves == ()  # not committed: not announced
    assert alice.command("e4").strip() == "It is not your move."  # but made at once
    site.commit()
    assert "Move #" in alice.output() and "Move #" in bob.output() and "Move #" in carol.output()
    assert [m.san for m in site.store.get_game(game.record_id).moves] == ["e4"]


def test_a_game_end_is_announced_once_committed_and_enters_the_history(site):
    alice, bob = site.login("alice"), site.login("bob")
    game = start(site, alice, bob)
    for mover, san in ((alice, "f3"), (bob, "e5"), (alice, "g4")):
        mover.command(san)
        site.commit()
    bob.command("Qh4#")
    assert "checkmated" not in alice.output()
    site.commit()
    assert "{Game 1 (alice vs. bob) alice checkmated} 0-1" in alice.output()
    stored = site.store.get_game(game.record_id)
    assert stored.status is GameStatus.FINISHED and stored.end.result == "0-1"
    assert stored.end.code == "Mat" and stored.end.reason == "alice checkmated"
    assert [e.game.id for e in site.store.history("bob")] == [game.record_id]


def test_a_move_whose_write_fails_is_never_shown_and_the_game_stops_where_it_was_seen(
        site, data_location):
    alice, bob, carol = (site.login(n) for n in ("alice", "bob", "carol"))
    game = start(site, alice, bob, "2 0")
    carol.command("observe 1")
    for mover, san in ((alice, "e4"), (bob, "e5")):
        mover.command(san)
        site.commit()
    site.clock.advance(7)
    seen = carol.command("fen alice").splitlines()[-1]
    assert seen == AFTER_E4_E5
    clocks = game.clock.remaining(chess.WHITE), game.clock.remaining(chess.BLACK)
    # Another program writes ply 3 of this game first, in the log row the server's own
    # write of ply 3 gets: that write is refused by the database (a real failure, through
    # the real file or database).
    run_sql(data_location, "INSERT INTO move_log (id, game, ply, san, uci, white_ms, black_ms, "
            "took_ms) VALUES (?, ?, 3, 'a3', 'a2a3', 0, 0, 0)",
            (site.store._game_writes.next_log_id, game.record_id))
    for client in (alice, bob, carol):
        client.output()
    alice.command("Nf3")
    site.commit()
    end = "{Game 1 (alice vs. bob) Game adjourned because the server could not save it} *"
    for client in (alice, bob, carol):
        out = client.output()
        assert end in out
        assert "Move #" not in out and "Nf3" not in out
    # adjourned in memory at the position everyone saw, clocks as after e5
    assert site.server.directory.game_of("alice") is None
    kept = site.server.adjourned.between("alice", "bob")
    assert kept is game and game.tracker.fen == seen and game.tracker.ply == 2
    # (White had used 7 s of the clock since e5: that move is not stored, nor its time)
    assert clocks == (113, 120)
    assert (game.clock.remaining(chess.WHITE), game.clock.remaining(chess.BLACK)) == (120, 120)
    # the store still has the game in progress at ply 2 (and the other program's row)
    assert site.store.get_game(game.record_id).status is GameStatus.PLAYING


def test_a_closed_store_stops_the_game_at_the_last_stored_position(site):
    alice, bob = site.login("alice"), site.login("bob")
    game = start(site, alice, bob)
    alice.command("d4")
    site.commit()
    wait_for(site.reactor, site.store.close())
    bob.command("d5")
    site.clock.advance(0)
    end = "{Game 1 (alice vs. bob) Game adjourned because the server could not save it} *"
    assert end in alice.output()
    out = bob.output()
    assert end in out and "Move #" not in out
    assert game.tracker.ply == 1 and game.adjourned


def test_a_game_whose_start_cannot_be_stored_never_starts(site):
    alice, bob = site.login("alice"), site.login("bob")
    wait_for(site.reactor, site.store.close())
    alice.command("match bob 5 0 white")
    bob.command("accept")
    site.clock.advance(0)
    assert "Your game with bob could not be started: the server could not save it." in (
        alice.output())
    assert "Your game with alice could not be started" in bob.output()
    assert len(site.server.directory) == 0 and len(site.server.adjourned) == 0
    assert not site.server.games.busy("alice")


def test_a_crash_brings_games_back_adjourned_at_the_last_stored_move(data_location, reactor):
    path = data_location
    site = Site(path, reactor)
    alice, bob = site.login("alice"), site.login("bob")
    game = start(site, alice, bob, "3 2")
    for i, san in enumerate(["e4", "c5", "Nf3", "d6"]):
        (alice if i % 2 == 0 else bob).command(san)
        site.clock.advance(3 + i)
        site.commit()
    fen = game.tracker.fen
    clocks = game.clock.remaining(chess.WHITE), game.clock.remaining(chess.BLACK)
    assert game.clock.running == chess.WHITE  # White's clock was running: 3 s of it are not kept
    site.crash()

    site = Site(path, reactor)  # the restart
    restored = site.server.adjourned.between("alice", "bob")
    assert restored is not None and restored.tracker.fen == fen
    stored = site.store.get_game(restored.record_id)
    assert stored.status is GameStatus.ADJOURNED
    assert stored.adjournment.reason == "Game adjourned by server shutdown"
    alice, bob = site.login("alice"), site.login("bob")
    assert "1 player, who has an adjourned game with you, is online:\nalice" in bob.login_text
    stored_out = alice.command("stored")
    assert "Stored games for alice:" in stored_out
    assert "    C Opponent       On Type          Str  M    ECO Date" in stored_out
    assert " 1: W bob             Y [ bu  3   2] 39-39 W3   B50 " in stored_out
    assert "bob has no adjourned games." not in bob.command("stored")
    assert "carol has no adjourned games." in bob.command("stored carol")
    assert "(adjourned)." in alice.command("resume")
    assert site.server.directory.game_of("alice") is None  # bob has not agreed yet
    bob.command("accept")
    site.commit()
    resumed = site.server.directory.game_of("alice")
    assert resumed.tracker.fen == fen
    # clocks as after d6: White's as when its clock started, Black's after the move
    assert resumed.clock.remaining(chess.WHITE) == clocks[0] + 3 + 3
    assert resumed.clock.remaining(chess.BLACK) == clocks[1]
    assert resumed.clock.running == chess.WHITE
    assert alice.command("fen").splitlines()[-1] == fen
    wait_for(reactor, site.store.close())


def test_shutdown_adjourns_tells_everyone_and_stores_it(data_location, reactor):
    path = data_location
    site = Site(path, reactor)
    alice, bob, carol = (site.login(n) for n in ("alice", "bob", "carol"))
    game = start(site, alice, bob)
    carol.command("observe 1")
    alice.command("e4")
    site.commit()
    bob.command("e5")
    site.commit()
    site.clock.advance(9)  # White thinks; the server stops: those 9 s are not charged
    assert game.clock.remaining(chess.WHITE) == 291
    carol.output()
    guest = site.login("guest")
    start(site, carol, guest)
    done = site.server.shutdown()
    wait_for(reactor, done)
    end = "{Game 1 (alice vs. bob) Game adjourned by server shutdown} *"
    for client in (alice, bob, carol):
        out = client.output()
        assert end in out and "The server is shutting down. Goodbye." in out
        assert out.index(end) < out.index("Goodbye")
    assert f"{{Game 2 (carol vs. {guest.handle}) Game aborted by server shutdown}} *" in (
        guest.output())
    stored = site.store.get_game(game.record_id)
    assert stored.status is GameStatus.ADJOURNED and stored.clocks_ms == (300_000, 300_000)
    wait_for(reactor, site.store.close())
    site = Site(path, reactor)
    assert [g.tracker.ply for g in site.server.adjourned] == [2]
    wait_for(reactor, site.store.close())


def test_a_guest_game_in_progress_at_a_crash_is_aborted_not_adjourned(data_location, reactor):
    path = data_location
    site = Site(path, reactor)
    alice, guest = site.login("alice"), site.login("guest")
    game = start(site, alice, guest)
    alice.command("e4")
    site.commit()
    site.crash()
    site = Site(path, reactor)
    assert len(site.server.adjourned) == 0
    stored = site.store.get_game(game.record_id)
    assert stored.status is GameStatus.FINISHED and stored.end.result == "*"
    # nothing to resume for whoever logs in next
    assert "You have no adjourned games." in site.login("guest").command("resume")
    assert "You have no adjourned games." in site.login("alice").command("resume")
    wait_for(reactor, site.store.close())


def test_settings_of_registered_players_survive_a_restart(data_location, reactor):
    path = data_location
    site = Site(path, reactor)
    alice, dave = site.login("alice"), site.login("dave")
    for line in ("set lang fr", "style 12", "set showfen 1", "set charset latin1",
                 "set width 100", "set open 0", "set prompt ics%", "iset ms 1",
                 "set interface xboard"):
        alice.command(line)
        dave.command(line)
    site.commit()
    wait_for(reactor, site.store.close())
    site = Site(path, reactor)
    alice, dave = site.login("alice"), site.login("dave")
    session = alice.session
    assert (session.lang, session.style, session.showfen, session.charset) == ("fr", 12, True,
                                                                                "latin1")
    assert session.variables["width"] == 100 and session.variables["open"] is False
    assert session.chosen_prompt == "ics% "
    assert session.ivars["ms"] is False and session.interface == ""  # per session, as on FICS
    assert dave.session.lang == "en" and dave.session.style == 1  # unregistered: nothing kept
    wait_for(reactor, site.store.close())


def test_saved_settings_the_server_no_longer_accepts_are_skipped(site):
    wait_for(site.reactor, site.store.save_settings("alice", {
        "language": "xx", "style": 7, "showfen": "maybe", "charset": "utf8",
        "variables": {"width": 9999, "height": 30, "interface": "evil", "nope": 1}}))
    alice = site.login("alice")
    session = alice.session
    assert (session.lang, session.style, session.showfen) == ("en", 1, False)
    assert session.variables == {"height": 30}
    assert session.interface == ""


def test_logins_read_accounts_from_the_store_each_time(site):
    assert "password" not in connect(site.server).command("zoe")
    wait_for(site.reactor, site.store.add_account("zoe", hash_password("z1", iterations=1000)))
    zoe = connect(site.server)
    zoe.login("zoe", "z1")
    assert zoe.session.registered
    wait_for(site.reactor, site.store.set_password("alice", hash_password("new", iterations=1000)))
    old = connect(site.server)
    old.send("alice")
    old.output()
    old.send(PASSWORDS["alice"])
    assert "Invalid password" in old.output()
    site.clock.advance(site.server.config.password_delay)  # the wait after a wrong password
    assert connect(site.server).login("alice", "new") == "alice"


def test_an_offer_made_while_the_move_is_written_never_overtakes_it(site):
    alice, bob = site.login("alice"), site.login("bob")
    start(site, alice, bob)
    alice.send_bytes(b"e4\r\ndraw\r\n")  # one read: the move is not committed yet
    assert bob.output() == ""
    site.commit()
    out = bob.output()
    assert "Move #" in out and "alice offers you a draw." in out
    assert out.index("Move #") < out.index("alice offers you a draw.")
