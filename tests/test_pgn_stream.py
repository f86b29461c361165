"""The PGN reader in linear time and streamed; crazyhouse pocket forms; null moves."""

from __future__ import annotations

import io

import chess
import chess.pgn
import chess.variant
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ficsfen import cli
from ficsfen.pgn import PgnError, ScanCount, iter_file, iter_games, read_games
from ficsfen.variants import parse_variant

# -- linear time --------------------------------------------------------------

#: characters examined per character read, and a constant: the bound every input keeps.
#: A match counts twice its characters and 2 more (it takes one at least): 4 per
#: character; text after a brace never closed is searched for "}", then read: 8.
SLOPE, CONSTANT = 8, 8


def examined(text: str) -> tuple[int, int]:
    count = ScanCount()
    for game in iter_games(text, count=count):
        assert game.number >= 1
    return count.characters, count.examined


def test_the_reported_reproducers_are_read_at_once():
    # Each took seconds, doubling with each extra space, under a backtracking pattern.
    for text in ("1. e4" + " " * 24 + "]", "1. e4" + " " * 26 + "}", "[Event \"x\"]\n1. e4" + " " * 26 + "}\n"):
        games = read_games(text)
        assert [g.moves for g in games] == [["e4"]]
        characters, steps = examined(text * 1000)
        assert steps <= SLOPE * characters + CONSTANT


def test_fens_on_the_reproducer_file(tmp_path, capsys):
    path = tmp_path / "stray.pgn"
    path.write_text('[Event "x"]\n1. e4 e5' + " " * 26 + "}\n*\n")  # about 60 bytes
    assert cli.main(["fens", str(path)]) == 0
    assert capsys.readouterr().out.count("\n") == 3


def test_the_count_is_linear_in_long_adversarial_runs():
    n = 50_000
    for text in (" " * n + "]", " " * n + "}", "{" * n, "[" * n, '[a "' * (n // 4), "<a " * (n // 3),
                 "(" * n, "1." * (n // 2), "\\" * n, ";" * n, "$" * n, "{\n" * (n // 2), "<\n" * (n // 2),
                 '[A "\\' * (n // 5), "{ " + "[a \"x\"] }" * (n // 10)):
        characters, steps = examined(text)
        assert characters == len(text)
        assert steps <= SLOPE * characters + CONSTANT, text[:20]


_PIECES = ["[", "]", "{", "}", "(", ")", '"', "\\", ";", "$", "%", ".", "<", ">", "*", "1", "1.", "1-0", "e4",
           "Nf3", " ", "\t", "\n", "\r", "--", "Z0", '[A "', '"]', "{ [%clk 0:01:00] }"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(_PIECES), st.integers(1, 60)), max_size=12))
def test_any_input_is_read_within_a_linear_count(runs):
    # runs of one piece repeated: many blanks before a stray bracket, nested brackets...
    text = "".join(piece * times for piece, times in runs)
    characters, steps = examined(text)
    assert characters == len(text.replace("\r\n", "\n"))
    assert steps <= SLOPE * characters + CONSTANT


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=300))
def test_any_text_is_read_within_a_linear_count(text):
    characters, steps = examined(text)
    assert steps <= SLOPE * characters + CONSTANT


# -- streamed -----------------------------------------------------------------


class Lines:
    """A stream that says how far it was read."""

    def __init__(self, text: str) -> None:
        self.lines = io.StringIO(text).readlines()
        self.read = 0

    def __iter__(self):
        for line in self.lines:
            self.read += 1
            yield line


def test_games_come_one_at_a_time_from_a_stream():
    text = "".join(f'[Round "{i}"]\n\n1. e4 e5 *\n\n' for i in range(1, 101))
    stream = Lines(text)
    games = iter_games(stream)
    first = next(games)
    assert first.headers == {"Round": "1"} and first.moves == ["e4", "e5"]
    assert stream.read < 10  # the first game came before the rest was read
    assert [g.number for g in games] == list(range(2, 101))
    assert stream.read == len(stream.lines)


def test_sources_text_bytes_streams_and_files_agree(tmp_path, shared_pgn):
    path = shared_pgn / "kasparov-deep-blue-1997.pgn"
    data = path.read_bytes()
    expected = [(g.headers, g.moves, g.result) for g in read_games(data.decode("utf-8"))]
    assert len(expected) == 6
    for source in (data, io.BytesIO(data), io.StringIO(data.decode("utf-8")), data.replace(b"\n", b"\r\n"),
                   data.replace(b"\n", b"\r")):
        assert [(g.headers, g.moves, g.result) for g in iter_games(source)] == expected
    assert [(g.headers, g.moves, g.result) for g in iter_file(path)] == expected


