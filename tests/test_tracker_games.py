"""The tracker against python-chess: every shared game and random legal games.

After every ply the tracker's FEN must equal python-chess's strict FEN
(``board.fen(en_passant="fen")``) and its SAN python-chess's SAN.
"""

from __future__ import annotations

import chess
import chess.pgn
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ficsfen.pgn import read_file
from ficsfen.tracker import Tracker

GAME_FILES = [
    "lichess-2025-05-438games.pgn",
    "lichess-2013-100games.pgn",
    "kasparov-deep-blue-1997.pgn",
    "chessbase-empty-line.pgn",
    "uci-moves.pgn",
]


def python_chess_games(path):
    with open(path, encoding="utf-8-sig") as fp:
        while (game := chess.pgn.read_game(fp)) is not None:
            yield game


@pytest.mark.slow
def test_every_shared_game_matches_python_chess(shared_pgn):
    games = plies = 0
    for name in GAME_FILES:
        ours = read_file(shared_pgn / name)
        theirs = list(python_chess_games(shared_pgn / name))
        assert len(ours) == len(theirs), name
        for game, reference in zip(ours, theirs):
            board = reference.board()
            tracker = Tracker(game.initial_fen)
            assert tracker.fen == board.fen(en_passant="fen")
            moves = list(reference.mainline_moves())
            assert len(moves) == len(game.moves)
            for text, move in zip(game.moves, moves):
                san = board.san(move)
                board.push(move)
                ply = tracker.push(text)
                assert ply.move == move, (name, game.number, text)
                assert ply.san == san
                assert ply.fen == board.fen(en_passant="fen"), (name, game.number, ply.number)
                plies += 1
            assert tracker.board == board
            games += 1
    assert games == 546 and plies > 35000


def test_shared_games_by_coordinates_and_takeback(shared_pgn):
    """The same games typed in coordinates, with takebacks along the way."""
    for game in read_file(shared_pgn / "kasparov-deep-blue-1997.pgn"):
        by_san = Tracker()
        for text in game.moves:
            by_san.push(text)
        by_uci = Tracker()
        for ply in by_san.history:
            by_uci.push(ply.uci)
            if ply.number % 7 == 0:
                by_uci.takeback(2)
                by_uci.push(by_san.history[ply.number - 2].uci)
                by_uci.push(ply.uci)
        assert [p.fen for p in by_uci.history] == [p.fen for p in by_san.history]


@st.composite
def random_games(draw, max_plies: int = 120):
    board = chess.Board()
    moves = []
    for _ in range(draw(st.integers(0, max_plies))):
        if board.outcome(claim_draw=False) is not None:
            break  # checkmate, stalemate or an automatic draw: the tracker refuses more
        move = draw(st.sampled_from(list(board.legal_moves)))
        moves.append(move)
        board.push(move)
    return moves


@pytest.mark.slow
@settings(max_examples=60, deadline=None)
@given(random_games(), st.sampled_from(["san", "uci", "move"]))
def test_random_legal_games_match_python_chess(moves, notation):
    board = chess.Board()
    tracker = Tracker()
    seen = []
    tracker.subscribe(seen.append)
    for move in moves:
        if notation == "san":
            ply = tracker.push(board.san(move))
        elif notation == "uci":
            ply = tracker.push(move.uci())
        else:
            ply = tracker.push_move(move)
        board.push(move)
        assert ply.move == move
        assert ply.fen == board.fen(en_passant="fen")
    assert seen == list(tracker.history)
    # every earlier position is still at hand, and takeback restores it
    if moves:
        back = len(moves) // 2
        expected = tracker.fen_at(len(moves) - back)
        tracker.takeback(back)
        assert tracker.fen == expected


@settings(max_examples=100, deadline=None)
@given(st.text(max_size=12))
def test_any_text_is_a_move_or_a_move_error(text):
    from ficsfen.tracker import MoveError

    tracker = Tracker()
    try:
        tracker.push(text)
    except MoveError as exc:
        assert exc.render("fr") and exc.render("en")
        assert tracker.ply == 0
    else:
        assert tracker.ply == 1


# Move text a player might type: SAN-like pieces, origins, captures, squares,
# promotions, castling spellings and check/annotation marks, in any mix.
_MOVE_TEXT = st.builds(
    lambda piece, origin, capture, square, promo, mark: piece + origin + capture + square + promo + mark,
    st.sampled_from(["", "N", "B", "R", "Q", "K"]),
    st.sampled_from(["", "a", "e", "h", "1", "7", "e2", "g1", "b8", "e7"]),
    st.sampled_from(["", "x", "-"]),
    st.sampled_from([a + b for a in "abcdefgh" for b in "12345678"]),
    st.sampled_from(["", "=Q", "q", "=N", "n", "=K"]),
    st.sampled_from(["", "+", "#", "!?"]),
) | st.sampled_from(["O-O", "O-O-O", "0-0", "0-0-0", "o-o", "o-o-o", "Kg1", "e1g1", "e1h1"])


@pytest.mark.slow
@settings(max_examples=60, deadline=None)
@given(random_games(max_plies=80), st.lists(_MOVE_TEXT, min_size=1, max_size=30))
def test_the_move_reader_agrees_with_python_chess_on_every_position(moves, texts):
    """Every legal move is read back from its SAN and its UCI; no text yields an illegal move."""
    from ficsfen.tracker import MoveError, resolve

    board = chess.Board()
    for move in moves:
        board.push(move)
    legal = set(board.legal_moves)
    for move in legal:
        assert resolve(board, board.san(move)) == move
        assert resolve(board, move.uci()) == move
    for text in texts:
        try:
            move = resolve(board, text)
        except MoveError as exc:
            assert exc.render("en") and exc.render("fr")
        else:
            assert move in legal, (board.fen(), text, move)
