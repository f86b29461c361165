"""The game-state tracker: notations, errors, history, outcomes, subscribers."""

from __future__ import annotations

import logging

import chess
import pytest

from ficsfen.fen import STARTING_FEN, FenError
from ficsfen.tracker import (
    AmbiguousMoveError,
    FenBuilder,
    GameOverError,
    IllegalMoveError,
    MalformedMoveError,
    MoveError,
    Outcome,
    Ply,
    PlyRangeError,
    TakebackError,
    Termination,
    Tracker,
    outcome_message,
    resolve,
    termination_message,
)


def strict(board: chess.Board) -> str:
    return board.fen(en_passant="fen")


def play(tracker: Tracker, moves: str) -> list[Ply]:
    return [tracker.push(m) for m in moves.split()]


# -- the standard's example records -------------------------------------------------


def test_standard_examples_sequence():
    t = Tracker()
    assert t.fen == STARTING_FEN
    assert t.push("e4").fen == "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1"
    assert t.push("c5").fen == "rnbqkbnr/pp1ppppp/8/2p5/4P3/8/PPPP1PPP/RNBQKBNR w KQkq c6 0 2"
    assert t.push("Nf3").fen == "rnbqkbnr/pp1ppppp/8/2p5/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2"


def test_starts_from_any_valid_fen():
    fen = "4k3/8/8/8/8/8/4P3/4K3 w - - 5 39"
    t = Tracker(fen)
    assert t.initial_fen == fen and t.fen == fen
    assert t.push("e4").fen == "4k3/8/8/8/4P3/8/8/4K3 b - e3 0 39"


def test_bad_fen_raises_fen_error():
    with pytest.raises(FenError):
        Tracker("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w QK - 0 1")


# -- notations ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    ["Nf3", "Nf3!", "Nf3?", "Nf3!?", "Nf3?!", "Nf3!!", "Nf3??", "g1f3", "g1-f3", "Ng1f3", "Ng1-f3", "Ngf3", "N1f3", "Nxf3"],
)
def test_knight_notations(text):
    t = Tracker()
    ply = t.push(text)
    assert ply.uci == "g1f3" and ply.san == "Nf3"


@pytest.mark.parametrize("text", ["O-O", "0-0", "o-o", "O-O+", "e1g1", "Kg1"])
def test_castling_notations(text):
    t = Tracker("r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1")
    ply = t.push(text)
    assert ply.san == "O-O"
    assert t.fen == "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R4RK1 b kq - 1 1"


def test_king_takes_rook_castling_is_the_standard_move():
    t = Tracker("r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1")
    ply = t.push_move(chess.Move.from_uci("e1h1"))
    assert (ply.uci, ply.san) == ("e1g1", "O-O")
    assert t.fen == "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R4RK1 b kq - 1 1"
    ply = t.push("e8a8")
    assert (ply.uci, ply.san) == ("e8c8", "O-O-O")
    assert t.fen == "2kr3r/pppppppp/8/8/8/8/PPPPPPPP/R4RK1 w - - 2 2"


@pytest.mark.parametrize("text", ["O-O-O", "0-0-0", "o-o-o", "e1c1"])
def test_queenside_castling_notations(text):
    t = Tracker("r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1")
    assert t.push(text).san == "O-O-O"
    assert t.fen == "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/2KR3R b kq - 1 1"


@pytest.mark.parametrize("text", ["e4", "e2e4", "e2-e4", "e4!?", "e4+"])
def test_pawn_notations(text):
    t = Tracker()
    assert t.push(text).uci == "e2e4"


@pytest.mark.parametrize(
    "text,uci,san",
    [
        ("e8=Q", "e7e8q", "e8=Q+"),
        ("e8Q", "e7e8q", "e8=Q+"),
        ("e8=q", "e7e8q", "e8=Q+"),
        ("e7e8q", "e7e8q", "e8=Q+"),
        ("e7e8=Q", "e7e8q", "e8=Q+"),
        ("e7e8n", "e7e8n", "e8=N"),
        ("e8=R+", "e7e8r", "e8=R+"),
        ("e8=B", "e7e8b", "e8=B"),
        ("exd8=N", "e7d8n", "exd8=N"),
        ("exd8=Q#", "e7d8q", "exd8=Q"),
    ],
)
def test_promotions_and_underpromotions(text, uci, san):
    t = Tracker("k2n4/4P3/8/8/8/8/8/K7 w - - 0 1")
    ply = t.push(text)
    assert ply.uci == uci
    board = chess.Board("k2n4/4P3/8/8/8/8/8/K7 w - - 0 1")
    assert ply.san == board.san(chess.Move.from_uci(uci))
    board.push(chess.Move.from_uci(uci))
    assert t.fen == strict(board)


