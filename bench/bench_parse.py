"""FEN parse + validate: ``ficsfen.fen.parse`` against ``chess.Board(fen).status()``.

    python bench/bench_parse.py [FILE.pgn] [--rounds N] [--limit N]

The records are every strict FEN (en passant square after every double push)
of the games in the PGN file, collected once by replaying them with
python-chess, plus the same records with one field broken, so that refusals
are timed too.  Both sides see the same list in the same run.  Before timing,
their verdicts are compared record by record.  Each round times one pass over
the whole list per side, alternating; the best round of each is reported in
CPU µs per record, with the ratio (machines are noisy, the ratio less so).
No result is cached on either side.
"""

from __future__ import annotations

import argparse
import sys
import time
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


def timed(fn, records: list[str]) -> float:
    # CPU time of this process: other jobs on a shared machine distort it less
    # than wall-clock time, and both sides are measured the same way.
    start = time.process_time()
    fn(records)
    return time.process_time() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pgn", nargs="?", type=Path, default=DEFAULT)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--limit", type=int, default=None, help="use only the first N records")
    args = parser.parse_args(argv)
    if not args.pgn.is_file():
        print(f"no such file: {args.pgn}", file=sys.stderr)
        return 2

    valid = collect(args.pgn, args.limit)
    invalid = broken(valid)
    disagree = [r for r in valid + invalid if ficsfen_verdict(r) != python_chess_verdict(r)]
    refused = sum(not ficsfen_verdict(r) for r in valid)

    sets = [("valid", valid), ("invalid", invalid), ("all", valid + invalid)]
    print(f"{args.pgn.name}: {len(valid)} valid records, {len(invalid)} broken ones; "
          f"{args.rounds} rounds, best of each")
    print(f"verdicts: {len(disagree)} disagreement(s); ficsfen refused {refused} of the valid")
    print()
    print(f"{'records':<10}{'count':>8}{'ficsfen µs':>13}{'python-chess µs':>18}{'ratio':>8}")
    for name, records in sets:
        ours, theirs = [], []
        for _ in range(args.rounds):
            ours.append(timed(run_ficsfen, records))
            theirs.append(timed(run_python_chess, records))
        a = min(ours) / len(records) * 1e6
        b = min(theirs) / len(records) * 1e6
        print(f"{name:<10}{len(records):>8}{a:>13.2f}{b:>18.2f}{b / a:>7.1f}x")
    for record in disagree[:5]:
        print("disagree:", record)
    return 1 if disagree or refused else 0


if __name__ == "__main__":
    sys.exit(main())
