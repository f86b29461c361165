"""Played games through the server, in process: several sessions on StringTransports, a fake clock.

Covers played games end to end except the real-socket runs (tests/test_play_integration.py):
challenges, moves refused or made, every kind of game end with its FICS
announcement reaching players and observers, clocks and flag fall driven by
hand, boards in style 1 and 12 with the FEN line of ``showfen``, observing,
disconnection, adjournment and ``resume``.
"""

from __future__ import annotations

import re

import pytest
from twisted.internet.task import Clock

from ficsfen.server.boards import fen_from_style12
from ficsfen.server.config import hash_password
from ficsfen.fen import STARTING_FEN
from ficsfen.pgn import read_file
from ficsfen.server.testing import connect, make_server

AFTER_E4 = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1"
FOOLS_MATE = ["f3", "e5", "g4", "Qh4#"]
# Sam Loyd's ten-move stalemate.
STALEMATE = ["e3", "a5", "Qh5", "Ra6", "Qxa5", "h5", "h4", "Rah6", "Qxc7", "f6", "Qxd7+", "Kf7",
             "Qxb7", "Qd3", "Qxb8", "Qh7", "Qxc8", "Kg6", "Qe6"]


#: Accounts of the registered table (password: the name reversed).
ACCOUNTS = {name: hash_password(name[::-1], iterations=1000) for name in ("alice", "bob", "carol")}


class Table:
    """A server on a fake clock with alice, bob and carol logged in (``registered``: with
    passwords, so that their games can be adjourned)."""

    def __init__(self, *, registered: bool = False) -> None:
        self.clock = Clock()
        self.server = make_server(clock=self.clock, accounts=ACCOUNTS if registered else {})
        self.registered = registered
        self.alice, self.bob, self.carol = (connect(self.server) for _ in range(3))
        for client, name in ((self.alice, "alice"), (self.bob, "bob"), (self.carol, "carol")):
            self.login(client, name)

    def login(self, client, name: str) -> None:
        client.login(name, name[::-1] if self.registered else None)

    def start(self, time: str = "5 0") -> object:
        """alice (white) against bob, game 1 in the directory."""
        self.alice.command(f"match bob {time} white")
        self.bob.command("accept")
        self.alice.output()
        return self.server.directory.game_of("alice")

    def play(self, *moves: str) -> None:
        """Moves alternately by the side to move; fails on any refusal."""
        for san in moves:
            game = self.server.directory.game_of("alice")
            mover = self.alice if game.tracker.turn else self.bob
            fen = game.tracker.fen
            out = mover.command(san)
            assert game.tracker.fen != fen, out

    def fen(self, client=None) -> str:
        return (client or self.carol).command("fen alice").splitlines()[-1]


@pytest.fixture
def table() -> Table:
    return Table()


def test_match_accept_tells_both_number_colours_and_time_control(table):
    out = table.alice.command("match bob 5 3 white")
    assert "Issuing: alice (++++) [white] bob (++++) unrated blitz 5 3." in out
    told = table.bob.output()
    assert "Challenge: alice (++++) [white] bob (++++) unrated blitz 5 3." in told
    pending = table.bob.command("pending")
    assert "There are no offers pending to other players." in pending
    assert "Offers from other players:\n  alice (++++) [white] bob (++++) unrated blitz 5 3." in pending
    out = table.bob.command("accept")
    assert "{Game 1 (alice vs. bob) Creating unrated blitz match.}" in out
    # FICS's start: "Creating:", "{Game ...}", a blank line, the board (no "You play" line).
    assert "{Game 1 (alice vs. bob) Creating unrated blitz match.}\n\n" in out
    assert "Game 1 (alice vs. bob)" in out and "a   b   c" not in out  # bob's board is flipped
    told = table.alice.output()
    assert "bob accepts the match offer." in told
    assert "{Game 1 (alice vs. bob) Creating unrated blitz match.}\n\n" in told
    assert "  a   b   c   d   e   f   g   h" in told
    assert table.fen() == STARTING_FEN
    assert "1 ++++ alice" in table.carol.command("games")