def test_black_promotion_fen():
    t = Tracker("7k/8/8/8/8/8/p7/7K b - - 0 50")
    assert t.push("a1=N").fen == "7k/8/8/8/8/8/8/n6K w - - 0 51"


def test_en_passant_capture_and_field():
    t = Tracker()
    play(t, "e4 a6 e5 d5")
    assert t.fen == "rnbqkbnr/1pp1pppp/p7/3pP3/8/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 3"
    assert t.push("exd6").fen == "rnbqkbnr/1pp1pppp/p2P4/8/8/8/PPPP1PPP/RNBQKBNR b KQkq - 0 3"


def test_en_passant_square_kept_when_capture_would_expose_king():
    # the pawn on e5 is pinned along the rank: d6 is still written
    t = Tracker("7k/3p4/8/K3P2r/8/8/8/8 b - - 0 1")
    assert t.push("d5").fen == "7k/8/8/K2pP2r/8/8/8/8 w - d6 0 2"
    with pytest.raises(IllegalMoveError) as info:
        t.push("exd6")
    assert info.value.code == "pinned"


def test_resolve_does_not_change_the_board():
    board = chess.Board()
    assert resolve(board, "Nc3") == chess.Move.from_uci("b1c3")
    assert strict(board) == STARTING_FEN


# -- castling rights ------------------------------------------------------------------

CASTLE = "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1"


@pytest.mark.parametrize(
    "moves,rights",
    [
        ("Kf1", "kq"),  # king move loses both
        ("Rf1", "Qkq"),  # h-rook move
        ("Rd1", "Kkq"),  # a-rook move
        ("Kf1 Kd8", "-"),
        ("Rf1 Rb8", "Qk"),
    ],
)
def test_castling_rights_lost_by_king_and_rook_moves(moves, rights):
    t = Tracker(CASTLE)
    play(t, moves)
    assert t.fen.split()[2] == rights


def test_castling_rights_lost_when_a_rook_is_captured():
    t = Tracker("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1")
    assert t.push("Rxa8+").fen == "R3k2r/8/8/8/8/8/8/4K2R b Kk - 0 1"
    t = Tracker("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1")
    assert t.push("Rxh8+").fen == "r3k2R/8/8/8/8/8/8/R3K3 b Qq - 0 1"


def test_castling_refused_after_rights_lost_and_when_attacked():
    t = Tracker(CASTLE)
    play(t, "Kf1 Kf8 Ke1 Ke8")
    with pytest.raises(IllegalMoveError) as info:
        t.push("O-O")
    assert info.value.code == "castling-rights"
    assert info.value.render() == "Illegal move: you can no longer castle kingside."
    assert info.value.render("fr") == "Coup illégal\u202f: vous ne pouvez plus roquer côté roi."
    t = Tracker("4k3/8/8/8/8/8/5r2/R3K2R w KQ - 0 1")
    with pytest.raises(IllegalMoveError) as info:
        t.push("O-O")
    assert info.value.code == "castling-blocked"
    t = Tracker("4k3/8/8/8/8/8/4r3/R3K2R w KQ - 0 1")
    with pytest.raises(IllegalMoveError) as info:
        t.push("O-O-O")
    assert info.value.code == "castling-check"


# -- refusals -------------------------------------------------------------------------


def test_illegal_knight_move_names_the_piece_in_both_languages():
    t = Tracker()
    play(t, "e4 e5")
    with pytest.raises(IllegalMoveError) as info:
        t.push("Ng4")
    err = info.value
    assert str(err) == "Illegal move: none of your knights can reach g4."
    assert err.render("fr") == "Coup illégal\u202f: vos cavaliers ne peuvent pas atteindre g4."
    with pytest.raises(IllegalMoveError) as info:
        t.push("Ngg4")
    assert info.value.text == "Illegal move: the knight on g1 cannot reach g4."
    assert info.value.render("fr") == "Coup illégal\u202f: le cavalier en g1 ne peut pas atteindre g4."


def test_single_queen_cannot_reach():
    t = Tracker()
    with pytest.raises(IllegalMoveError) as info:
        t.push("Qh5")
    assert info.value.render() == "Illegal move: the queen on d1 cannot reach h5."
    assert info.value.render("fr") == "Coup illégal\u202f: la dame en d1 ne peut pas atteindre h5."


