"""Played games: moves, refusals, clocks, offers, endings and adjournment."""

from __future__ import annotations

import chess
import pytest
from twisted.internet.task import Clock
from zope.interface import implementer
from zope.interface.verify import verifyObject

from ficsfen.server.boards import fen_from_style12, style12
from ficsfen.server.renderer import BoardRenderer
from ficsfen.server.clock import TimeControl
from ficsfen.server.games import (
    AdjournedGames,
    GameError,
    IGameListener,
    MoveRefusedError,
    NoOfferError,
    NotPlayingError,
    NotYourMoveError,
    OfferPendingError,
    PlayedGame,
)
from ficsfen.interfaces import IGame


@implementer(IGameListener)
class Recorder:
    """Keeps what a host would have sent: <12> lines seen by an observer, results."""

    def __init__(self):
        self.renderer = BoardRenderer()
        self.boards: list[str] = []
        self.results: list[str] = []
        self.results_fr: list[str] = []

    def board_changed(self, game):
        self.boards.append(self.renderer.style12_frame(game).line(0, False))

    def game_ended(self, game, result):
        self.results.append(result.announcement(game).render("en"))
        self.results_fr.append(result.announcement(game).render("fr"))


def new_game(minutes=5, increment=0, fen=None):
    reactor = Clock()
    recorder = Recorder()
    game = PlayedGame("alice", "bob", reactor=reactor, number=12,
                      time_control=TimeControl(minutes, increment), listener=recorder, fen=fen)
    return reactor, game, recorder


def play(game, *moves):
    notices = []
    for text in moves:
        notices += game.move(game.white if game.tracker.turn else game.black, text)
    return notices


def texts(notices, handle, lang="en"):
    """What ``handle`` reads (the pendinfo lines, for clients that ask, left out)."""
    return [n.message.render(lang) for n in notices if n.handle == handle and n.ivar is None]


def test_provides_igame():
    _, game, _ = new_game()
    assert verifyObject(IGame, game)
    assert game.players() == ("alice", "bob")
    assert game.examined is False


def test_checkmate_is_announced():
    _, game, rec = new_game()
    play(game, "e4", "e5", "Bc4", "Nc6", "Qh5", "Nf6", "Qxf7#")
    assert rec.results == ["{Game 12 (alice vs. bob) bob checkmated} 1-0"]
    assert rec.results_fr == ["{Partie 12 (alice contre bob) bob est mat} 1-0"]
    assert game.result.score == "1-0"
    assert len(rec.boards) == 7
    assert [fen_from_style12(line) for line in rec.boards][-1] == game.tracker.fen
    with pytest.raises(GameError):
        game.move("bob", "Ke7")


def test_stalemate_is_announced():
    _, game, rec = new_game(fen="7k/5K2/8/6Q1/8/8/8/8 w - - 0 1")
    play(game, "Qg6")
    assert game.tracker.board.is_stalemate()
    assert rec.results == ["{Game 12 (alice vs. bob) Game drawn by stalemate} 1/2-1/2"]


def test_insufficient_material_ends_the_game():
    _, game, rec = new_game(fen="7k/8/8/8/8/8/6r1/6KN w - - 0 1")
    play(game, "Kxg2")
    assert rec.results == ["{Game 12 (alice vs. bob) Neither player has mating material} 1/2-1/2"]


def test_out_of_turn_illegal_and_ambiguous_moves_change_nothing():
    _, game, rec = new_game()
    fen = game.tracker.fen
    with pytest.raises(NotYourMoveError) as err:
        game.move("bob", "e5")
    assert err.value.render("fr") == "Ce n’est pas à vous de jouer."
    with pytest.raises(NotPlayingError):
        game.move("carol", "e4")
    with pytest.raises(MoveRefusedError) as err:
        game.move("alice", "e5")
    assert "e5" in err.value.render("en")
    with pytest.raises(MoveRefusedError):
        game.move("alice", "garbage!")
    assert game.tracker.fen == fen and rec.boards == [] and game.move_times == []
    play(game, "e4", "a6", "Nc3", "a5")
    fen = game.tracker.fen
    with pytest.raises(MoveRefusedError) as err:
        game.move("alice", "Ne2")
    assert "mbiguous" in err.value.render("en")
    assert game.tracker.fen == fen


def test_resign():
    _, game, rec = new_game()
    play(game, "e4")
    game.resign("alice")
    assert rec.results == ["{Game 12 (alice vs. bob) alice resigns} 0-1"]
    with pytest.raises(GameError):
        game.resign("bob")


