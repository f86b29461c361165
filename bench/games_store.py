"""Played games with the store on and off, side by side.

    python bench/games_store.py [--games 500] [--rate 0|R] [--rounds 6] [--seconds 3]

Two ``ficsfen serve`` processes on loopback, started here and stopped here:
one with the store (``--data FILE``, a fresh file in a temporary folder,
``[storage] synchronous`` as ``--synchronous`` says, ``full`` by default)
and one without (``--data none``).  This client, a separate asyncio process,
logs ``2 x --games`` guests into each, sets ``style 12``, and pairs them:
each pair plays a real game (the Lichess games of
``../shared/data/pgn``, replayed move by move, the side to move resigning
after the last one when the game has not ended by itself), and starts the
next game when one ends (``match OPPONENT 0 0 white``, ``accept``).

A player sends its move when its ``<12>`` board says it is its turn: at once
(``--rate 0``, closed loop: the server's capacity), or paced so that the
games together offer ``--rate`` moves per second (each game's next move is
due one period after its last; a late board sends at once).  The round trip
of a move is from sending it to the mover's own board coming back, which the
server sends only once the move is committed when the store is on.

Windows alternate between the two servers (ABBA order, ``--rounds`` windows
each; the idle server's games are parked); per window: moves, moves/s,
round trip p50/p99/max, the server's CPU per move (utime+stime of every
thread from ``/proc/PID/stat``, the writer thread included; also
``schedstat``), the client's CPU per move (this process shares the two CPUs
with the server: when it is busy the client is part of the limit) and the
server's RSS.  Each pair of windows gives a ratio of server CPU per move,
store on over store off; the result is the median of those ratios.

Everything stays on loopback, every wait has a timeout, and the run is
bounded by ``--rounds`` and ``--seconds``: the tool stops by itself.
"""

from __future__ import annotations

import argparse
import asyncio
import ipaddress
import json
import random
import sqlite3
import statistics
import sys
import tempfile
import time
from array import array
from contextlib import closing
from dataclasses import asdict, dataclass
from pathlib import Path
from types import SimpleNamespace

BENCH = Path(__file__).resolve().parent
if str(BENCH) not in sys.path:
    sys.path.insert(0, str(BENCH))

import chess.pgn  # noqa: E402

from load import CLK_TCK, BenchError, CpuSample, Server, Session, percentile, raise_fd_limit, rss_kb  # noqa: E402

__all__ = ["Pair", "Player", "Side", "load_games", "main"]

REPO = BENCH.parent
DEFAULT_PGN = REPO.parent / "shared" / "data" / "pgn" / "lichess-2025-05-438games.pgn"
SIDES = ("store off", "store on")
BOARD = b"<12> "
GAME = b"{Game "
CHALLENGE = b"Challenge: "


# --------------------------------------------------------------------------
# Games to play


def load_games(path: Path, *, limit: int | None = None) -> list[tuple[bytes, ...]]:
    """Each game of ``path`` from the standard start as its moves (SAN, ready to send).

    A game whose last move ends it (mate, stalemate, dead position) loses that
    move, so that every game ends the same way: the side to move resigns.
    """
    games = []
    with open(path, encoding="utf-8-sig") as f:
        while limit is None or len(games) < limit:
            game = chess.pgn.read_game(f)
            if game is None:
                break
            if "FEN" in game.headers or game.errors:
                continue
            board = game.board()
            sans = []
            for move in game.mainline_moves():
                sans.append(board.san(move))
                board.push(move)
            while sans and board.is_game_over(claim_draw=False):
                board.pop()
                sans.pop()
            if len(sans) >= 10:
                games.append(tuple(san.encode("ascii") + b"\r\n" for san in sans))
    if not games:
        raise BenchError(f"no usable game in {path}")
    return games


# --------------------------------------------------------------------------
# Players


