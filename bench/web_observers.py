"""Observers over the WebSocket beside observers over telnet: one game, one server.

The server runs in its own process (``python -m ficsfen serve``, telnet and
its web side each on a free loopback port).  This script logs in two
players over telnet and N observers through each front door: N telnet
sessions and N WebSocket sessions (``/ws``, text messages; the client's
frames are masked as RFC 6455 asks, the server's read by a small decoder
that checks them).  Every observer is a guest with ``style 12`` and
``set showfen 1``.  Real games from ``../shared/data/pgn`` are played ply
by ply, in blocks of ``--block`` plies; during a block only one door's
observers watch the game (the others ``unobserve``):

* ``telnet``: the N telnet observers;
* ``ws``: the N WebSocket observers;
* ``none``: nobody (the cost of the move itself), first and last;
* ``both``: all 2N at once, once at the end (reported, not compared).

Telnet and WebSocket blocks alternate ABBA (``telnet ws``, ``ws telnet``,
...) in the same server process, so load from other work hits both doors
alike.  For every ply: the server's CPU (``/proc/PID/task/*/schedstat``,
read before the move is sent and after the last observer has the FEN line
of the new position) and the time until that last observer has it.

Reported, per door: server CPU per move and per delivered board (the move's
CPU over N, and the marginal figure, the ``none`` blocks' mean taken off
first), the last observer's delay p50/p99; and the ratio WebSocket/telnet
of server CPU per move, the median of the per-pair ratios (each pair one
telnet block beside one WebSocket block) with its range.

    python bench/web_observers.py --observers 1000
    python bench/web_observers.py --quick

Everything stays on loopback, every wait has a timeout, and the server is
stopped at the end.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import json
import os
import socket
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from load import BenchError, Server, cpu_sched_seconds, cpu_ticks_seconds, free_port, percentile, raise_fd_limit, rss_kb  # noqa: E402
from observers import PROMPT, Conn, add_server_args, login, wait_all  # noqa: E402
from wsproto.frame_protocol import FrameProtocol  # noqa: E402

from ficsfen.pgn import read_file  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
DEFAULT_PGN = REPO.parent / "shared" / "data" / "pgn" / "kasparov-deep-blue-1997.pgn"
WS_GUID = b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11"  # RFC 6455, section 1.3
KINDS = ("telnet", "ws")


class WsConn(Conn):
    """A WebSocket client session: the handshake, masked text frames out, frames decoded in.

    :attr:`buf` holds the payloads of the server's text messages, in order
    (the same bytes a telnet client reads, IAC aside), so markers are
    searched as on telnet.  A frame that is masked, binary, or a Close
    raises :class:`BenchError`.
    """

    def __init__(self, host: str, port: int) -> None:
        super().__init__(host, port)
        self.raw = bytearray()
        self.open = False
        self.frames = FrameProtocol(client=True, extensions=[])  # wsproto's framing: masked, as a client must
        self.key = base64.b64encode(os.urandom(16))
        request = (b"GET /ws HTTP/1.1\r\nHost: %s:%d\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                   b"Sec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n\r\n" % (host.encode(), port, self.key))
        super().send(request)

    def send(self, data: bytes) -> None:
        """``data`` (lines) as one text message."""
        super().send(self.frames.send_data(data.decode("utf-8"), True))

    def pump(self) -> bool:
        if not self.read_into(self.raw):
            return False
        if not self.open:
            self._upgrade()
        if self.open:
            self._decode()
        return True

    def _upgrade(self) -> None:
        end = self.raw.find(b"\r\n\r\n")
        if end < 0:
            return
        head = bytes(self.raw[:end]).decode("latin-1").split("\r\n")
        del self.raw[:end + 4]
        if not head[0].startswith("HTTP/1.1 101"):
            raise BenchError(f"WebSocket refused: {head[0]!r}")
        accept = base64.b64encode(hashlib.sha1(self.key + WS_GUID).digest()).decode()
        headers = {k.strip().lower(): v.strip() for k, _, v in (line.partition(":") for line in head[1:])}
        if headers.get("sec-websocket-accept") != accept:
            raise BenchError(f"bad Sec-WebSocket-Accept {headers.get('sec-websocket-accept')!r}")
        self.open = True

    def _decode(self) -> None:
        raw, i, n = self.raw, 0, len(self.raw)
        while n - i >= 2:
            b0, b1 = raw[i], raw[i + 1]
            if b1 & 0x80:
                raise BenchError("a masked frame from the server")
            length, head = b1 & 0x7F, 2
            if length == 126:
                if n - i < 4:
                    break
                length, head = int.from_bytes(raw[i + 2:i + 4], "big"), 4
            elif length == 127:
                if n - i < 10:
                    break
                length, head = int.from_bytes(raw[i + 2:i + 10], "big"), 10
            if n - i < head + length:
                break
            opcode = b0 & 0x0F
            if opcode in (0x0, 0x1):
                self.buf += raw[i + head:i + head + length]
            elif opcode == 0x8:
                raise BenchError(f"the server closed the WebSocket: {bytes(raw[i + head:i + head + length])!r}")
            elif opcode != 0xA:  # pongs aside (the server sends no pings)
                raise BenchError(f"unexpected frame opcode {opcode}")
            i += head + length
        del raw[:i]


def start_with_web(args: argparse.Namespace) -> tuple[Server, int]:
    """``ficsfen serve`` (``load.Server.start``) with its web side on a free loopback port,
    once both ports answer; the server and the web port.

    :raises BenchError: the web port did not answer within ``args.start_timeout``.
    """
    web = free_port(args.host)
    args.server_arg = [*args.server_arg, "--web", f"tcp:{web}:interface={args.host}"]  # the last --web wins
    server = Server.start("ficsfen", args)  # waits for the telnet port only
    deadline = time.monotonic() + args.start_timeout
    while True:
        try:
            with socket.create_connection((args.host, web), timeout=1):
                return server, web
        except OSError:
            if time.monotonic() > deadline or not server.alive():
                server.stop()
                raise BenchError(f"the web side did not listen on {args.host}:{web}") from None
            time.sleep(0.05)


class Bench:
    """One server, two players, N observers per door, blocks of plies."""

    def __init__(self, args: argparse.Namespace, games: list) -> None:
        self.args = args
        self.games = games
        self.game_index = -1
        self.ply = 0
        self.fens: list[str] = []
        self.moves: list[str] = []
        self.in_game = False
        self.watching: list[Conn] = []
        self.server: Server | None = None
        self.conns: list[Conn] = []

    def start(self) -> None:
        args = self.args
        self.server, web = start_with_web(args)
        server = self.server
        self.white, self.black = Conn(args.host, server.port), Conn(args.host, server.port)
        self.conns += [self.white, self.black]
        for c, name in ((self.white, b"alice"), (self.black, b"bob")):
            c.send(name + b"\r\n\r\nstyle 12\r\n")
        wait_all([self.white, self.black], b"Style 12 set.", timeout=20)
        wait_all([self.white, self.black], PROMPT, timeout=20)
        self.telnet = [Conn(args.host, server.port) for _ in range(args.observers)]
        self.conns += self.telnet
        self.ws: list[Conn] = []
        for start in range(0, args.observers, 200):  # handshakes 200 at a time
            group: list[Conn] = [WsConn(args.host, web) for _ in range(min(200, args.observers - start))]
            self.conns += group
            self.ws += group
            wait_all(group, b"login: ", timeout=args.timeout)
        for group in (self.telnet, self.ws):
            login(group, [b"style 12", b"set showfen 1"], b"You will now see the FEN", timeout=args.timeout)
            wait_all(group, PROMPT, timeout=args.timeout)

    def stop(self) -> None:
        for c in self.conns:
            c.close()
        if self.server is not None:
            self.server.stop()

    # -- the game ----------------------------------------------------------------------

    def new_game(self) -> None:
        self.game_index += 1
        game = self.games[self.game_index % len(self.games)]
        self.fens, self.moves, self.ply = game.fens(), list(game.moves), 0
        self.white.send(b"match bob 0 0 white\r\n")
        wait_all([self.black], b"You can \"accept\"", timeout=20)
        self.black.send(b"accept\r\n")
        wait_all([self.white, self.black], b"<12> ", timeout=20)
        wait_all([self.white, self.black], PROMPT, timeout=20)
        self.in_game = True
        watching, self.watching = self.watching, []
        self.watch(watching)

    def end_game(self) -> None:
        self.white.send(b"resign\r\n")
        wait_all(self.watching, b"resigns} 0-1", timeout=self.args.timeout)
        wait_all([self.white, self.black], b"resigns} 0-1", timeout=20)
        for c in [self.white, self.black, *self.watching]:
            c.pump()
            c.buf.clear()
        self.in_game = False

    def watch(self, group: list[Conn]) -> None:
        """``group`` observes the game, and no one else."""
        timeout = self.args.timeout
        leaving = [c for c in self.watching if c not in set(group)]
        joining = [c for c in group if c not in set(self.watching)]
        for c in leaving:
            c.send(b"unobserve alice\r\n")
        wait_all(leaving, b"from observation list.\r\n" + PROMPT, timeout=timeout)
        for c in joining:
            c.send(b"observe alice\r\n")
        wait_all(joining, self.fens[self.ply].encode() + b"\r\n" + PROMPT, timeout=timeout)
        self.watching = list(group)

    def play(self) -> tuple[float, float | None]:
        """One ply: (server CPU in seconds, delay until the last observer has it, or None)."""
        if not self.in_game or self.ply >= len(self.moves):
            if self.in_game:
                self.end_game()
            self.new_game()
        self.ply += 1
        ply = self.ply
        mover, other = (self.white, self.black) if ply % 2 else (self.black, self.white)
        marker = b"\r\n" + self.fens[ply].encode() + b"\r\n"
        watchers = self.watching
        cpu0 = cpu_sched_seconds(self.server.pid)  # type: ignore[union-attr]
        t0 = time.perf_counter()
        mover.send(self.moves[ply - 1].encode() + b"\r\n")
        if watchers:
            got = wait_all(watchers, marker, timeout=self.args.timeout)
            delay: float | None = max(got.values()) - t0
        else:
            wait_all([other], b"<12> ", timeout=20)
            delay = None
        cpu1 = cpu_sched_seconds(self.server.pid)  # type: ignore[union-attr]
        wait_all([mover], PROMPT, timeout=20)
        if watchers:
            wait_all([other], b"<12> ", timeout=20)
        wait_all([other], PROMPT, timeout=20)
        for c in watchers:  # the prompt after the FEN line
            c.take_until(PROMPT)
        return cpu1 - cpu0, delay

    def block(self, kind: str) -> dict:
        """``--block`` plies watched by ``kind``'s observers."""
        group = {"telnet": self.telnet, "ws": self.ws, "both": self.telnet + self.ws, "none": []}[kind]
        if self.in_game:
            self.watch(group)
        else:
            self.watching = list(group)  # attached when the game starts
        cpu: list[float] = []
        delays: list[float] = []
        before = cpu_ticks_seconds(self.server.pid)  # type: ignore[union-attr]
        for _ in range(self.args.block):
            c, d = self.play()
            cpu.append(c)
            if d is not None:
                delays.append(d)
        after = cpu_ticks_seconds(self.server.pid)  # type: ignore[union-attr]
        return {"kind": kind, "observers": len(group), "cpu": cpu, "delays": delays,
                "user_sys": [after[0] - before[0], after[1] - before[1]]}


