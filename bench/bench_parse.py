"""FEN parse + validate: ``ficsfen.fen.parse`` against ``chess.Board(fen).status()``.

    python bench/bench_parse.py [FILE.pgn] [--rounds N] [--limit N]

The records are every strict FEN (en passant square after every double push)
of the games in the PGN file, collected once by replaying them with
python-chess, plus the same records with one field broken, so that refusals
are timed too.  Both sides see the same lists in the same run.  Before timing,
their verdicts are compared record by record.  No result is cached on either
side.

Each round times, in process CPU time (after a ``gc.collect()``), one pass
per side over the valid records and one over the invalid ones, the two sides
back to back (the order alternating from round to round) so that load from
other work on a shared machine hits both alike.  Each round gives a ratio
per class; the result is the median over the rounds, with the range.

The "all" row is not a third measurement: it is the same round's times pooled,
(python-chess valid + invalid) / (ficsfen valid + invalid).  That is the
mean of the two class ratios weighted by ficsfen's share of its own time in
each class, so in every round it lies between them; it is the speed-up on a
stream with this mix of valid and invalid records.
"""

from __future__ import annotations

import argparse
import gc
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

from ficsfen.fen import FenError, parse  # noqa: E402

DEFAULT = ROOT.parent / "shared" / "data" / "pgn" / "lichess-2025-05-438games.pgn"


def collect(path: Path, limit: int | None) -> list[str]:
    """The strict FEN of every position of every game in ``path``."""
    records: list[str] = []
    with path.open(encoding="utf-8-sig", errors="replace") as handle:
        while limit is None or len(records) < limit:
            game = chess.pgn.read_game(handle)
            if game is None:
                break
            board = game.board()
            records.append(board.fen(en_passant="fen"))
            for move in game.mainline_moves():
                board.push(move)
                records.append(board.fen(en_passant="fen"))
    return records[:limit] if limit else records


def broken(records: list[str]) -> list[str]:
    """Invalid variants that python-chess refuses too: every 20th record, one field broken."""
    out = []
    for i, record in enumerate(records[::20]):
        fields = record.split(" ")
        if i % 2:
            fields[3] = "e3" if fields[1] == "w" else "e6"  # en passant on the wrong rank
        else:
            fields[0] += "/8"  # a ninth rank
        out.append(" ".join(fields))
    return out


def ficsfen_verdict(record: str) -> bool:
    try:
        parse(record)
    except FenError:
        return False
    return True


def python_chess_verdict(record: str) -> bool:
    try:
        return chess.Board(record).status() == chess.STATUS_VALID
    except ValueError:
        return False


def run_ficsfen(records: list[str]) -> None:
    for record in records:
        try:
            parse(record)
        except FenError:
            pass


def run_python_chess(records: list[str]) -> None:
    Board = chess.Board
    for record in records:
        try:
            Board(record).status()
        except ValueError:
            pass


def timed(fn: Callable[[list[str]], None], records: list[str]) -> float:
    # CPU time of this process: time spent waiting for a core while other jobs
    # run is left out, and both sides are measured the same way.
    gc.collect()  # the other side's garbage is not collected on this side's time
    start = time.process_time()
    fn(records)
    return time.process_time() - start


@dataclass(frozen=True)
class Round:
    """CPU seconds of one round: python-chess and ficsfen, per class of records."""

    theirs_valid: float
    ours_valid: float
    theirs_invalid: float
    ours_invalid: float

    @property
    def valid(self) -> float:
        return self.theirs_valid / self.ours_valid

    @property
    def invalid(self) -> float:
        return self.theirs_invalid / self.ours_invalid

    @property
    def pooled(self) -> float:
        """Total python-chess time over total ficsfen time, both classes together."""
        return (self.theirs_valid + self.theirs_invalid) / (self.ours_valid + self.ours_invalid)

    @property
    def valid_weight(self) -> float:
        """ficsfen's share of its time spent on valid records: the weight of the
        valid ratio in the pooled one (``pooled = w * valid + (1 - w) * invalid``)."""
        return self.ours_valid / (self.ours_valid + self.ours_invalid)


