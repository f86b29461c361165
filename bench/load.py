"""Load benchmark: many telnet sessions against a FICS-style server on loopback.

A separate process from the server, so that the server's own CPU time (read
from ``/proc/PID/stat`` at the start and end of a measuring window) is not
mixed with the client's.  Sessions log in as guests, then each runs a closed
loop of one command (send, wait for the next ``fics% `` prompt, send again)
for a fixed time.  Reported: commands/s, p50/p99 latency, server CPU per
command and server RSS.  Other modes: extra idle sessions (``--idle``), guest
login throughput (``--logins-per-second``) and RSS across a fixed number of
commands (``--repeat``).  One game watched by many is ``bench/observers.py``.

``--target floor`` starts ``bench/floor_server.py`` (the least any Twisted
server can do), ``--target ficsfen`` starts ``python -m ficsfen serve``, and
``--compare`` runs both with the same parameters and prints the ratio of
server CPU per command, since absolute figures on a shared machine are noise:
both servers stay up and short windows alternate between them (``--rounds``),
and the median of the per-pair ratios is the result.

``--mode`` says how the client talks: ``plain`` (a line, then the prompt),
``block`` (``iset block 1`` after login, then numbered commands ``N fen``,
each answered by one frame ending with the block end byte 0x17) or
``timeseal`` (every line encoded as a timeseal v1 client sends it, after the
timeseal hello); ``block+timeseal`` is both, as pychess does by default.
``--compare-modes plain,block`` logs sessions of each mode into ONE ficsfen
server and alternates windows between the modes: the ratio of server CPU per
command is what the mode costs over the first one named.

Everything stays on loopback, every wait has a timeout, and each phase is
bounded by time or count: the tool always stops by itself.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import ipaddress
import json
import functools
import os
import random
import re
import resource
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from array import array
from dataclasses import asdict, dataclass, field
from operator import itemgetter
from pathlib import Path

__all__ = ["MODES", "Server", "Session", "TelnetFilter", "main", "seal"]

REPO = Path(__file__).resolve().parent.parent
#: Exempts loopback from the per-address limits (see the file); --server-arg --config FILE replaces it.
LOOPBACK_CONFIG = str(Path(__file__).with_name("loopback.toml"))
PROMPT = b"fics% "
LOGIN_PROMPT = b"login: "
PRESS_RETURN = b"Press return"
CLK_TCK = os.sysconf("SC_CLK_TCK")
HANDLE_RE = re.compile(rb'Logging you in as "([^"]+)"')
#: How a client talks to the server (see the module docstring).
MODES = ("plain", "block", "timeseal", "block+timeseal", "plain+sealwork")
# "plain+sealwork": a plain client that also does a timeseal client's encoding
# (and throws it away): the control that shows how much of timeseal's measured
# cost is the client's own pace rather than the server's work.
BLOCK_END = b"\x17\r\n"  # the frame's end byte; the server ends the frame's line too
BLOCK_ID_LIMIT = 10**9  # block ids have at most nine digits: they wrap

IAC, SB, SE = 255, 250, 240
WILL, WONT, DO, DONT = 251, 252, 253, 254


class BenchError(Exception):
    """A run could not be carried out (server did not start, login failed...)."""


# --------------------------------------------------------------------------
# Reading the server process from /proc


def cpu_ticks_seconds(pid: int) -> tuple[float, float]:
    """(utime, stime) of a process in seconds (``/proc/PID/stat``, clock-tick resolution)."""
    with open(f"/proc/{pid}/stat", "rb") as f:
        data = f.read()
    fields = data[data.rindex(b")") + 2 :].split()
    return int(fields[11]) / CLK_TCK, int(fields[12]) / CLK_TCK


def cpu_sched_seconds(pid: int) -> float:
    """On-CPU time of a process's live threads in seconds (``schedstat``, ns resolution)."""
    total = 0
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return float("nan")
    for tid in tasks:
        try:
            with open(f"/proc/{pid}/task/{tid}/schedstat", "rb") as f:
                total += int(f.read().split()[0])
        except (OSError, ValueError, IndexError):
            pass
    return total / 1e9


def rss_kb(pid: int) -> int:
    """Resident set size in kB (``VmRSS`` of ``/proc/PID/status``)."""
    with open(f"/proc/{pid}/status", "rb") as f:
        for line in f:
            if line.startswith(b"VmRSS:"):
                return int(line.split()[1])
    raise BenchError(f"no VmRSS for pid {pid}")


@dataclass
class CpuSample:
    utime: float
    stime: float
    sched: float
    client: float
    wall: float

    @classmethod
    def take(cls, pid: int) -> CpuSample:
        usage = resource.getrusage(resource.RUSAGE_SELF)
        utime, stime = cpu_ticks_seconds(pid)
        return cls(
            utime=utime,
            stime=stime,
            sched=cpu_sched_seconds(pid),
            client=usage.ru_utime + usage.ru_stime,
            wall=time.perf_counter(),
        )