def test_bad_challenges_get_precise_messages(table):
    assert "You cannot challenge yourself." in table.alice.command("match alice")
    assert 'No player named "zed" is logged in.' in table.alice.command("match zed")
    assert "Usage" in table.alice.command("match")
    assert "is not a time, an increment or a colour" in table.alice.command("match bob 5 purple")
    table.alice.command("match bob 5 0")
    assert "already offering bob a match on these terms" in table.alice.command("match bob 5 0")
    assert "Updating the offer" in table.alice.command("match bob 3 0")
    assert "You withdraw the match offer to bob." in table.alice.command("withdraw")
    assert "alice withdraws the match offer." in table.bob.output()
    assert "You have no match offers to accept." in table.bob.command("accept")
    table.alice.command("match bob")
    assert "You decline the match offer from alice." in table.bob.command("decline")
    table.start()
    assert "bob is playing a game." in table.carol.command("match bob")
    assert "You are already playing a game." in table.alice.command("match carol")
    assert "You are not playing a game." in table.carol.command("resign")
    table.carol.command("examine")
    assert 'unexamine' in table.carol.command("match alice")


def test_refusals_are_in_the_players_language(table):
    table.start()
    table.bob.command("set lang fr")
    assert table.bob.command("e5").strip() == "Ce n’est pas à vous de jouer."
    assert table.bob.command("takeback").strip() == "Il n’y a aucun coup à reprendre."


def test_out_of_turn_illegal_and_ambiguous_moves_change_nothing(table):
    game = table.start()
    assert table.bob.command("e5").strip() == "It is not your move."
    assert table.fen() == STARTING_FEN
    refused = table.alice.command("e5")
    assert "e5" in refused and table.fen() == STARTING_FEN
    table.play("e4", "e5", "Nf3", "d6", "d3", "Nf6")
    before = table.fen()
    out = table.alice.command("Nd2")  # the knights of b1 and f3 both reach d2
    assert "mbiguous" in out, out
    out = table.alice.command("Ke3")
    assert "llegal" in out, out
    assert table.fen() == before and game.tracker.ply == 6
    assert "You are not playing or examining a game." in table.carol.command("e4")


def test_whole_game_to_checkmate_reaches_players_and_observers(table):
    table.start()
    assert "You are now observing game 1." in table.carol.command("observe 1")
    table.play(*FOOLS_MATE[:-1])
    table.carol.output()
    out = table.bob.command("Qh4#")
    announcement = "{Game 1 (alice vs. bob) alice checkmated} 0-1"
    assert announcement in out
    assert announcement in table.alice.output()
    assert announcement in table.carol.output()
    assert "There are no games in progress." in table.carol.command("games")
    assert "You are not playing" in table.alice.command("fen")
    # the number is free again
    table.carol.command("match alice 1 0 black")
    table.alice.command("accept")
    assert table.server.directory.game_of("carol").number == 1


def test_stalemate(table):
    table.start()
    table.carol.command("observe bob")
    table.play(*STALEMATE[:-1])
    table.carol.output()
    out = table.alice.command(STALEMATE[-1])
    assert "{Game 1 (alice vs. bob) Game drawn by stalemate} 1/2-1/2" in out
    assert "Game drawn by stalemate} 1/2-1/2" in table.carol.output()


def test_flag_fall_with_the_clock_advanced_by_hand(table):
    game = table.start("1 0")
    table.carol.command("observe 1")
    table.play("e4", "e5")  # both first moves are free: now White's clock runs
    assert game.clock.running is not None
    table.clock.advance(30)
    assert "Your opponent is not out of time." in table.bob.command("flag")
    table.clock.advance(31)
    end = "{Game 1 (alice vs. bob) alice forfeits on time} 0-1"
    assert end in table.alice.output()
    assert end in table.bob.output()
    assert end in table.carol.output()
    assert len(table.server.directory) == 0