def schedule(rounds: int) -> list[str]:
    """``none``, then ``rounds`` ABBA pairs of telnet and ws blocks, ``none``, ``both``."""
    order = ["none"]
    for r in range(rounds):
        order += list(KINDS) if r % 2 == 0 else list(reversed(KINDS))
    return order + ["none", "both"]


def summarize(blocks: list[dict], observers: int) -> dict:
    """Per kind: CPU per move and per board, delays; the ratio ws/telnet per pair."""
    base = statistics.fmean(c for b in blocks if b["kind"] == "none" for c in b["cpu"])
    kinds: dict[str, dict] = {}
    for kind in ("none", "telnet", "ws", "both"):
        mine = [b for b in blocks if b["kind"] == kind]
        if not mine:
            continue
        cpu = sorted(c for b in mine for c in b["cpu"])
        delays = sorted(d for b in mine for d in b["delays"])
        n = mine[0]["observers"]
        mean = statistics.fmean(cpu)
        user = sum(b["user_sys"][0] for b in mine) / len(cpu)
        system = sum(b["user_sys"][1] for b in mine) / len(cpu)
        row = {"observers": n, "moves": len(cpu),
               "cpu_per_move_ms": {"mean": mean * 1e3, "p50": percentile(cpu, 50) * 1e3,
                                   "p99": percentile(cpu, 99) * 1e3},
               "user_sys_ms_per_move": [user * 1e3, system * 1e3]}
        if n:
            row["cpu_per_board_us"] = mean / n * 1e6
            row["marginal_cpu_per_board_us"] = (mean - base) / n * 1e6
            row["last_observer_ms"] = {"p50": percentile(delays, 50) * 1e3,
                                       "p99": percentile(delays, 99) * 1e3, "max": delays[-1] * 1e3}
        kinds[kind] = row
    pairs = [b for b in blocks if b["kind"] in KINDS]
    ratios, marginal = [], []
    for i in range(0, len(pairs) - 1, 2):
        by = {b["kind"]: statistics.fmean(b["cpu"]) for b in pairs[i:i + 2]}
        ratios.append(by["ws"] / by["telnet"])
        marginal.append((by["ws"] - base) / (by["telnet"] - base))
    return {"observers": observers, "kinds": kinds,
            "ratio_ws_telnet": {"median": statistics.median(ratios), "min": min(ratios), "max": max(ratios),
                                "pairs": ratios},
            "marginal_ratio_ws_telnet": {"median": statistics.median(marginal), "min": min(marginal),
                                         "max": max(marginal)}}


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--observers", type=int, help="observers through each door (1000; --quick: 50)")
    p.add_argument("--rounds", type=int, help="telnet/ws pairs of blocks, ABBA (8; --quick: 2)")
    p.add_argument("--block", type=int, help="plies per block (10; --quick: 4)")
    p.add_argument("--games", type=int, help="games of the PGN file played, in turn (3; --quick: 1)")
    p.add_argument("--quick", action="store_true", help="a short run: the smaller defaults")
    p.add_argument("--pgn", default=str(DEFAULT_PGN))
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--timeout", type=float, default=60.0)
    p.add_argument("--json", action="store_true", help="print the results as JSON")
    add_server_args(p)
    args = p.parse_args(argv)
    defaults = {"observers": 50, "rounds": 2, "block": 4, "games": 1} if args.quick else \
        {"observers": 1000, "rounds": 8, "block": 10, "games": 3}
    for name, value in defaults.items():
        if getattr(args, name) is None:
            setattr(args, name, value)
    if args.observers < 1 or args.rounds < 1 or args.block < 1:
        p.error("--observers, --rounds and --block must be at least 1")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    limit = raise_fd_limit()  # the server child inherits it
    if limit < 2 * args.observers + 100:
        print(f"open-file limit {limit} is too low for {args.observers} observers a door", file=sys.stderr)
        return 2
    games = read_file(args.pgn)[: args.games]
    bench = Bench(args, games)
    try:
        bench.start()
        blocks = [bench.block(kind) for kind in schedule(args.rounds)]
        rss = rss_kb(bench.server.pid)  # type: ignore[union-attr]
    finally:
        bench.stop()
    summary = summarize(blocks, args.observers)
    summary["server_rss_kb"] = rss
    summary["load_average"] = os.getloadavg()
    if args.json:
        print(json.dumps(summary, indent=2))
        return 0
    for kind, r in summary["kinds"].items():
        cpu = r["cpu_per_move_ms"]
        user, system = r["user_sys_ms_per_move"]
        line = (f"{kind:>6} {r['observers']:>5} observers, {r['moves']} moves: server CPU/move "
                f"mean {cpu['mean']:.2f} ms p50 {cpu['p50']:.2f} ms (user {user:.2f} + sys {system:.2f} ms)")
        if r["observers"]:
            lat = r["last_observer_ms"]
            line += (f"; per board {r['cpu_per_board_us']:.2f} us (marginal {r['marginal_cpu_per_board_us']:.2f} us)"
                     f"; last observer p50 {lat['p50']:.2f} ms p99 {lat['p99']:.2f} ms")
        print(line)
    ratio, marginal = summary["ratio_ws_telnet"], summary["marginal_ratio_ws_telnet"]
    print(f"ws / telnet server CPU per move: median {ratio['median']:.2f}x "
          f"(range {ratio['min']:.2f}-{ratio['max']:.2f}, {len(ratio['pairs'])} pairs); "
          f"per board, the move's own cost taken off: {marginal['median']:.2f}x "
          f"({marginal['min']:.2f}-{marginal['max']:.2f})")
    print(f"load average {summary['load_average'][0]:.2f}; server RSS {rss / 1024:.1f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