def test_ambiguous_move_lists_the_candidates():
    t = Tracker("4k3/8/8/8/8/5N2/8/1N2K3 w - - 0 1")
    with pytest.raises(AmbiguousMoveError) as info:
        t.push("Nd2")
    err = info.value
    assert err.candidates == ("b1", "f3")
    assert err.render() == 'Ambiguous move "Nd2": knights on b1 and f3 can go there.'
    assert err.render("fr") == "Coup ambigu «\u202fNd2\u202f»\u202f: les cavaliers en b1 et f3 peuvent y aller."
    assert t.push("Nbd2").uci == "b1d2"


def test_pinned_piece_does_not_make_a_move_ambiguous():
    # the knight on e2 is pinned by the rook on e8: Nc3 means the b1 knight
    t = Tracker("4r1k1/8/8/8/8/8/4N3/1N2K3 w - - 0 1")
    ply = t.push("Nc3")
    assert ply.uci == "b1c3" and ply.san == "Nc3"


def test_pinned_piece_error():
    t = Tracker("4r1k1/8/8/8/8/8/4N3/4K3 w - - 0 1")
    with pytest.raises(IllegalMoveError) as info:
        t.push("Nc3")
    assert info.value.code == "pinned"
    assert info.value.render() == "Illegal move: moving the knight on e2 would expose your king."
    assert info.value.render("fr") == "Coup illégal\u202f: déplacer le cavalier en e2 exposerait votre roi."


def test_in_check_error():
    t = Tracker()
    play(t, "e4 e5 Nf3 d6 Bb5+")
    with pytest.raises(IllegalMoveError) as info:
        t.push("Nf6")
    assert info.value.code == "in-check"
    assert info.value.render() == 'Illegal move: you are in check and "Nf6" does not get you out of it.'
    assert info.value.render("fr") == "Coup illégal\u202f: vous êtes en échec et «\u202fNf6\u202f» ne vous en sort pas."
    assert t.push("c6").san == "c6"


def test_king_into_check_error():
    t = Tracker("4k3/8/8/8/8/8/8/r3K3 w - - 0 1")
    with pytest.raises(IllegalMoveError) as info:
        t.push("Kd1")
    assert info.value.render() == "Illegal move: your king would be in check on d1."


@pytest.mark.parametrize(
    "text,code",
    [
        ("Nd2", "own-piece"),
        ("e5", "no-piece"),
        ("exd3", "nothing-to-capture"),
        ("axc3", "pawn-capture"),
        ("e3=Q", "promotion-rank"),
        ("Nf3=Q", "promotion-piece"),
        ("e3e4", "empty-square"),
        ("e7e5", "not-yours"),
        ("Bb5", "cannot-reach"),
        ("O-O", "castling-blocked"),
    ],
)
def test_illegal_codes(text, code):
    t = Tracker()
    with pytest.raises(IllegalMoveError) as info:
        t.push(text)
    assert info.value.code == code
    assert info.value.render("fr") != info.value.render("en")
    assert t.fen == STARTING_FEN and t.ply == 0


def test_promotion_required():
    t = Tracker("8/4P3/8/8/8/8/k7/4K3 w - - 0 1")
    with pytest.raises(IllegalMoveError) as info:
        t.push("e8")
    assert info.value.render() == "Illegal move: a pawn reaching e8 must promote; write e8=Q."
    with pytest.raises(IllegalMoveError) as info:
        t.push("e7e8")
    assert info.value.render() == "Illegal move: a pawn reaching e8 must promote; write e7e8q."


@pytest.mark.parametrize("text", ["", "   ", "xx", "Nz9", "e9", "Pe4", "hello world", "O-O-O-O", "e2e4e6", "--"])
def test_malformed(text):
    t = Tracker()
    with pytest.raises(MalformedMoveError) as info:
        t.push(text)
    assert isinstance(info.value, MoveError) and isinstance(info.value, ValueError)
    assert info.value.render("fr") != info.value.render("en")
    assert t.ply == 0


def test_malformed_exact_text():
    with pytest.raises(MalformedMoveError) as info:
        Tracker().push("xx")
    assert info.value.render() == 'Not a move: "xx". Type a move such as e4, Nf3, O-O or g1f3.'
    assert info.value.render("fr") == "Ce n’est pas un coup\u202f: «\u202fxx\u202f». Tapez un coup comme e4, Nf3, O-O ou g1f3."