def test_resign_and_draw_by_agreement(table):
    table.start()
    table.carol.command("observe 1")
    table.play("d4", "d5")
    assert "Draw offer sent to bob." in table.alice.command("draw")
    assert "alice offers you a draw." in table.bob.output()
    assert "alice offers to draw" in table.bob.command("pending")
    table.alice.command("Nf3")  # a move withdraws the mover's offer
    assert "alice withdraws the draw request." in table.bob.output()
    table.alice.output()
    table.bob.command("draw")
    out = table.alice.command("accept")
    assert "{Game 1 (alice vs. bob) Game drawn by mutual agreement} 1/2-1/2" in out
    assert "mutual agreement} 1/2-1/2" in table.carol.output()
    table.start()
    table.carol.command("observe 1")
    out = table.bob.command("resign")
    assert "{Game 1 (alice vs. bob) bob resigns} 1-0" in out
    assert "bob resigns} 1-0" in table.alice.output()
    assert "bob resigns} 1-0" in table.carol.output()


def test_abort_free_before_the_second_move_then_by_agreement(table):
    table.start()
    table.play("e4")
    assert "{Game 1 (alice vs. bob) Game aborted on move 1} *" in table.bob.command("abort")
    assert "Game aborted on move 1} *" in table.alice.output()
    table.start()
    table.play("e4", "e5")
    assert "Abort request sent to bob." in table.alice.command("abort")
    assert "You decline" in table.bob.command("decline")
    table.alice.command("abort")
    assert "Game aborted by mutual agreement} *" in table.bob.command("abort")


def test_takeback_by_agreement(table):
    game = table.start()
    table.carol.command("observe 1")
    table.play("e4", "e5", "Nf3")
    assert "Takeback request for 2 half moves sent to bob." in table.alice.command("takeback 2")
    assert "would like to take back 2 half moves" in table.bob.output()
    table.carol.output()
    out = table.bob.command("takeback 2")
    assert "You accept the takeback request from alice." in out
    assert "Move # : 1 (Black)" in table.carol.output()
    assert game.tracker.fen == AFTER_E4
    assert table.fen() == AFTER_E4
    assert "You can take back from 1 to 1 half move." in table.alice.command("takeback 9")
    table.play("c5")
    assert "e4" in table.carol.command("moves 1") and "c5" in table.carol.command("moves 1")


def test_boards_in_style12_and_showfen_equal_the_tracker_after_every_ply(table, shared_pgn):
    moves = read_file(shared_pgn / "kasparov-deep-blue-1997.pgn")[0]
    expected = moves.fens()
    game = table.start("0 0")
    for client in (table.bob, table.carol):
        client.command("set style 12")
    table.carol.command("set showfen 1")
    table.alice.command("set showfen on")
    table.carol.command("observe 1")
    for ply, san in enumerate(moves.moves, 1):
        mover = table.alice if game.tracker.turn else table.bob
        mover.command(san)
        seen = table.carol.output()
        twelve = [line for line in seen.splitlines() if line.startswith("<12>")]
        assert len(twelve) == 1
        lines = seen.splitlines()
        fen_line = lines[lines.index(twelve[0]) + 1]
        assert fen_from_style12(twelve[0]) == fen_line == game.tracker.fen == expected[ply]
        alice_seen = table.alice.output() if mover is table.bob else None
        if alice_seen is not None:  # style 1 plus the FEN line right after the diagram
            assert alice_seen.rstrip("fics% ").rstrip().splitlines()[-1] == expected[ply]
    fields = twelve[0].split()
    assert fields[16:20] == ["1", "alice", "bob", "0"]  # game, names, relation: observing
    assert table.fen(table.bob) == expected[-1]