def test_lines_in_latin1_among_utf8_and_a_bom():
    data = "\ufeff[White \"Müller\"]\n".encode("utf-8") + '[Black "Jürgen"]\n1. e4 *\n'.encode("latin-1")
    (game,) = iter_games(data)
    assert game.headers == {"White": "Müller", "Black": "Jürgen"}


def test_a_comment_never_closed_is_read_as_movetext_to_the_end():
    games = list(iter_games('1. e4 { open\n1-0\n[Event "b"]\n1. d4 { and { again\n*'))
    assert [(g.moves, g.result) for g in games] == [(["e4"], "1-0"), (["d4"], "*")]
    for game in games:
        with pytest.raises(PgnError) as info:
            game.fens()
        assert info.value.render().endswith("a comment opened with a brace is never closed")


def test_stray_closing_brackets_are_ignored_and_comments_never_leak():
    (game,) = read_games("1. e4 {Nf6 2. Nc3} ] e5 } 2. Nf3 *")
    assert game.moves == ["e4", "e5", "Nf3"]
    assert game.fens()[-1] == "rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2"


def test_fens_with_jobs_keeps_the_input_order(tmp_path, capsys, shared_pgn):
    path = shared_pgn / "lichess-2013-100games.pgn"
    assert cli.main(["fens", str(path)]) == 0
    one = capsys.readouterr().out
    bad = tmp_path / "bad.pgn"
    bad.write_text(path.read_text() + "\n\n1. e4 e5 2. Ke3 *\n")
    assert cli.main(["fens", "-j", "2", str(bad)]) == 1
    out, err = capsys.readouterr()
    assert out == one
    assert err.strip() == f'{bad}: Game 101, ply 3 ("Ke3"): Illegal move: the king on e1 cannot reach e3.'


def test_replayed_in_processes_matches_one_process(shared_pgn):
    from ficsfen.pgnfens import replayed

    games = list(iter_file(shared_pgn / "lichess-2013-100games.pgn"))
    games.append(read_games("1. e4 e5 2. Ke3 *")[0])
    serial = [(g.number, r if isinstance(r, str) else r.render()) for g, r in replayed(games)]
    parallel = [(g.number, r if isinstance(r, str) else r.render())
                for g, r in replayed(games, jobs=2, chunk_plies=500)]
    assert parallel == serial and len(serial) == 101
    assert serial[-1][1] == 'Game 1, ply 3 ("Ke3"): Illegal move: the king on e1 cannot reach e3.'


def test_jobs_must_be_a_whole_number(capsys):
    assert cli.main(["fens", "-j", "-1", "x.pgn"]) == 2
    assert cli.main(["fens", "-j", "two", "x.pgn"]) == 2


# -- null moves ---------------------------------------------------------------


def python_chess(text: str, board_class=chess.Board) -> list[str]:
    game = chess.pgn.read_game(io.StringIO(text))
    assert not game.errors
    board = game.board()
    fens = [board.fen(en_passant="fen")]
    for move in game.mainline_moves():
        board.push(move)
        fens.append(board.fen(en_passant="fen"))
    return fens


@pytest.mark.parametrize("null", ["--", "Z0"])
def test_null_moves_pass_the_turn_as_python_chess_plays_them(null):
    text = f"1. e4 {null} 2. d4 d5 3. {null} Nf6 4. {null} {null} 5. Nc3 *"
    (game,) = read_games(text)
    assert game.fens() == python_chess(text.replace(null, "--"))
    assert game.fens()[2] == "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 1 2"


def test_null_moves_in_chess960_and_crazyhouse():
    text = ('[Variant "Crazyhouse"]\n\n1. e4 d5 2. exd5 -- 3. Nf3 Qxd5 4. -- P@e4 5. Nc3 *')
    (game,) = read_games(text)
    assert game.fens() == python_chess(text)
    text = ('[Variant "Chess960"]\n[FEN "bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w KQkq - 0 1"]\n\n'
            "1. e4 -- 2. d4 e5 3. -- *")
    (game,) = read_games(text)
    assert game.fens() == python_chess(text)


def test_a_null_move_in_check_is_refused_by_name():
    (game,) = read_games("1. e4 f5 2. Qh5+ -- *")
    with pytest.raises(PgnError) as info:
        game.fens()
    assert (info.value.ply, info.value.move_text) == (4, "--")
    assert info.value.render() == 'Game 1, ply 4 ("--"): Illegal move: a null move ("--") cannot be played in check.'
    assert "coup nul" in info.value.render("fr")


# -- crazyhouse pockets -------------------------------------------------------

_START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR"