class Side:
    """One server's players: whether they may send, what they parked, what was measured."""

    def __init__(self, name: str, server: Server, games: list, *, rate: float, pairs: int) -> None:
        self.name = name
        self.server = server
        self.games = games
        self.running = False
        self.recording = False
        self.parked: list[tuple[Player, bytes, bool]] = []
        self.latencies = array("q")
        self.games_ended = 0
        self.games_started = 0
        self.refusals = 0
        self.period = pairs / rate if rate > 0 else 0.0
        self.pairs: list[Pair] = []
        self.in_flight = 0
        self.acked = 0
        self.next_game = 0

    def game_for(self) -> tuple[bytes, ...]:
        game = self.games[self.next_game % len(self.games)]
        self.next_game += 1
        return game

    def send(self, player: Player, line: bytes, move: bool = False) -> None:
        """Send now when this side runs, else park until it does."""
        if not self.running:
            self.parked.append((player, line, move))
            return
        player.write(line, move)

    def resume(self) -> None:
        self.running = True
        loop = asyncio.get_running_loop()
        now = loop.time()
        for pair in self.pairs:  # paced games start spread over one period
            pair.due = now + random.random() * self.period
        parked, self.parked = self.parked, []
        for player, line, move in parked:
            player.write(line, move)

    def pause(self) -> None:
        self.running = False


class Pair:
    """Two players of one server and the game they replay."""

    __slots__ = ("white", "black", "moves", "due", "number")

    def __init__(self, white: Player, black: Player) -> None:
        self.white, self.black = white, black
        self.moves: tuple[bytes, ...] = ()
        self.due = 0.0
        self.number = b""


class Player(Session):
    """A logged-in guest that plays what its pair's game says, when its board says so."""

    def __init__(self) -> None:
        super().__init__()
        self.playing = False
        self.side: Side | None = None
        self.pair: Pair | None = None
        self.opponent = b""
        self.white = False
        self.sent_at = 0
        self.tail = b""

    def write(self, line: bytes, move: bool) -> None:
        if move:
            self.sent_at = time.perf_counter_ns()
            self.side.in_flight += 1
        self.transport.write(line)

    def data_received(self, data: bytes) -> None:
        if not self.playing:
            super().data_received(data)
            return
        data = self.filter.feed(data)
        if b"\n" not in data:
            self.tail += data
            return
        text = self.tail + data
        cut = text.rindex(b"\n")
        self.tail = text[cut + 1:]
        if BOARD in text:
            now = time.perf_counter_ns()
            at = text.find(BOARD)
            while at >= 0:
                end = text.index(b"\n", at)
                self.board(text[at:end].split(b" ", 27), now)
                at = text.find(BOARD, end)
        if GAME in text or CHALLENGE in text:
            for line in text[:cut].split(b"\n"):
                if CHALLENGE in line:
                    self.side.send(self, b"accept\r\n")
                elif GAME in line and b"Creating" not in line and b"Continuing" not in line:
                    self.ended()
                elif b"Illegal move" in line or b"not your move" in line:
                    self.side.refusals += 1

    def board(self, fields: list[bytes], now: int) -> None:
        relation = fields[19]
        side = self.side
        if relation == b"-1":
            if self.sent_at:
                side.in_flight -= 1
                side.acked += 1
                if side.recording:
                    side.latencies.append(now - self.sent_at)
                self.sent_at = 0
            return
        if relation != b"1":
            return
        pair = self.pair
        ply = 2 * (int(fields[26]) - 1) + (fields[9] == b"B")
        move = ply < len(pair.moves)
        line = pair.moves[ply] if move else b"resign\r\n"
        if side.period and side.running:
            pair.due += side.period
            loop = self.loop
            if pair.due > loop.time():
                loop.call_at(pair.due, self.side.send, self, line, move)
                return
        side.send(self, line, move)

    def ended(self) -> None:
        side = self.side
        if self.sent_at:
            side.in_flight -= 1
            self.sent_at = 0
        if self.white:
            side.games_ended += 1
            self.pair.moves = side.game_for()
            side.send(self, b"match " + self.opponent + b" 0 0 white\r\n")


