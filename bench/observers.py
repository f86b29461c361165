"""Observer fan-out benchmark: one game watched by many sessions.

The server runs in its own process (``python -m ficsfen serve`` on a free
loopback port).  This script logs in two players and N observers (guests,
``style 12``, ``set showfen 1``, ``observe``), then plays real games from
``../shared/data/pgn`` move by move.  For every move it measures:

* the time from sending the move until the **last** observer has received
  both the ``<12>`` line and the FEN line of the new position;
* the server's CPU time for the move, from ``/proc/PID/task/*/schedstat``
  (nanosecond resolution) read before the move is sent and after the last
  observer has it (``/proc/PID/stat`` utime+stime over the whole run is
  reported too, as a check at clock-tick resolution).

Both figures are compared side by side in one run against the same server
with a single observer (``--baseline``, default 1), so the report gives the
cost a thousand observers add to a move, as a ratio and per observer.

    python bench/observers.py --observers 1000 --games 3

Everything stays on loopback, every wait has a timeout, and the server is
stopped at the end.
"""

from __future__ import annotations

import argparse
import json
import selectors
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from load import (BenchError, Server, cpu_sched_seconds, cpu_ticks_seconds,  # noqa: E402
                  free_port, percentile, raise_fd_limit, rss_kb)

from ficsfen.pgn import read_file  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
DEFAULT_PGN = REPO.parent / "shared" / "data" / "pgn" / "kasparov-deep-blue-1997.pgn"
PROMPT = b"fics% "


class Conn:
    """A non-blocking telnet session: bytes in, a buffer searched for markers."""

    def __init__(self, host: str, port: int) -> None:
        self.sock = socket.create_connection((host, port), timeout=10)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.sock.setblocking(False)
        self.buf = bytearray()

    def send(self, data: bytes) -> None:
        self.sock.setblocking(True)
        try:
            self.sock.sendall(data)
        finally:
            self.sock.setblocking(False)

    def pump(self) -> bool:
        """Read what is there; False once the peer closed."""
        return self.read_into(self.buf)

    def read_into(self, target: bytearray) -> bool:
        """Append what the socket has to ``target``; False once the peer closed."""
        try:
            while True:
                chunk = self.sock.recv(262144)
                if not chunk:
                    return False
                target += chunk
                if len(chunk) < 262144:
                    return True
        except BlockingIOError:
            return True

    def take_until(self, marker: bytes) -> bytes | None:
        """Cut the buffer after ``marker``; None when it has not arrived."""
        i = self.buf.find(marker)
        if i < 0:
            return None
        k = i + len(marker)
        data = bytes(self.buf[:k])
        del self.buf[:k]
        return data

    def close(self) -> None:
        self.sock.close()


def wait_all(conns: list[Conn], marker: bytes, *, timeout: float) -> dict[int, float]:
    """Wait until every connection's buffer holds ``marker``; when each got it (perf_counter)."""
    return dict(enumerate(wait_each(conns, [marker] * len(conns), timeout=timeout)))


def wait_each(conns: list[Conn], markers: list[bytes], *, timeout: float) -> list[float]:
    """Wait until each connection has its own marker; when each got it (perf_counter)."""
    done = [0.0] * len(conns)
    pending: dict[int, int] = {}
    sel = selectors.DefaultSelector()
    for i, c in enumerate(conns):
        if c.take_until(markers[i]) is not None:
            done[i] = time.perf_counter()
        else:
            pending[c.sock.fileno()] = i
            sel.register(c.sock, selectors.EVENT_READ, i)
    deadline = time.monotonic() + timeout
    try:
        while pending:
            left = deadline - time.monotonic()
            if left <= 0:
                i = next(iter(pending.values()))
                raise BenchError(f"{len(pending)} sessions did not get their marker; session {i} "
                                 f"waits for {markers[i][:60]!r} and has "
                                 f"{bytes(conns[i].buf[-600:])!r}")
            for key, _ in sel.select(left):
                i = key.data
                c = conns[i]
                if not c.pump():
                    raise BenchError(f"session {i} closed while waiting for {markers[i][:60]!r}")
                if c.take_until(markers[i]) is not None:
                    done[i] = time.perf_counter()
                    sel.unregister(c.sock)
                    del pending[key.fd]
    finally:
        sel.close()
    return done


def login(conns: list[Conn], lines: list[bytes], marker: bytes, *, batch: int = 200,
          timeout: float = 60) -> None:
    """Log guests in and run ``lines`` in each, ``batch`` sessions at a time."""
    payload = b"guest\r\n\r\n" + b"".join(line + b"\r\n" for line in lines)
    for start in range(0, len(conns), batch):
        group = conns[start:start + batch]
        for c in group:
            c.send(payload)
        wait_all(group, marker, timeout=timeout)


