"""Cost of a move write through the store's writer thread.

    python bench/store_writes.py [--games 500] [--moves 40] [--synchronous full normal]

Runs the real :class:`ficsfen.server.store.SQLiteStore` on a file in a
temporary folder (``--dir`` to choose the disk), under Twisted's reactor, in
the pattern of a busy server: ``--games`` games each write a move, and each
game writes its next move as soon as its previous one is acknowledged (its
Deferred fired), until every game has ``--moves`` plies.  Moves acknowledged
in one reactor turn come back in one turn, so they are written together:
the writer's group commit makes commits far fewer than moves.

Per ``synchronous`` mode it prints moves per second, the reactor thread's
CPU per move (what the server pays on its own thread: queueing the write
and firing its Deferred), the writer thread's CPU per move, the wall time
per move, moves per commit, and the acknowledgement latency (p50, p99).
The same run with ``--games 1`` gives the latency of a lone move (one
commit, one fsync in ``full`` mode, per move).  Nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from ficsfen.server.store import GameStart, MoveRecord, SQLiteStore  # noqa: E402
# runs the reactor as reactor.run does, until one Deferred fired
from ficsfen.server.store.testing import wait_for as drive  # noqa: E402


def run_mode(folder: Path, *, games: int, moves: int, synchronous: str,
             store: Any = None) -> dict:
    """One closed-loop run on a fresh file (or on ``store``, opened under the global
    reactor, which this closes); returns the figures."""
    from twisted.internet import defer, reactor

    if store is None:
        path = folder / f"bench-{synchronous}-{games}.sqlite3"
        store = SQLiteStore.open(path, reactor=reactor, synchronous=synchronous)
    latencies: list[float] = []
    done = defer.Deferred()
    remaining = [games]
    started = [0.0, 0.0, 0.0]  # wall, process CPU, reactor thread CPU

    def play(game_id: int, ply: int) -> None:
        if ply > moves:
            remaining[0] -= 1
            if remaining[0] == 0:
                done.callback(None)
            return
        sent = time.perf_counter()
        move = MoveRecord(ply, "Nf3", "g1f3", 60_000 - ply, 60_000 - ply, 120)
        d = store.add_move(game_id, move)

        def acknowledged(_: object) -> None:
            latencies.append(time.perf_counter() - sent)
            play(game_id, ply + 1)

        d.addCallback(acknowledged)

    starts = [store.start_game(GameStart(f"white{i}", f"black{i}", 60, 0, time.time()))
              for i in range(games)]
    ids = [game_id for game_id, _ in starts]

    def go(_: object) -> defer.Deferred:
        started[:] = [time.perf_counter(), time.process_time(), time.thread_time()]
        commits0 = store.commits
        for game_id in ids:
            play(game_id, 1)
        return done.addCallback(lambda _: store.commits - commits0)

    gate = defer.gatherResults([d for _, d in starts])
    commits = drive(reactor, gate.addCallback(go))
    wall = time.perf_counter() - started[0]
    cpu = time.process_time() - started[1]
    reactor_cpu = time.thread_time() - started[2]
    drive(reactor, store.close())
    n = games * moves
    latencies.sort()
    return {
        "synchronous": synchronous,
        "games": games,
        "moves": n,
        "moves_per_s": n / wall,
        "wall_us_per_move": wall / n * 1e6,
        "reactor_cpu_us_per_move": reactor_cpu / n * 1e6,
        "writer_cpu_us_per_move": (cpu - reactor_cpu) / n * 1e6,
        "commits": commits,
        "moves_per_commit": n / commits if commits else float("nan"),
        "ack_p50_ms": statistics.median(latencies) * 1e3,
        "ack_p99_ms": latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))] * 1e3,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=500, help="concurrent games (default 500)")
    parser.add_argument("--moves", type=int, default=40, help="plies per game (default 40)")
    parser.add_argument("--synchronous", nargs="+", default=["full", "normal"],
                        choices=["full", "normal"], help="modes to run, in order")
    parser.add_argument("--dir", type=Path, default=None,
                        help="folder for the data files (default: a temporary folder)")
    parser.add_argument("--json", action="store_true", help="print one JSON object per mode")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(dir=args.dir) as tmp:
        for mode in args.synchronous:
            figures = run_mode(Path(tmp), games=args.games, moves=args.moves, synchronous=mode)
            if args.json:
                print(json.dumps(figures))
                continue
            print(f"synchronous={mode} games={figures['games']} moves={figures['moves']}: "
                  f"{figures['moves_per_s']:,.0f} moves/s, "
                  f"reactor CPU {figures['reactor_cpu_us_per_move']:.1f} us/move, "
                  f"writer CPU {figures['writer_cpu_us_per_move']:.1f} us/move, "
                  f"wall {figures['wall_us_per_move']:.1f} us/move, "
                  f"{figures['moves_per_commit']:.1f} moves/commit, "
                  f"ack p50 {figures['ack_p50_ms']:.2f} ms p99 {figures['ack_p99_ms']:.2f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
