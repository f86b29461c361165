"""Moves per second with commit-before-announce: the PostgreSQL store beside SQLite.

    python bench/store_postgres.py [--games 500] [--moves 40] [--synchronous full normal]

Starts a throw-away PostgreSQL server on loopback
(:class:`ficsfen.server.store.pg_testing.TemporaryPostgres`, ``durable``:
``fsync`` on, as a real server runs) and runs ``bench/store_writes.py``'s
closed loop on both stores in the same run: ``--games`` games each write a
move, and write the next as soon as the previous one is acknowledged (its
Deferred fired, i.e. committed), until every game has ``--moves`` plies.
Per store and ``synchronous`` mode (PostgreSQL: ``synchronous_commit`` on
for ``full``, off for ``normal``) it prints moves per second, the reactor
thread's and the writer thread's CPU per move, the database server's CPU
per move (the PostgreSQL processes' user and system time, from ``/proc``),
moves per commit and the acknowledgement latency (p50, p99).  Nothing
here asserts a time.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
for where in (ROOT, ROOT / "bench"):
    if str(where) not in sys.path:
        sys.path.insert(0, str(where))

from store_writes import run_mode  # noqa: E402

from ficsfen.server.store.pg_testing import TemporaryPostgres  # noqa: E402


def _server_cpu(server: TemporaryPostgres) -> float:
    """CPU seconds used so far by the PostgreSQL server's processes (postmaster and children)."""
    master = int((server.data / "postmaster.pid").read_text().split()[0])
    ticks = os.sysconf("SC_CLK_TCK")
    total = 0
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            fields = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(entry) == master:  # utime, stime, and those of the children it reaped
            total += sum(int(f) for f in fields[11:15])
        elif int(fields[1]) == master:  # fields[1]: the parent's pid; utime, stime
            total += int(fields[11]) + int(fields[12])
    return total / ticks


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=500, help="concurrent games (default 500)")
    parser.add_argument("--moves", type=int, default=40, help="plies per game (default 40)")
    parser.add_argument("--synchronous", nargs="+", default=["full", "normal"],
                        choices=["full", "normal"], help="modes to run, in order")
    parser.add_argument("--json", action="store_true", help="print one JSON object per run")
    args = parser.parse_args(argv)
    from twisted.internet import reactor

    from ficsfen.server.store.postgres import PostgresStore

    server = TemporaryPostgres(durable=True)
    server.start()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            for mode in args.synchronous:
                for kind in ("sqlite", "postgresql"):
                    store = None
                    cpu0 = 0.0
                    if kind == "postgresql":
                        store = PostgresStore.open(server.new_database(), reactor=reactor,
                                                   synchronous=mode)
                        cpu0 = _server_cpu(server)
                    figures = run_mode(Path(tmp), games=args.games, moves=args.moves,
                                       synchronous=mode, store=store)
                    figures["store"] = kind
                    if kind == "postgresql":
                        figures["database_cpu_us_per_move"] = (
                            (_server_cpu(server) - cpu0) / figures["moves"] * 1e6)
                    if args.json:
                        print(json.dumps(figures), flush=True)
                        continue
                    extra = (f", database CPU {figures['database_cpu_us_per_move']:.1f} us/move"
                             if kind == "postgresql" else "")
                    print(f"{kind:10} synchronous={mode} games={figures['games']} "
                          f"moves={figures['moves']}: {figures['moves_per_s']:,.0f} moves/s, "
                          f"reactor CPU {figures['reactor_cpu_us_per_move']:.1f} us/move, "
                          f"writer CPU {figures['writer_cpu_us_per_move']:.1f} us/move"
                          f"{extra}, {figures['moves_per_commit']:.1f} moves/commit, "
                          f"ack p50 {figures['ack_p50_ms']:.2f} ms "
                          f"p99 {figures['ack_p99_ms']:.2f} ms", flush=True)
    finally:
        server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