def test_observe_unobserve_allobservers(table):
    table.start()
    assert "Nobody is observing game 1." in table.alice.command("allobservers 1")
    assert "You cannot observe a game you are playing" in table.alice.command("observe 1")
    assert "There is no game 7." in table.carol.command("observe 7")
    table.carol.command("observe alice")
    assert "already observing" in table.carol.command("observe 1")
    assert "Observing 1 [alice vs. bob]: carol (1 user)" in table.alice.command("allobservers")
    assert "Removing game 1 from observation list." in table.carol.command("unobserve")
    assert "You are not observing any games." in table.carol.command("unobserve")
    table.play("e4")
    assert table.carol.output() == ""
    table.carol.command("observe 1")
    table.carol.disconnect()
    assert table.server.directory.observers(table.server.directory.by_number(1)) == []
    table.play("e5")  # nobody to tell: no error


def test_games_lists_played_and_examined_games(table):
    table.start("3 2")
    table.carol.command("examine")
    out = table.carol.command("games")
    assert re.search(r"1 \+\+\+\+ alice\s+\+\+\+\+ bob\s+\[ bu  3   2\]", out), out
    assert "2 (Exam." in out
    assert "2 games displayed." in out


def test_disconnect_adjourns_and_resume_needs_both_players():
    table = Table(registered=True)
    game = table.start("2 0")
    table.carol.command("observe 1")
    table.play("e4", "c5", "Nf3")
    table.clock.advance(5)
    fen = game.tracker.fen
    black_left = game.clock.remaining(False)
    table.bob.disconnect()
    assert "{Game 1 (alice vs. bob) bob lost connection; game adjourned} *" in table.alice.output()
    assert "bob lost connection; game adjourned} *" in table.carol.output()
    assert len(table.server.directory) == 0
    table.clock.advance(500)  # no clock runs while adjourned
    assert "You have no adjourned games." in table.carol.command("resume")
    assert "bob is not logged in." in table.alice.command("resume")
    assert "bob is not logged in." in table.alice.command("resume BO")
    assert "You have no adjourned game with carol." in table.alice.command("resume carol")
    bob = connect(table.server)
    table.login(bob, "bob")
    assert "1 player, who has an adjourned game with you, is online:\nalice" in bob.login_text
    assert "Notification: bob, who has an adjourned game with you, has arrived." in table.alice.output()
    # bob asks; the game waits for alice (away from the keyboard, her clock must not run)
    out = bob.command("resume")
    assert "Issuing: bob (----) [black] alice (----) unrated lightning 2 0 (adjourned)." in out
    assert "Challenge: bob (----) [black] alice (----) unrated lightning 2 0 (adjourned)." in (
        table.alice.output())
    assert table.server.directory.game_of("bob") is None
    table.clock.advance(300)
    assert "bob (----) [black] alice (----) unrated lightning 2 0 (adjourned)." in (
        table.alice.command("pending"))
    out = table.alice.command("accept")
    assert "{Game 1 (alice vs. bob) Continuing unrated lightning match.}" in out
    assert "Continuing" in bob.output()
    resumed = table.server.directory.game_of("bob")
    assert resumed is game and game.tracker.fen == fen
    assert game.clock.remaining(False) == black_left
    assert table.fen() == fen
    bob.command("Nc6")
    # a second disconnection; then both typing resume (or match) continues it
    table.alice.disconnect()
    alice = connect(table.server)
    table.login(alice, "alice")
    assert "You have an adjourned game with bob" in alice.command("match bob 5 0")
    assert "(adjourned)." in alice.command("match bob")
    assert table.server.directory.game_of("alice") is None
    assert "Continuing unrated" in bob.command("resume alice")
    assert table.server.directory.game_of("alice").tracker.ply == 4


def test_adjourn_needs_registered_players(table):
    table.start()
    out = table.alice.command("adjourn")
    assert 'All players must be registered to adjourn a game.  Use "abort".' in out
    assert table.server.directory.game_of("alice").result is None


def test_feed_hooks_fire_for_played_games(table):
    events = []

    class Recorder:
        def game_started(self, game):
            events.append(("start", game.number))

        def game_ended(self, game, result):
            events.append(("end", result.score))

        def position_changed(self, game):
            events.append(("position", game.tracker.ply))

    table.server.game_hooks.append(Recorder())
    table.start()
    table.play("e4", "e5")
    table.alice.command("takeback 1")
    table.bob.command("takeback 1")
    table.alice.command("resign")
    assert events == [("start", 1), ("position", 1), ("end", "0-1")]