def test_draw_offer_accepted_by_the_opponents_draw():
    _, game, rec = new_game()
    play(game, "e4", "e5")
    notices = game.draw("alice")
    assert texts(notices, "bob") == ["alice offers you a draw.", 'Type "draw" to accept or "decline" to refuse.']
    with pytest.raises(OfferPendingError):
        game.draw("alice")
    game.draw("bob")
    assert rec.results == ["{Game 12 (alice vs. bob) Game drawn by mutual agreement} 1/2-1/2"]


def test_a_move_withdraws_the_movers_draw_offer():
    _, game, rec = new_game()
    play(game, "e4")
    game.draw("bob")
    notices = play(game, "e5")
    assert texts(notices, "alice") == ["bob withdraws the draw request."]
    game.draw("alice")  # a fresh offer, not an acceptance
    assert game.result is None
    assert [o.by for o in game.offers] == ["alice"]


def test_decline_and_accept_commands():
    _, game, rec = new_game()
    play(game, "e4", "e5")
    game.draw("alice")
    notices = game.decline("bob")
    assert texts(notices, "alice") == ["bob declines the draw request."]
    with pytest.raises(NoOfferError):
        game.accept("bob")
    game.draw("alice")
    game.accept("bob")
    assert game.result.score == "1/2-1/2"


def test_threefold_is_claimed_with_draw():
    _, game, rec = new_game()
    play(game, "Nf3", "Nf6", "Ng1", "Ng8", "Nf3", "Nf6", "Ng1", "Ng8")
    assert game.result is None
    game.draw("alice")
    assert rec.results == ["{Game 12 (alice vs. bob) Game drawn by repetition} 1/2-1/2"]


def test_fifty_move_rule_is_claimed_with_draw():
    _, game, rec = new_game(fen="4k3/8/8/8/8/8/8/R3K3 w - - 99 80")
    play(game, "Ra2")
    game.draw("bob")
    assert rec.results == ["{Game 12 (alice vs. bob) Game drawn by the 50 move rule} 1/2-1/2"]


def test_abort_free_before_both_sides_moved():
    _, game, rec = new_game()
    play(game, "e4")
    game.abort("bob")
    assert rec.results == ["{Game 12 (alice vs. bob) Game aborted on move 1} *"]


def test_abort_later_needs_agreement():
    _, game, rec = new_game()
    play(game, "e4", "e5")
    notices = game.abort("alice")
    assert game.result is None
    assert texts(notices, "bob")[0] == "alice would like to abort the game."
    game.abort("bob")
    assert rec.results == ["{Game 12 (alice vs. bob) Game aborted by mutual agreement} *"]


def test_takeback_by_agreement_restores_fen_and_clock_order():
    reactor, game, rec = new_game()
    play(game, "e4", "e5", "Nf3")
    before = game.tracker.fen_at(1)
    notices = game.takeback("bob", 2)
    assert texts(notices, "alice")[0] == "bob would like to take back 2 half moves."
    assert game.tracker.ply == 3
    game.takeback("alice", 2)
    assert game.tracker.fen == before
    assert len(game.move_times) == 1
    assert game.clock.running is None  # Black has not moved: no clock runs
    assert fen_from_style12(rec.boards[-1]) == before
    with pytest.raises(GameError):
        game.takeback("alice", 5)


def test_flag_fall_from_the_clock():
    reactor, game, rec = new_game(1, 0)
    play(game, "e4", "e5")
    reactor.advance(59)
    assert game.result is None
    reactor.advance(1)
    assert rec.results == ["{Game 12 (alice vs. bob) alice forfeits on time} 0-1"]


def test_flag_fall_without_mating_material_is_a_draw():
    reactor, game, rec = new_game(1, 0, fen="4k3/8/8/8/8/8/3P4/4K3 w - - 0 1")
    play(game, "d4", "Kd7")  # both first moves made: White's clock runs
    reactor.advance(60)
    assert rec.results == [
        "{Game 12 (alice vs. bob) alice ran out of time and bob has no material to mate} 1/2-1/2"]
    assert game.result.score == "1/2-1/2"


