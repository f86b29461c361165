"""Style 1 and style 12 boards; the FEN read back from <12> lines of real games."""

from __future__ import annotations

from pathlib import Path

import chess
import chess.pgn
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from twisted.internet.task import Clock

from ficsfen.server.boards import (
    Style12Error,
    Style12Frame,
    fen_from_style12,
    material,
    style1,
    style12,
    verbose_move,
)
from ficsfen.server.clock import TimeControl
from ficsfen.server.games import PlayedGame
from ficsfen.server.renderer import BoardRenderer


def new_game(minutes=5, increment=0, fen=None):
    reactor = Clock()
    game = PlayedGame("alice", "bob", reactor=reactor, number=7,
                      time_control=TimeControl(minutes, increment), fen=fen)
    return reactor, game


def play(game, *moves):
    for text in moves:
        game.move(game.white if game.tracker.turn else game.black, text)


def real_games(folder: Path, limit: int):
    """Mainlines of standard-chess games from the shared PGN files."""
    found = []
    for path in sorted(folder.glob("*.pgn")):
        with path.open(encoding="utf-8-sig", errors="replace") as fp:
            while len(found) < limit:
                game = chess.pgn.read_game(fp)
                if game is None:
                    break
                if game.errors or game.headers.get("Variant", "Standard") != "Standard":
                    continue
                moves = list(game.mainline_moves())
                if moves:
                    found.append((path.name, game.board().fen(), moves))
    return found


def test_starting_position_line_fields():
    _, game = new_game(5, 3)
    line = style12(game, viewer="alice")
    assert line == ("<12> rnbqkbnr pppppppp -------- -------- -------- -------- PPPPPPPP RNBQKBNR "
                    "W -1 1 1 1 1 0 7 alice bob 1 5 3 39 39 300 300 1 none (0:00) none 0 0 0")


def test_after_e4_fields_relation_and_flip():
    reactor, game = new_game(5, 3)
    reactor.advance(6)
    play(game, "e4")
    fields = style12(game, viewer="bob").split()
    assert fields[1:9] == ["rnbqkbnr", "pppppppp", "--------", "--------", "----P---",
                           "--------", "PPPP-PPP", "RNBQKBNR"]
    assert fields[9] == "B" and fields[10] == "4"
    assert fields[19] == "1"  # bob is to move
    assert fields[26:31] == ["1", "P/e2-e4", "(0:06)", "e4", "1"]  # flip for Black
    assert style12(game, viewer="alice").split()[19] == "-1"
    assert style12(game, viewer="carol").split()[19] == "0"
    assert style12(game, viewer="carol").split()[30] == "0"


def test_castling_flags_clocks_and_ticking():
    reactor, game = new_game(3, 0)
    play(game, "e4", "e5", "Nf3", "Nc6", "Bc4", "Bc5")
    reactor.advance(12)
    play(game, "O-O")
    fields = style12(game, viewer="alice").split()
    assert fields[11:15] == ["0", "0", "1", "1"]
    assert fields[27] == "o-o"
    assert fields[24:26] == ["168", "180"]
    assert fields[31] == "1"  # Black's clock is running


def test_frame_is_shared_between_viewers():
    _, game = new_game()
    renderer = BoardRenderer()
    frame = renderer.style12_frame(game)
    assert renderer.style12_frame(game) is frame
    a = frame.line(0, False)
    assert frame.line(0, 0) is a
    play(game, "d4")
    assert renderer.style12_frame(game) is not frame


def test_verbose_moves():
    board = chess.Board("4k3/1P6/8/8/8/8/8/R3K3 w Q - 0 1")
    move = chess.Move.from_uci("b7b8q")
    board.push(move)
    assert verbose_move(board, move) == "P/b7-b8=Q"
    board = chess.Board("4k3/8/8/8/8/8/8/R3K3 w Q - 0 1")
    move = chess.Move.from_uci("e1c1")
    board.push(move)
    assert verbose_move(board, move) == "o-o-o"


def test_material():
    assert material(chess.Board(), chess.WHITE) == 39
    assert material(chess.Board("4k3/8/8/8/8/8/8/R3K3 w Q - 0 1"), chess.BLACK) == 0



