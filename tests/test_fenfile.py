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