def raise_fd_limit() -> int:
    """Lift the soft open-file limit to the hard one (10,000 sessions need it)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = hard if hard != resource.RLIM_INFINITY else max(soft, 1 << 20)
    if soft < target:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
        except (ValueError, OSError):
            return soft
        return target
    return soft


# --------------------------------------------------------------------------
# Timeseal v1, client side (written from the documented line format)

TIMESEAL_KEY = b"Timestamp (FICS) v1.0 - programmed by Henrik Gram."
#: The decoded first line of a timeseal v1 client, and its answer to a ``[G]`` ping.
TIMESEAL_HELLO = b"TIMESTAMP|guest|ficsfen bench/load.py|"
TIMESEAL_PING = b"[G]"
TIMESEAL_PING_REPLY = b"\x029"
_OR_HIGH = bytes(b | 0x80 for b in range(256))
_MINUS_32 = bytes((b - 32) & 0xFF for b in range(256))
_FILLER = b"1" * 11
# Where each byte of a 12-byte block goes: bytes 0<->11, 2<->9 and 4<->7 trade places.
_SWAPPED = (11, 1, 9, 3, 7, 5, 6, 4, 8, 2, 10, 0)


@functools.cache
def _seal_tables(size: int, offset: int) -> tuple:
    """The byte pick that swaps every 12-byte block, and the key stream as one integer."""
    pick = itemgetter(*(base + i for base in range(0, size, 12) for i in _SWAPPED))
    stream = bytes(TIMESEAL_KEY[(n + offset) % len(TIMESEAL_KEY)] for n in range(size))
    return pick, int.from_bytes(stream, "little")


def seal(text: bytes, stamp: int, offset: int) -> bytes:
    """``text`` encoded as a timeseal v1 client sends it, with its ``\\n``.

    The text, ``\\x18``, the stamp's digits, ``\\x19`` and filler up to a
    multiple of 12; the swaps in each 12-byte block; each byte ORed with
    0x80, XORed with the key from ``offset`` on, minus 32; then the byte
    ``0x80 | offset``.  C-level operations only, so that the client stays
    cheap next to the server it measures.
    """
    body = b"%s\x18%d\x19" % (text, stamp)
    size = -(-len(body) // 12) * 12
    body += _FILLER[:size - len(body)]
    pick, key = _seal_tables(size, offset)
    mixed = int.from_bytes(bytes(pick(body)).translate(_OR_HIGH), "little") ^ key
    return mixed.to_bytes(size, "little").translate(_MINUS_32) + bytes((0x80 | offset, 10))


def client_stamp() -> int:
    """The client's clock in milliseconds modulo 10**7, as timeseal sends it."""
    return time.monotonic_ns() // 1_000_000 % 10_000_000


#: The last encoded line of each text, with its stamp: within the same
#: millisecond every session sends the same bytes (same stamp, same key
#: offset) instead of encoding them again.  The server's work does not
#: depend on the stamp or the offset; a slower client would make the
#: server's CPU per command look higher than it is (its core idles longer
#: between commands, and with many sessions it gets fewer per wake-up).
_SEALED: dict[bytes, tuple[int, bytes]] = {}


# --------------------------------------------------------------------------
# Client side


class TelnetFilter:
    """Drops telnet commands from a byte stream, across chunk boundaries.

    The client never negotiates: WILL/WONT/DO/DONT and subnegotiations are
    skipped, ``IAC IAC`` is a data byte 255.
    """

    DATA, CMD, OPT, SUB, SUB_IAC = range(5)

    def __init__(self) -> None:
        self.state = self.DATA
        self.skipped = 0

    def feed(self, data: bytes) -> bytes:
        if self.state == self.DATA and IAC not in data:
            return data
        out = bytearray()
        state = self.state
        for byte in data:
            if state == self.DATA:
                if byte == IAC:
                    state = self.CMD
                else:
                    out.append(byte)
                continue
            self.skipped += 1
            if state == self.CMD:
                if byte == IAC:
                    out.append(IAC)
                    self.skipped -= 1
                    state = self.DATA
                elif byte in (WILL, WONT, DO, DONT):
                    state = self.OPT
                elif byte == SB:
                    state = self.SUB
                else:
                    state = self.DATA
            elif state == self.OPT:
                state = self.DATA
            elif state == self.SUB:
                if byte == IAC:
                    state = self.SUB_IAC
            elif state == self.SUB_IAC:
                state = self.DATA if byte == SE else self.SUB
        self.state = state
        return bytes(out)


class Loop:
    """A closed loop shared by sessions: collects latencies, stops them together."""

    def __init__(self, *, limit: int | None = None, sample_every: int = 0, on_sample=None) -> None:
        self.latencies = array("q")
        self.reply_bytes = 0
        self.running = True
        self.limit = limit
        self.issued = 0
        self.sample_every = sample_every
        self.on_sample = on_sample
        self.active = 0
        self.errors = 0
        self.done: asyncio.Future = asyncio.get_running_loop().create_future()

    def may_send(self) -> bool:
        if not self.running:
            return False
        if self.limit is not None and self.issued >= self.limit:
            return False
        self.issued += 1
        return True

    def record(self, latency_ns: int, nbytes: int) -> None:
        self.latencies.append(latency_ns)
        self.reply_bytes += nbytes
        if self.sample_every and len(self.latencies) % self.sample_every == 0 and self.on_sample:
            self.on_sample(len(self.latencies))

    def session_stopped(self, *, error: bool = False) -> None:
        self.errors += error
        self.active -= 1
        if self.active <= 0 and not self.done.done():
            self.done.set_result(None)