async def set_up(side: Side, games: int, timeout: float) -> list[Player]:
    """Log ``2 x games`` guests in, style 12, paired; their first challenges parked."""
    host, port = side.server.host, side.server.port
    loop = asyncio.get_running_loop()

    async def login() -> Player:
        _, player = await loop.create_connection(Player, host, port)
        await player.expect(b"login: ", timeout)
        player.send_line("guest")
        text = await player.expect(b"Press return", timeout)
        player.handle = text.rsplit(b'"', 2)[-2].decode("ascii") if b'"' in text else None
        player.send_line("")
        await player.expect(b"fics% ", timeout)
        await player.command("style 12", timeout)
        return player

    players: list[Player] = []
    todo = iter(range(2 * games))

    async def worker() -> None:
        for _ in todo:
            players.append(await login())

    await asyncio.gather(*(worker() for _ in range(32)))
    if len({p.handle for p in players}) != len(players) or None in {p.handle for p in players}:
        raise BenchError(f"{side.name}: guest handles not read or not distinct")
    for white, black in zip(players[0::2], players[1::2]):
        pair = Pair(white, black)
        side.pairs.append(pair)
        for player, opponent, is_white in ((white, black, True), (black, white, False)):
            player.side, player.pair, player.white = side, pair, is_white
            player.opponent = opponent.handle.encode("ascii")
            player.buf.clear()
            player.tail = b""
            player.playing = True
        pair.moves = side.game_for()
        side.send(white, b"match " + black.handle.encode("ascii") + b" 0 0 white\r\n")
    return players


# --------------------------------------------------------------------------
# Windows


def reactor_seconds(pid: int) -> float:
    """utime+stime of the server's main thread (the reactor), in seconds."""
    with open(f"/proc/{pid}/task/{pid}/stat", "rb") as f:
        data = f.read()
    fields = data[data.rindex(b")") + 2:].split()
    return (int(fields[11]) + int(fields[12])) / CLK_TCK


@dataclass
class Window:
    side: str
    round: int
    moves: int
    seconds: float
    moves_per_second: float
    p50_ms: float
    p99_ms: float
    max_ms: float
    server_cpu_us_per_move: float
    server_sys_us_per_move: float
    reactor_us_per_move: float
    server_sched_us_per_move: float
    server_busy_pct: float
    client_cpu_us_per_move: float
    client_busy_pct: float
    games_ended: int
    refusals: int
    rss_kb: int


async def drain(side: Side, timeout: float) -> None:
    """Stop ``side`` sending and wait for the moves in flight to come back."""
    side.pause()
    deadline = time.monotonic() + timeout
    while side.in_flight > 0:
        if time.monotonic() > deadline:
            raise BenchError(f"{side.name}: {side.in_flight} moves unanswered after {timeout}s")
        if not side.server.alive():
            raise BenchError(f"{side.name} server died:\n{side.server.log_tail()}")
        await asyncio.sleep(0.01)


async def window(side: Side, rnd: int, args) -> Window:
    side.resume()
    await asyncio.sleep(args.warmup)
    side.latencies = array("q")
    ended0, refused0 = side.games_ended, side.refusals
    start = CpuSample.take(side.server.pid)
    reactor0 = reactor_seconds(side.server.pid)
    side.recording = True
    await asyncio.sleep(args.seconds)
    side.recording = False
    end = CpuSample.take(side.server.pid)
    reactor1 = reactor_seconds(side.server.pid)
    rss = rss_kb(side.server.pid)
    await drain(side, args.timeout)
    lat = sorted(side.latencies)
    n = len(lat)
    wall = end.wall - start.wall
    cpu = end.utime + end.stime - start.utime - start.stime
    per = (lambda v: round(v / n * 1e6, 1)) if n else (lambda v: float("nan"))
    return Window(
        side=side.name, round=rnd, moves=n, seconds=round(wall, 3),
        moves_per_second=round(n / wall, 1),
        p50_ms=round(percentile(lat, 50) / 1e6, 2), p99_ms=round(percentile(lat, 99) / 1e6, 2),
        max_ms=round(lat[-1] / 1e6, 2) if lat else float("nan"),
        server_cpu_us_per_move=per(cpu), server_sys_us_per_move=per(end.stime - start.stime),
        reactor_us_per_move=per(reactor1 - reactor0),
        server_sched_us_per_move=per(end.sched - start.sched),
        server_busy_pct=round(100 * cpu / wall, 1),
        client_cpu_us_per_move=per(end.client - start.client),
        client_busy_pct=round(100 * (end.client - start.client) / wall, 1),
        games_ended=side.games_ended - ended0, refusals=side.refusals - refused0, rss_kb=rss,
    )


