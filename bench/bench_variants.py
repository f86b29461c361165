"""Chess960 and crazyhouse PGN to FEN-per-ply: ``ficsfen fens`` against python-chess, side by side.

    python bench/bench_variants.py [--games N] [--rounds N] [--seed S] [--variant V]

The games are made here, reproducibly: random legal games (``--seed``) played
on python-chess's variant boards (``chess.Board(chess960=True)`` from a random
Chess960 start, ``chess.variant.CrazyhouseBoard``) and written as PGN with the
``Variant`` tag, ``SetUp`` and ``FEN`` tags as lichess exports them.  Random
crazyhouse games drop pieces far more often than people do, so they are a
hard case for both sides.

The two sides and the timing are those of ``bench/bench_fens.py``: the same
PGN text from memory, python-chess's ``chess.pgn.read_game`` + replay +
``board.fen(en_passant="fen")`` per ply against ``ficsfen.cli.write_fens``;
outputs compared for equality; paired rounds in process CPU time, order
alternating, median of the per-round ratios.
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

import chess
import chess.pgn
import chess.variant

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_fens import Spread, ficsfen_fens, paired_rounds, python_chess_fens  # noqa: E402

from ficsfen.variants import chess960_fen  # noqa: E402


def random_game(variant: str, rng: random.Random, plies: int) -> chess.pgn.Game:
    """One random legal game of ``variant`` with its PGN tags."""
    if variant == "chess960":
        board = chess.Board(chess960_fen(rng.randrange(960)), chess960=True)
    else:
        board = chess.variant.CrazyhouseBoard()
    game = chess.pgn.Game.from_board(board)
    node = game
    for _ in range(plies):
        moves = list(board.legal_moves)
        if not moves:
            break
        move = rng.choice(moves)
        node = node.add_variation(move)
        board.push(move)
    game.headers["Variant"] = "Chess960" if variant == "chess960" else "Crazyhouse"
    game.headers["Result"] = board.result()
    return game


def games_text(variant: str, count: int, seed: int, plies: int) -> str:
    rng = random.Random(seed)
    return "\n\n".join(str(random_game(variant, rng, plies)) for _ in range(count)) + "\n"


def run(variant: str, text: str, rounds: int) -> bool:
    times, plies, same = paired_rounds(python_chess_fens, ficsfen_fens, text, rounds)
    per_ply = 1e6 / plies
    print(f"{variant}: {plies} plies, {rounds} rounds (process CPU time, order alternating)")
    print(f"identical output: {same}")
    print(f"{'round':<7}{'python-chess µs/ply':>21}{'ficsfen µs/ply':>16}{'ratio':>9}")
    for number, (theirs, ours) in enumerate(times, 1):
        print(f"{number:<7}{theirs * per_ply:>21.2f}{ours * per_ply:>16.2f}{theirs / ours:>8.2f}x")
    print(f"python-chess µs/ply : {Spread.of([t * per_ply for t, _ in times])}")
    print(f"ficsfen fens µs/ply : {Spread.of([o * per_ply for _, o in times])}")
    print(f"ratio (per round)   : {Spread.of([t / o for t, o in times])}  x faster")
    print()
    return same


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100, help="games per variant")
    parser.add_argument("--plies", type=int, default=120, help="longest game, in plies")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--seed", type=int, default=12)
    parser.add_argument("--variant", choices=("chess960", "crazyhouse", "both"), default="both")
    args = parser.parse_args(argv)
    if args.rounds < 1 or args.games < 1:
        parser.error("--rounds and --games must be at least 1")
    variants = ("chess960", "crazyhouse") if args.variant == "both" else (args.variant,)
    same = True
    for variant in variants:
        same = run(variant, games_text(variant, args.games, args.seed, args.plies), args.rounds) and same
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