def timed_move(pid: int, mover: Conn, line: bytes, watchers: list[Conn], marker: bytes, *,
               timeout: float) -> tuple[float, float]:
    """``mover`` sends ``line``; the time until the last of ``watchers`` has ``marker``,
    and the server's CPU time meanwhile (seconds, both)."""
    cpu0 = cpu_sched_seconds(pid)
    t0 = time.perf_counter()
    mover.send(line)
    got = wait_all(watchers, marker, timeout=timeout)
    last = max(got.values()) if got else time.perf_counter()
    return last - t0, cpu_sched_seconds(pid) - cpu0


def run(args: argparse.Namespace, observers: int, games: list) -> dict:
    """One server, two players, ``observers`` observers; every ply of ``games``."""
    server = Server.start("ficsfen", args)
    conns: list[Conn] = []
    try:
        white, black = Conn(args.host, server.port), Conn(args.host, server.port)
        conns += [white, black]
        for c, name in ((white, b"alice"), (black, b"bob")):
            c.send(name + b"\r\n\r\nstyle 12\r\n")
        wait_all([white, black], b"Style 12 set.", timeout=20)
        wait_all([white, black], PROMPT, timeout=20)
        watchers = [Conn(args.host, server.port) for _ in range(observers)]
        conns += watchers
        login(watchers, [b"style 12", b"set showfen 1"], b"You will now see the FEN", timeout=args.timeout)
        wait_all(watchers, PROMPT, timeout=args.timeout)
        latencies: list[float] = []
        cpu: list[float] = []
        ticks = [0.0, 0.0]
        for game in games:
            fens = game.fens()
            white.send(b"match bob 0 0 white\r\n")
            wait_all([black], b"You can \"accept\"", timeout=20)
            black.send(b"accept\r\n")
            wait_all([white, black], b"<12> ", timeout=20)
            wait_all([white, black], PROMPT, timeout=20)
            for c in watchers:
                c.send(b"observe alice\r\n")
            wait_all(watchers, fens[0].encode() + b"\r\n" + PROMPT, timeout=args.timeout)
            before = cpu_ticks_seconds(server.pid)
            for ply, san in enumerate(game.moves, 1):
                mover, other = (white, black) if ply % 2 else (black, white)
                marker = b"\r\n" + fens[ply].encode() + b"\r\n"
                latency, used = timed_move(server.pid, mover, san.encode() + b"\r\n", watchers,
                                           marker, timeout=args.timeout)
                latencies.append(latency)
                cpu.append(used)
                wait_all([mover], PROMPT, timeout=20)
                wait_all([other], b"<12> ", timeout=20)
                wait_all([other], PROMPT, timeout=20)
                for c in watchers:  # the prompt after the FEN line
                    c.take_until(PROMPT)
            after = cpu_ticks_seconds(server.pid)
            ticks = [ticks[0] + after[0] - before[0], ticks[1] + after[1] - before[1]]
            white.send(b"resign\r\n")
            wait_all(watchers, b"resigns} 0-1", timeout=args.timeout)
            wait_all([white, black], b"resigns} 0-1", timeout=20)
            for c in conns:
                c.pump()
                c.buf.clear()
        return summarize("ficsfen", observers, latencies, cpu, ticks, server)
    finally:
        for c in conns:
            c.close()
        server.stop()


def summarize(target: str, observers: int, latencies: list[float], cpu: list[float],
              ticks: list[float], server: Server) -> dict:
    lat = sorted(latencies)
    cpus = sorted(cpu)
    moves = len(latencies)
    return {
            "target": target,
            "observers": observers,
            "moves": len(latencies),
            "last_observer_ms": {"p50": percentile(lat, 50) * 1e3, "p99": percentile(lat, 99) * 1e3,
                                 "max": lat[-1] * 1e3},
            "server_cpu_per_move_ms": {"p50": percentile(cpus, 50) * 1e3,
                                       "p99": percentile(cpus, 99) * 1e3,
                                       "mean": statistics.fmean(cpus) * 1e3},
            "server_utime_stime_ms_per_move": [ticks[0] / moves * 1e3, ticks[1] / moves * 1e3],
            "server_rss_kb": rss_kb(server.pid),
            "command": server.command_line,
    }


def start_floor(args: argparse.Namespace, *, direct: bool) -> tuple[Server, Conn]:
    """``bench/fanout_floor.py`` on a free port, and its first connection (the sender)."""
    port = free_port(args.host)
    cmd = [args.python, str(Path(__file__).with_name("fanout_floor.py")), "--port", str(port),
           "--interface", args.host] + (["--direct"] if direct else [])
    proc = subprocess.Popen(cmd, cwd=REPO, stdin=subprocess.DEVNULL)
    server = Server(pid=proc.pid, host=args.host, port=port, proc=proc)
    server.command_line = cmd
    deadline = time.monotonic() + args.start_timeout
    while True:
        try:
            return server, Conn(args.host, port)
        except OSError:
            if time.monotonic() > deadline or proc.poll() is not None:
                server.stop()
                raise BenchError("fanout_floor.py did not start") from None
            time.sleep(0.05)


