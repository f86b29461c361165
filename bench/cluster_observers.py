"""Observers across cluster nodes: 2 nodes sharing one Redis against 1 node.

Starts a throw-away ``redis-server`` (Debian's, on a free loopback port, no
persistence) and, for each mode, fresh ``ficsfen serve`` processes:

* ``single``: one node; every player and observer on it;
* ``cluster``: two nodes joined by the Redis (``--cluster``); game *i*'s
  White is on node *i* mod 2 and Black on the other, so the games are
  hosted half by each node (a game lives on its receiver's node), and
  observer *j* is on node *j* mod 2, watching game *j* mod GAMES: half of
  every game's observers are on the node that does not host it, their boards
  relayed over the bus.

Every player and observer is a guest with ``style 12`` and ``set showfen 1``.
Each round sends one move in every game at once (the first plies of the
PGN's games, one PGN game per board) and waits until every observer has
the new position's FEN line.  Reported per mode:

* move-to-observer latency: for every board delivered, the time from
  sending its move to the observer having it (p50, p99, max);
* server CPU per delivered board: the CPU time of every server process
  (``/proc/PID/task/*/schedstat``) over the rounds, divided by the boards
  delivered to observers; the cluster's ratio to the single node (the
  Redis server's own CPU is reported beside it);
* bus messages per move: the PUBLISH commands Redis ran over the rounds
  (``INFO commandstats``), divided by the moves played;
* the client's own CPU per board (this script's), and the load average: the
  client shares the machine's cores with the servers, so it reads its
  observers through one ``epoll`` set made once, one ``recv`` per readiness.

``--repeat N`` runs N pairs, alternately single then cluster and cluster then
single (ABBA: other work on the machine hits both modes alike), and reports
each pair's CPU ratio with the ranges and medians over the pairs.

    python bench/cluster_observers.py --games 20 --observers 2000 --plies 20 --repeat 6

Everything stays on loopback; every wait has a timeout; servers and Redis are
stopped at the end.
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import re
import select
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from load import (LOOPBACK_CONFIG, BenchError, Server, cpu_sched_seconds,  # noqa: E402
                  free_port, percentile, raise_fd_limit)
from observers import PROMPT, Conn, add_server_args, login, wait_all  # noqa: E402

from ficsfen.pgn import read_file  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
DEFAULT_PGN = REPO.parent / "shared" / "data" / "pgn" / "kasparov-deep-blue-1997.pgn"


class SeenConn(Conn):
    """A :class:`Conn` that keeps what it cut off (``seen``), to find a handle or a number."""

    def __init__(self, host: str, port: int) -> None:
        super().__init__(host, port)
        self.seen = bytearray()

    def take_until(self, marker: bytes) -> bytes | None:
        data = super().take_until(marker)
        if data is not None:
            self.seen += data
            del self.seen[:-65536]
        return data


class Watchers:
    """The observers' sockets, registered once in one ``epoll`` set: the client's side of
    the rounds kept light, since it shares the machine's cores with the servers.

    Each round reads what arrived (one ``recv`` per readiness) and finds each
    observer's marker in its buffer; nothing is registered, unregistered or read in
    vain per round.
    """

    def __init__(self, conns: list[Conn]) -> None:
        self.conns = conns
        self.poll = select.epoll(len(conns) + 1)
        self.index: dict[int, int] = {}
        for i, c in enumerate(conns):
            fd = c.sock.fileno()
            self.poll.register(fd, select.EPOLLIN)
            self.index[fd] = i

    def close(self) -> None:
        self.poll.close()

    def wait(self, markers: list[bytes], *, timeout: float) -> list[float]:
        """Wait until each connection has its own marker; when each got it (perf_counter).
        The buffers are cut after the markers."""
        conns, index = self.conns, self.index
        done = [0.0] * len(conns)
        pending = set()
        for i, c in enumerate(conns):
            k = c.buf.find(markers[i])
            if k >= 0:
                done[i] = time.perf_counter()
                del c.buf[:k + len(markers[i])]
            else:
                pending.add(i)
        deadline = time.monotonic() + timeout
        while pending:
            left = deadline - time.monotonic()
            if left <= 0:
                first = conns[next(iter(pending))]
                raise BenchError(f"{len(pending)} observers did not get their board; one has "
                                 f"{bytes(first.buf[-600:])!r}")
            for fd, _ in self.poll.poll(left):
                i = index[fd]
                c = conns[i]
                try:
                    chunk = c.sock.recv(262144)
                except BlockingIOError:
                    continue
                if not chunk:
                    raise BenchError(f"observer {i} closed")
                buf = c.buf
                buf += chunk
                if i in pending:
                    k = buf.find(markers[i])
                    if k >= 0:
                        done[i] = time.perf_counter()
                        del buf[:k + len(markers[i])]
                        pending.discard(i)
        return done


class Redis:
    """A ``redis-server`` child on a free loopback port, in a temporary folder."""

    def __init__(self, binary: str, host: str) -> None:
        self.folder = Path(tempfile.mkdtemp(prefix="bench-redis-"))
        self.port = free_port(host)
        self.url = f"redis://{host}:{self.port}/0"
        self.proc = subprocess.Popen(
            [binary, "--port", str(self.port), "--bind", host, "--save", "", "--appendonly", "no",
             "--dir", str(self.folder)], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 10
        while True:
            try:
                Conn(host, self.port).close()
                return
            except OSError:
                if time.monotonic() > deadline or self.proc.poll() is not None:
                    self.stop()
                    raise BenchError("redis-server did not start") from None
                time.sleep(0.05)

    def published(self, host: str) -> int:
        """The PUBLISH commands Redis has run so far (its ``INFO commandstats``)."""
        conn = Conn(host, self.port)
        try:
            conn.send(b"INFO commandstats\r\n")
            deadline = time.monotonic() + 10
            while not conn.buf.endswith(b"\r\n\r\n") or conn.buf.count(b"\r\n") < 2:
                if time.monotonic() > deadline or not conn.pump():
                    raise BenchError("Redis did not answer INFO")
                time.sleep(0.01)
        finally:
            conn.close()
        m = re.search(rb"cmdstat_publish:calls=(\d+)", bytes(conn.buf))
        return int(m.group(1)) if m else 0

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(10)
        shutil.rmtree(self.folder, ignore_errors=True)


def start_nodes(args: argparse.Namespace, count: int, redis: Redis | None,
                folder: Path) -> list[Server]:
    """``count`` servers; with ``redis``, nodes of one cluster."""
    servers: list[Server] = []
    namespace = f"bench{time.time_ns()}"  # one per cluster: the nodes must share it
    for i in range(count):
        config = folder / f"node{i}.toml"
        text = Path(LOOPBACK_CONFIG).read_text()
        if redis is not None:
            text += f'\n[cluster]\nnode = "n{i}"\nnamespace = "{namespace}"\n'
        config.write_text(text)
        node_args = copy.copy(args)
        node_args.server_arg = ["--config", str(config), *args.server_arg,
                                *(["--cluster", redis.url] if redis is not None else [])]
        node_args.server_log = ""
        servers.append(Server.start("ficsfen", node_args))
    return servers


def guests(server: Server, count: int, host: str, timeout: float) -> tuple[list[SeenConn], list[str]]:
    """``count`` guests on ``server`` with style 12 and showfen; their handles."""
    conns = [SeenConn(host, server.port) for _ in range(count)]
    login(conns, [b"style 12", b"set showfen 1"], b"You will now see the FEN", timeout=timeout)
    wait_all(conns, PROMPT, timeout=timeout)
    names = []
    for c in conns:
        m = re.search(rb"Starting FICS session as (\w+)", bytes(c.seen))
        if m is None:
            raise BenchError("a guest's handle was not found")
        names.append(m.group(1).decode().removesuffix("(U)"))
    return conns, names


def run(args: argparse.Namespace, mode: str, games: list, redis: Redis | None) -> dict:
    nodes = 2 if mode == "cluster" else 1
    folder = Path(tempfile.mkdtemp(prefix="bench-cluster-"))
    servers = start_nodes(args, nodes, redis if mode == "cluster" else None, folder)
    conns: list[Conn] = []
    try:
        count = len(games)
        whites, blacks, watchers = [], [], []
        white_names, black_names = [], []
        for i in range(count):
            w, wn = guests(servers[i % nodes], 1, args.host, args.timeout)
            b, bn = guests(servers[(i + 1) % nodes], 1, args.host, args.timeout)
            whites += w
            blacks += b
            white_names += wn
            black_names += bn
        conns += whites + blacks
        per_node = [args.observers // nodes + (1 if n < args.observers % nodes else 0)
                    for n in range(nodes)]
        groups = []
        for n in range(nodes):
            group, _ = guests(servers[n], per_node[n], args.host, args.timeout)
            groups.append(group)
        conns += [c for g in groups for c in g]
        # observer j: node j % nodes, game j % count
        for j in range(args.observers):
            watchers.append(groups[j % nodes][j // nodes])
        if nodes > 1:  # presence: each white's node must know its opponent first
            for i in range(count):
                wait_present(whites[i], black_names[i], settle=args.settle,
                             timeout=args.timeout)
        for i in range(count):
            whites[i].send(f"match {black_names[i]} 0 0 white\r\n".encode())
        wait_all(blacks, b'You can "accept"', timeout=args.timeout)
        wait_all(blacks, PROMPT, timeout=args.timeout)
        for c in blacks:
            c.send(b"accept\r\n")
        wait_all(whites + blacks, b"<12> ", timeout=args.timeout)
        for c in whites + blacks:
            c.pump()
            c.buf.clear()
        numbers = []
        for i in range(count):  # the game numbers, from the players' node
            whites[i].seen.clear()
            whites[i].send(b"games\r\n")
            wait_all([whites[i]], b"games displayed", timeout=args.timeout)
            m = re.search(rb"^\s*(\d+) .*%s" % white_names[i].encode(), bytes(whites[i].seen),
                          re.M)
            if m is None:
                raise BenchError(f"game {i} is not listed")
            numbers.append(int(m.group(1)))
            wait_all([whites[i]], PROMPT, timeout=args.timeout)
        for j, c in enumerate(watchers):
            c.send(f"observe {numbers[j % count]}\r\n".encode())
        wait_all(watchers, b"You are now observing", timeout=args.timeout)
        wait_all(watchers, PROMPT, timeout=args.timeout)
        fens = [g.fens() for g in games]
        latencies: list[float] = []
        polled = Watchers(watchers)
        client0 = time.process_time()
        cpu0 = sum(cpu_sched_seconds(s.pid) for s in servers)
        redis0 = cpu_sched_seconds(redis.proc.pid) if redis is not None and nodes > 1 else 0.0
        published0 = redis.published(args.host) if redis is not None and nodes > 1 else 0
        t_start = time.perf_counter()
        boards = 0
        for ply in range(1, args.plies + 1):
            sent: dict[int, float] = {}
            for i in range(count):
                mover = whites[i] if ply % 2 else blacks[i]
                sent[i] = time.perf_counter()
                mover.send(games[i].moves[ply - 1].encode() + b"\r\n")
            markers = [b"\r\n" + fens[j % count][ply].encode() + b"\r\n"
                       for j in range(len(watchers))]
            got = polled.wait(markers, timeout=args.timeout)
            latencies += [t - sent[j % count] for j, t in enumerate(got)]
            boards += len(got)
            for c in whites + blacks:  # their own boards: read, not measured
                c.pump()
                c.buf.clear()
        elapsed = time.perf_counter() - t_start
        cpu = sum(cpu_sched_seconds(s.pid) for s in servers) - cpu0
        client_cpu = time.process_time() - client0
        polled.close()
        redis_cpu = (cpu_sched_seconds(redis.proc.pid) - redis0
                     if redis is not None and nodes > 1 else 0.0)
        published = (redis.published(args.host) - published0
                     if redis is not None and nodes > 1 else 0)
        lat = sorted(latencies)
        return {"mode": mode, "nodes": nodes, "games": count, "observers": args.observers,
                "plies": args.plies, "boards": boards,
                "move_to_observer_ms": {"p50": percentile(lat, 50) * 1e3,
                                        "p99": percentile(lat, 99) * 1e3, "max": lat[-1] * 1e3},
                "server_cpu_s": cpu, "cpu_us_per_board": cpu / boards * 1e6,
                "bus_messages_per_move": published / (count * args.plies),
                "redis_cpu_s": redis_cpu, "redis_us_per_board": redis_cpu / boards * 1e6,
                "client_cpu_s": client_cpu, "client_us_per_board": client_cpu / boards * 1e6,
                "elapsed_s": elapsed, "load": os.getloadavg()[0]}
    finally:
        for c in conns:
            c.close()
        for s in servers:
            s.stop()
        shutil.rmtree(folder, ignore_errors=True)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--games", type=int, default=20)
    p.add_argument("--observers", type=int, default=2000)
    p.add_argument("--plies", type=int, default=20, help="moves played in every game")
    p.add_argument("--pgn", default=str(DEFAULT_PGN))
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--timeout", type=float, default=120.0)
    p.add_argument("--settle", type=float, default=0.2,
                   help="seconds between two checks that a node knows its players' opponents")
    p.add_argument("--redis", default="/usr/bin/redis-server")
    p.add_argument("--repeat", type=int, default=1,
                   help="pairs of runs, alternately single then cluster and cluster then single")
    p.add_argument("--json", action="store_true", help="print the results as JSON")
    add_server_args(p)
    return p.parse_args(argv)


def wait_present(conn: SeenConn, name: str, *, settle: float, timeout: float) -> None:
    """Ask ``finger NAME`` on ``conn``'s node every ``settle`` seconds until it shows
    ``name`` online (presence crossed the bus).

    :raises BenchError: not within ``timeout`` seconds.
    """
    deadline = time.monotonic() + timeout
    while True:
        conn.seen.clear()
        conn.send(f"finger {name}\r\n".encode())
        wait_all([conn], PROMPT, timeout=timeout)
        if b"On for:" in bytes(conn.seen):
            return
        if time.monotonic() > deadline:
            raise BenchError(f"{name} never appeared online on the other node")
        time.sleep(settle)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    limit = raise_fd_limit()
    if limit < args.observers + 2 * args.games + 200:
        print(f"open-file limit {limit} is too low for {args.observers} observers", file=sys.stderr)
        return 2
    available = [g for g in read_file(args.pgn) if len(g.moves) >= args.plies]
    if not available:
        print(f"no game of {args.pgn} has {args.plies} plies", file=sys.stderr)
        return 2
    games = [available[i % len(available)] for i in range(args.games)]
    redis = Redis(args.redis, args.host)
    pairs: list[tuple[dict, dict]] = []
    ran: list[dict] = []
    try:
        for k in range(args.repeat):  # ABBA: load from other work hits both modes alike
            order = ("single", "cluster") if k % 2 == 0 else ("cluster", "single")
            done = {mode: run(args, mode, games, redis if mode == "cluster" else None)
                    for mode in order}
            ran += [done[mode] for mode in order]
            pairs.append((done["single"], done["cluster"]))
    finally:
        redis.stop()
    summary = summarise(pairs, ran)
    if args.json:
        print(json.dumps(summary, indent=2))
        return 0
    for single, cluster in pairs:
        for r in (single, cluster):
            lat = r["move_to_observer_ms"]
            print(f"{r['mode']:>8}: {r['nodes']} node(s), {r['games']} games, {r['observers']} "
                  f"observers, {r['boards']} boards: move-to-observer p50 {lat['p50']:.1f} ms "
                  f"p99 {lat['p99']:.1f} ms max {lat['max']:.1f} ms; server CPU "
                  f"{r['cpu_us_per_board']:.1f} us per board ({r['server_cpu_s']:.2f} s); Redis "
                  f"{r['redis_us_per_board']:.1f} us per board, "
                  f"{r['bus_messages_per_move']:.2f} bus messages per move; client "
                  f"{r['client_us_per_board']:.1f} us per board; load {r['load']:.1f}")
        print(f"  server CPU per delivered board, 2 nodes / 1 node: "
              f"{cluster['cpu_us_per_board'] / single['cpu_us_per_board']:.2f}x")
    if len(pairs) > 1:
        ratio, p99 = summary["cpu_per_board_ratio_range"], summary["p99_ms"]
        print(f"{len(pairs)} pairs: CPU per board ratio {ratio['min']:.2f}-{ratio['max']:.2f}x "
              f"(median {summary['cpu_per_board_ratio']:.2f}x); move-to-observer p99, "
              f"1 node {p99['single']['min']:.0f}-{p99['single']['max']:.0f} ms (median "
              f"{p99['single']['median']:.0f}), 2 nodes {p99['cluster']['min']:.0f}-"
              f"{p99['cluster']['max']:.0f} ms (median {p99['cluster']['median']:.0f})")
    return 0


def spread(values: list[float]) -> dict[str, float]:
    return {"min": min(values), "median": statistics.median(values), "max": max(values)}


def summarise(pairs: list[tuple[dict, dict]], ran: list[dict]) -> dict:
    """The runs in the order they ran, each pair's CPU ratio, and the ranges and medians
    over the pairs."""
    ratios = [c["cpu_us_per_board"] / s["cpu_us_per_board"] for s, c in pairs]
    return {"runs": ran,
            "ratios": ratios,
            "cpu_per_board_ratio": statistics.median(ratios),
            "cpu_per_board_ratio_range": spread(ratios),
            "p99_ms": {mode: spread([pair[m]["move_to_observer_ms"]["p99"] for pair in pairs])
                       for m, mode in enumerate(("single", "cluster"))}}

if __name__ == "__main__":
    sys.exit(main())