class Session(asyncio.Protocol):
    """One telnet session seen from the client: a buffer, a marker to wait for.

    :attr:`block` and :attr:`sealed` say how lines are sent (numbered,
    timeseal-encoded) and :attr:`reply_end` what ends a command's reply.
    """

    def __init__(self) -> None:
        self.loop = asyncio.get_running_loop()
        self.block = False  # commands numbered, replies framed (after "iset block 1")
        self.sealed = False  # every line timeseal-encoded (after the hello)
        self.sealwork = False  # plain lines, but a sealed client's encoding work too (a control)
        self.reply_end = PROMPT
        self.block_id = 0
        self.seal_offset = random.randrange(len(TIMESEAL_KEY))
        self.first_reply: bytes | None = None
        self.transport: asyncio.Transport | None = None
        self.filter = TelnetFilter()
        self.buf = bytearray()
        self.marker: bytes | None = None
        self.search_from = 0
        self.waiter: asyncio.Future | None = None
        self.closed = self.loop.create_future()
        self.handle: str | None = None
        self.on_marker = None  # callback(session, now_ns) instead of a waiter (see arm)
        # closed-loop state
        self.cloop: Loop | None = None
        self.line: bytes | None = b""  # None: made afresh for each command (block id, stamp)
        self.text = b""
        self.sent_at = 0

    # asyncio.Protocol
    def connection_made(self, transport) -> None:
        self.transport = transport
        sock = transport.get_extra_info("socket")
        if sock is not None:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def data_received(self, data: bytes) -> None:
        data = self.filter.feed(data)
        if not data:
            return
        buf = self.buf
        buf += data
        marker = self.marker
        if marker is None:
            if len(buf) > 65536:  # unsolicited output on an idle session
                del buf[:-64]
            return
        idx = buf.find(marker, self.search_from)
        if idx < 0:
            self.search_from = max(0, len(buf) - len(marker) + 1)
            return
        end = idx + len(marker)
        self.search_from = 0
        if self.cloop is not None:
            now = time.perf_counter_ns()
            del buf[:end]
            cloop = self.cloop
            cloop.record(now - self.sent_at, end)
            if cloop.may_send():
                line = self.line
                if line is None:
                    line = self.encode(self.text)
                self.sent_at = time.perf_counter_ns()
                self.transport.write(line)
            else:
                self.cloop = None
                self.marker = None
                cloop.session_stopped()
            return
        text = bytes(buf[:end])
        del buf[:end]
        self.marker = None
        if self.on_marker is not None:
            callback, self.on_marker = self.on_marker, None
            callback(self, time.perf_counter_ns())
        elif self.waiter is not None and not self.waiter.done():
            self.waiter.set_result(text)

    def connection_lost(self, exc) -> None:
        if self.waiter is not None and not self.waiter.done():
            self.waiter.set_exception(ConnectionError("server closed the connection"))
        if self.cloop is not None:
            cloop, self.cloop = self.cloop, None
            cloop.session_stopped(error=True)
        if not self.closed.done():
            self.closed.set_result(None)

    # utilities
    def encode(self, text: bytes) -> bytes:
        """The bytes that send the line ``text`` in this session's mode."""
        if self.block:
            self.block_id = self.block_id % (BLOCK_ID_LIMIT - 1) + 1
            text = b"%d %s" % (self.block_id, text)
        if self.sealed:
            stamp = client_stamp()
            last = _SEALED.get(text)
            if last is not None and last[0] == stamp:
                return last[1]
            self.seal_offset = (self.seal_offset + 17) % len(TIMESEAL_KEY)  # offsets vary, as clients pick them
            line = seal(text, stamp, self.seal_offset)
            if len(_SEALED) > 1024:  # numbered (block mode) texts do not repeat
                _SEALED.clear()
            _SEALED[text] = stamp, line
            return line
        if self.sealwork:  # the same client work as the sealed side, sent plain
            stamp = client_stamp()
            last = _SEALED.get(text)
            if last is None or last[0] != stamp:
                self.seal_offset = (self.seal_offset + 17) % len(TIMESEAL_KEY)
                _SEALED[text] = stamp, seal(text, stamp, self.seal_offset)
        return text + b"\r\n"

    def send_line(self, text: str | bytes) -> None:
        if isinstance(text, str):
            text = text.encode("utf-8")
        self.transport.write(self.encode(text))

    async def expect(self, marker: bytes, timeout: float) -> bytes:
        """Everything up to and including the next ``marker``."""
        idx = self.buf.find(marker)
        if idx >= 0:
            end = idx + len(marker)
            text = bytes(self.buf[:end])
            del self.buf[:end]
            return text
        if self.closed.done():
            raise ConnectionError("connection closed")
        self.marker = marker
        self.search_from = max(0, len(self.buf) - len(marker) + 1)
        waiter = self.waiter = self.loop.create_future()
        # a timer handle rather than asyncio.wait_for: cheaper, and logins/s must measure the server
        timer = self.loop.call_later(timeout, self._expect_timed_out, waiter, marker)
        try:
            return await waiter
        finally:
            timer.cancel()
            self.marker = None
            self.waiter = None

    def _expect_timed_out(self, waiter: asyncio.Future, marker: bytes) -> None:
        if not waiter.done():
            tail = bytes(self.buf[-120:])
            waiter.set_exception(BenchError(f"timed out waiting for {marker!r}; last bytes: {tail!r}"))

    def arm(self, marker: bytes, callback) -> None:
        """Call ``callback(self, now_ns)`` when ``marker`` arrives; what came before is dropped."""
        self.buf.clear()
        self.search_from = 0
        self.marker = marker
        self.on_marker = callback

    async def command(self, line: str, timeout: float) -> bytes:
        """Send ``line`` and return its reply (a timeseal ping in it is answered)."""
        self.send_line(line)
        reply = await self.expect(self.reply_end, timeout)
        if self.sealed and TIMESEAL_PING in reply:
            for _ in range(reply.count(TIMESEAL_PING)):
                self.send_line(TIMESEAL_PING_REPLY)
        return reply

    async def start_block_mode(self, timeout: float) -> None:
        """``iset block 1`` (answered with a prompt), then numbered commands and framed replies."""
        await self.command("iset block 1", timeout)
        self.block = True
        self.reply_end = BLOCK_END

    def start_loop(self, command: str, cloop: Loop) -> None:
        self.text = command.encode("utf-8")
        self.line = None if self.block or self.sealed else self.text + b"\r\n"
        if not cloop.may_send():
            return
        cloop.active += 1
        self.cloop = cloop
        self.marker = self.reply_end
        self.search_from = 0
        line = self.line if self.line is not None else self.encode(self.text)
        self.sent_at = time.perf_counter_ns()
        self.transport.write(line)

    def close(self) -> None:
        if self.transport is not None:
            self.transport.abort()


async def connect(host: str, port: int) -> Session:
    loop = asyncio.get_running_loop()
    _, session = await loop.create_connection(Session, host, port)
    return session


