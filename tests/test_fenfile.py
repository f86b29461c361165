"""``.fen`` files: a tracker's history written out and read back, bad lines reported."""

from __future__ import annotations

import io

import pytest

from ficsfen import fenfile
from ficsfen.fen import STARTING_FEN, FenError
from ficsfen.fenfile import FenFileError, LineError
from ficsfen.tracker import Tracker


def test_write_and_read_a_tracker_game(tmp_path):
    tracker = Tracker()
    for move in "e4 c5 Nf3".split():
        tracker.push(move)
    path = tmp_path / "game.fen"
    fenfile.write(path, tracker)
    lines = path.read_text(encoding="utf-8").splitlines()
    assert lines == [
        STARTING_FEN,
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1",
        "rnbqkbnr/pp1ppppp/8/2p5/4P3/8/PPPP1PPP/RNBQKBNR w KQkq c6 0 2",
        "rnbqkbnr/pp1ppppp/8/2p5/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2",
    ]
    assert [p.fen() for p in fenfile.read(path)] == lines


def test_write_to_a_stream_and_from_records():
    out = io.StringIO()
    fenfile.write(out, [STARTING_FEN, "4k3/8/8/8/8/8/4P3/4K3 w - - 5 39"])
    assert out.getvalue() == STARTING_FEN + "\n4k3/8/8/8/8/8/4P3/4K3 w - - 5 39\n"
    assert fenfile.dumps(Tracker()) == STARTING_FEN + "\n"


def test_every_bad_line_is_reported_with_its_number(tmp_path):
    path = tmp_path / "bad.fen"
    path.write_text(
        "\n".join(
            [
                STARTING_FEN,
                "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w QK - 0 1",
                "",
                "8/8/8/8/8/8/8/8 w - - 0 1",
                "4k3/8/8/8/8/8/4P3/4K3 w - - 5 39",
            ]
        )
        + "\n",
        encoding="utf-8",
    )
    with pytest.raises(FenFileError) as info:
        fenfile.read(path)
    err = info.value
    assert [e.line for e in err.errors] == [2, 4]
    assert all(isinstance(e.error, FenError) for e in err.errors)
    assert err.errors[0].error.field == 3
    text = err.render()
    assert text.splitlines()[0] == f"{path}: 2 bad lines"
    assert text.splitlines()[1] == 'line 2: field 3 (castling): "QK" is out of order; write "KQ"'
    fr = err.render("fr")
    assert fr.splitlines()[0] == f"{path}\u202f: 2 lignes incorrectes"
    assert fr.splitlines()[1].startswith("ligne 2\u202f: champ 3 (roques)\u202f: ")


def test_single_bad_line_and_line_error_render():
    with pytest.raises(FenFileError) as info:
        fenfile.loads("nonsense\n", name="x.fen")
    assert info.value.render().splitlines()[0] == "x.fen: 1 bad line"
    assert isinstance(info.value.errors[0], LineError)
    assert str(info.value.errors[0]).startswith("line 1: ")


def test_crlf_bom_and_blank_lines():
    positions = fenfile.loads("\ufeff" + STARTING_FEN + "\r\n\r\n" + STARTING_FEN + "\r\n")
    assert [p.fen() for p in positions] == [STARTING_FEN, STARTING_FEN]


def test_undecodable_bytes_are_a_line_error(tmp_path):
    path = tmp_path / "latin.fen"
    path.write_bytes(STARTING_FEN.encode() + b"\n\xff\xfe\n")
    with pytest.raises(FenFileError) as info:
        fenfile.read(path)
    assert [e.line for e in info.value.errors] == [2]


def test_cr_only_line_ends_and_lines_of_blanks():
    e4 = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1"
    positions = fenfile.loads(STARTING_FEN + "\r" + e4 + "\r   \r\t\r" + STARTING_FEN + "\r")
    assert [p.fen() for p in positions] == [STARTING_FEN, e4, STARTING_FEN]


@pytest.mark.parametrize("separator", ["\f", "\v", "\x1c", "\x85", "\u2028"])
def test_only_cr_and_lf_end_a_line(separator):
    # str.splitlines() would split here, and number the lines unlike an editor
    with pytest.raises(FenFileError) as info:
        fenfile.loads(STARTING_FEN + separator + STARTING_FEN + "\n" + "nonsense\n")
    assert [e.line for e in info.value.errors] == [1, 2]


def test_records_from_a_stream_of_lines():
    # a stream opened without universal newlines: CR-only ends inside one chunk, a BOM
    stream = io.StringIO("\ufeff" + STARTING_FEN + "\r" + "  \r\n" + "nonsense\r\n", newline="\n")
    records = list(fenfile.iter_records(stream))
    assert [(number, isinstance(result, FenError)) for number, _, result in records] == [
        (1, False), (3, True)]
    assert records[0][1] == STARTING_FEN
