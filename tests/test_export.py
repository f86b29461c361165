"""``ficsfen games export``: stored games as PGN that replays to the FENs the store recorded.

Games are written into a real store through its API (FENs made by the
tracker, as the server makes them), exported, and replayed both by
``ficsfen fens`` and by python-chess, whose ``fen(en_passant="fen")`` follows
the same en passant rule as ours (the square after every double step).
"""

from __future__ import annotations

import io
import os
import random
import subprocess
import sys

import chess
import chess.pgn
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from conftest import REPO
from ficsfen.fen import STARTING_FEN
from ficsfen.server.export import clock_comment, game_pgn, write_games
from ficsfen.server.store import EndCode, GameEnd, GameStart, MoveRecord, SQLiteStore, StoredGame
from ficsfen.server.store.testing import private_reactor, wait_for
from ficsfen.tracker import Tracker

TIMEOUT = 120
T0 = 1_700_000_000.0

EN_PASSANT_GAME = ["e4", "a6", "e5", "d5", "exd6", "Qxd6", "Nf3", "Qe6+", "Be2", "Qxe2#"]
SETUP_FEN = "r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 3 20"
SETUP_MOVES = ["O-O-O", "O-O", "Rd2", "Rf7", "Rg2+"]
EP_START = "rnbqkbnr/ppp1pppp/8/3pP3/8/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 3"


def ficsfen(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("LANG", "LC_ALL", "LC_MESSAGES")}
    env.update(PYTHONPATH=str(REPO), LC_ALL="C")
    return subprocess.run([sys.executable, "-m", "ficsfen", *args], cwd=REPO, env=env,
                          input=stdin, capture_output=True, text=True, timeout=TIMEOUT)


class Store:
    def __init__(self, path):
        self.reactor = private_reactor()
        self.store = SQLiteStore.open(path, reactor=self.reactor, synchronous="normal")
        self.when = T0

    def record(self, white, black, sans, *, fen=STARTING_FEN, result="1-0",
               reason="bob resigns", code=EndCode.RESIGNATION, seconds=300, increment=2):
        tracker = Tracker(fen)
        shown = [fen]
        game_id, _ = self.store.start_game(GameStart(white, black, seconds, increment,
                                                     self.when, fen))  # writes commit in order
        clocks = [seconds * 1000, seconds * 1000]
        for i, san in enumerate(sans, 1):
            ply = tracker.push(san)
            took = 1700 + 13 * i  # milliseconds are kept, not rounded to the second
            clocks[0 if ply.color else 1] += increment * 1000 - took
            shown.append(ply.fen)
            self.store.add_move(game_id, MoveRecord(i, ply.san, ply.uci, clocks[0], clocks[1],
                                                    took))
        SHOWN[fen, tuple(p.san for p in tracker.history)] = shown
        self.when += 900
        wait_for(self.reactor, self.store.end_game(game_id, GameEnd(result, reason, code,
                                                                     self.when)))
        return self.store.get_game(game_id)

    def close(self):
        wait_for(self.reactor, self.store.close())


@pytest.fixture
def store(tmp_path):
    s = Store(tmp_path / "data.sqlite3")
    yield s
    s.close()


def recorded(store) -> list[StoredGame]:
    return [
        store.record("alice", "bob", EN_PASSANT_GAME, result="0-1", reason="alice checkmated",
                     code=EndCode.MATE),
        store.record("bob", "carol", SETUP_MOVES, fen=SETUP_FEN, result="1/2-1/2",
                     reason="Game drawn by mutual agreement", code=EndCode.AGREED),
        store.record("carol", "alice", ["exd6", "e6", "dxc7"], fen=EP_START, seconds=0,
                     increment=0),  # untimed: no clocks
    ]


# The FENs the server showed for each recorded game (its tracker's, at each
# ply): the store keeps the moves, not the positions.
SHOWN: dict[tuple[str, tuple[str, ...]], list[str]] = {}


def expected_fens(game: StoredGame) -> list[str]:
    shown = SHOWN[game.start.fen, tuple(m.san for m in game.moves)]
    assert len(shown) == len(game.moves) + 1
    return shown


def check_with_python_chess(pgn: str, games: list[StoredGame]) -> None:
    stream = io.StringIO(pgn)
    for game in games:
        parsed = chess.pgn.read_game(stream)
        assert parsed is not None and not parsed.errors, parsed.errors if parsed else None
        board = parsed.board()
        assert board.fen(en_passant="fen") == game.start.fen
        fens = [board.fen(en_passant="fen")]
        timed = game.start.initial_seconds or game.start.increment_seconds
        for node, move in zip(parsed.mainline(), game.moves):
            mover_ms = move.white_ms if board.turn == chess.WHITE else move.black_ms
            board.push(node.move)
            fens.append(board.fen(en_passant="fen"))
            if timed:
                assert node.clock() == pytest.approx(max(mover_ms, 0) / 1000, abs=1e-6)
            else:
                assert node.clock() is None
        assert fens == expected_fens(game)
        assert parsed.headers["Result"] == game.end.result
        assert parsed.headers["White"] == game.start.white
    assert chess.pgn.read_game(stream) is None


