"""The ``ficsfen`` command line: exit codes 0/1/2, both languages, every subcommand."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import chess.pgn
import pytest

from ficsfen import cli
from ficsfen.fen import STARTING_FEN

REPO = Path(__file__).resolve().parents[1]
AFTER_E4 = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1"
BAD_CASTLING = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w QK - 0 1"


@pytest.fixture(autouse=True)
def english_locale(monkeypatch):
    for name in ("LC_ALL", "LC_MESSAGES", "LANG"):
        monkeypatch.delenv(name, raising=False)


def run(capsys, *argv):
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def set_stdin(monkeypatch, text: str):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(text.encode("utf-8")), encoding="utf-8"))


# -- check --------------------------------------------------------------------------


def test_check_valid_one_argument(capsys):
    assert run(capsys, "check", AFTER_E4) == (0, AFTER_E4 + "\n", "")


def test_check_valid_six_arguments(capsys):
    assert run(capsys, "check", *AFTER_E4.split()) == (0, AFTER_E4 + "\n", "")


def test_check_board_diagram(capsys):
    code, out, _ = run(capsys, "check", "--board", AFTER_E4)
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == AFTER_E4
    assert "4 | . . . . P . . . |" in lines
    assert lines[-1].split() == list("abcdefgh")


def test_check_invalid_in_english_and_french(capsys):
    assert run(capsys, "check", BAD_CASTLING) == (
        1,
        "",
        'Invalid FEN: field 3 (castling): "QK" is out of order; write "KQ"\n',
    )
    code, out, err = run(capsys, "check", "--lang", "fr", BAD_CASTLING)
    assert (code, out) == (1, "")
    assert err.startswith("FEN invalide\u202f: champ 3 (roques)\u202f: ")


def test_language_from_the_environment(capsys, monkeypatch):
    monkeypatch.setenv("LANG", "fr_FR.UTF-8")
    code, _, err = run(capsys, "check", BAD_CASTLING)
    assert code == 1 and err.startswith("FEN invalide\u202f: ")
    monkeypatch.setenv("LC_ALL", "en_GB.UTF-8")  # LC_ALL wins
    assert run(capsys, "check", BAD_CASTLING)[2].startswith("Invalid FEN: ")
    monkeypatch.setenv("LC_ALL", "de_DE.UTF-8")  # no catalog: English
    assert run(capsys, "check", BAD_CASTLING)[2].startswith("Invalid FEN: ")


def test_lang_option_accepts_names_and_equals(capsys):
    assert run(capsys, "check", "--lang=français", BAD_CASTLING)[2].startswith("FEN invalide")
    assert run(capsys, "--lang", "French", "check", BAD_CASTLING)[2].startswith("FEN invalide")


def test_check_wrong_field_count_is_bad_input(capsys):
    code, _, err = run(capsys, "check", "8/8", "w")
    assert code == 1 and "2" in err


def test_check_stdin(capsys, monkeypatch):
    set_stdin(monkeypatch, f"{STARTING_FEN}\n\nnot a fen\n{AFTER_E4}\r\n")
    code, out, err = run(capsys, "check", "-")
    assert code == 1
    assert out == f"{STARTING_FEN}\n{AFTER_E4}\n"
    assert err.startswith("line 3: ")
    set_stdin(monkeypatch, f"{STARTING_FEN}\n")
    assert run(capsys, "check", "-") == (0, STARTING_FEN + "\n", "")


# -- usage errors -------------------------------------------------------------------


@pytest.mark.parametrize(
    "argv",
    [[], ["check"], ["bogus"], ["fens"], ["check", "--nope", STARTING_FEN], ["--lang", "xx", "check", STARTING_FEN],
     ["check", "-", "w"], ["check", STARTING_FEN, "-"]],
)
def test_usage_errors_exit_2(capsys, argv):
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == ""
    assert "ficsfen: usage error: " in err
    assert "Traceback" not in err


def test_usage_errors_in_french(capsys):
    code, _, err = run(capsys, "--lang", "fr")
    assert code == 2 and "ficsfen\u202f: erreur d'utilisation\u202f: indiquez une commande" in err
    code, _, err = run(capsys, "--lang", "xx", "check", "x")
    assert code == 2 and 'unknown language "xx"' in err


def test_help_exits_0(capsys):
    code, out, _ = run(capsys, "--help")
    assert code == 0 and "check" in out and "fens" in out
    code, out, _ = run(capsys, "--lang", "fr", "check", "--help")
    assert code == 0 and "diagramme" in out


# -- serve --------------------------------------------------------------------------


def test_serve_reports_a_missing_configuration_in_the_operators_language(capsys, monkeypatch):
    code, _, err = run(capsys, "serve", "--config", "/nonexistent.toml")
    assert code == 2
    assert "/nonexistent.toml: cannot read the configuration" in err
    code, _, err = run(capsys, "--lang", "fr", "serve", "--config", "/nonexistent.toml")
    assert code == 2
    assert "/nonexistent.toml\u202f: impossible de lire la configuration" in err
    code, _, err = run(capsys, "serve", "--lang", "fr", "--config", "/nonexistent.toml")
    assert code == 2
    assert "/nonexistent.toml\u202f: impossible de lire la configuration" in err
    monkeypatch.setenv("LANG", "fr_FR.UTF-8")
    code, _, err = run(capsys, "serve", "--config", "/nonexistent.toml")
    assert code == 2 and "impossible de lire la configuration" in err


def test_serve_help_exits_0(capsys):
    code, out, _ = run(capsys, "serve", "--help")
    assert code == 0 and "--listen" in out and "--config" in out
    code, out, _ = run(capsys, "--lang", "fr", "serve", "--help")
    assert code == 0 and "fichier de configuration" in out


def test_serve_usage_error_exits_2(capsys):
    code, _, err = run(capsys, "serve", "--no-such-option")
    assert code == 2 and "--no-such-option" in err


def test_serve_reports_a_bad_endpoint(capsys):
    code, _, err = run(capsys, "serve", "--listen", "nonsense:1")
    assert code == 2 and 'Bad endpoint "nonsense:1"' in err


# -- fens ---------------------------------------------------------------------------


def python_chess_fens(path) -> str:
    lines = []
    with open(path, encoding="utf-8-sig") as fp:
        while (game := chess.pgn.read_game(fp)) is not None:
            board = game.board()
            lines.append(board.fen(en_passant="fen"))
            for move in game.mainline_moves():
                board.push(move)
                lines.append(board.fen(en_passant="fen"))
    return "".join(line + "\n" for line in lines)


def test_fens_matches_python_chess(capsys, shared_pgn):
    path = shared_pgn / "kasparov-deep-blue-1997.pgn"
    code, out, err = run(capsys, "fens", str(path))
    assert (code, err) == (0, "")
    assert out == python_chess_fens(path)


def test_fens_on_every_shared_file(capsys, shared_pgn):
    paths = sorted(str(p) for p in shared_pgn.glob("*.pgn"))
    code, out, err = run(capsys, "fens", *paths)
    assert (code, err) == (0, "")
    assert len(out.splitlines()) > 35000 + 546


def test_fens_stdin_and_bad_game(capsys, monkeypatch):
    pgn = '[White "a"]\n1. e4 e5 *\n\n[White "b"]\n1. d4 d5 2. Qh5 *\n\n[White "c"]\n1. c4 *\n'
    set_stdin(monkeypatch, pgn)
    code, out, err = run(capsys, "fens", "-")
    assert code == 1
    assert out.splitlines()[0] == STARTING_FEN and len(out.splitlines()) == 3 + 2
    assert err == '<stdin>: Game 2, ply 3 ("Qh5"): Illegal move: the queen on d1 cannot reach h5.\n'
    set_stdin(monkeypatch, pgn)
    code, _, err = run(capsys, "fens", "--lang", "fr", "-")
    assert code == 1
    assert err == "<stdin>: Partie 2, demi-coup 3 («\u202fQh5\u202f»)\u202f: Coup illégal\u202f: la dame en d1 ne peut pas atteindre h5.\n"


def test_fens_missing_file(capsys, tmp_path):
    good = tmp_path / "g.pgn"
    good.write_text("1. e4 *\n")
    code, out, err = run(capsys, "fens", str(tmp_path / "none.pgn"), str(good))
    assert code == 1
    assert out == STARTING_FEN + "\n" + AFTER_E4 + "\n"
    assert err.startswith("cannot read ")
    assert run(capsys, "fens", "--lang", "fr", str(tmp_path / "none.pgn"))[2].startswith("impossible de lire ")


def test_fens_output_directory(capsys, shared_pgn, tmp_path):
    out_dir = tmp_path / "out"
    code, out, err = run(capsys, "fens", "-o", str(out_dir), str(shared_pgn / "kasparov-deep-blue-1997.pgn"))
    assert (code, out, err) == (0, "", "")
    files = sorted(p.name for p in out_dir.iterdir())
    assert len(files) == 6
    assert files[0] == "kasparov-deep-blue-1997-0001-Garry_Kasparov-Deep_Blue_Computer.fen"
    from ficsfen import fenfile

    positions = fenfile.read(out_dir / files[0])
    assert positions[0].fen() == STARTING_FEN and len(positions) == 90


def test_progress_bar_only_on_a_terminal():
    class Tty(io.StringIO):
        def isatty(self):
            return True

    stream = Tty()
    bar = cli._Progress(stream, "x.pgn", minimum=1)
    bar.start(4)
    for i in range(1, 5):
        bar.update(i)
    bar.finish()
    text = stream.getvalue()
    assert "x.pgn [" in text and "4/4" in text and text.endswith("\r\x1b[K")


def test_python_dash_m_runs_the_same_cli():
    env = {k: v for k, v in os.environ.items() if k not in ("LC_ALL", "LC_MESSAGES", "LANG")}
    env["PYTHONPATH"] = str(REPO)
    proc = subprocess.run(
        [sys.executable, "-m", "ficsfen", "check", "--lang", "fr", BAD_CASTLING],
        capture_output=True, text=True, env=env, cwd=REPO,
    )
    assert proc.returncode == 1 and proc.stderr.startswith("FEN invalide")
    proc = subprocess.run(
        [sys.executable, "-m", "ficsfen", "fens", "-"],
        input="1. e4 e5 2. Ke3 *", capture_output=True, text=True, env=env, cwd=REPO,
    )
    assert proc.returncode == 1 and "Game 1, ply 3" in proc.stderr and "Traceback" not in proc.stderr


def test_make_service_raises_one_localized_endpoint_error():
    from twisted.internet.testing import MemoryReactorClock

    from ficsfen.server.config import Config
    from ficsfen.i18n import LocalizedError
    from ficsfen.server.serve import EndpointError, make_service

    with pytest.raises(EndpointError) as info:
        make_service(Config(listen=("nonsense:1",)), reactor=MemoryReactorClock())
    assert isinstance(info.value, LocalizedError) and info.value.endpoint == "nonsense:1"
    assert info.value.render("en").startswith('Bad endpoint "nonsense:1": ')
    assert info.value.render("fr") != info.value.render("en")
