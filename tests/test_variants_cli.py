"""``ficsfen check --variant`` and ``ficsfen fens`` on Chess960 and crazyhouse games."""

from __future__ import annotations

import io
import sys

import chess
import chess.pgn
import chess.variant

from test_cli import english_locale, run  # noqa: F401  (an autouse fixture, and the runner)

START_960 = "bqnrkrnb/pppppppp/8/8/8/8/PPPPPPPP/BQNRKRNB w KQkq - 0 1"
ZH_START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[] w KQkq - 0 1"


def test_check_chess960_x_fen_and_shredder(capsys):
    assert run(capsys, "check", "--variant", "chess960", START_960) == (0, START_960 + "\n", "")
    shredder = START_960.replace("KQkq", "FDfd")
    assert run(capsys, "check", "--variant", "chess960", "--shredder", START_960) == (
        0, shredder + "\n", "")
    # Shredder-FEN in, X-FEN out
    assert run(capsys, "check", "--variant", "chess960", *shredder.split()) == (
        0, START_960 + "\n", "")


def test_check_chess960_errors_in_both_languages(capsys):
    bad = START_960.replace("KQkq", "KCkq")
    code, out, err = run(capsys, "check", "--variant", "chess960", bad)
    assert (code, out) == (1, "")
    assert err == 'Invalid FEN: field 3 (castling): "C" needs a White rook on c1; write "Kkq"\n'
    code, out, err = run(capsys, "--lang", "fr", "check", "--variant", "chess960", bad)
    assert code == 1
    assert err == ("FEN invalide\u202f: champ 3 (roques)\u202f: «\u202fC\u202f» demande une tour "
                   "blanche en c1\u202f; écrivez «\u202fKkq\u202f»\n")
    # standard FEN refuses what Chess960 takes
    assert run(capsys, "check", START_960.replace("KQkq", "FDfd"))[0] == 1


def test_check_crazyhouse(capsys):
    assert run(capsys, "check", "--variant", "crazyhouse", ZH_START) == (0, ZH_START + "\n", "")
    code, out, err = run(capsys, "check", "--variant", "crazyhouse", "--board", ZH_START)
    assert code == 0 and out.splitlines()[0] == ZH_START and "8 | r n b q k b n r |" in out
    code, out, err = run(capsys, "check", "--variant", "crazyhouse", ZH_START.replace("[]", "[K]"))
    assert code == 1 and "a king is never in hand" in err
    # read without brackets or as a ninth rank, written in brackets
    assert run(capsys, "check", "--variant", "crazyhouse", ZH_START.replace("[]", "")) == (0, ZH_START + "\n", "")
    assert run(capsys, "check", "--variant", "crazyhouse", ZH_START.replace("[]", "/")) == (0, ZH_START + "\n", "")
    code, out, err = run(capsys, "check", "--variant", "crazyhouse", ZH_START.replace("[]", "9"))
    assert code == 1 and "field 1 (placement)" in err


def test_check_variant_from_standard_input(capsys, monkeypatch):
    lines = f"{START_960}\n{START_960.replace('KQkq', 'kqKQ')}\n"
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(lines.encode()), encoding="utf-8"))
    code, out, err = run(capsys, "check", "--variant", "chess960", "-")
    assert code == 1
    assert out == START_960 + "\n"
    assert err.startswith("line 2: field 3 (castling): ") and 'write "KQkq"' in err


def test_check_unknown_variant_is_a_usage_error(capsys):
    code, out, err = run(capsys, "check", "--variant", "atomic", ZH_START)
    assert code == 2 and "atomic" in err


def _pgn(board: chess.Board, sans: list[str], tags: dict[str, str]) -> tuple[str, list[str]]:
    game = chess.pgn.Game.from_board(board)
    node = game
    fens = [board.fen(en_passant="fen")]
    for san in sans:
        move = board.parse_san(san)
        node = node.add_variation(move)
        board.push(move)
        fens.append(board.fen(en_passant="fen"))
    game.headers.update(tags)
    return str(game), fens


def test_fens_honours_lichess_variant_tags(capsys, tmp_path):
    chess960, expected960 = _pgn(chess.Board(START_960, chess960=True),
                                 ["e4", "e5", "Nd3", "Nd6", "Nf3", "Nf6", "O-O", "O-O-O"],
                                 {"Variant": "Chess960"})
    assert '[Variant "Chess960"]' in chess960 and '[SetUp "1"]' in chess960
    assert "O-O-O" in chess960
    zh, expected_zh = _pgn(chess.variant.CrazyhouseBoard(),
                           ["e4", "d5", "exd5", "Qxd5", "Nc3", "Qa5", "P@b4", "Qxb4", "a3", "P@e4"],
                           {"Variant": "Crazyhouse"})
    assert "P@b4" in zh or "@b4" in zh
    path = tmp_path / "variants.pgn"
    path.write_text(chess960 + "\n\n" + zh + "\n")
    code, out, err = run(capsys, "fens", str(path))
    assert (code, err) == (0, "")
    assert out.splitlines() == expected960 + expected_zh
    assert expected960[-1].split(" ")[2] == "-"
    assert expected_zh[-1].split(" ")[0].endswith("[p]")


def test_fens_reports_a_bad_variant_fen_tag(capsys, tmp_path):
    path = tmp_path / "bad.pgn"
    path.write_text(f'[Variant "Chess960"]\n[SetUp "1"]\n[FEN "{START_960.replace("KQkq", "KCkq")}"]\n\n1. e4 *\n')
    code, out, err = run(capsys, "fens", str(path))
    assert code == 1
    assert 'Game 1: bad FEN tag: field 3 (castling): "C" needs a White rook on c1' in err


# -- the fen command, on a host's games (nothing but the interfaces) -----------


def test_fen_command_shredder_on_variant_games():
    from test_api import Caller, Directory, Game

    from ficsfen import FenCommand, Tracker

    chess960 = Game(3, "alice", "bob")
    chess960.tracker = Tracker(START_960, variant="chess960")
    chess960.tracker.push("e4")
    zh = Game(5, "carol", "dora")
    zh.tracker = Tracker(variant="crazyhouse")
    for move in ("e4", "d5", "exd5"):
        zh.tracker.push(move)
    standard = Game(7, "erin", "shredder")
    standard.tracker = Tracker()
    directory = Directory(chess960, zh, standard, online=("alice", "bob", "carol", "dora", "erin",
                                                          "shredder"))
    fen = FenCommand()
    after_e4 = "bqnrkrnb/pppppppp/8/8/4P3/8/PPPP1PPP/BQNRKRNB b KQkq e3 0 1"
    for args, expected in (
        ("", after_e4),
        ("shredder", after_e4.replace("KQkq", "FDfd")),
        ("3 shredder", after_e4.replace("KQkq", "FDfd")),
        ("shredder 5", "rnbqkbnr/ppp1pppp/8/3P4/8/8/PPPP1PPP/RNBQKBNR[P] b HAha - 0 2"),
        ("5", "rnbqkbnr/ppp1pppp/8/3P4/8/8/PPPP1PPP/RNBQKBNR[P] b KQkq - 0 2"),
        ("shredder 7", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w HAha - 0 1"),
        ("shredder shredder", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w HAha - 0 1"),
        ("shred", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"),  # a handle prefix
    ):
        caller = Caller("alice")
        fen(caller, args, directory)
        assert caller.lines[-1] == expected, args
    caller = Caller("alice", "fr")
    fen(caller, "1 2 3", directory)
    assert caller.lines == ["Usage\u202f: fen [shredder] [numéro de partie | pseudo]"]
