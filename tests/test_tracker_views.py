"""The tracker's cheap per-move reads: the history view, ``last_ply``, the
cached outcome, and :func:`is_move_text` (the move grammar hosts share)."""

from __future__ import annotations

import chess
import pytest
from hypothesis import given, strategies as st

from ficsfen.tracker import MalformedMoveError, MoveError, PlyHistory, Termination, Tracker, is_move_text, resolve


def test_history_is_a_live_view_equal_to_the_plies():
    t = Tracker()
    view = t.history
    assert isinstance(view, PlyHistory) and view == () and t.last_ply is None
    first = t.push("e4")
    second = t.push("e5")
    assert view is t.history  # no copy per access
    assert list(view) == [first, second] and view == (first, second) and len(view) == 2
    assert view[-1] is second is t.last_ply
    assert view[-1:] == (second,) and isinstance(view[-1:], tuple)
    t.takeback(1)
    assert view == (first,) and t.last_ply is first


def test_outcome_is_computed_once_per_ply_and_forgotten_on_a_takeback():
    t = Tracker()
    for san in ("f3", "e5", "g4"):
        t.push(san)
    assert t.outcome() is None
    t.push("Qh4#")
    mate = t.outcome()
    assert mate is not None and mate.termination == Termination.CHECKMATE and mate.winner == chess.BLACK
    assert t.outcome() is mate  # kept until the position changes
    try:
        t.push("a3")
    except MoveError as e:
        assert e.code == "game-over"
    else:  # pragma: no cover
        raise AssertionError("a move after mate was accepted")
    t.takeback(1)
    assert t.outcome() is None
    t.push("Qh4")
    assert t.outcome() is not None and t.outcome().termination == Termination.CHECKMATE


def test_is_move_text_knows_the_notations_the_tracker_reads():
    for text in ("e4", "exd5", "Nf3", "Nbd2!?", "e8=Q+", "e7e8q", "g1-f3", "O-O", "0-0-0", "o-o", "Qh4#",
                 "Nxe4??", "e2:e4"):
        assert is_move_text(text), text
    for text in ("", "fen", "help", "4e", "e9", "Nxe4??!!", "O-O-O-O", "i4", "refresh", "Ke"):
        assert not is_move_text(text), text


_MOVEISH = st.text(alphabet="abcdefghNBRQKO0o12345678x:-=+#!?", max_size=9)


@given(_MOVEISH)
def test_is_move_text_agrees_with_resolve(text):
    """A text is refused as malformed exactly when ``is_move_text`` says it is no move."""
    board = chess.Board()
    try:
        resolve(board, text)
    except MalformedMoveError:
        assert not is_move_text(text)
    except MoveError:
        assert is_move_text(text)
    else:
        assert is_move_text(text)


def _same_outcome(tracker: Tracker) -> None:
    expected = tracker.board.outcome(claim_draw=False)
    got = tracker.outcome()
    if expected is None:
        assert got is None, tracker
    else:
        assert got is not None and got.termination == Termination[expected.termination.name], tracker
        assert got.winner == expected.winner


def test_outcome_agrees_with_python_chess_on_every_ending():
    cases = {
        "stalemate": ("7k/5Q2/6K1/8/8/8/8/8 w - - 0 1", ["Kg5"]),  # Black to move, no move
        "dead and stalemate": ("7k/5K2/8/8/8/8/8/8 b - - 0 1", []),
        "insufficient after a capture": ("7k/8/8/8/8/8/6q1/7K w - - 0 1", ["Kxg2"]),
        "seventy-five moves": ("7k/8/8/8/8/8/8/R6K w - - 149 90", ["Ra2"]),
        "fivefold": (None, ["Nf3", "Nf6", "Ng1", "Ng8"] * 4),
        "checkmate": (None, ["f3", "e5", "g4", "Qh4#"]),
    }
    for name, (fen, moves) in cases.items():
        t = Tracker(fen)
        _same_outcome(t)
        for san in moves:
            t.push(san)
            _same_outcome(t)
        assert t.outcome() is not None, name


@pytest.mark.slow
def test_outcome_agrees_with_python_chess_along_real_games(shared_pgn):
    from ficsfen.pgn import read_file

    for game in read_file(shared_pgn / "lichess-2013-100games.pgn")[:40]:
        t = Tracker(game.initial_fen)
        for text in game.moves:
            t.push(text)
            _same_outcome(t)