def test_push_move_checks_legality():
    t = Tracker()
    assert t.push_move(chess.Move.from_uci("g1f3")).san == "Nf3"
    with pytest.raises(IllegalMoveError):
        t.push_move(chess.Move.from_uci("e2e4"))  # not White's turn
    assert t.ply == 1


# -- history, takeback, fen_at ------------------------------------------------------


def test_history_and_fen_at():
    t = Tracker()
    plies = play(t, "e4 e5 Nf3 Nc6")
    assert [p.number for p in t.history] == [1, 2, 3, 4]
    assert [p.san for p in t.history] == ["e4", "e5", "Nf3", "Nc6"]
    assert [p.color for p in plies] == [chess.WHITE, chess.BLACK] * 2
    assert [p.move_number for p in plies] == [1, 1, 2, 2]
    assert str(plies[1]) == "1... e5"
    assert t.fen_at(0) == STARTING_FEN
    assert t.fen_at(4) == t.fen
    assert t.fen_at(1) == "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1"
    for bad in (-1, 5):
        with pytest.raises(PlyRangeError) as info:
            t.fen_at(bad)
        assert isinstance(info.value, IndexError)
    with pytest.raises(PlyRangeError) as info:
        t.fen_at(9)
    assert info.value.render() == "No such ply: 9; this game has 4 plies so far."
    assert info.value.render("fr") == "Demi-coup inexistant\u202f: 9\u202f; cette partie compte 4 demi-coups pour l’instant."


def test_takeback():
    t = Tracker()
    play(t, "e4 e5 Nf3 Nc6 Bb5")
    t.takeback()
    assert t.ply == 4 and t.fen == t.fen_at(4) and t.turn == chess.WHITE
    t.takeback(3)
    assert t.fen == "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1"
    # the incremental FEN keeps working after a takeback
    assert t.push("c5").fen == "rnbqkbnr/pp1ppppp/8/2p5/4P3/8/PPPP1PPP/RNBQKBNR w KQkq c6 0 2"
    t.takeback(0)
    assert t.ply == 2
    t.takeback(2)
    assert t.fen == STARTING_FEN and t.history == ()


@pytest.mark.parametrize("n", [-1, 3, 1.5, "1", True])
def test_takeback_validates(n):
    t = Tracker()
    play(t, "e4 e5")
    with pytest.raises(TakebackError):
        t.takeback(n)
    assert t.ply == 2


def test_takeback_message():
    t = Tracker()
    t.push("d4")
    with pytest.raises(TakebackError) as info:
        t.takeback(3)
    assert info.value.render() == "Cannot take back 3: only 1 ply has been played."
    assert info.value.render("fr") == "Impossible de reprendre 3\u202f: seulement 1 demi-coup a été joué."


# -- outcomes -------------------------------------------------------------------------


def test_checkmate():
    t = Tracker()
    play(t, "f3 e5 g4")
    assert t.outcome() is None
    ply = t.push("Qh4#")
    assert ply.san == "Qh4#"
    outcome = t.outcome()
    assert outcome == chess.Outcome(chess.Termination.CHECKMATE, chess.BLACK)
    assert outcome.result() == "0-1"
    assert outcome_message(outcome).render() == "Black wins by checkmate."
    assert outcome_message(outcome).render("fr") == "Les Noirs gagnent par échec et mat."
    with pytest.raises(GameOverError) as info:
        t.push("e4")
    assert info.value.render() == "The game is over: Black wins by checkmate."


def test_stalemate():
    t = Tracker("7k/8/5KQ1/8/8/8/8/8 w - - 0 1")
    t.push("Qg5")
    assert t.outcome() is None
    t.takeback()
    t.push("Qf7")
    assert t.outcome() == Outcome(Termination.STALEMATE, None)
    assert outcome_message(t.outcome()).render() == "Draw by stalemate."


def test_outcomes_are_python_chess_own_types():
    assert Outcome is chess.Outcome and Termination is chess.Termination
    white = chess.Outcome(chess.Termination.CHECKMATE, chess.WHITE)
    assert outcome_message(white).render() == "White wins by checkmate."
    assert outcome_message(white).render("fr") == "Les Blancs gagnent par échec et mat."
    assert termination_message(chess.Termination.FIFTY_MOVES).render() == "fifty-move rule"


def test_move_errors_are_python_chess_errors_too():
    # a host catching python-chess's errors catches ours as well
    t = Tracker()
    with pytest.raises(chess.IllegalMoveError):
        t.push("e5")
    with pytest.raises(chess.InvalidMoveError):
        t.push("e9")
    with pytest.raises(chess.AmbiguousMoveError):
        resolve(chess.Board("4k3/8/8/8/8/1N3N2/8/4K3 w - - 0 1"), "Nd4")
    assert t.ply == 0