_HAND = "r1bqkbnr/pppp1ppp/2n5/8/3PP3/8/PPP2PPP/RNBQKB1R"  # White has a pawn in hand, Black a knight


@pytest.mark.parametrize("placement, written", [
    (f"{_START}/", f"{_START}[]"),  # scalachess: an empty ninth rank
    (_START, f"{_START}[]"),  # no brackets and nothing in hand
    (f"{_HAND}/nP", f"{_HAND}[Pn]"),
    (f"{_HAND}nP", f"{_HAND}[Pn]"),
    ("4k3/8/8/8/8/8/8/Q~3K3Pq", "4k3/8/8/8/8/8/8/Q~3K3[Pq]"),
    ("4k3/8/8/8/8/8/8/Q~3K3/Pq", "4k3/8/8/8/8/8/8/Q~3K3[Pq]"),
])
def test_pockets_as_a_ninth_rank_or_without_brackets_are_read(placement, written):
    position = parse_variant(f"{placement} w - - 0 1", "crazyhouse")
    assert position.fen() == f"{written} w - - 0 1"
    board = chess.variant.CrazyhouseBoard(f"{written} w - - 0 1")
    assert board.fen(en_passant="fen") == position.fen()
    if "/" in placement.split("/", 8)[-1] or placement.count("/") == 8:
        # python-chess reads the ninth rank too
        assert chess.variant.CrazyhouseBoard(f"{placement} w - - 0 1").fen() == position.fen()


@pytest.mark.parametrize("placement, code", [
    (f"{_START}/Pk", "holdings-king"),
    (f"{_START}/P1", "holdings-char"),
    (f"{_START}[Pp", "holdings-bracket"),
    (f"{_START}Pp1", "rank-squares"),
])
def test_pockets_that_are_not_pieces_in_hand_are_still_refused(placement, code):
    with pytest.raises(Exception) as info:
        parse_variant(f"{placement} w KQkq - 0 1", "crazyhouse")
    assert info.value.field == 1 and info.value.code.startswith(code.split("-")[0])


LICHESS_FROM_POSITION = f"""[Event "Casual Crazyhouse game"]
[Site "https://lichess.org/abcdefgh"]
[Variant "Crazyhouse"]
[SetUp "1"]
[FEN "{_HAND}/nP w KQkq - 1 5"]
[Result "*"]

5. d5 N@d4 6. dxc6 dxc6 7. P@e5 Nf5 8. exf5 Qxd1+ 9. Kxd1 *
"""


def test_fens_replays_a_lichess_crazyhouse_game_from_position(tmp_path, capsys):
    path = tmp_path / "zh.pgn"
    path.write_text(LICHESS_FROM_POSITION)
    assert cli.main(["fens", str(path)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out == python_chess(LICHESS_FROM_POSITION)
    assert out[0] == f"{_HAND}[Pn] w KQkq - 1 5"
    assert out[-1] == "r1b1kbnr/ppp2ppp/2p5/4PP2/8/8/PPP2PPP/RNBK1B1R[QNNqp] b kq - 0 9"


# -- plain lines: the fast path of the reader -----------------------------------

_PLAIN_PIECES = ["[", "]", "{", "}", "(", ")", '"', "\\", ";", "$", "%", ".", "<", ">", "*", "1", "1.", "1...", "12.",
                 "0.", "5", "..", "e4.", "1-0", "1/2-1/2", "\u00bd-\u00bd", "e4", "Nf3", "O-O", "=Q", "+", "!?", "@",
                 ":", "#", "\x0b", " ", "\t", "--", "Z0", '[A "', '"]', "Event", "{ [%clk 0:01:00] }"]


def _usual_line(line: str) -> tuple[list, int]:
    from ficsfen.pgnlex import _LEX, _line_tokens

    out: list = []
    return out, _line_tokens(line, 0, _LEX, out, None)


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from(_PLAIN_PIECES), max_size=14), st.sampled_from(["\n", ""]))
def test_plain_lines_are_split_as_the_lexer_splits_them(pieces, end):
    from ficsfen.pgnlex import plain_tokens

    line = "".join(pieces) + end
    plain = plain_tokens(line)
    if plain is not None:
        assert (plain, -1) == _usual_line(line)


def test_the_lines_of_real_files_are_plain_and_split_as_the_lexer_splits_them(shared_pgn):
    from ficsfen.pgnlex import lines_of, plain_tokens

    plain = total = 0
    for path in shared_pgn.glob("*.pgn"):
        for line in lines_of(path.read_bytes()):
            total += 1
            tokens = plain_tokens(line)
            if tokens is not None:
                plain += 1
                assert (tokens, -1) == _usual_line(line), line
    assert plain > 0.95 * total