async def login_guest(host: str, port: int, timeout: float, mode: str = "plain") -> Session:
    """Connect and log in as a guest the way FICS clients do, in client mode ``mode``.

    A timeseal client sends its hello first; a block-mode client turns
    block mode on once logged in.
    """
    try:
        async with asyncio.timeout(timeout):
            session = await connect(host, port)
    except TimeoutError:
        raise BenchError(f"no connection to {host}:{port} in {timeout}s") from None
    try:
        if "timeseal" in mode:
            session.sealed = True
            session.send_line(TIMESEAL_HELLO)
        session.sealwork = mode == "plain+sealwork"
        await session.expect(LOGIN_PROMPT, timeout)
        session.send_line("guest")
        text = await session.expect(PRESS_RETURN, timeout)
        match = HANDLE_RE.search(text)
        session.handle = match.group(1).decode("ascii", "replace") if match else None
        session.send_line("")
        await session.expect(PROMPT, timeout)
        if "block" in mode:
            await session.start_block_mode(timeout)
    except BaseException:
        session.close()
        raise
    return session


async def login_many(host: str, port: int, count: int, *, concurrency: int, timeout: float,
                     mode: str = "plain") -> tuple[list, int]:
    """Log ``count`` guests in, ``concurrency`` at a time; returns (sessions, failures)."""
    sessions: list[Session] = []
    failures = 0
    remaining = iter(range(count))

    async def worker():
        nonlocal failures
        for _ in remaining:
            try:
                sessions.append(await login_guest(host, port, timeout, mode))
            except (OSError, BenchError, asyncio.TimeoutError):
                failures += 1

    await asyncio.gather(*(worker() for _ in range(max(1, min(concurrency, count)))))
    return sessions, failures


# --------------------------------------------------------------------------
# Server side


def free_port(host: str) -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((host, 0))
        return s.getsockname()[1]


class Server:
    """A server process: either started here (and stopped here) or attached to by PID."""

    def __init__(self, *, pid: int, host: str, port: int, proc: subprocess.Popen | None = None, log: Path | None = None):
        self.pid, self.host, self.port, self.proc, self.log = pid, host, port, proc, log

    @classmethod
    def start(cls, target: str, args) -> Server:
        host = args.host
        port = free_port(host)
        if target == "floor":
            cmd = [args.python, os.path.join("bench", "floor_server.py"), "--port", str(port), "--interface", host,
                   *args.floor_arg]
        elif target == "ficsfen":
            extra = list(args.server_arg)
            if "--config" not in extra:  # loopback spared the per-address limits (bench/loopback.toml)
                extra = ["--config", LOOPBACK_CONFIG, *extra]
            if "--data" not in extra:  # no store unless asked: runs share no data file, write no home folder
                extra = [*extra, "--data", "none"]
            cmd = [args.python, "-m", "ficsfen", "serve", "--listen", f"tcp:{port}:interface={host}", "--web", "none", *extra]
        else:
            raise BenchError(f"unknown target {target!r}")
        if args.server_log:
            log = Path(args.server_log.replace("{target}", target))
        else:
            fd, name = tempfile.mkstemp(prefix=f"load-{target}-", suffix=".log")
            os.close(fd)
            log = Path(name)
        with open(log, "wb") as out:
            proc = subprocess.Popen(cmd, cwd=REPO, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT)
        if args.server_cpu is not None:
            os.sched_setaffinity(proc.pid, {args.server_cpu})
        server = cls(pid=proc.pid, host=host, port=port, proc=proc, log=log)
        server.command_line = cmd
        deadline = time.monotonic() + args.start_timeout
        while True:
            if proc.poll() is not None:
                raise BenchError(f"{target} server exited with {proc.returncode}:\n{server.log_tail()}")
            try:
                with socket.create_connection((host, port), timeout=1):
                    break
            except OSError:
                if time.monotonic() > deadline:
                    server.stop()
                    raise BenchError(f"{target} server did not listen on {host}:{port} in {args.start_timeout}s")
                time.sleep(0.05)
        return server

    def log_tail(self, lines: int = 15) -> str:
        if self.log is None or not self.log.exists():
            return ""
        return "\n".join(self.log.read_text(errors="replace").splitlines()[-lines:])

    def alive(self) -> bool:
        if self.proc is not None:
            return self.proc.poll() is None
        return os.path.exists(f"/proc/{self.pid}")

    def stop(self) -> None:
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(10)


# --------------------------------------------------------------------------
# Measurements


def percentile(sorted_values, q: float) -> float:
    """Nearest-rank percentile of an already sorted sequence."""
    if not sorted_values:
        return float("nan")
    rank = max(1, min(len(sorted_values), round(q / 100 * len(sorted_values) + 0.5)))
    return sorted_values[rank - 1]


@dataclass
class Window:
    """What one measuring window saw."""

    label: str
    sessions: int
    commands: int
    seconds: float
    per_second: float
    p50_us: float
    p99_us: float
    max_us: float
    server_cpu_s: float
    server_busy_pct: float
    server_cpu_us_per_op: float
    server_user_us_per_op: float
    server_sys_us_per_op: float
    server_sched_us_per_op: float
    client_cpu_us_per_op: float
    reply_bytes_avg: float
    errors: int
    rss_kb_before: int
    rss_kb_after: int
    extra: dict = field(default_factory=dict)


def make_window(label, sessions, latencies_ns, start: CpuSample, end: CpuSample, rss0, rss1, reply_bytes, errors, extra=None):
    n = len(latencies_ns)
    lat = sorted(latencies_ns)
    seconds = end.wall - start.wall
    per = (lambda v: v / n * 1e6) if n else (lambda v: float("nan"))
    return Window(
        label=label,
        sessions=sessions,
        commands=n,
        seconds=round(seconds, 3),
        per_second=round(n / seconds, 1) if seconds > 0 else float("nan"),
        p50_us=round(percentile(lat, 50) / 1e3, 1),
        p99_us=round(percentile(lat, 99) / 1e3, 1),
        max_us=round(lat[-1] / 1e3, 1) if lat else float("nan"),
        server_cpu_s=round(end.utime + end.stime - start.utime - start.stime, 3),
        server_busy_pct=round(100 * (end.utime + end.stime - start.utime - start.stime) / seconds, 1)
        if seconds > 0 else float("nan"),
        server_cpu_us_per_op=round(per(end.utime + end.stime - start.utime - start.stime), 2),
        server_user_us_per_op=round(per(end.utime - start.utime), 2),
        server_sys_us_per_op=round(per(end.stime - start.stime), 2),
        server_sched_us_per_op=round(per(end.sched - start.sched), 2),
        client_cpu_us_per_op=round(per(end.client - start.client), 2),
        reply_bytes_avg=round(reply_bytes / n, 1) if n else float("nan"),
        errors=errors,
        rss_kb_before=rss0,
        rss_kb_after=rss1,
        extra=extra or {},
    )