def test_insufficient_material_after_capture():
    t = Tracker("7k/8/8/8/8/8/6q1/7K w - - 0 1")
    t.push("Kxg2")
    assert t.outcome() == Outcome(Termination.INSUFFICIENT_MATERIAL, None)
    with pytest.raises(GameOverError):
        t.push("Kg8")


def test_fifty_moves_claimable_then_seventy_five_automatic():
    t = Tracker("7k/8/8/8/8/8/R7/7K w - - 98 80")
    assert t.claimable_draw() is None
    play(t, "Ra3 Kg8")
    assert t.claimable_draw() == Outcome(Termination.FIFTY_MOVES, None)
    assert t.outcome() is None
    t = Tracker("7k/8/8/8/8/8/R7/7K w - - 148 100")
    play(t, "Ra3 Kg8")
    assert t.outcome() == Outcome(Termination.SEVENTYFIVE_MOVES, None)
    with pytest.raises(GameOverError) as info:
        t.push("Ra4")
    assert info.value.render("fr") == "La partie est terminée\u202f: Partie nulle par règle des soixante-quinze coups."


def test_threefold_claimable_then_fivefold_automatic():
    t = Tracker()
    shuffle = "Nf3 Nf6 Ng1 Ng8"
    play(t, shuffle)
    assert t.claimable_draw() is None
    play(t, shuffle)
    assert t.claimable_draw() == Outcome(Termination.THREEFOLD_REPETITION, None)
    assert t.outcome() is None
    play(t, shuffle)
    play(t, shuffle)
    assert t.outcome() == Outcome(Termination.FIVEFOLD_REPETITION, None)
    with pytest.raises(GameOverError):
        t.push("e4")
    t.takeback()
    assert t.outcome() is None
    t.push("e5")


# -- subscribers ----------------------------------------------------------------------


def test_subscribers_called_in_order_after_every_move():
    t = Tracker()
    seen: list[tuple[str, int, str]] = []
    t.subscribe(lambda ply: seen.append(("a", ply.number, ply.fen)))
    t.subscribe(lambda ply: seen.append(("b", ply.number, t.fen)))
    play(t, "e4 e5")
    assert [(who, n) for who, n, _ in seen] == [("a", 1), ("b", 1), ("a", 2), ("b", 2)]
    assert all(fen == t.fen_at(n) for _, n, fen in seen)


def test_raising_subscriber_is_logged_and_isolated(caplog):
    # standard logging, not Twisted's: the library runs without Twisted
    t = Tracker()
    got = []

    def broken(ply):
        raise RuntimeError("boom")

    t.subscribe(broken)
    t.subscribe(got.append)
    with caplog.at_level(logging.ERROR, logger="ficsfen.tracker"):
        ply = t.push("e4")
    assert got == [ply] and t.ply == 1
    [record] = [r for r in caplog.records if r.name == "ficsfen.tracker"]
    assert record.levelno == logging.ERROR and record.exc_info[0] is RuntimeError
    assert record.getMessage() == f"FEN subscriber {broken!r} raised on ply 1"


def test_refused_move_notifies_nobody():
    t = Tracker()
    got = []
    t.subscribe(got.append)
    with pytest.raises(MoveError):
        t.push("e5")
    assert got == []


def test_unsubscribe():
    t = Tracker()
    got = []
    stop = t.subscribe(got.append)
    t.push("e4")
    stop()
    stop()  # twice is harmless
    t.push("e5")
    assert [p.san for p in got] == ["e4"]


def test_unsubscribe_during_notification():
    t = Tracker()
    got = []
    stops = []

    def once(ply):
        got.append(("once", ply.number))
        stops[0]()

    stops.append(t.subscribe(once))
    t.subscribe(lambda ply: got.append(("always", ply.number)))
    play(t, "e4 e5")
    assert got == [("once", 1), ("always", 1), ("always", 2)]


# -- the incremental FEN --------------------------------------------------------------


def test_fen_builder_placement_round_trip():
    placement = "r1bqk2r/pp1nbppp/2p1pn2/3p4/2PP4/2N1PN2/PP1B1PPP/R2QKB1R"
    assert FenBuilder(placement).placement() == placement


def test_repr():
    t = Tracker()
    t.push("e4")
    assert "ply=1" in repr(t)