@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 10_000), max_size=60))
def test_material_counts_every_piece_at_its_fics_value(choices):
    """Random legal games (promotions included): pawn 1, minor 3, rook 5, queen 9."""
    board = chess.Board()
    values = {chess.PAWN: 1, chess.KNIGHT: 3, chess.BISHOP: 3, chess.ROOK: 5, chess.QUEEN: 9}
    for choice in choices:
        moves = list(board.legal_moves)
        if not moves:
            break
        board.push(moves[choice % len(moves)])
        for color in chess.COLORS:
            expected = sum(v * len(board.pieces(pt, color)) for pt, v in values.items())
            assert material(board, color) == expected


def test_castling_flags_of_any_castling_field():
    """Style 12's four flags read K, Q, k, q wherever they stand in the field."""
    from ficsfen.server.boards import _castling_flags

    assert _castling_flags("KQkq") == "1 1 1 1"
    assert _castling_flags("-") == "0 0 0 0"
    assert _castling_flags("Kq") == "1 0 0 1"
    assert _castling_flags("qK") == "1 0 0 1"
    assert _castling_flags("Qk") == "0 1 1 0"

def test_style1_from_each_side_and_in_french():
    reactor, game = new_game(5, 0)
    reactor.advance(3)
    play(game, "e4")
    white = style1(game, viewer="alice", lang="en").split("\n")
    assert white[0] == "Game 7 (alice vs. bob)"
    assert white[3].startswith("     8  | *R| *N| *B| *Q| *K| *B| *N| *R|")
    assert white[3].endswith("Move # : 1 (Black)")
    assert white[5].endswith("White Moves : 'e4      (0:03)'")
    assert "White Clock : 5:00" in white[11]
    assert white[-1] == "\t  a   b   c   d   e   f   g   h"
    black = style1(game, viewer="bob", lang="en").split("\n")
    assert black[3].startswith("     1  | R | N | B | K | Q | B | N | R |")
    assert black[-1] == "\t  h   g   f   e   d   c   b   a"
    french = style1(game, viewer="alice", lang="fr").split("\n")
    assert french[0] == "Partie 7 (alice contre bob)"
    assert french[3].endswith("Coup n°\u202f: 1 (Noirs)")
    assert french[5].endswith("Coup des Blancs\u202f: «\u202fe4      (0:03)\u202f»")
    assert french[3].split("|")[:9] == white[3].split("|")[:9]  # same board, other labels
    assert BoardRenderer().style1(game, flipped=False, lang="en") == "\n".join(white)


def test_fen_from_style12_rejects_garbage():
    for bad in ["", "<12>", "<10> " + "x " * 30, "<12> " + "rnbqkbnr " * 8 + "X -1 1 1 1 1 0 7 a b 0 5 0 39 39 1 1 1 none (0:00) none 0 0"]:
        with pytest.raises(Style12Error):
            fen_from_style12(bad)


@pytest.mark.slow
@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=200), min_size=0, max_size=80))
def test_style12_round_trips_random_games(choices):
    """Random legal play: the FEN read back from <12> equals the tracker's at every ply."""
    _, game = new_game(0, 0)
    for choice in choices:
        legal = sorted(game.tracker.board.legal_moves, key=lambda m: m.uci())
        if not legal or game.result is not None:
            break
        play(game, legal[choice % len(legal)].uci())
        assert fen_from_style12(style12(game, viewer="carol")) == game.tracker.fen


@pytest.mark.slow
def test_style12_round_trips_real_games(shared_pgn):
    games = real_games(shared_pgn, 120)
    assert games, "no standard games found in the shared PGN folder"
    plies = 0
    for name, start, moves in games:
        _, game = new_game(0, 0, fen=None if start == chess.STARTING_FEN else start)
        line = style12(game, viewer="carol")
        assert fen_from_style12(line) == game.tracker.fen, name
        for move in moves:
            if game.result is not None:
                break
            play(game, move.uci())
            frame = Style12Frame.for_game(game)
            assert fen_from_style12(frame.line(0, False)) == game.tracker.fen, (name, game.tracker.ply)
            plies += 1
    assert plies > 1000