async def closed_loop(sessions, command: str, *, seconds: float | None, limit: int | None, timeout: float,
                      sample_every: int = 0, on_sample=None) -> Loop:
    """Run ``command`` in a closed loop on every session until time or count runs out."""
    cloop = Loop(limit=limit, sample_every=sample_every, on_sample=on_sample)
    for s in sessions:
        s.start_loop(command, cloop)
    if cloop.active == 0:
        cloop.done.set_result(None)
    loop = asyncio.get_running_loop()
    if seconds is not None:
        handle = loop.call_later(seconds, setattr, cloop, "running", False)
    bound = (seconds or 0) + timeout + (limit or 0) * 0.01
    try:
        await asyncio.wait_for(asyncio.shield(cloop.done), bound)
    except asyncio.TimeoutError:
        cloop.running = False
        try:
            await asyncio.wait_for(asyncio.shield(cloop.done), timeout)
        except asyncio.TimeoutError:
            raise BenchError(f"{cloop.active} sessions still waiting for a prompt after {timeout}s") from None
    finally:
        if seconds is not None:
            handle.cancel()
    return cloop


async def measure(server: Server, sessions, command: str, args, label: str) -> Window:
    if args.warmup > 0:
        await closed_loop(sessions, command, seconds=args.warmup, limit=None, timeout=args.timeout)
    rss0 = rss_kb(server.pid)
    start = CpuSample.take(server.pid)
    cloop = await closed_loop(sessions, command, seconds=args.seconds, limit=None, timeout=args.timeout)
    end = CpuSample.take(server.pid)
    rss1 = rss_kb(server.pid)
    return make_window(label, len(sessions), cloop.latencies, start, end, rss0, rss1, cloop.reply_bytes, cloop.errors)


async def measure_repeat(server: Server, sessions, command: str, args) -> Window:
    samples: list[tuple[int, int]] = []

    def sample(done: int) -> None:
        samples.append((done, rss_kb(server.pid)))

    if args.warmup > 0:
        await closed_loop(sessions, command, seconds=args.warmup, limit=None, timeout=args.timeout)
    rss0 = rss_kb(server.pid)
    samples.append((0, rss0))
    start = CpuSample.take(server.pid)
    cloop = await closed_loop(sessions, command, seconds=None, limit=args.repeat, timeout=args.timeout,
                              sample_every=args.sample_every, on_sample=sample)
    end = CpuSample.take(server.pid)
    rss1 = rss_kb(server.pid)
    if samples[-1][0] != len(cloop.latencies):
        samples.append((len(cloop.latencies), rss1))
    rss_values = [kb for _, kb in samples]
    after_first = rss_values[1:] or rss_values
    extra = {
        "rss_samples_kb": samples,
        "rss_growth_kb": rss_values[-1] - rss_values[0],
        "rss_growth_after_first_sample_kb": after_first[-1] - after_first[0],
    }
    return make_window(f"repeat {args.repeat}", len(sessions), cloop.latencies, start, end, rss0, rss1,
                       cloop.reply_bytes, cloop.errors, extra)


async def measure_logins(server: Server, args, mode: str = "plain") -> Window:
    """Guest logins then ``quit``, ``--sessions`` at a time, for ``--seconds``."""
    host, port, timeout = server.host, server.port, args.timeout
    latencies = array("q")
    failures = 0

    async def worker(deadline: float) -> None:
        nonlocal failures
        while time.perf_counter() < deadline:
            t0 = time.perf_counter_ns()
            try:
                session = await login_guest(host, port, timeout, mode)
            except (OSError, BenchError, asyncio.TimeoutError):
                failures += 1
                continue
            latencies.append(time.perf_counter_ns() - t0)
            session.send_line("quit")
            try:
                async with asyncio.timeout(timeout):
                    await session.closed
            except TimeoutError:
                failures += 1
                session.close()

    if args.warmup > 0:
        deadline = time.perf_counter() + args.warmup
        await asyncio.gather(*(worker(deadline) for _ in range(args.sessions)))
        del latencies[:]
        failures = 0
    rss0 = rss_kb(server.pid)
    start = CpuSample.take(server.pid)
    deadline = time.perf_counter() + args.seconds
    await asyncio.gather(*(worker(deadline) for _ in range(args.sessions)))
    await asyncio.sleep(0.2)  # let the server finish closing the last sessions
    end = CpuSample.take(server.pid)
    rss1 = rss_kb(server.pid)
    return make_window("guest login + quit", args.sessions, latencies, start, end, rss0, rss1, 0, failures)


def new_result(target: str, server: Server, mode: str = "plain") -> dict:
    return {"target": target, "mode": mode, "pid": server.pid, "port": server.port,
            "server_command": getattr(server, "command_line", None),
            "rss_kb_start": rss_kb(server.pid), "windows": []}


