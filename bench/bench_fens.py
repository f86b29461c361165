"""PGN to FEN-per-ply: ``ficsfen fens`` against python-chess and pgn-extract, side by side.

    python bench/bench_fens.py [FILE.pgn] [--rounds N]
    python bench/bench_fens.py --commands [FILE.pgn] [--copies 4] [--rounds 3] [--jobs 2]

``--commands`` times whole commands, in wall-clock and CPU time, each
round running every side once in a rotating order, on one multi-megabyte
file (by default the two Lichess files of ``../shared/data/pgn`` written
``--copies`` times one after the other, 4.3 MB): ``pgn-extract -Wepd`` (C;
one EPD line per position), a python-chess script (``chess.pgn.read_game``,
replay, ``board.fen(en_passant="fen")`` per ply), ``ficsfen fens`` and
``ficsfen fens -j N``.  It reports each side's median over the rounds and
the ratios of the medians, and checks the outputs: ficsfen's two runs and
python-chess's are identical, and pgn-extract's positions equal ficsfen's
first four fields (EPD has no clocks).  pgn-extract is looked for on PATH
and in /usr/games (Debian's package puts it there); when it is absent the
report says so and gives the other ratios.

Without ``--commands``:

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
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
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

SHARED = ROOT.parent / "shared" / "data" / "pgn"
DEFAULT = SHARED / "lichess-2025-05-438games.pgn"
BIG_PARTS = ("lichess-2025-05-438games.pgn", "lichess-2013-100games.pgn")


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


# -- whole commands -------------------------------------------------------------


def pgn_extract() -> str | None:
    """The pgn-extract program, or ``None`` when it is not installed."""
    return shutil.which("pgn-extract") or shutil.which("pgn-extract", path="/usr/games")


@dataclass(frozen=True)
class Timing:
    wall: float
    cpu: float  # user + system of the command and its children


def timed(command: list[str], stdout: Path) -> Timing:
    """Run ``command`` with its output into ``stdout``; wall and CPU seconds."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    with open(stdout, "wb") as sink:
        start = time.perf_counter()
        subprocess.run(command, stdout=sink, check=True, cwd=ROOT)
        wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return Timing(wall, cpu)


def big_file(folder: Path, copies: int) -> Path:
    """The Lichess files written ``copies`` times one after the other."""
    path = folder / f"lichess-x{copies}.pgn"
    parts = [(SHARED / name).read_bytes() for name in BIG_PARTS]
    with open(path, "wb") as out:
        for _ in range(copies):
            for data in parts:
                out.write(data + b"\n\n")
    return path


def commands(source: Path | None, *, copies: int, rounds: int, jobs: int) -> int:
    """Time whole commands (see the module's docstring); 0 if every output agreed."""
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        if source is None:
            if not all((SHARED / name).is_file() for name in BIG_PARTS):
                print(f"no Lichess files in {SHARED}", file=sys.stderr)
                return 2
            source = big_file(work, copies)
        extract = pgn_extract()
        python = sys.executable
        sides: dict[str, list[str]] = {
            "ficsfen fens": [python, "-m", "ficsfen", "fens", str(source)],
            f"ficsfen fens -j {jobs}": [python, "-m", "ficsfen", "fens", "-j", str(jobs), str(source)],
            "python-chess": [python, str(Path(__file__).resolve()), "--python-chess", str(source)],
        }
        if extract is not None:
            sides["pgn-extract"] = [extract, "-s", "--quiet", "-Wepd", str(source)]
        names = list(sides)
        times: dict[str, list[Timing]] = {name: [] for name in names}
        for number in range(rounds):
            shift = number % len(names)
            for name in names[shift:] + names[:shift]:
                times[name].append(timed(sides[name], work / f"{names.index(name)}.out"))
        outputs = {name: (work / f"{names.index(name)}.out").read_text(encoding="utf-8") for name in names}
        ours = outputs["ficsfen fens"]
        plies = ours.count("\n")
        same = outputs[f"ficsfen fens -j {jobs}"] == ours and outputs["python-chess"] == ours
        if extract is not None:
            theirs = [" ".join(line.split(" ", 4)[:4]) for line in outputs["pgn-extract"].splitlines() if line]
            same = same and theirs == [line.rsplit(" ", 2)[0] for line in ours.splitlines()]
        size = source.stat().st_size
        print(f"file: {source.name}, {size / 1e6:.1f} MB, {plies} positions, {rounds} rounds "
              f"(each side once per round, order rotating); {os.cpu_count()} CPUs")
        print(f"identical output: {same}")
        if extract is None:
            print("pgn-extract: not installed (Debian: apt-get install pgn-extract); its ratios are left out")
        print()
        print(f"{'side':<22}{'wall s (median)':>16}{'min':>8}{'max':>8}{'CPU s (median)':>16}")
        wall = {name: statistics.median(t.wall for t in times[name]) for name in names}
        cpu = {name: statistics.median(t.cpu for t in times[name]) for name in names}
        for name in names:
            walls = [t.wall for t in times[name]]
            print(f"{name:<22}{wall[name]:>16.2f}{min(walls):>8.2f}{max(walls):>8.2f}{cpu[name]:>16.2f}")
        print()
        single, parallel = "ficsfen fens", f"ficsfen fens -j {jobs}"
        if extract is not None:
            print(f"ficsfen fens / pgn-extract (wall)      : {wall[single] / wall['pgn-extract']:.2f}x")
            print(f"ficsfen fens -j {jobs} / pgn-extract (wall) : {wall[parallel] / wall['pgn-extract']:.2f}x")
        print(f"python-chess / ficsfen fens (wall)     : {wall['python-chess'] / wall[single]:.2f}x")
        print(f"python-chess / ficsfen fens -j {jobs} (wall): {wall['python-chess'] / wall[parallel]:.2f}x")
        return 0 if same else 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pgn", nargs="?", type=Path)
    parser.add_argument("--rounds", type=int)
    parser.add_argument("--commands", action="store_true", help="time whole commands beside pgn-extract")
    parser.add_argument("--copies", type=int, default=4, help="with --commands and no FILE: copies of the Lichess files")
    parser.add_argument("--jobs", type=int, default=2, help="with --commands: ficsfen fens -j N")
    parser.add_argument("--python-chess", dest="python_chess", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.python_chess:  # the python-chess side of --commands, FENs to stdout
        text = decode(args.pgn.read_bytes())
        sink = io.StringIO()
        python_chess_fens(text, sink)
        sys.stdout.write(sink.getvalue())
        return 0
    if args.pgn is not None and not args.pgn.is_file():
        print(f"no such file: {args.pgn} (the shared test data is not next to this checkout)", file=sys.stderr)
        return 2
    if args.commands:
        return commands(args.pgn, copies=args.copies, rounds=args.rounds or 3, jobs=args.jobs)
    args.rounds = args.rounds or 7
    args.pgn = args.pgn or DEFAULT
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