def test_flag_claim():
    reactor, game, rec = new_game(1, 0)
    play(game, "e4", "e5")
    with pytest.raises(GameError) as err:
        game.flag("bob")
    assert err.value.render("en") == "Your opponent is not out of time."
    # The reactor lags: a minute passes before it gets to run the flag timer,
    # and Black's "flag" arrives first.
    reactor.rightNow += 61
    assert game.clock.remaining(chess.WHITE) < 0 and rec.results == []
    game.flag("bob")
    assert rec.results == ["{Game 12 (alice vs. bob) alice forfeits on time} 0-1"]
    reactor.advance(0)  # the late timer finds the game over: nothing more
    assert rec.results == ["{Game 12 (alice vs. bob) alice forfeits on time} 0-1"]


def test_increment_and_move_times_in_style12():
    reactor, game, rec = new_game(2, 12)
    play(game, "e4", "e5")
    reactor.advance(7)
    play(game, "Nf3")
    fields = style12(game, viewer="alice").split()
    assert fields[24:26] == ["125", "120"]
    assert fields[28] == "(0:07)"


def test_adjourn_on_disconnect_and_resume_from_the_same_fen():
    reactor, game, rec = new_game(1, 0)
    play(game, "e4", "e5", "Nf3")
    reactor.advance(10)
    game.disconnect("carol")  # not a player: nothing happens
    assert game.result is None
    game.disconnect("bob")
    assert rec.results == ["{Game 12 (alice vs. bob) bob lost connection; game adjourned} *"]
    assert game.adjourned
    store = AdjournedGames()
    store.keep(game)
    fen = game.tracker.fen
    reactor.advance(1000)
    assert store.between("Bob", "alice") is game
    resumed = store.take("bob", "alice")
    resumed.number = 3
    resumed.resume()
    assert resumed.tracker.fen == fen and resumed.result is None
    assert resumed.clock.remaining(chess.BLACK) == 50
    play(resumed, "Nc6")
    assert resumed.tracker.ply == 4
    reactor.advance(60)
    assert rec.results[-1] == "{Game 3 (alice vs. bob) alice forfeits on time} 0-1"


def test_adjourn_by_agreement():
    _, game, rec = new_game()
    play(game, "d4", "d5")
    game.adjourn("alice")
    game.adjourn("bob")
    assert rec.results == ["{Game 12 (alice vs. bob) Game adjourned by mutual agreement} *"]


def test_boards_are_built_once_per_move():
    _, game, _ = new_game()
    play(game, "e4")
    renderer = BoardRenderer()
    frame = renderer.style12_frame(game)
    lines = {frame.line(0, False) for _ in range(1000)}
    assert len(lines) == 1 and renderer.style12_frame(game) is frame
    a = renderer.style1(game, flipped=True, lang="fr")
    assert renderer.style1(game, flipped=True, lang="fr") is a


def test_real_game_replay_keeps_style12_and_fen_in_step(shared_pgn):
    import chess.pgn

    with (shared_pgn / "kasparov-deep-blue-1997.pgn").open(encoding="utf-8") as fp:
        pgn = chess.pgn.read_game(fp)
    reactor, game, rec = new_game(90, 30)
    fens = []
    for move in pgn.mainline_moves():
        reactor.advance(3)
        play(game, game.tracker.board.san(move))
        fens.append(game.tracker.fen)
    assert [fen_from_style12(line) for line in rec.boards] == fens
    assert game.result is None  # Kasparov's win was by resignation
    game.resign("bob")
    assert rec.results[-1].endswith("bob resigns} 1-0")


def test_fivefold_repetition_ends_the_game_by_itself():
    _, game, rec = new_game()
    shuffle = ("Nf3", "Nf6", "Ng1", "Ng8")
    play(game, *shuffle, *shuffle, *shuffle)  # the start position for the 4th time
    assert game.result is None and game.tracker.claimable_draw() is not None
    play(game, *shuffle)  # ... and the 5th: nobody needs to claim it
    assert rec.results == ["{Game 12 (alice vs. bob) Game drawn by fivefold repetition} 1/2-1/2"]
    assert game.result.score == "1/2-1/2"
    with pytest.raises(GameError) as info:
        play(game, "e4")
    assert info.value.render("en") == "Game 12 is not in progress."


def test_seventy_five_move_rule_ends_the_game_by_itself():
    _, game, rec = new_game(fen="4k3/8/8/8/8/8/8/R3K3 w - - 149 80")
    play(game, "Ra2")
    assert rec.results == ["{Game 12 (alice vs. bob) Game drawn by the 75 move rule} 1/2-1/2"]
    assert rec.results_fr[0].endswith("} 1/2-1/2") and rec.results_fr[0] != rec.results[0]