def test_a_guest_who_disconnects_forfeits_and_nobody_can_take_the_name_to_resume(table):
    guest = connect(table.server)
    name = guest.login()
    guest.command("match alice 0 0 white")
    table.alice.command("accept")
    table.carol.command(f"observe {name}")
    guest.disconnect()
    end = f"{{Game 1 ({name} vs. alice) {name} forfeits by disconnection}} 0-1"
    assert end in table.alice.output()
    assert end in table.carol.output()
    assert len(table.server.adjourned) == 0 and len(table.server.directory) == 0


def test_an_unregistered_player_who_disconnects_forfeits(table):
    """Only games between registered players are adjourned (FICS): bob, who chose his
    name without a password, loses by leaving, and "bob" is free for anyone."""
    table.start()
    table.play("e4")
    table.bob.disconnect()
    assert "{Game 1 (alice vs. bob) bob forfeits by disconnection} 1-0" in table.alice.output()
    assert len(table.server.adjourned) == 0
    impostor = connect(table.server)
    impostor.login("bob")
    assert "You have no adjourned games." in impostor.command("resume")


def test_a_registered_player_leaving_a_guest_forfeits():
    table = Table(registered=True)
    guest = connect(table.server)
    name = guest.login()
    table.alice.command(f"match {name} 5 0 white")
    guest.command("accept")
    table.alice.disconnect()
    assert f"{{Game 1 (alice vs. {name}) alice forfeits by disconnection}} 0-1" in guest.output()
    assert len(table.server.adjourned) == 0


@pytest.mark.slow
def test_the_last_board_of_a_finished_game_shows_no_clock_running(table):
    game = table.start("1 0")
    table.bob.command("style 12")
    table.play(*FOOLS_MATE[:-1])
    table.alice.output()
    out = table.bob.command(FOOLS_MATE[-1])
    board = next(line for line in out.splitlines() if line.startswith("<12> "))
    fields = board.split()
    assert fields[31] == "0" and fields[30] == "1"  # not ticking; Black's view
    assert game.result.score == "0-1"


def test_a_resume_request_can_be_declined_or_withdrawn_and_nothing_starts():
    table = Table(registered=True)
    table.start("3 0")
    table.play("e4")
    table.alice.command("adjourn")
    table.bob.command("adjourn")
    assert len(table.server.adjourned) == 1
    assert "(adjourned)." in table.alice.command("resume bob")
    assert "You are already offering bob a match on these terms." in (
        table.alice.command("resume"))
    assert "You decline the match offer from alice." in table.bob.command("decline")
    assert "bob declines the match offer." in table.alice.output()
    assert "(adjourned)." in table.bob.command("match alice")
    assert "You withdraw the match offer to alice." in table.bob.command("withdraw")
    assert table.server.directory.game_of("alice") is None
    assert len(table.server.adjourned) == 1
    # both ask: the second request is the acceptance
    table.bob.command("resume")
    assert "Continuing unrated blitz match." in table.alice.command("resume")
    assert table.server.directory.game_of("bob").tracker.ply == 1


def test_stored_lists_adjourned_games_in_the_fics_layout():
    table = Table(registered=True)
    table.start("3 0")
    table.play("e4", "e5", "Qh5")
    table.alice.command("adjourn")
    table.bob.command("adjourn")
    out = table.carol.command("stored alice")
    lines = out.splitlines()
    assert lines[0] == "Stored games for alice:"
    assert lines[1] == "    C Opponent       On Type          Str  M    ECO Date"
    assert lines[2].startswith(" 1: W bob             Y [ bu  3   0] 39-39 B2   C20 ")
    assert table.bob.command("stored").splitlines()[2].startswith(" 1: B alice           Y ")
    assert "carol has no adjourned games." in table.carol.command("stored")
    assert "dave has no adjourned games." in table.carol.command("stored dave")