async def open_active(server: Server, args, mode: str = "plain") -> list[Session]:
    """Log in the active sessions, run the ``--setup`` commands on each, then the command once.

    That first reply is kept (:attr:`Session.first_reply`), for the reader
    to see that the command did what was meant in this mode.
    """
    sessions, failed = await login_many(server.host, server.port, args.sessions,
                                        concurrency=args.login_concurrency, timeout=args.timeout, mode=mode)
    if failed:
        for s in sessions:
            s.close()
        raise BenchError(f"{failed} of {args.sessions} active {mode} sessions failed to log in")
    for s in sessions:
        for line in args.setup:
            await s.command(line, args.timeout)
        s.first_reply = await s.command(args.command, args.timeout)
    return sessions


@dataclass
class Arm:
    """One side of a comparison: a server and the client mode its sessions use."""

    name: str
    target: str
    server: Server
    mode: str = "plain"


def check_alive(target: str, server: Server) -> None:
    if not server.alive():
        raise BenchError(f"{target} server died:\n{server.log_tail()}")


async def run_windows(arms: list[Arm], args) -> dict[str, dict]:
    """Command or login windows, alternating between the arms (ABBA order), ``--rounds`` times.

    Every arm's server and sessions stay up for the whole run so that each
    window of one has a window of the other right next to it in time: the
    machine's speed drifts.  Arms are two servers (``--compare``) or two or
    more client modes against one server (``--compare-modes``).
    """
    results = {a.name: new_result(a.target, a.server, a.mode) for a in arms}
    sessions: dict[str, list[Session]] = {}
    try:
        if not args.logins_per_second:
            for a in arms:
                sessions[a.name] = group = await open_active(a.server, args, a.mode)
                results[a.name]["first_reply"] = group[0].first_reply.decode("utf-8", "replace")[-300:]
        for r in range(args.rounds):
            for a in arms if r % 2 == 0 else arms[::-1]:
                if args.logins_per_second:
                    w = await measure_logins(a.server, args, a.mode)
                else:
                    w = await measure(a.server, sessions[a.name], args.command, args,
                                      f"{args.sessions} active")
                w.extra["round"] = r + 1
                results[a.name]["windows"].append(asdict(w))
                check_alive(a.target, a.server)
    finally:
        for group in sessions.values():
            for s in group:
                s.close()
    return results


async def run_idle(target: str, server: Server, args) -> dict:
    """Active windows, then ``--idle`` more guests logged in, then the same windows again."""
    result = new_result(target, server, args.mode)
    sessions = await open_active(server, args, args.mode)
    idle: list[Session] = []
    try:
        base = []
        for r in range(args.rounds):
            base.append(await measure(server, sessions, args.command, args, f"{args.sessions} active"))
        rss_before_idle = rss_kb(server.pid)
        t0 = time.perf_counter()
        idle, failed = await login_many(server.host, server.port, args.idle,
                                        concurrency=args.login_concurrency, timeout=args.timeout)
        took = time.perf_counter() - t0
        await asyncio.sleep(0.5)
        rss_idle = rss_kb(server.pid)
        handles = [s.handle for s in idle + sessions]
        loaded = []
        for r in range(args.rounds):
            loaded.append(await measure(server, sessions, args.command, args,
                                        f"{args.sessions} active + {len(idle)} idle"))
        check_alive(target, server)
        result["windows"] = [asdict(w) for w in base + loaded]
        med = lambda ws, key: statistics.median(getattr(w, key) for w in ws)
        result["idle"] = {
            "requested": args.idle,
            "logged_in": len(idle),
            "failed": failed,
            "login_seconds": round(took, 3),
            "logins_per_second": round(len(idle) / took, 1),
            "rss_kb_before_idle": rss_before_idle,
            "rss_kb_with_idle": rss_idle,
            "rss_bytes_per_idle_session": round((rss_idle - rss_before_idle) * 1024 / max(1, len(idle))),
            "duplicate_handles": len(handles) - len(set(handles)),
            "slowdown_server_cpu_per_op": _ratio(med(loaded, "server_cpu_us_per_op"), med(base, "server_cpu_us_per_op")),
            "slowdown_p50": _ratio(med(loaded, "p50_us"), med(base, "p50_us")),
            "slowdown_p99": _ratio(med(loaded, "p99_us"), med(base, "p99_us")),
        }
        return result
    finally:
        for s in sessions + idle:
            s.close()


async def run_repeat(target: str, server: Server, args) -> dict:
    result = new_result(target, server, args.mode)
    sessions = await open_active(server, args, args.mode)
    try:
        result["windows"].append(asdict(await measure_repeat(server, sessions, args.command, args)))
        check_alive(target, server)
        return result
    finally:
        for s in sessions:
            s.close()


def _ratio(a: float, b: float) -> float:
    return round(a / b, 3) if b and b == b and a == a else float("nan")


# --------------------------------------------------------------------------
# Output


COLUMNS = [
    ("commands", "ops", "{:.0f}"),
    ("per_second", "ops/s", "{:.0f}"),
    ("p50_us", "p50 us", "{:.0f}"),
    ("p99_us", "p99 us", "{:.0f}"),
    ("server_busy_pct", "srv busy %", "{:.0f}"),
    ("server_cpu_us_per_op", "srv cpu us/op", "{:.1f}"),
    ("server_user_us_per_op", "  of which user", "{:.1f}"),
    ("server_sys_us_per_op", "  of which sys", "{:.1f}"),
    ("server_sched_us_per_op", "  (schedstat)", "{:.1f}"),
    ("client_cpu_us_per_op", "client us/op", "{:.1f}"),
    ("reply_bytes_avg", "reply B", "{:.0f}"),
    ("rss_kb_before", "RSS kB before", "{}"),
    ("rss_kb_after", "RSS kB after", "{}"),
    ("errors", "errors", "{}"),
]