def test_export_replays_to_the_stored_fens_with_python_chess(store):
    games = recorded(store)
    out = io.StringIO()
    assert write_games(store.store.finished_games(), out) == 3
    check_with_python_chess(out.getvalue(), games)


def test_export_tags(store):
    mate, setup, untimed = recorded(store)
    text = game_pgn(setup, site="chess.example.org")
    headers = chess.pgn.read_headers(io.StringIO(text))
    assert dict(headers) == {
        "Event": "chess.example.org unrated blitz game", "Site": "chess.example.org",
        "Date": "2023.11.14", "Round": "-", "White": "bob", "Black": "carol",
        "Result": "1/2-1/2", "TimeControl": "300+2", "UTCDate": "2023.11.14",
        "UTCTime": "22:28:20", "SetUp": "1", "FEN": SETUP_FEN, "Termination": "normal"}
    assert "SetUp" not in game_pgn(mate) and '[TimeControl "-"]' in game_pgn(untimed)
    # a black move after a comment carries its number, the reason ends the movetext
    assert game_pgn(setup).split("\n\n")[1].startswith("20... O-O-O {[%clk 0:05:00.287]} 21. O-O")
    assert game_pgn(mate).rstrip().endswith("{alice checkmated} 0-1")
    assert all(len(line) <= 79 for line in game_pgn(mate).splitlines())


@pytest.mark.slow
def test_games_export_command_and_ficsfen_fens(store, tmp_path):
    """The command line, beside a store held open as a running server holds it."""
    games = recorded(store)
    data = str(tmp_path / "data.sqlite3")
    target = tmp_path / "games.pgn"
    done = ficsfen("games", "export", "--data", data, "-o", str(target))
    assert done.returncode == 0, done.stderr
    assert done.stderr.strip() == f"3 games written to {target}."
    check_with_python_chess(target.read_text(encoding="utf-8"), games)
    fens = ficsfen("fens", str(target))
    assert fens.returncode == 0, fens.stderr
    assert fens.stdout.splitlines() == [f for g in games for f in expected_fens(g)]
    # one player's games, to standard output
    only = ficsfen("games", "export", "--data", data, "--player", "CAROL")
    assert only.returncode == 0, only.stderr
    check_with_python_chess(only.stdout, games[1:])


@pytest.mark.slow
def test_games_export_errors(tmp_path):
    missing = ficsfen("games", "export", "--data", str(tmp_path / "none.sqlite3"))
    assert missing.returncode == 1
    assert "there is no data file here yet" in missing.stderr
    assert not (tmp_path / "none.sqlite3").exists()  # not created by an export
    french = ficsfen("--lang", "fr", "games", "export", "--data", str(tmp_path / "x.sqlite3"))
    assert french.returncode == 1 and "il n’y a pas encore de fichier de données" in french.stderr
    assert ficsfen("games", "frob").returncode == 2
    corrupt = tmp_path / "bad.sqlite3"
    corrupt.write_bytes(b"this is not a database" * 100)
    bad = ficsfen("games", "export", "--data", str(corrupt))
    assert bad.returncode == 1 and "Traceback" not in bad.stderr
    assert "not a ficsfen data file" in bad.stderr


@given(st.integers(min_value=0, max_value=24 * 3_600_000))
def test_clock_comments_read_back_exactly(ms):
    game = chess.pgn.read_game(io.StringIO(f"1. e4 {{{clock_comment(ms)}}} *"))
    assert round(game.next().clock() * 1000) == ms


# Positions to start random games from: the usual one, a set-up one, an en passant one.
_STARTS = [STARTING_FEN, SETUP_FEN, EP_START, "8/2p5/8/1P6/8/8/8/k1K5 b - - 0 40"]


@pytest.mark.slow
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2**32 - 1), start=st.sampled_from(_STARTS),
       length=st.integers(0, 60))
def test_random_stored_games_export_and_replay(seed, start, length):
    """Any legal game, from any start: its PGN replays to its stored FENs (python-chess)."""
    rng = random.Random(seed)
    board = chess.Board(start)
    sans = []
    while len(sans) < length and not board.is_game_over():
        move = rng.choice(list(board.legal_moves))
        sans.append(board.san(move))
        board.push(move)
    tracker = Tracker(start)
    moves = []
    shown = [start]
    for i, san in enumerate(sans, 1):
        ply = tracker.push(san)
        shown.append(ply.fen)
        moves.append(MoveRecord(i, ply.san, ply.uci, rng.randrange(-500, 900_000),
                                rng.randrange(0, 900_000), rng.randrange(0, 60_000)))
    SHOWN[start, tuple(p.san for p in tracker.history)] = shown
    game = StoredGame(1, GameStart("alice", "bob", 300, 0, T0, start), "finished", None,
                      GameEnd("1/2-1/2", "Game drawn by mutual agreement", EndCode.AGREED,
                              T0 + 60), tuple(moves))
    check_with_python_chess(game_pgn(game), [game])
