"""PGN to FEN-per-ply: ``ficsfen fens`` against the python-chess way, side by side.

    python bench/bench_fens.py [FILE.pgn] [--rounds N]

Both sides read the same PGN text from memory and produce the initial FEN
then the strict FEN (en passant square after every double push) after every
ply.  python-chess: ``chess.pgn.read_game`` + replay of the main line +
``board.fen(en_passant="fen")`` per ply.  ficsfen: what ``ficsfen fens``
does (``ficsfen.cli.write_fens`` into an in-memory sink).  The outputs are
compared for equality.

Each round times one pass per side in process CPU time (after a
``gc.collect()``), the two sides back to back (the order alternating from
round to round), so that load from other work on a shared machine hits both
alike.  Each round gives one ratio; the
result is the median of those ratios, with their range.  A single best round
would hide how much the ratio moves.
"""

from __future__ import annotations

import argparse
import gc
import io
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import chess
import chess.pgn

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from ficsfen.cli import write_fens  # noqa: E402
from ficsfen.pgn import decode  # noqa: E402
from ficsfen.fenbuilder import _ROW_CACHE  # noqa: E402

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


@dataclass(frozen=True)
class Spread:
    """Median, extremes and relative spread of one figure over the rounds."""

    median: float
    low: float
    high: float

    @classmethod
    def of(cls, values: list[float]) -> "Spread":
        return cls(statistics.median(values), min(values), max(values))

    @property
    def width(self) -> float:
        """(max - min) / median: how far apart the rounds were."""
        return (self.high - self.low) / self.median

    def __str__(self) -> str:
        return f"{self.median:.2f} (min {self.low:.2f}, max {self.high:.2f}, spread {self.width:.0%})"


Side = Callable[[str, io.StringIO], int]


def paired_rounds(theirs: Side, ours: Side, text: str, rounds: int) -> tuple[list[tuple[float, float]], int, bool]:
    """CPU seconds ``(theirs, ours)`` per round, the plies, and whether every output matched."""
    times: list[tuple[float, float]] = []
    plies = 0
    same = True
    for number in range(rounds):
        order = [(0, theirs), (1, ours)]
        if number % 2:
            order.reverse()
        elapsed = [0.0, 0.0]
        outputs = ["", ""]
        for slot, fn in order:
            sink = io.StringIO()
            gc.collect()  # the other side's garbage is not collected on this side's time
            start = time.process_time()
            plies = fn(text, sink)
            elapsed[slot] = time.process_time() - start
            outputs[slot] = sink.getvalue()
        same = same and outputs[0] == outputs[1]
        times.append((elapsed[0], elapsed[1]))
    return times, plies, same


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pgn", nargs="?", type=Path, default=DEFAULT)
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args(argv)
    if not args.pgn.is_file():
        print(f"no such file: {args.pgn} (the shared test data is not next to this checkout)", file=sys.stderr)
        return 2
    if args.rounds < 1:
        parser.error("--rounds must be at least 1")
    text = decode(args.pgn.read_bytes())
    times, plies, same = paired_rounds(python_chess_fens, ficsfen_fens, text, args.rounds)
    if not plies:
        print(f"{args.pgn.name}: no plies", file=sys.stderr)
        return 2
    per_ply = 1e6 / plies
    print(f"file: {args.pgn.name}, {plies} plies, {args.rounds} rounds (process CPU time, order alternating)")
    print(f"identical output: {same}")
    print()
    print(f"{'round':<7}{'python-chess µs/ply':>21}{'ficsfen µs/ply':>16}{'ratio':>9}")
    for number, (theirs, ours) in enumerate(times, 1):
        print(f"{number:<7}{theirs * per_ply:>21.2f}{ours * per_ply:>16.2f}{theirs / ours:>8.2f}x")
    print()
    print(f"python-chess µs/ply : {Spread.of([t * per_ply for t, _ in times])}")
    print(f"ficsfen fens µs/ply : {Spread.of([o * per_ply for _, o in times])}")
    print(f"ratio (per round)   : {Spread.of([t / o for t, o in times])}  x faster")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