def start_server(name: str, data: str, args) -> Server:
    # Loopback is exempt from the per-address limits (bench/loopback.toml):
    # 1,000 guests log in from one address.
    config = Path(args.tmp) / f"{name.replace(' ', '-')}.toml"
    config.write_text((Path(__file__).with_name("loopback.toml")).read_text()
                      + f'\n[storage]\nsynchronous = "{args.synchronous}"\n'
                      + ("" if args.commit_interval_ms is None
                         else f"commit_interval_ms = {args.commit_interval_ms}\n"))
    extra = ["--config", str(config), "--data", data]
    options = SimpleNamespace(python=args.python, host=args.host, server_arg=extra, floor_arg=[],
                              server_log=None, start_timeout=args.start_timeout, server_cpu=None)
    server = Server.start("ficsfen", options)
    server.name = name
    return server


async def run(args) -> dict:
    games = load_games(Path(args.pgn))
    data_file = Path(args.tmp) / "ficsfen.sqlite3"
    servers = {"store off": start_server("store off", "none", args),
               "store on": start_server("store on", str(data_file), args)}
    sides: dict[str, Side] = {}
    players: list[Player] = []
    try:
        for name, server in servers.items():
            side = sides[name] = Side(name, server, games, rate=args.rate, pairs=args.games)
            players += await set_up(side, args.games, args.timeout)
        windows = []
        for rnd in range(1, args.rounds + 1):
            for name in SIDES if rnd % 2 else SIDES[::-1]:
                w = await window(sides[name], rnd, args)
                windows.append(w)
                print_window(w)
        summary = summarize(windows)
    finally:
        for p in players:
            p.close()
        for server in servers.values():
            server.stop()
    # What the store-on server committed, read back once it has stopped.
    with closing(sqlite3.connect(f"file:{data_file}?mode=ro", uri=True)) as conn:
        stored = {"games": conn.execute("SELECT count(*) FROM games").fetchone()[0],
                  "moves": conn.execute("SELECT count(*) FROM moves").fetchone()[0]}
    acked = {name: side.acked for name, side in sides.items()}
    print(f"== moves acknowledged over the whole run: {acked['store on']} (store on),"
          f" {acked['store off']} (store off); in the store-on data file: {stored['moves']} moves"
          f" of {stored['games']} games", flush=True)
    return {"windows": [asdict(w) for w in windows], "summary": summary, "acknowledged": acked,
            "stored": stored,
            "servers": {n: " ".join(getattr(s, "command_line", [])) for n, s in servers.items()}}


# --------------------------------------------------------------------------
# Output


def print_window(w: Window, out=sys.stdout) -> None:
    print(f"  round {w.round} {w.side:<9}  {w.moves:>6} moves {w.moves_per_second:>7.0f}/s"
          f"  rtt p50 {w.p50_ms:>6.2f} p99 {w.p99_ms:>6.2f} max {w.max_ms:>7.2f} ms"
          f"  server {w.server_cpu_us_per_move:>6.1f} us/move (sys {w.server_sys_us_per_move:.0f};"
          f" reactor thread {w.reactor_us_per_move:.0f};"
          f" {w.server_busy_pct:.0f}% busy)"
          f"  client {w.client_cpu_us_per_move:>5.1f} us/move ({w.client_busy_pct:.0f}%)"
          f"  RSS {w.rss_kb / 1024:.0f} MB  games ended {w.games_ended}", file=out, flush=True)


def _median_range(values: list[float]) -> dict:
    values = sorted(values)
    return {"median": round(statistics.median(values), 3), "min": values[0], "max": values[-1]}


