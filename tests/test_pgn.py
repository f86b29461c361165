"""The PGN reader: tags, comments, NAGs, variations, odd files, errors."""

from __future__ import annotations

import io

import chess
import chess.pgn
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ficsfen.fen import STARTING_FEN
from ficsfen.pgn import PgnError, decode, read_file, read_games
from ficsfen.tracker import Tracker


def python_chess_fens(path):
    out = []
    with open(path, encoding="utf-8-sig") as fp:
        while (game := chess.pgn.read_game(fp)) is not None:
            board = game.board()
            fens = [board.fen(en_passant="fen")]
            for move in game.mainline_moves():
                board.push(move)
                fens.append(board.fen(en_passant="fen"))
            out.append(fens)
    return out


@pytest.mark.slow
@pytest.mark.parametrize(
    "name", ["lichess-2013-100games.pgn", "kasparov-deep-blue-1997.pgn", "chessbase-empty-line.pgn", "uci-moves.pgn"]
)
def test_files_match_python_chess(shared_pgn, name):
    assert [g.fens() for g in read_file(shared_pgn / name)] == python_chess_fens(shared_pgn / name)


@pytest.mark.slow
def test_big_lichess_file_matches_the_tracker(shared_pgn):
    # the tracker itself is checked against python-chess on this file in test_tracker_games
    games = read_file(shared_pgn / "lichess-2025-05-438games.pgn")
    assert len(games) == 438
    plies = 0
    for game in games[::3]:
        tracker = Tracker(game.initial_fen)
        for text in game.moves:
            tracker.push(text)
        fens = game.fens()
        assert fens == [tracker.initial_fen] + [p.fen for p in tracker.history]
        plies += len(fens) - 1
    assert plies > 8000
    assert games[0].headers["Site"] == "https://lichess.org/ENPo6ReH"
    assert games[0].moves[:3] == ["e4", "e5", "Nf3"] and games[0].result == "0-1"


@pytest.mark.slow
def test_every_shared_file_reads_without_errors(shared_pgn):
    counts = {}
    for path in sorted(shared_pgn.glob("*.pgn")):
        games = read_file(path)
        for game in games:
            game.fens()
        counts[path.name] = len(games)
    assert counts == {
        "chessbase-empty-line.pgn": 1,
        "kasparov-deep-blue-1997.pgn": 6,
        "leading-whitespace.pgn": 4,
        "lichess-2013-100games.pgn": 100,
        "lichess-2025-05-438games.pgn": 438,
        "pathological-headers.pgn": 1,
        "uci-moves.pgn": 1,
        "utf8-bom.pgn": 2,
    }


def test_blank_line_inside_tags(shared_pgn):
    (game,) = read_file(shared_pgn / "chessbase-empty-line.pgn")
    assert game.headers["Event"] == "AlphaZero vs. Stockfish"
    assert game.headers["BlackFideId"] == "deepmind"
    assert len(game.moves) == 134 and game.result == "0-1"


def test_leading_whitespace(shared_pgn):
    games = read_file(shared_pgn / "leading-whitespace.pgn")
    assert [g.headers for g in games] == [{"Variant": "Standard"}] * 3 + [{}]
    assert all(g.moves == ["e4", "e5", "Nf3", "Nc6", "Bb5"] for g in games)
    assert games[0].fens()[-1] == "r1bqkbnr/pppp1ppp/2n5/1B2p3/4P3/5N2/PPPP1PPP/RNBQK2R b KQkq - 3 3"


def test_pathological_headers(shared_pgn):
    (game,) = read_file(shared_pgn / "pathological-headers.pgn")
    assert game.headers == {
        "A": 'b"',
        "B": 'b"',
        "C": "A]]",
        "D": "A]][",
        "E": '"A]]["',
        "F": '"A]]["\\',
        "G": '"]',
    }
    assert game.fens() == [STARTING_FEN]