def print_result(result: dict, out=sys.stdout) -> None:
    mode = result.get("mode", "plain")
    print(f"== {result['target']}{'' if mode == 'plain' else ', ' + mode + ' mode'}"
          f" (pid {result['pid']}, port {result['port']}, RSS at start {result['rss_kb_start']} kB)",
          file=out)
    if result.get("server_command"):
        print("   server: " + " ".join(result["server_command"]), file=out)
    windows = result["windows"]
    labels = [f"{w['label']} #{i + 1}" for i, w in enumerate(windows)]
    width = max([12] + [len(lab) + 2 for lab in labels])
    if windows:
        print(f"   {'':<16}" + "".join(f"{lab:>{width}}" for lab in labels), file=out)
        for key, name, fmt in COLUMNS + [("seconds", "window s", "{}")]:
            print(f"   {name:<16}" + "".join(f"{fmt.format(w[key]):>{width}}" for w in windows), file=out)
    for w in windows:
        for key, value in w["extra"].items():
            if key != "round":
                print(f"   {key}: {value}", file=out)
    for key, value in result.get("idle", {}).items():
        print(f"   idle.{key}: {value}", file=out)
    if "first_reply" in result:
        print(f"   first reply (end): {result['first_reply'][-160:]!r}", file=out)
    print(f"   server alive at end: {result.get('server_alive_at_end')}", file=out)


def print_comparison(floor: dict, ours: dict, out=sys.stdout, names: tuple[str, str] = ("floor", "ficsfen")) -> dict:
    """Ratios ours / floor of server CPU per op, window by window, and their median per label.

    ``floor`` is the reference arm (the floor server, or plain mode with
    ``--compare-modes``), ``names`` what to call the two arms.
    """
    base, other = names
    print(f"== ratio {other} / {base} of server CPU per op (lower is better)", file=out)
    by_label: dict[str, dict] = {}
    for wf, wo in zip(floor["windows"], ours["windows"]):
        ratio = _ratio(wo["server_cpu_us_per_op"], wf["server_cpu_us_per_op"])
        sched = _ratio(wo["server_sched_us_per_op"], wf["server_sched_us_per_op"])
        entry = by_label.setdefault(wo["label"], {"ratios": [], "schedstat_ratios": [], "p50_ratios": []})
        entry["ratios"].append(ratio)
        entry["schedstat_ratios"].append(sched)
        entry["p50_ratios"].append(_ratio(wo["p50_us"], wf["p50_us"]))
        print(
            f"   {wo['label']:<26} {base} {wf['server_cpu_us_per_op']:>7.1f} us"
            f"  {other} {wo['server_cpu_us_per_op']:>7.1f} us  ratio {ratio:.3f}"
            f"  (schedstat {sched:.3f}; p50 {wf['p50_us']:.0f} vs {wo['p50_us']:.0f} us;"
            f" ops/s {wf['per_second']:.0f} vs {wo['per_second']:.0f})",
            file=out,
        )
    for label, entry in by_label.items():
        ratios = sorted(entry["ratios"])
        entry["median"] = round(statistics.median(ratios), 3)
        entry["quartiles"] = [round(q, 3) for q in statistics.quantiles(ratios, n=4)] if len(ratios) > 1 else ratios
        entry["median_p50_ratio"] = round(statistics.median(entry["p50_ratios"]), 3)
        print(f"   MEDIAN {other} / {base}, {label}: server CPU/op ratio {entry['median']:.3f} over {len(ratios)} pairs"
              f" (quartiles {entry['quartiles'][0]:.3f}..{entry['quartiles'][-1]:.3f},"
              f" range {ratios[0]:.3f}..{ratios[-1]:.3f}; p50 latency ratio {entry['median_p50_ratio']:.3f})",
              file=out)
    return by_label


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    t = p.add_argument_group("server")
    t.add_argument("--target", choices=("floor", "ficsfen"),
                   help="server to start and measure (default: floor; ficsfen with --compare-modes)")
    t.add_argument("--compare", action="store_true", help="run floor then ficsfen with the same parameters")
    t.add_argument("--compare-modes", metavar="MODE,MODE[,...]",
                   help="one ficsfen server, sessions of each client mode, windows alternating between the"
                        " modes; ratios are to the first mode (e.g. plain,block or plain,timeseal)")
    t.add_argument("--server-pid", type=int, help="measure an already running server (needs --port)")
    t.add_argument("--host", default="127.0.0.1", help="loopback address")
    t.add_argument("--port", type=int, help="port of the server given by --server-pid")
    t.add_argument("--python", default=sys.executable, help="interpreter that runs the started server")
    t.add_argument("--server-arg", action="append", default=[], help="extra argument for ficsfen serve (repeatable)")
    t.add_argument("--floor-arg", action="append", default=[],
                   help="extra argument for floor_server.py (repeatable)")
    t.add_argument("--server-log", help="file for the started server's output ({target} is replaced)")
    t.add_argument("--start-timeout", type=float, default=30.0, help="seconds to wait for the server to listen")
    m = p.add_argument_group("load")
    m.add_argument("--sessions", type=int, default=1, help="active sessions (concurrent logins with --logins-per-second)")
    m.add_argument("--idle", type=int, default=0, help="extra logged-in idle sessions; measures before and after")
    m.add_argument("--mode", choices=MODES, default="plain",
                   help="how the client talks: plain lines, block mode (numbered commands, framed replies),"
                        " timeseal-encoded lines, or both")
    m.add_argument("--command", default="fen", help="command each active session repeats")
    m.add_argument("--setup", action="append", default=[], help="command each active session runs once first (repeatable)")
    m.add_argument("--seconds", type=float, default=10.0, help="length of the measuring window")
    m.add_argument("--warmup", type=float, default=1.0, help="unmeasured seconds before each window")
    m.add_argument("--logins-per-second", action="store_true", help="measure guest login + quit throughput")
    m.add_argument("--repeat", type=int, default=0, help="run exactly this many commands, sampling RSS")
    m.add_argument("--sample-every", type=int, default=10000, help="RSS sample interval (commands) for --repeat")
    m.add_argument("--login-concurrency", type=int, default=32, help="logins in flight while opening sessions")
    m.add_argument("--timeout", type=float, default=15.0, help="seconds to wait for any expected reply")
    t.add_argument("--server-cpu", type=int, help="pin the started server to this CPU")
    t.add_argument("--client-cpu", type=int, help="pin this client to this CPU")
    t.add_argument("--rounds", type=int, default=1, help="measuring windows per server; with --compare they alternate floor/ficsfen")
    p.add_argument("--json", help="also write all results to this JSON file")
    args = p.parse_args(argv)
    if not ipaddress.ip_address(args.host).is_loopback:
        p.error("--host must be a loopback address")
    if args.server_pid and (args.port is None or args.compare):
        p.error("--server-pid needs --port and excludes --compare")
    if args.sessions < 1 or args.idle < 0 or args.repeat < 0 or args.seconds <= 0:
        p.error("--sessions must be >= 1, --idle and --repeat >= 0, --seconds > 0")
    if args.compare_modes is not None:
        args.compare_modes = [m.strip() for m in args.compare_modes.split(",") if m.strip()]
        unknown = [m for m in args.compare_modes if m not in MODES]
        if unknown or len(args.compare_modes) < 2 or len(set(args.compare_modes)) < len(args.compare_modes):
            p.error(f"--compare-modes takes two or more different modes of {', '.join(MODES)}")
        if args.compare or args.idle or args.repeat or args.target == "floor":
            p.error("--compare-modes runs one ficsfen server: no --compare, --idle, --repeat or floor target")
        args.target = "ficsfen"
    args.target = args.target or "floor"
    if args.mode != "plain" and (args.compare or args.target == "floor"):
        p.error("the floor speaks plain mode only: --mode needs --target ficsfen")
    return args