def run_floor(args: argparse.Namespace, observers: int, games: list, *, direct: bool) -> dict:
    """The same moves through ``bench/fanout_floor.py``: one write per observer, nothing else."""
    server, mover = start_floor(args, direct=direct)
    port = server.port
    conns: list[Conn] = [mover]
    try:
        watchers = [Conn(args.host, port) for _ in range(observers)]
        conns += watchers
        wait_all(conns, PROMPT, timeout=args.timeout)
        mover.send(b"MOVE start\r\n")
        wait_all(watchers, b"start\r\n" + PROMPT, timeout=args.timeout)
        wait_all([mover], PROMPT, timeout=20)
        latencies: list[float] = []
        cpu: list[float] = []
        before = cpu_ticks_seconds(server.pid)
        for game in games:
            for fen in game.fens()[1:]:
                marker = b"\r\n" + fen.encode() + b"\r\n"
                latency, used = timed_move(server.pid, mover, b"MOVE " + fen.encode() + b"\r\n",
                                           watchers, marker, timeout=args.timeout)
                latencies.append(latency)
                cpu.append(used)
                wait_all([mover], PROMPT, timeout=20)
                for c in watchers:
                    c.take_until(PROMPT)
        after = cpu_ticks_seconds(server.pid)
        ticks = [after[0] - before[0], after[1] - before[1]]
        return summarize("floor-direct" if direct else "floor", observers, latencies, cpu, ticks, server)
    finally:
        for c in conns:
            c.close()
        server.stop()


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--observers", type=int, default=1000)
    p.add_argument("--baseline", type=int, default=1, help="observers in the comparison run")
    p.add_argument("--games", type=int, default=3, help="games of the PGN file played in each run")
    p.add_argument("--pgn", default=str(DEFAULT_PGN))
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--timeout", type=float, default=60.0)
    p.add_argument("--json", action="store_true", help="print the results as JSON")
    p.add_argument("--no-floor", action="store_true", help="skip the bench/fanout_floor.py runs")
    add_server_args(p)
    return p.parse_args(argv)


def add_server_args(p: argparse.ArgumentParser) -> None:
    """The options ``load.Server.start`` and :func:`start_floor` read."""
    p.add_argument("--python", default=sys.executable)
    p.add_argument("--server-arg", action="append", default=[])
    p.add_argument("--server-log", default="")
    p.add_argument("--server-cpu", type=int, default=None, help="pin the server to this CPU")
    p.add_argument("--start-timeout", type=float, default=20.0)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    limit = raise_fd_limit()  # the server child inherits it
    if limit < args.observers + 100:
        print(f"open-file limit {limit} is too low for {args.observers} observers", file=sys.stderr)
        return 2
    games = read_file(args.pgn)[: args.games]
    results = [run(args, args.baseline, games), run(args, args.observers, games)]
    if not args.no_floor:
        results += [run_floor(args, args.observers, games, direct=False),
                    run_floor(args, args.observers, games, direct=True)]
    base, many = results[0], results[1]

    def mean_cpu(r: dict) -> float:
        return r["server_cpu_per_move_ms"]["mean"]

    extra = mean_cpu(many) - mean_cpu(base)
    summary = {
        "runs": results,
        "cpu_us_per_extra_observer": extra * 1e3 / max(args.observers - args.baseline, 1),
        "cpu_ratio_vs_floor": {r["target"]: mean_cpu(many) / mean_cpu(r) for r in results[2:]},
    }
    if args.json:
        print(json.dumps(summary, indent=2))
        return 0
    for r in results:
        lat, cpu = r["last_observer_ms"], r["server_cpu_per_move_ms"]
        user, system = r["server_utime_stime_ms_per_move"]
        print(f"{r['target']:>12} {r['observers']:>5} observers, {r['moves']} moves: last observer "
              f"p50 {lat['p50']:.2f} ms p99 {lat['p99']:.2f} ms max {lat['max']:.2f} ms; "
              f"server CPU/move p50 {cpu['p50']:.2f} ms p99 {cpu['p99']:.2f} ms mean {cpu['mean']:.2f} ms "
              f"(user {user:.2f} + sys {system:.2f} ms); RSS {r['server_rss_kb'] / 1024:.1f} MB")
    print(f"ficsfen: {summary['cpu_us_per_extra_observer']:.2f} us of server CPU per extra observer")
    for target, ratio in summary["cpu_ratio_vs_floor"].items():
        print(f"ficsfen / {target} server CPU per move with {args.observers} observers: {ratio:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