def test_bom_and_empty_games(shared_pgn):
    games = read_file(shared_pgn / "utf8-bom.pgn")
    assert [g.headers["Event"] for g in games] == ["A", "B"]
    assert [g.result for g in games] == ["*", "*"]
    assert [g.fens() for g in games] == [[STARTING_FEN], [STARTING_FEN]]


def test_uci_movetext(shared_pgn):
    (game,) = read_file(shared_pgn / "uci-moves.pgn")
    assert game.moves[:2] == ["g1f3", "c7c5"] and len(game.moves) == 113


def test_comments_nags_variations_and_move_numbers():
    text = """[Event "x"]
[Result "1-0"]

1.e4 $1 {a comment (with brackets) [and tags]} e5 ; rest of line 1... Nf6
% an escape line Qh5
2. Nf3 (2. Nc3 Nc6 (2... Nf6 3. f4) 3. f4) 2... Nc6!? 3.Bb5 a6 4. Ba4?! $14 {end} 1-0
"""
    (game,) = read_games(text)
    assert game.moves == ["e4", "e5", "Nf3", "Nc6!?", "Bb5", "a6", "Ba4?!"]
    assert game.result == "1-0"
    assert game.fens()[-1] == "r1bqkbnr/1ppp1ppp/p1n5/4p3/B3P3/5N2/PPPP1PPP/RNBQK2R b KQkq - 1 4"


def test_setup_and_fen_tags():
    text = '[SetUp "1"]\n[FEN "4k3/8/8/8/8/8/4P3/4K3 w - - 5 39"]\n\n39. e4 Kd7 *\n'
    (game,) = read_games(text)
    assert game.fens() == [
        "4k3/8/8/8/8/8/4P3/4K3 w - - 5 39",
        "4k3/8/8/8/4P3/8/8/4K3 b - e3 0 39",
        "8/3k4/8/8/4P3/8/8/4K3 w - - 1 40",
    ]


def test_black_to_move_from_fen_tag():
    (game,) = read_games('[FEN "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1"]\n1... c5 2. Nf3 *')
    assert game.fens()[-1] == "rnbqkbnr/pp1ppppp/8/2p5/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2"


def test_escaped_tag_values():
    (game,) = read_games(r'[White "O\"Neil \\ Co"] [Black "x]y"] 1. d4 *')
    assert game.headers == {"White": 'O"Neil \\ Co', "Black": "x]y"}


def test_games_split_on_tags_and_results():
    games = read_games('[White "a"]\n1. e4 *\n[White "b"]\n1. d4 1-0\n1. c4 0-1\n\n1. Nf3 Nf6\n\n1. g3')
    assert [g.moves for g in games] == [["e4"], ["d4"], ["c4"], ["Nf3", "Nf6"], ["g3"]]
    assert [g.number for g in games] == [1, 2, 3, 4, 5]
    assert [g.result for g in games] == ["*", "1-0", "0-1", None, None]
    assert [g.result for g in read_games("1. e4 e5 \u00bd-\u00bd 1. d4 1/2-1/2")] == ["1/2-1/2", "1/2-1/2"]


def test_illegal_move_is_reported_with_game_and_ply():
    games = read_games('[White "a"]\n1. e4 e5 *\n\n[White "b"]\n1. e4 e5 2. Nf3 Nf6 3. Ke3 Nc6 *\n')
    assert games[0].fens()
    with pytest.raises(PgnError) as info:
        games[1].fens()
    err = info.value
    assert (err.game, err.ply, err.move_text) == (2, 5, "Ke3")
    assert err.render() == 'Game 2, ply 5 ("Ke3"): Illegal move: the king on e1 cannot reach e3.'
    assert err.render("fr") == "Partie 2, demi-coup 5 («\u202fKe3\u202f»)\u202f: Coup illégal\u202f: le roi en e1 ne peut pas atteindre e3."


