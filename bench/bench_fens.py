"""PGN to FEN-per-ply: ``ficsfen fens`` against the python-chess way, side by side.

    python bench/bench_fens.py [FILE.pgn] [--rounds N]

Both sides read the same PGN text from memory and produce the initial FEN
then the strict FEN (en passant square after every double push) after every
ply.  python-chess: ``chess.pgn.read_game`` + replay of the main line +
``board.fen(en_passant="fen")`` per ply.  ficsfen: what ``ficsfen fens``
does (``ficsfen.cli.write_fens`` into an in-memory sink).  The outputs are
compared for equality; rounds alternate between the two and the best round
of each is reported, in µs per ply, with the ratio (machines are noisy, the
ratio less so).
"""

from __future__ import annotations

import argparse
import io
import sys
import time
from pathlib import Path

import chess
import chess.pgn

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from ficsfen.cli import write_fens  # noqa: E402
from ficsfen.pgn import decode  # noqa: E402
from ficsfen.tracker import _ROW_CACHE  # noqa: E402

DEFAULT = ROOT.parent / "shared" / "data" / "pgn" / "lichess-2025-05-438games.pgn"


def python_chess_fens(text: str, sink: io.StringIO) -> int:
    """The python-chess way; returns the number of plies."""
    stream = io.StringIO(text)
    plies = 0
    write = sink.write
    while True:
        game = chess.pgn.read_game(stream)
        if game is None:
            return plies
        board = game.board()
        write(board.fen(en_passant="fen") + "\n")
        for move in game.mainline_moves():
            board.push(move)
            write(board.fen(en_passant="fen") + "\n")
            plies += 1


def ficsfen_fens(text: str, sink: io.StringIO) -> int:
    """What ``ficsfen fens`` does; returns the number of plies."""
    _ROW_CACHE.clear()  # every round starts cold, like a fresh ``ficsfen fens``
    plies, bad = write_fens(text, sink, source="bench")
    assert not bad
    return plies


def interleaved(fns, text: str, rounds: int) -> list[tuple[float, int, str]]:
    """Best time of each function over ``rounds``, the rounds alternating so
    that load on a shared machine hits both sides alike."""
    best = [(float("inf"), 0, "")] * len(fns)
    for _ in range(rounds):
        for i, fn in enumerate(fns):
            sink = io.StringIO()
            start = time.perf_counter()
            plies = fn(text, sink)
            elapsed = time.perf_counter() - start
            if elapsed < best[i][0]:
                best[i] = (elapsed, plies, sink.getvalue())
    return best


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pgn", nargs="?", type=Path, default=DEFAULT)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args(argv)
    if not args.pgn.exists():
        print(f"no such file: {args.pgn} (the shared test data is not next to this checkout)")
        return 2
    text = decode(args.pgn.read_bytes())
    (theirs_t, theirs_plies, theirs_out), (ours_t, ours_plies, ours_out) = interleaved(
        [python_chess_fens, ficsfen_fens], text, args.rounds
    )
    same = theirs_out == ours_out
    print(f"file: {args.pgn.name}, {ours_plies} plies, best of {args.rounds} rounds")
    print(f"identical output: {same}")
    print(f"python-chess : {theirs_t / theirs_plies * 1e6:8.2f} µs/ply  ({theirs_t:.3f} s)")
    print(f"ficsfen fens : {ours_t / ours_plies * 1e6:8.2f} µs/ply  ({ours_t:.3f} s)")
    print(f"ratio        : {theirs_t / ours_t:8.2f}x faster")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
