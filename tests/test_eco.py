"""ECO codes: the shipped table, the classification of moves, and where games show them.

A game's code is the one of the last position along it that the table
knows (lichess's way, and FICS's): a Sicilian Najdorf is B90 however long
it goes on, a transposition is found by position, a variant or a game
from a set-up position has none (``---`` in listings, no PGN tag).
"""

from __future__ import annotations

import re

import chess
import pytest

from ficsfen import eco
from ficsfen.eco import MAX_PLIES, classify, classify_uci, eco_table
from ficsfen.helpcatalog import HELP_DIR
from ficsfen.server.export import game_pgn
from ficsfen.server.store import EndCode

from test_history import FOOLS_MATE, SCHOLARS_MATE, Games, login, server_on


def moves(sans: str) -> list[chess.Move]:
    board = chess.Board()
    out = []
    for san in sans.split():
        out.append(board.parse_san(san))
        board.push(out[-1])
    return out


NAJDORF = "e4 c5 Nf3 d6 d4 cxd4 Nxd4 Nf6 Nc3 a6"


def test_the_table_is_shipped_with_its_licence():
    table = eco_table()
    assert len(table) > 3000
    assert all(re.fullmatch(r"[A-E]\d\d", code) for code in table.values())
    assert table[moves_epd("e4")] == "B00"
    licence = (HELP_DIR.parent / "data" / "ECO-LICENSE").read_text()
    assert "CC0" in licence and "MIT" in licence


def moves_epd(sans: str) -> str:
    board = chess.Board()
    for move in moves(sans):
        board.push(move)
    return board.epd()


@pytest.mark.parametrize("sans, code", [
    ("e4 c5 Nf3 d6", "B50"),
    (NAJDORF, "B90"),
    (NAJDORF + " Be3 e5 Nb3 Be6 f3 Be7 Qd2 O-O O-O-O Nbd7 g4 b5 g5 b4", "B90"),
    ("d4 d5 c4 e6 Nc3 Nf6", "D35"),
    ("c4 e6 d4 d5 Nc3 Nf6", "D35"),  # the same position by another order
    ("e4", "B00"),
])
def test_the_last_known_position_names_the_game(sans, code):
    assert classify(moves(sans)) == code
    assert classify_uci(m.uci() for m in moves(sans)) == code


def test_no_code_without_a_known_position_and_a_bounded_walk():
    assert classify([]) is None
    assert classify_uci(["e2e4", "zz99", "e7e5"]) == "B00"  # a malformed move ends the walk
    assert classify_uci(["e2e4", "e2e4"]) == "B00"  # so does an illegal one
    shuffle = moves("Nf3 Nf6 Ng1 Ng8") * (MAX_PLIES // 4) + moves("e4")
    assert classify(shuffle) == "A05"  # after 1. Nf3 Nf6; 1. e4 at ply 73 is not looked up
    assert eco.MAX_PLIES >= 2 * 36


@pytest.fixture
def games(tmp_path):
    g = Games(tmp_path / "data.sqlite3")
    yield g
    g.close()


def test_history_and_the_pgn_export_show_the_code(games):
    games.record("alice", "bob", SCHOLARS_MATE, result="1-0", reason="bob checkmated",
                 code=EndCode.MATE)
    games.record("bob", "alice", FOOLS_MATE, result="0-1", reason="bob checkmated",
                 code=EndCode.MATE, fen="rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1")
    lines = login(server_on(games)).command("history alice").split("\n")
    assert "[ bu  5   0] C23 Mat " in lines[2]
    assert "[ bu  5   0] --- Mat " in lines[3]  # a set-up position: no code
    stored = list(games.store.finished_games("alice"))
    assert '[ECO "C23"]' in game_pgn(stored[0])
    assert "[ECO " not in game_pgn(stored[1])
