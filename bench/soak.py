"""Soak benchmark: hostile connections beside honest players, on loopback.

Starts ``ficsfen serve --data none`` with the shipped ``[limits]`` and
``commands_per_second = 10`` (off in the shipped file; loopback is *not* exempt: each connection's source address is chosen among
``127.0.0.0/8`` so that per-address limits see distinct attackers) and one
registered account per password-guessed name, then:

* ``--honest`` players log in as guests from their own addresses, examine a
  game and run ``fen``, ``who`` and ``games`` in turn in a closed loop for the
  whole run; their round trips are binned by phase (p50/p99/max);
* ``baseline``: honest players alone for ``--baseline`` seconds;
* ``attack``: a separate process (``--attacker``, so that its CPU does not
  delay the honest players' event loop) opens the hostile connections, keeps
  them busy for ``--attack`` seconds, closes them all and exits;
* ``after``: honest players alone again for ``--after`` seconds.

The hostile mix (counts are options): non-readers (guests that send
``help fen`` and ``who`` and never read), IAC floods (telnet negotiations,
``IAC NOP`` and endless subnegotiations at ``--flood-rate`` bytes/s each),
password guessers (wrong passwords for the registered accounts, in a loop,
reconnecting when closed), half-open logins (silent after connecting, or at
the password prompt), challenge spammers (``match``/``withdraw`` at one
victim in a closed loop) and a crowd from one single address, which the
per-address connection limit should refuse.

The server's RSS is sampled every 0.5 s throughout and its CPU read per
phase.  Every phase is bounded in count and time, every wait has a timeout,
the attacker process is killed if it overstays, and the server is stopped at
the end.  Only loopback addresses are used.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import resource
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from load import (  # noqa: E402  (a sibling script, not a package)
    PROMPT,
    BenchError,
    CpuSample,
    Server,
    CLK_TCK,
    TelnetFilter,
    cpu_ticks_seconds,
    percentile,
    raise_fd_limit,
    rss_kb,
)

REPO = Path(__file__).resolve().parent.parent
HONEST_COMMANDS = ("fen", "who", "games")
#: [limits] commands_per_second for the soak (off in the shipped file): a public server's value.
COMMAND_RATE = 10
IAC, NOP, SB, SE, DO, WILL = 255, 241, 250, 240, 253, 251

#: One chunk of an IAC flood: negotiations, NOPs, escaped 255s and a
#: subnegotiation that is never ended (the server must bound it).
FLOOD_CHUNK = (bytes([IAC, DO, 1, IAC, WILL, 24, IAC, NOP, IAC, IAC]) * 200
               + bytes([IAC, SB, 24]) + b"x" * 2000)


# --------------------------------------------------------------------------
# A hostile connection: a buffer and "wait until any of these markers"


class Conn(asyncio.Protocol):
    def __init__(self) -> None:
        self.loop = asyncio.get_running_loop()
        self.transport: asyncio.Transport | None = None
        self.filter = TelnetFilter()
        self.buf = bytearray()
        self.event = asyncio.Event()
        self.closed = False
        self.received = 0

    def connection_made(self, transport) -> None:
        self.transport = transport

    def data_received(self, data: bytes) -> None:
        self.received += len(data)
        self.buf += self.filter.feed(data)
        if len(self.buf) > 1 << 20:
            del self.buf[:-4096]
        self.event.set()

    def connection_lost(self, exc) -> None:
        self.closed = True
        self.event.set()

    def send(self, line: str) -> None:
        if not self.closed:
            self.transport.write(line.encode() + b"\r\n")

    async def until(self, *markers: bytes, timeout: float) -> tuple[bytes, bytes]:
        """(marker found, text up to it); raises ConnectionError or TimeoutError."""
        async with asyncio.timeout(timeout):
            while True:
                found = [(i, m) for m in markers if (i := self.buf.find(m)) >= 0]
                if found:
                    i, m = min(found)
                    text = bytes(self.buf[:i + len(m)])
                    del self.buf[:i + len(m)]
                    return m, text
                if self.closed:
                    raise ConnectionError(bytes(self.buf[-200:]).decode("utf-8", "replace"))
                self.event.clear()
                await self.event.wait()

    def close(self) -> None:
        if self.transport is not None:
            self.transport.abort()


async def open_from(source: str, host: str, port: int, timeout: float) -> Conn:
    loop = asyncio.get_running_loop()
    async with asyncio.timeout(timeout):
        _, conn = await loop.create_connection(Conn, host, port, local_addr=(source, 0))
    return conn


async def guest(conn: Conn, timeout: float) -> str:
    await conn.until(b"login: ", timeout=timeout)
    conn.send("guest")
    _, text = await conn.until(b"Press return", timeout=timeout)
    handle = text.split(b'Logging you in as "', 1)[-1].split(b'"', 1)[0].decode()
    conn.send("")
    await conn.until(PROMPT, timeout=timeout)
    return handle


# --------------------------------------------------------------------------
# The attacker process


@dataclass
class Tally:
    opened: int = 0
    connect_failed: int = 0
    login_failed: int = 0
    closed_by_server: int = 0
    refused_per_address: int = 0
    refused_logins: int = 0
    bad_passwords: int = 0
    password_refusals: int = 0
    commands_sent: int = 0
    flood_bytes: int = 0
    spam_rounds: int = 0
    victim_bytes: int = 0


class Attack:
    def __init__(self, args) -> None:
        self.args = args
        self.tally = Tally()
        self.conns: list[Conn] = []
        self.deadline = 0.0
        self.n = 0  # hostile connections started, for their source address

    def source(self) -> str:
        """127.2.X.Y, ``--per-address`` connections per address."""
        k = self.n // self.args.per_address
        self.n += 1
        return f"127.2.{k // 250}.{k % 250 + 1}"

    def left(self) -> float:
        return self.deadline - time.monotonic()

    async def connect(self, source: str | None = None) -> Conn | None:
        try:
            conn = await open_from(source or self.source(), self.args.host, self.args.port, self.args.timeout)
        except (OSError, TimeoutError):
            self.tally.connect_failed += 1
            return None
        self.tally.opened += 1
        self.conns.append(conn)
        return conn

    def lost(self, conn: Conn) -> None:
        self.tally.closed_by_server += conn.closed

    async def hold(self, conn: Conn) -> None:
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(max(0.0, self.left())):
                while not conn.closed:
                    conn.event.clear()
                    await conn.event.wait()
                    conn.buf.clear()

    # -- the behaviours ---------------------------------------------------

    async def non_reader(self) -> None:
        conn = await self.connect()
        if conn is None:
            return
        try:
            await guest(conn, self.args.timeout)
        except (ConnectionError, TimeoutError):
            self.tally.login_failed += 1
            return self.lost(conn)
        conn.transport.pause_reading()  # never reads again
        while self.left() > 0 and not conn.closed:
            if conn.transport.get_write_buffer_size() < 16384:
                conn.transport.write(b"help fen\r\nwho\r\n")
                self.tally.commands_sent += 2
            await asyncio.sleep(0.05)
        self.lost(conn)

    async def iac_flood(self) -> None:
        conn = await self.connect()
        if conn is None:
            return
        pause = len(FLOOD_CHUNK) / self.args.flood_rate
        while self.left() > 0 and not conn.closed:
            if conn.transport.get_write_buffer_size() < 65536:
                conn.transport.write(FLOOD_CHUNK)
                self.tally.flood_bytes += len(FLOOD_CHUNK)
            await asyncio.sleep(pause)
        self.lost(conn)

    async def guesser(self, account: str) -> None:
        source = self.source()
        attempt = 0
        while self.left() > 0:
            conn = await self.connect(source)
            if conn is None:
                await asyncio.sleep(1)
                continue
            try:
                while self.left() > 0:
                    await conn.until(b"login: ", timeout=self.args.timeout)
                    conn.send(account)
                    marker, _ = await conn.until(b"password: ", b"guest.", b"Sorry, too many logins",
                                                 timeout=self.args.timeout)
                    if marker == b"password: ":
                        attempt += 1
                        conn.send(f"wrong{attempt}")
                        marker, _ = await conn.until(b"Invalid password", b"login: ", timeout=self.args.timeout)
                        self.tally.bad_passwords += marker == b"Invalid password"
                    elif marker == b"guest.":
                        self.tally.password_refusals += 1
                        await asyncio.sleep(0.1)
                    else:
                        self.tally.refused_logins += 1
                        break
            except (ConnectionError, TimeoutError):
                pass
            self.lost(conn)
            conn.close()
            await asyncio.sleep(min(1.0, max(0.0, self.left())))

    async def half_open(self, at_password: bool) -> None:
        conn = await self.connect()
        if conn is None:
            return
        if at_password:
            try:
                await conn.until(b"login: ", timeout=self.args.timeout)
                conn.send(self.args.accounts[0])
                await conn.until(b"password: ", b"guest.", timeout=self.args.timeout)
            except (ConnectionError, TimeoutError):
                return self.lost(conn)
        else:
            conn.transport.pause_reading()
        await self.hold(conn)
        self.lost(conn)

    async def spammer(self, victim: str) -> None:
        conn = await self.connect()
        if conn is None:
            return
        try:
            await guest(conn, self.args.timeout)
            while self.left() > 0 and not conn.closed:
                conn.send(f"match {victim} 5 0")
                await conn.until(PROMPT, timeout=self.args.timeout)
                conn.send(f"withdraw {victim}")
                await conn.until(PROMPT, timeout=self.args.timeout)
                self.tally.spam_rounds += 1
                await asyncio.sleep(self.args.spam_interval)
        except (ConnectionError, TimeoutError):
            pass
        self.lost(conn)

    async def crowd_member(self) -> None:
        conn = await self.connect(self.args.crowd_address)
        if conn is None:
            return
        try:
            marker, _ = await conn.until(b"login: ", b"connections are open from your address",
                                         timeout=self.args.timeout)
        except (ConnectionError, TimeoutError):
            return self.lost(conn)
        if marker != b"login: ":
            self.tally.refused_per_address += 1
            return
        await self.hold(conn)
        self.lost(conn)

    # -- the whole attack -------------------------------------------------

    async def run(self) -> dict:
        a = self.args
        start = time.monotonic()
        self.deadline = start + a.attack
        victim_conn = await open_from("127.4.0.1", a.host, a.port, a.timeout)
        victim = await guest(victim_conn, a.timeout)
        jobs = ([self.non_reader] * a.non_readers + [self.iac_flood] * a.floods
                + [lambda i=i: self.guesser(a.accounts[i % len(a.accounts)]) for i in range(a.guessers)]
                + [lambda: self.half_open(False)] * (a.half_open - a.half_open // 2)
                + [lambda: self.half_open(True)] * (a.half_open // 2)
                + [lambda: self.spammer(victim)] * a.spammers
                + [self.crowd_member] * a.crowd)
        # interleave kinds, so that each kind ramps up over the same seconds
        order = sorted(range(len(jobs)), key=lambda i: (i * 7919) % len(jobs))
        tasks = []
        gate = asyncio.Semaphore(a.ramp_concurrency)

        async def started(job):
            async with gate:
                await asyncio.sleep(0)
            await job()

        for i in order:
            tasks.append(asyncio.create_task(started(jobs[i])))
        ramp_done = None
        try:
            async with asyncio.timeout(a.attack + 2 * a.timeout + 10):
                await asyncio.gather(*tasks, return_exceptions=True)
        except TimeoutError:
            pass
        for t in tasks:
            t.cancel()
        ramp_done = time.monotonic() - start
        self.tally.victim_bytes = victim_conn.received
        for conn in [victim_conn, *self.conns]:
            conn.close()
        await asyncio.sleep(0.2)
        usage = resource.getrusage(resource.RUSAGE_SELF)
        return {"tally": self.tally.__dict__, "seconds": round(ramp_done, 2), "victim": victim,
                "hostile": len(jobs), "cpu_s": round(usage.ru_utime + usage.ru_stime, 1)}


def attacker_main(args) -> int:
    raise_fd_limit()
    result = asyncio.run(Attack(args).run())
    print(json.dumps(result), flush=True)
    return 0


# --------------------------------------------------------------------------
# Honest players, phases, RSS


class Honest:
    def __init__(self) -> None:
        self.phase = "baseline"
        self.latencies: dict[str, list[int]] = {}
        #: (seconds since the run started, round trip ns) of every command, for windows.
        self.timeline: list[tuple[float, int]] = []
        self.t0 = time.monotonic()
        self.errors: dict[str, int] = {}
        self.running = True

    async def player(self, i: int, args) -> None:
        conn = await open_from(f"127.1.0.{i + 1}", args.host, args.port, args.timeout)
        try:
            await guest(conn, args.timeout)
            for line in ("examine", "e4"):
                conn.send(line)
                await conn.until(PROMPT, timeout=args.timeout)
            n = i
            while self.running:
                command = HONEST_COMMANDS[n % len(HONEST_COMMANDS)]
                n += 1
                phase = self.phase
                sent = time.perf_counter_ns()
                conn.send(command)
                # no early give-up: a late reply is a slow sample, not a lost one (the run is
                # still bounded: the attack ends, and this wait has its own ceiling)
                await conn.until(PROMPT, timeout=args.attack + args.after + args.timeout)
                took = time.perf_counter_ns() - sent
                self.latencies.setdefault(phase, []).append(took)
                self.timeline.append((time.monotonic() - self.t0, took))
                await asyncio.sleep(args.think)
        except (ConnectionError, TimeoutError):
            self.errors[self.phase] = self.errors.get(self.phase, 0) + 1
        finally:
            conn.close()


def thread_cpu_seconds(pid: int) -> float:
    """utime + stime of the process's main thread (the server's reactor), in seconds."""
    with open(f"/proc/{pid}/task/{pid}/stat", "rb") as f:
        data = f.read()
    fields = data[data.rindex(b")") + 2:].split()
    return (int(fields[11]) + int(fields[12])) / CLK_TCK


def summary(latencies: list[int]) -> dict:
    lat = sorted(latencies)
    ms = lambda ns: round(ns / 1e6, 2)  # noqa: E731
    return {"commands": len(lat), "p50_ms": ms(percentile(lat, 50)), "p99_ms": ms(percentile(lat, 99)),
            "max_ms": ms(lat[-1]) if lat else float("nan")}


def write_config(path: Path, accounts: list[str]) -> None:
    sys.path.insert(0, str(REPO))
    from ficsfen.server.config import hash_password

    lines = ["# bench/soak.py: the shipped [limits], loopback not exempt, and a command rate",
             "[limits]", f"connections = {20000 - 200}", f"commands_per_second = {COMMAND_RATE}", "",
             "[accounts]"]
    lines += [f'{name} = "{hash_password("secret-" + name)}"' for name in accounts]
    path.write_text("\n".join(lines) + "\n")


async def run(args) -> dict:
    folder = Path(tempfile.mkdtemp(prefix="soak-"))
    config = folder / "soak.toml"
    write_config(config, args.accounts)
    server_args = argparse.Namespace(host=args.host, python=args.python, server_log=args.server_log,
                                     server_cpu=None, start_timeout=30,
                                     server_arg=["--config", str(config), "--data", "none"])
    server = Server.start("ficsfen", server_args)
    args.port = server.port
    fd_limit = resource.getrlimit(resource.RLIMIT_NOFILE)
    with open(f"/proc/{server.pid}/limits") as f:
        server_fd = next((line.split()[3] for line in f if line.startswith("Max open files")), "?")
    result: dict = {"args": dict(vars(args)), "server_fd_limit": server_fd,
                    "client_fd_limit": fd_limit[0], "server_log": str(server.log)}
    samples: list[tuple[float, str, int]] = []
    honest = Honest()
    t0 = time.monotonic()
    marks: dict[str, tuple[float, float]] = {}
    cpu: dict[str, float] = {}

    cpu_samples: list[tuple[float, float, float]] = []  # (t, process CPU s, main thread CPU s)

    async def sample_rss():
        while True:
            with contextlib.suppress(OSError, BenchError):
                samples.append((round(time.monotonic() - t0, 2), honest.phase, rss_kb(server.pid)))
                cpu_samples.append((round(time.monotonic() - t0, 2), sum(cpu_ticks_seconds(server.pid)),
                                    thread_cpu_seconds(server.pid)))
            await asyncio.sleep(0.5)

    own: dict[str, float] = {}  # this process's CPU (the honest players) at each mark

    def mark(phase: str) -> None:
        now = CpuSample.take(server.pid)
        marks[phase] = (now.utime + now.stime, time.monotonic())
        own[phase] = time.process_time()
        honest.phase = phase

    sampler = asyncio.create_task(sample_rss())
    try:
        mark("login")
        players = [asyncio.create_task(honest.player(i, args)) for i in range(args.honest)]
        await asyncio.sleep(args.settle)
        mark("baseline")
        await asyncio.sleep(args.baseline)
        mark("attack")
        cmd = [args.python, str(Path(__file__).resolve()), "--attacker", "--port", str(server.port),
               *attacker_argv(args)]
        proc = await asyncio.create_subprocess_exec(*cmd, stdout=asyncio.subprocess.PIPE, cwd=REPO)
        try:
            async with asyncio.timeout(args.attack + 2 * args.timeout + 60):
                out, _ = await proc.communicate()
            result["attack"] = json.loads(out.decode() or "{}")
        except (TimeoutError, ValueError) as e:
            result["attack"] = {"error": repr(e)}
            with contextlib.suppress(ProcessLookupError):
                proc.kill()
            await proc.wait()
        mark("after")
        await asyncio.sleep(args.after)
        mark("end")
        honest.running = False
        async with asyncio.timeout(2 * args.timeout + 5):
            outcomes = await asyncio.gather(*players, return_exceptions=True)
        result["honest_failures"] = sorted({repr(o) for o in outcomes if isinstance(o, BaseException)})
    finally:
        sampler.cancel()
        result["server_alive"] = server.alive()
        server.stop()
    phases = ("baseline", "attack", "after")
    order = ["login", *phases, "end"]
    for p, q in zip(order, order[1:]):
        if p in marks and q in marks:
            cpu[p] = (marks[q][0] - marks[p][0]) / (marks[q][1] - marks[p][1])
    result["honest"] = {p: {**summary(honest.latencies.get(p, [])), "errors": honest.errors.get(p, 0),
                            "server_cpu_pct": round(100 * cpu.get(p, float("nan")), 1)} for p in phases}
    if "attack" in own and "after" in own:
        result["attack"]["honest_client_cpu_s"] = round(own["after"] - own["attack"], 1)
    rss = {p: [kb for _, q, kb in samples if q == p] for p in ("baseline", "attack", "after")}
    after = [(t, kb) for t, q, kb in samples if q == "after"]
    result["rss_mb"] = {
        "start": round(rss["baseline"][0] / 1024, 1) if rss["baseline"] else None,
        "peak": round(max(kb for _, _, kb in samples) / 1024, 1) if samples else None,
        "attack_peak": round(max(rss["attack"]) / 1024, 1) if rss["attack"] else None,
        "end_of_attack": round(rss["attack"][-1] / 1024, 1) if rss["attack"] else None,
        "end_of_recovery": round(after[-1][1] / 1024, 1) if after else None,
    }
    result["rss_samples"] = samples
    result["cpu_samples"] = cpu_samples
    if "attack" in marks:  # the server's CPU (all threads; its reactor thread) per second of the attack
        start = marks["attack"][1] - t0
        result["attack_cpu_per_s"] = [
            (round(b[0] - start, 1), round((b[1] - a[1]) / (b[0] - a[0]), 2), round((b[2] - a[2]) / (b[0] - a[0]), 2))
            for a, b in zip(cpu_samples[::2], cpu_samples[2::2]) if start - 5 <= a[0] <= start + args.attack + 10]
    result["windows"] = windows(honest, marks, args.window)
    return result


def windows(honest: "Honest", marks: dict[str, tuple[float, float]], width: float) -> list[dict]:
    """Honest round trips in windows of ``width`` seconds from the attack's start (where
    the ramp ends and the steady state starts), from the baseline to the end."""
    if "attack" not in marks:
        return []
    attack = marks["attack"][1] - honest.t0
    first = marks.get("baseline", marks["attack"])[1] - honest.t0
    bins: dict[int, list[int]] = {}
    for t, ns in honest.timeline:
        if t >= first:
            bins.setdefault(int((t - attack) // width), []).append(ns)
    return [{"from_s": k * width, **summary(bins[k])} for k in sorted(bins)]


def attacker_argv(args) -> list[str]:
    names = ("host", "attack", "timeout", "per_address", "flood_rate", "spam_interval", "ramp_concurrency",
             "non_readers", "floods", "guessers", "half_open", "spammers", "crowd", "crowd_address")
    argv = []
    for name in names:
        argv += [f"--{name.replace('_', '-')}", str(getattr(args, name))]
    for account in args.accounts:
        argv += ["--account", account]
    return argv


def report(result: dict, out=sys.stdout) -> None:
    a = result["args"]
    print(f"honest players: {a['honest']}; hostile: {result['attack'].get('hostile')}"
          f" (attack {a['attack']} s, server fd limit {result['server_fd_limit']})", file=out)
    print(f"{'phase':<9} {'cmds':>7} {'p50 ms':>8} {'p99 ms':>8} {'max ms':>8} {'errors':>6} {'srv cpu %':>9}",
          file=out)
    for phase, h in result["honest"].items():
        print(f"{phase:<9} {h['commands']:>7} {h['p50_ms']:>8} {h['p99_ms']:>8} {h['max_ms']:>8} "
              f"{h['errors']:>6} {h['server_cpu_pct']:>9}", file=out)
    r = result["rss_mb"]
    print(f"server RSS MB: start {r['start']}, peak {r['peak']}, end of attack {r['end_of_attack']}, "
          f"end of recovery {r['end_of_recovery']}", file=out)
    print(f"attack: {json.dumps(result['attack'].get('tally', result['attack']))}", file=out)
    print(f"client CPU during the attack: attacker {result['attack'].get('cpu_s')} s, honest players "
          f"{result['attack'].get('honest_client_cpu_s')} s", file=out)
    print(f"server alive at the end: {result['server_alive']}", file=out)
    if result.get("attack_cpu_per_s"):
        print("server CPU per second around the attack (t: all threads / reactor thread): "
              + " ".join(f"{t:g}:{a:.2f}/{m:.2f}" for t, a, m in result["attack_cpu_per_s"]), file=out)
    if result.get("windows"):
        print(f"windows of {a['window']:g} s from the attack's start (honest cmds, p50, p99, max ms):",
              file=out)
        print("  " + "; ".join(f"{w['from_s']:+g}: {w['commands']} {w['p50_ms']:g} {w['p99_ms']:g} "
                              f"{w['max_ms']:g}" for w in result["windows"]), file=out)


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=0, help=argparse.SUPPRESS)
    p.add_argument("--attacker", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--python", default=sys.executable)
    p.add_argument("--honest", type=int, default=50)
    p.add_argument("--think", type=float, default=0.1, help="seconds an honest player waits between commands")
    p.add_argument("--settle", type=float, default=3.0, help="seconds for the honest players to log in")
    p.add_argument("--baseline", type=float, default=15.0)
    p.add_argument("--attack", type=float, default=60.0)
    p.add_argument("--after", type=float, default=60.0)
    p.add_argument("--timeout", type=float, default=20.0)
    p.add_argument("--non-readers", type=int, default=400)
    p.add_argument("--floods", type=int, default=200)
    p.add_argument("--guessers", type=int, default=300)
    p.add_argument("--half-open", type=int, default=600)
    p.add_argument("--spammers", type=int, default=300)
    p.add_argument("--crowd", type=int, default=200, help="connections from one single address")
    p.add_argument("--crowd-address", default="127.3.0.1")
    p.add_argument("--per-address", type=int, default=4, help="hostile connections per source address")
    p.add_argument("--flood-rate", type=float, default=32768, help="bytes/s of each IAC flood")
    p.add_argument("--spam-interval", type=float, default=0.05)
    p.add_argument("--ramp-concurrency", type=int, default=200)
    p.add_argument("--account", dest="accounts", action="append", default=None)
    p.add_argument("--server-log", default=None)
    p.add_argument("--window", type=float, default=5.0, help="seconds of each window of honest figures")
    p.add_argument("--json", default=None, help="write every figure to this file")
    args = p.parse_args(argv)
    args.accounts = args.accounts or ["alice", "bob", "carol", "dave", "erin"]
    if not args.host.startswith("127."):
        p.error("loopback only")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.attacker:
        return attacker_main(args)
    raise_fd_limit()  # the server inherits it
    result = asyncio.run(run(args))
    report(result)
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=1))
    return 0 if result["server_alive"] else 1


if __name__ == "__main__":
    sys.exit(main())