def paired_rounds(valid: list[str], invalid: list[str], rounds: int) -> list[Round]:
    out = []
    for number in range(rounds):
        times: dict[tuple[str, str], float] = {}
        for name, records in (("valid", valid), ("invalid", invalid)):
            sides = [("theirs", run_python_chess), ("ours", run_ficsfen)]
            if number % 2:
                sides.reverse()
            for side, fn in sides:
                times[side, name] = timed(fn, records)
        out.append(Round(times["theirs", "valid"], times["ours", "valid"],
                         times["theirs", "invalid"], times["ours", "invalid"]))
    return out


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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pgn", nargs="?", type=Path, default=DEFAULT)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--limit", type=int, default=None, help="use only the first N records")
    args = parser.parse_args(argv)
    if not args.pgn.is_file():
        print(f"no such file: {args.pgn}", file=sys.stderr)
        return 2
    if args.rounds < 1:
        parser.error("--rounds must be at least 1")

    valid = collect(args.pgn, args.limit)
    invalid = broken(valid)
    if not invalid:
        print(f"{args.pgn.name}: too few records ({len(valid)})", file=sys.stderr)
        return 2
    disagree = [r for r in valid + invalid if ficsfen_verdict(r) != python_chess_verdict(r)]
    refused = sum(not ficsfen_verdict(r) for r in valid)

    print(f"{args.pgn.name}: {len(valid)} valid records, {len(invalid)} broken ones; "
          f"{args.rounds} rounds (process CPU time, order alternating)")
    print(f"verdicts: {len(disagree)} disagreement(s); ficsfen refused {refused} of the valid")
    print()
    rounds = paired_rounds(valid, invalid, args.rounds)

    print(f"{'round':<7}{'valid':>8}{'invalid':>9}{'all':>8}{'w(valid)':>10}")
    between = True
    for number, r in enumerate(rounds, 1):
        low, high = sorted((r.valid, r.invalid))
        between = between and low <= r.pooled <= high
        print(f"{number:<7}{r.valid:>7.2f}x{r.invalid:>8.2f}x{r.pooled:>7.2f}x{r.valid_weight:>10.3f}")
    print()

    counts = {"valid": len(valid), "invalid": len(invalid), "all": len(valid) + len(invalid)}
    ours = {"valid": [r.ours_valid for r in rounds], "invalid": [r.ours_invalid for r in rounds],
            "all": [r.ours_valid + r.ours_invalid for r in rounds]}
    theirs = {"valid": [r.theirs_valid for r in rounds], "invalid": [r.theirs_invalid for r in rounds],
              "all": [r.theirs_valid + r.theirs_invalid for r in rounds]}
    ratios = {"valid": [r.valid for r in rounds], "invalid": [r.invalid for r in rounds],
              "all": [r.pooled for r in rounds]}
    print(f"{'records':<9}{'count':>7}{'ficsfen µs':>12}{'python-chess µs':>17}"
          f"{'ratio':>8}{'min':>7}{'max':>7}{'spread':>8}")
    for name, count in counts.items():
        a = statistics.median(ours[name]) / count * 1e6
        b = statistics.median(theirs[name]) / count * 1e6
        ratio = Spread.of(ratios[name])
        print(f"{name:<9}{count:>7}{a:>12.2f}{b:>17.2f}{ratio.median:>7.2f}x{ratio.low:>6.2f}x"
              f"{ratio.high:>6.2f}x{ratio.width:>8.0%}")
    print()
    print("µs: median per record over the rounds; ratio: median of the per-round ratios.")
    print("all = pooled: (python-chess valid + invalid) / (ficsfen valid + invalid) in the same round,")
    print(f"      w(valid) * valid + (1 - w(valid)) * invalid; between the two in every round: {between}")
    for record in disagree[:5]:
        print("disagree:", record)
    return 1 if disagree or refused or not between else 0


if __name__ == "__main__":
    sys.exit(main())