def summarize(windows: list[Window], out=sys.stdout) -> dict:
    """Per side the medians of the windows; per round the ratio store on / store off."""
    by = {name: [w for w in windows if w.side == name] for name in SIDES}
    summary: dict = {}
    for name, ws in by.items():
        summary[name] = {key: _median_range([getattr(w, key) for w in ws])
                         for key in ("moves_per_second", "p50_ms", "p99_ms", "server_cpu_us_per_move",
                                     "server_sys_us_per_move", "reactor_us_per_move",
                                     "client_cpu_us_per_move", "rss_kb")}
        summary[name]["moves"] = sum(w.moves for w in ws)
        summary[name]["refusals"] = sum(w.refusals for w in ws)
    ratios = [round(on.server_cpu_us_per_move / off.server_cpu_us_per_move, 3)
              for off, on in zip(by["store off"], by["store on"])
              if off.server_cpu_us_per_move == off.server_cpu_us_per_move and off.server_cpu_us_per_move]
    summary["cpu_ratios"] = ratios
    summary["cpu_ratio"] = _median_range(ratios) if ratios else None
    print("== medians over the windows (range)", file=out)
    for name in SIDES:
        s = summary[name]
        fmt = lambda key, f="{:.1f}": (f"{f.format(s[key]['median'])} ({f.format(s[key]['min'])}"
                                       f"..{f.format(s[key]['max'])})")
        print(f"  {name:<9}  moves/s {fmt('moves_per_second', '{:.0f}')}  rtt p50 {fmt('p50_ms', '{:.2f}')}"
              f" p99 {fmt('p99_ms', '{:.2f}')} ms  server {fmt('server_cpu_us_per_move')} us/move"
              f"  client {fmt('client_cpu_us_per_move')} us/move  RSS {fmt('rss_kb', '{:.0f}')} kB"
              f"  ({s['moves']} moves, {s['refusals']} refused)", file=out)
    if ratios:
        r = summary["cpu_ratio"]
        print(f"== server CPU per move, store on / store off: median {r['median']:.3f} over {len(ratios)}"
              f" pairs of windows (range {r['min']:.3f}..{r['max']:.3f})", file=out)
    return summary


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    p.add_argument("--games", type=int, default=500, help="concurrent games per server (2 guests each)")
    p.add_argument("--rate", type=float, default=0.0,
                   help="moves per second the games offer together; 0: each move at once (closed loop)")
    p.add_argument("--rounds", type=int, default=6, help="windows per server, alternating")
    p.add_argument("--seconds", type=float, default=3.0, help="length of a measuring window")
    p.add_argument("--warmup", type=float, default=1.0, help="unmeasured seconds before each window")
    p.add_argument("--synchronous", choices=("full", "normal"), default="full",
                   help="[storage] synchronous of the store-on server")
    p.add_argument("--commit-interval-ms", type=int, default=None, metavar="MS",
                   help="[storage] commit_interval_ms of the store-on server (default: the shipped one)")
    p.add_argument("--pgn", default=str(DEFAULT_PGN), help="games to replay")
    p.add_argument("--host", default="127.0.0.1", help="loopback address")
    p.add_argument("--python", default=sys.executable, help="interpreter that runs the servers")
    p.add_argument("--start-timeout", type=float, default=30.0, help="seconds for a server to listen")
    p.add_argument("--timeout", type=float, default=30.0, help="seconds to wait for any reply")
    p.add_argument("--json", help="also write every figure to this file")
    args = p.parse_args(argv)
    if not ipaddress.ip_address(args.host).is_loopback:
        p.error("--host must be a loopback address")
    if args.games < 1 or args.rounds < 1 or args.seconds <= 0 or args.rate < 0 or args.warmup < 0:
        p.error("--games and --rounds must be >= 1, --seconds > 0, --rate and --warmup >= 0")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    need = 4 * args.games + 64
    limit = raise_fd_limit()
    if limit < need:
        print(f"open-file limit {limit} is below the {need} this run needs", file=sys.stderr)
        return 2
    rate = f"{args.rate:.0f} moves/s offered" if args.rate else "closed loop"
    interval = "" if args.commit_interval_ms is None else f" commit_interval_ms={args.commit_interval_ms},"
    print(f"== {args.games} games per server, {rate}, synchronous={args.synchronous},{interval}"
          f" {args.rounds} x {args.seconds}s windows (+{args.warmup}s warm-up)", flush=True)
    try:
        with tempfile.TemporaryDirectory(prefix="games-store-") as tmp:
            args.tmp = tmp
            result = asyncio.run(run(args))
    except BenchError as e:
        print(f"games_store.py: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    if args.json:
        Path(args.json).write_text(json.dumps({"argv": sys.argv[1:] if argv is None else argv, **result},
                                              indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
