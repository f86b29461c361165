"""The ``ficsfen`` command line: exit codes 0/1/2, both languages, every subcommand."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import chess.pgn
import pytest

from ficsfen import cli, fensoutput
from ficsfen.fen import STARTING_FEN
from ficsfen.pgn import read_games

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


README_EXAMPLE = "4k3/8/8/8/8/8/4P3/4K3 w - - 5 39"


def test_check_six_arguments_with_dash_fields(capsys):
    # "-" as the castling or en passant field is not "read standard input"
    assert run(capsys, "check", *README_EXAMPLE.split()) == (0, README_EXAMPLE + "\n", "")
    code, out, err = run(capsys, "check", *README_EXAMPLE.split(), "--board")
    assert (code, err) == (0, "") and out.splitlines()[0] == README_EXAMPLE
    assert run(capsys, "check", *AFTER_E4.split())[0] == 0


@pytest.mark.parametrize("argv", [["-", "w"], [STARTING_FEN, "-"]])
def test_a_dash_among_other_arguments_is_a_field(capsys, argv):
    code, out, err = run(capsys, "check", *argv)
    assert (code, out) == (1, "")
    assert err.startswith("Invalid FEN: record: found ")


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


def set_stdin_bytes(monkeypatch, data: bytes):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data), encoding="utf-8"))


def test_check_stdin_takes_what_fens_and_fenfile_take(capsys, monkeypatch):
    # a byte-order mark, CR-only and CRLF line ends, a line of blanks, a stray byte
    data = ("\ufeff" + STARTING_FEN + "\r" + AFTER_E4 + "\r\n   \r\n\t\n"
            + README_EXAMPLE + "\n").encode("utf-8") + b"\xff\n"
    set_stdin_bytes(monkeypatch, data)
    code, out, err = run(capsys, "check", "-")
    assert out == f"{STARTING_FEN}\n{AFTER_E4}\n{README_EXAMPLE}\n"
    assert code == 1 and err.startswith("line 6: record: found 1 field")
    assert len(err.splitlines()) == 1 and "Traceback" not in err
    set_stdin_bytes(monkeypatch, b"\xef\xbb\xbf" + STARTING_FEN.encode() + b"\r")
    assert run(capsys, "check", "-") == (0, STARTING_FEN + "\n", "")


def test_check_stdin_line_numbers_count_only_real_line_ends(capsys, monkeypatch):
    # a form feed or NEL inside a line is that line's error, not a line end
    set_stdin_bytes(monkeypatch, (STARTING_FEN + "\f\n" + "\x85" + STARTING_FEN + "\n").encode("utf-8"))
    code, out, err = run(capsys, "check", "-")
    assert (code, out) == (1, "")
    assert [line.split(":")[0] for line in err.splitlines()] == ["line 1", "line 2"]


def test_check_stdin_read_error_is_not_a_write_error(capsys, monkeypatch):
    class Failing(io.RawIOBase):
        def readable(self):
            return True

        def readinto(self, buffer):
            raise OSError(5, "Input/output error")

    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BufferedReader(Failing()), encoding="utf-8"))
    assert run(capsys, "check", "-") == (1, "", "cannot read -: Input/output error\n")


# -- usage errors -------------------------------------------------------------------


@pytest.mark.parametrize(
    "argv",
    [[], ["check"], ["bogus"], ["fens"], ["check", "--nope", STARTING_FEN], ["--lang", "xx", "check", STARTING_FEN],
     ["--lang"], ["check", "--lang"]],
)
def test_usage_errors_exit_2(capsys, argv):
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == ""
    assert "ficsfen: usage error: " in err
    assert "Traceback" not in err


def test_usage_errors_in_french(capsys):
    code, _, err = run(capsys, "--lang", "fr")
    assert code == 2 and "ficsfen\u202f: erreur d’utilisation\u202f: indiquez une commande" in err
    code, _, err = run(capsys, "--lang", "xx", "check", "x")
    assert code == 2 and 'unknown language "xx"' in err


def test_argparse_messages_in_french(capsys, monkeypatch):
    nnbsp = "\u202f"
    code, out, err = run(capsys, "check", "--lang", "fr")
    assert (code, out) == (2, "")
    assert err.startswith(f"utilisation{nnbsp}: ficsfen check ")
    assert f"ces arguments sont obligatoires{nnbsp}: FEN" in err
    assert "usage:" not in err and "required" not in err
    code, _, err = run(capsys, "check", "--lang", "fr", "--nope", STARTING_FEN)
    assert code == 2 and f"arguments non reconnus{nnbsp}: --nope" in err and "unrecognized" not in err
    code, _, err = run(capsys, "--lang", "fr", "bogus")
    assert code == 2 and f"choix invalide{nnbsp}: 'bogus'" in err and "invalid choice" not in err
    code, _, err = run(capsys, "check", "--lang=fr", "--board", "--lang")
    assert code == 2 and "un argument est attendu" in err
    code, out, _ = run(capsys, "--lang", "fr", "check", "--help")
    assert code == 0
    assert f"arguments positionnels{nnbsp}:" in out and f"\noptions{nnbsp}:" in out
    assert "afficher ce message d’aide et quitter" in out and "show this help" not in out
    # the language also comes from the locale, and English stays English
    monkeypatch.setenv("LANG", "fr_FR.UTF-8")
    assert f"utilisation{nnbsp}:" in run(capsys, "check")[2]
    monkeypatch.delenv("LANG")
    code, _, err = run(capsys, "check")
    assert code == 2 and err.startswith("usage: ficsfen check ")
    assert "the following arguments are required: FEN" in err
    # argparse is left as it was found
    import argparse

    assert argparse.ArgumentParser(prog="p").format_usage() == "usage: p [-h]\n"


def test_lang_option_abbreviated_as_argparse_allows(capsys):
    code, _, err = run(capsys, "--lan", "fr", "check", BAD_CASTLING)
    assert code == 1 and err.startswith("FEN invalide")
    code, _, err = run(capsys, "check", "--l=fr")
    assert code == 2 and "ces arguments sont obligatoires" in err
    # before the command word: "serve" is still found, and speaks French
    code, _, err = run(capsys, "--lan", "fr", "serve", "--config", "/nonexistent.toml")
    assert code == 2 and "/nonexistent.toml\u202f: impossible de lire la configuration" in err


def test_serve_usage_errors_in_french(capsys):
    code, _, err = run(capsys, "--lang", "fr", "serve", "--nope")
    assert code == 2 and "arguments non reconnus\u202f: --nope" in err and "error:" not in err


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


@pytest.mark.slow
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


def test_fens_output_never_replaces_a_file_of_the_same_run(capsys, tmp_path):
    # two inputs named x.pgn, with a game between the same players each
    for folder, moves in (("a", "1. e4 *"), ("b", "1. d4 *")):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "x.pgn").write_text(f'[White "Ann"]\n[Black "Bob"]\n\n{moves}\n')
    (tmp_path / "X.pgn").write_text('[White "Ann"]\n[Black "Bob"]\n\n1. c4 *\n')  # same name but for case
    out_dir = tmp_path / "out"
    inputs = [str(tmp_path / "a" / "x.pgn"), str(tmp_path / "b" / "x.pgn"), str(tmp_path / "X.pgn")]
    assert run(capsys, "fens", "-o", str(out_dir), *inputs) == (0, "", "")
    files = {p.name: p.read_text().splitlines()[1] for p in out_dir.iterdir()}
    assert files == {
        "x-0001-Ann-Bob.fen": AFTER_E4,
        "x-2-0001-Ann-Bob.fen": "rnbqkbnr/pppppppp/8/8/3P4/8/PPP1PPPP/RNBQKBNR b KQkq d3 0 1",
        "X-3-0001-Ann-Bob.fen": "rnbqkbnr/pppppppp/8/8/2P5/8/PP1PPPPP/RNBQKBNR b KQkq c3 0 1",
    }
    # a second run replaces its own files rather than piling up copies
    assert run(capsys, "fens", "-o", str(out_dir), *inputs) == (0, "", "")
    assert len(list(out_dir.iterdir())) == 3
    code, out, _ = run(capsys, "fens", "--help")
    assert code == 0 and "INPUT-2" in out


def test_fens_file_names_keep_the_game_number_when_cut(capsys, tmp_path):
    long = tmp_path / ("g" * 200 + ".pgn")
    long.write_text('[White "' + "W" * 100 + '"]\n1. e4 *\n\n[White "' + "W" * 100 + '"]\n1. d4 *\n')
    out_dir = tmp_path / "out"
    assert run(capsys, "fens", "-o", str(out_dir), str(long)) == (0, "", "")
    names = sorted(p.name for p in out_dir.iterdir())
    assert len(names) == 2 and all(len(n) < 150 for n in names)
    assert ["-0001-" in names[0], "-0002-" in names[1]] == [True, True]


def test_write_fens_alone_also_keeps_names_apart(tmp_path):
    pgn = '[White "a"]\n1. e4 *\n'
    names = fensoutput.FileNames()
    for source in ("p/x.pgn", "q/x.pgn"):
        cli.write_fens(pgn, io.StringIO(), source=source, output=tmp_path, names=names)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["x-0001-a-_.fen", "x-2-0001-a-_.fen"]
    assert cli.game_file_name(read_games(pgn)[0], "dir/y.pgn") == "y-0001-a-_.fen"


def test_fens_reads_cr_only_line_ends(capsys, tmp_path):
    # a ";" comment runs to the end of its line, whichever line end the file uses
    path = tmp_path / "mac.pgn"
    path.write_bytes(b'[White "a"]\r\r1. e4 ; a comment\re5 2. Nf3 *\r\r[White "b"]\r\r1. d4 *\r')
    code, out, err = run(capsys, "fens", str(path))
    assert (code, err) == (0, "")
    assert len(out.splitlines()) == 4 + 2
    assert out.splitlines()[3] == "rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2"


@pytest.mark.slow
@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs Linux's /dev/full")
@pytest.mark.parametrize("argv", [["check", STARTING_FEN], ["fens", "-"]])
def test_a_full_standard_output_is_reported_not_a_traceback(argv):
    env = {k: v for k, v in os.environ.items() if k not in ("LC_ALL", "LC_MESSAGES", "LANG")}
    env["PYTHONPATH"] = str(REPO)
    with open("/dev/full", "w") as full:
        proc = subprocess.run([sys.executable, "-m", "ficsfen", *argv], input="1. e4 *",
                              stdout=full, stderr=subprocess.PIPE, text=True, env=env, cwd=REPO)
    assert proc.returncode == 1
    assert proc.stderr == "cannot write <stdout>: No space left on device\n"


def _run_on_ptys(argv, *, stdout_on_the_terminal: bool, tmp_path) -> tuple[bytes, bytes]:
    """Run the CLI with stderr on a pseudo-terminal; stdout on the same one or in a file."""
    env = {k: v for k, v in os.environ.items() if k not in ("LC_ALL", "LC_MESSAGES", "LANG")}
    env["PYTHONPATH"] = str(REPO)
    master, slave = os.openpty()
    stdout_file = tmp_path / "stdout"
    with open(stdout_file, "wb") as sink:
        proc = subprocess.Popen([sys.executable, "-m", "ficsfen", *argv], stdin=subprocess.DEVNULL,
                                stdout=slave if stdout_on_the_terminal else sink, stderr=slave,
                                env=env, cwd=REPO)
        os.close(slave)
        terminal = b""
        while True:  # read as the child writes, so that it never blocks on a full pty
            try:
                chunk = os.read(master, 65536)
            except OSError:  # EIO: the child closed its end
                break
            if not chunk:
                break
            terminal += chunk
        proc.wait()
    os.close(master)
    assert proc.returncode == 0
    return terminal, stdout_file.read_bytes()


@pytest.mark.slow
def test_progress_bar_not_drawn_among_fens_on_the_terminal(tmp_path):
    games = tmp_path / "many.pgn"
    games.write_text("".join(f'[Round "{i}"]\n1. e4 e5 *\n\n' for i in range(60)))
    terminal, _ = _run_on_ptys(["fens", str(games)], stdout_on_the_terminal=True, tmp_path=tmp_path)
    assert terminal.count(b"e3 0 1") == 60
    assert b"many.pgn [" not in terminal and b"\x1b[K" not in terminal
    # stdout elsewhere: the bar is drawn on the terminal, then wiped
    terminal, stdout = _run_on_ptys(["fens", str(games)], stdout_on_the_terminal=False, tmp_path=tmp_path)
    assert b"many.pgn [" in terminal and b"] 100%" in terminal and terminal.endswith(b"\r\x1b[K")
    assert stdout.count(b"\n") == 180 and b"[" not in stdout
    # with -o nothing goes to stdout, so the bar may share the terminal
    terminal, _ = _run_on_ptys(["fens", "-o", str(tmp_path / "out"), str(games)],
                               stdout_on_the_terminal=True, tmp_path=tmp_path)
    assert b"] 100%" in terminal and len(list((tmp_path / "out").iterdir())) == 60


def test_progress_bar_only_on_a_terminal():
    class Tty(io.StringIO):
        def isatty(self):
            return True

    stream = Tty()
    bar = fensoutput.Progress(stream, "x.pgn", minimum=1)
    bar.start(4)
    for i in range(1, 5):
        bar.update(i)
    bar.finish()
    text = stream.getvalue()
    assert "x.pgn [" in text and "] 100%" in text and text.endswith("\r\x1b[K")
    stream = Tty()
    bar = fensoutput.Progress(stream, "small.pgn")  # under the minimum: nothing drawn
    bar.start(300)
    bar.update(300)
    bar.finish()
    assert stream.getvalue() == ""


@pytest.mark.slow
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