def test_malformed_move_and_syntax_errors():
    (game,) = read_games("1. e4 e5 2. Nf3 Zz9 *")
    with pytest.raises(PgnError) as info:
        game.fens()
    assert (info.value.game, info.value.ply) == (1, 4)
    (game,) = read_games("1. e4 e5 2. Nf3 { never closed")
    with pytest.raises(PgnError) as info:
        game.fens()
    assert info.value.ply == 4
    assert info.value.render() == "Game 1, ply 4: a comment opened with a brace is never closed"
    assert info.value.render("fr") == "Partie 1, demi-coup 4\u202f: un commentaire ouvert par une accolade n’est jamais fermé"
    (game,) = read_games("1. e4 ) e5 *")
    with pytest.raises(PgnError):
        game.fens()
    games = read_games('1. e4 e5 (1... c5 2. Nf3 *\n\n[Event "b"]\n1. d4 *')
    assert [g.moves for g in games] == [["e4", "e5"], ["d4"]]
    with pytest.raises(PgnError) as info:
        games[0].fens()
    assert info.value.render() == "Game 1, ply 3: a variation opened with ( is never closed"
    assert info.value.render("fr") == "Partie 1, demi-coup 3\u202f: une variante ouverte par ( n’est jamais fermée"
    assert len(games[1].fens()) == 2


def test_bad_fen_tag():
    (game,) = read_games('[FEN "8/8/8/8/8/8/8/8 w - - 0 1"]\n*')
    with pytest.raises(PgnError) as info:
        game.fens()
    assert info.value.ply == 0
    assert info.value.render().startswith("Game 1: bad FEN tag: field 1 (placement): ")
    assert info.value.render("fr").startswith("Partie 1\u202f: balise FEN incorrecte\u202f: champ 1 (placement)\u202f: ")


def test_reserved_angle_bracket_tokens_are_skipped():
    text = "1. e4 <reserved for expansion> e5 2. Nf3 *"
    (game,) = read_games(text)
    board = chess.pgn.read_game(io.StringIO(text)).end().board()
    assert game.fens()[-1] == board.fen(en_passant="fen")


def test_a_bad_game_does_not_spoil_the_next():
    games = read_games("1. e4 { open\n\n[Event \"next\"]\n1. d4 *")
    assert len(games) == 2
    with pytest.raises(PgnError) as info:
        games[0].fens()
    assert (info.value.game, info.value.ply) == (1, 2)
    assert games[1].headers == {"Event": "next"}
    assert games[1].fens()[1] == "rnbqkbnr/pppppppp/8/8/3P4/8/PPP1PPPP/RNBQKBNR b KQkq d3 0 1"


def test_decode_falls_back_to_latin1():
    assert decode("[White \"Müller\"]".encode("latin-1")) == '[White "Müller"]'
    assert decode("\ufeff1. e4".encode("utf-8")) == "1. e4"


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from(list('[]{}()"\\;$%.*01/-abcdeNKQ x\n12345678=+#!?')), max_size=80))
def test_any_text_reads_and_replays_or_raises_pgn_error(text):
    for game in read_games(text):
        try:
            game.fens()
        except PgnError as exc:
            assert exc.render("fr")


def test_binary_noise_and_run_on_words_are_quoted_safely():
    games = read_games("1. e4\x01\x1b[2J e5 *\n\n1. Nf3" + "a" * 5000 + " *\n\n1. d4 d5 *")
    assert len(games) == 3
    with pytest.raises(PgnError) as info:
        games[0].fens()
    text = info.value.render()
    assert info.value.ply == 1 and "\\x01\\x1b" in text and "\x1b" not in text
    with pytest.raises(PgnError) as info:
        games[1].fens()
    assert info.value.ply == 1 and len(info.value.render("fr")) < 200
    assert games[2].fens()[-1] == "rnbqkbnr/ppp1pppp/8/3p4/3P4/8/PPP1PPPP/RNBQKBNR w KQkq d6 0 2"