async def amain(args) -> int:
    if args.compare_modes:
        return await amain_modes(args)
    targets = ["floor", "ficsfen"] if args.compare else [args.target]
    results: dict[str, dict] = {}

    def start(target: str) -> Server:
        if args.server_pid:
            return Server(pid=args.server_pid, host=args.host, port=args.port)
        return Server.start(target, args)

    def finish(target: str, server: Server) -> None:
        results[target]["server_alive_at_end"] = server.alive()
        server.stop()
        if server.log is not None:
            results[target]["server_log"] = str(server.log)

    if args.idle or args.repeat:
        for target in targets:  # one server at a time: 2 x 10,000 sessions would not fit the fd limit
            started: list[Server] = []
            results[target] = {"target": target}
            try:
                with _signals_held():
                    started.append(start(target))
                runner = run_idle if args.idle else run_repeat
                results[target] = await runner(target, started[0], args)
            finally:
                with _signals_held():
                    for server in started:
                        finish(target, server)
            print_result(results[target])
            sys.stdout.flush()
    else:
        servers: dict[str, Server] = {}
        try:
            for target in targets:
                with _signals_held():
                    servers[target] = start(target)
            arms = [Arm(t, t, server, "plain" if t == "floor" else args.mode) for t, server in servers.items()]
            results.update(await run_windows(arms, args))
        finally:
            with _signals_held():
                for target, server in servers.items():
                    results.setdefault(target, {"target": target})
                    finish(target, server)
        for target in targets:
            print_result(results[target])
    if args.compare:
        summary = print_comparison(results["floor"], results["ficsfen"])
    else:
        summary = None
    if args.json:
        Path(args.json).write_text(json.dumps({"argv": sys.argv[1:], "results": results, "ratios": summary}, indent=1))
    return 0


async def amain_modes(args) -> int:
    """``--compare-modes``: one ficsfen server, one group of sessions per client mode."""
    modes = args.compare_modes
    results: dict[str, dict] = {}
    started: list[Server] = []
    try:
        with _signals_held():
            started.append(Server(pid=args.server_pid, host=args.host, port=args.port) if args.server_pid
                           else Server.start("ficsfen", args))
        server = started[0]
        results.update(await run_windows([Arm(m, "ficsfen", server, m) for m in modes], args))
    finally:
        with _signals_held():
            for server in started:
                for m in modes:
                    results.setdefault(m, {"target": "ficsfen", "mode": m})
                    results[m]["server_alive_at_end"] = server.alive()
                    if server.log is not None:
                        results[m]["server_log"] = str(server.log)
                server.stop()
    for m in modes:
        print_result(results[m])
    summary = {m: print_comparison(results[modes[0]], results[m], names=(modes[0], m)) for m in modes[1:]}
    if args.json:
        Path(args.json).write_text(json.dumps({"argv": sys.argv[1:], "results": results, "ratios": summary}, indent=1))
    return 0


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.client_cpu is not None:
        os.sched_setaffinity(0, {args.client_cpu})
    limit = raise_fd_limit()
    need = args.sessions * max(2, len(args.compare_modes or ())) + args.idle + 64
    if limit < need:
        print(f"open-file limit {limit} is below the {need} sessions asked for", file=sys.stderr)
        return 2
    try:
        return asyncio.run(amain(args))
    except BenchError as e:
        print(f"load.py: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130


_deferring = False  # a server is being started or stopped: SIGTERM and SIGINT wait
_pending = False  # one of them came meanwhile


def _terminated(signum, frame) -> None:
    """SIGTERM and SIGINT unwind as ``KeyboardInterrupt``, so that the servers this run
    started are stopped too; during :func:`_signals_held` they wait for its end."""
    global _pending
    if _deferring:
        _pending = True
        return
    raise KeyboardInterrupt


@contextlib.contextmanager
def _signals_held():
    """Start a server and record it (or stop servers) inside: no signal falls in between.

    The ``KeyboardInterrupt`` of a signal that came meanwhile is raised at the
    end, once the server is where the ``finally`` that stops it can see it.
    """
    global _deferring, _pending
    outer, _deferring = _deferring, True
    try:
        yield
    finally:
        _deferring = outer
        if _pending and not outer:
            _pending = False
            raise KeyboardInterrupt


if __name__ == "__main__":
    signal.signal(signal.SIGTERM, _terminated)
    signal.signal(signal.SIGINT, _terminated)
    sys.exit(main())
