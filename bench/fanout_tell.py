"""Channel tell fan-out benchmark: 1,000 players in one channel, one tell to all.

The server runs in its own process (``python -m ficsfen serve`` on a free
loopback port, ``[limits] talk_per_minute = 0`` so the sender is not
rate-limited).  N guests log in and join channel 1 (``+channel 1``), one
more joins and sends ``tell 1 TEXT`` again and again.  For every tell it
measures the server's CPU time, from ``/proc/PID/task/*/schedstat`` read
before the tell is sent and after the **last** member has the line, and the
time until that last member has it.

Side by side in the same run: ``bench/fanout_floor.py`` (``TELL TEXT``: the
same line, the same size, written to every member through
``transport.write`` (``floor``) or straight to the socket
(``floor-direct``), nothing else).  The report gives server CPU per delivered
line for each, and ficsfen's as a ratio of the floors'.

    python bench/fanout_tell.py --members 1000 --tells 50

Run it on a quiet machine (other work shifts the figures).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from load import (LOOPBACK_CONFIG, Server, cpu_sched_seconds, percentile,  # noqa: E402
                  raise_fd_limit)
from observers import PROMPT, Conn, add_server_args, login, start_floor, wait_all  # noqa: E402

CHANNEL = 1


def _config() -> str:
    """The loopback benchmark configuration, with no limit on talking."""
    text = Path(LOOPBACK_CONFIG).read_text()
    text = text.replace("[limits]\n", "[limits]\ntalk_per_minute = 0\n", 1)
    handle = tempfile.NamedTemporaryFile("w", prefix="fanout-tell-", suffix=".toml", delete=False)
    with handle:
        handle.write(text)
    return handle.name


def _text(i: int) -> bytes:
    """The i-th tell's text: about the length of a chat line, unique per tell."""
    return b"message number %05d from the benchmark, hello all" % i


def _summary(target: str, members: int, cpu: list[float], latencies: list[float]) -> dict:
    per_line = sorted(c / members for c in cpu)
    lat = sorted(latencies)
    return {"target": target, "members": members, "tells": len(cpu),
            "cpu_us_per_line": {"p50": statistics.median(per_line) * 1e6,
                                "mean": statistics.fmean(per_line) * 1e6},
            "cpu_ms_per_tell_p50": statistics.median(cpu) * 1e3,
            "last_member_ms": {"p50": percentile(lat, 50) * 1e3, "p99": percentile(lat, 99) * 1e3}}


def run_ficsfen(args: argparse.Namespace) -> dict:
    args.server_arg = ["--config", _config()]
    server = Server.start("ficsfen", args)
    conns: list[Conn] = []
    try:
        sender = Conn(args.host, server.port)
        conns.append(sender)
        login([sender], [b"+channel %d" % CHANNEL], b"added to your channel list.", timeout=30)
        wait_all([sender], PROMPT, timeout=30)
        members = [Conn(args.host, server.port) for _ in range(args.members)]
        conns += members
        login(members, [b"+channel %d" % CHANNEL], b"added to your channel list.",
              timeout=args.timeout)
        wait_all(members, PROMPT, timeout=args.timeout)
        cpu: list[float] = []
        latencies: list[float] = []
        for i in range(args.tells + args.warmup):
            text = _text(i)
            marker = b"): " + text + b"\r\n"
            cpu0 = cpu_sched_seconds(server.pid)
            t0 = time.perf_counter()
            sender.send(b"tell %d " % CHANNEL + text + b"\r\n")
            got = wait_all(members, marker, timeout=args.timeout)
            cpu1 = cpu_sched_seconds(server.pid)
            wait_all([sender], b"in channel %d)\r\n" % CHANNEL + PROMPT, timeout=30)
            for c in members:
                c.take_until(PROMPT)
            if i >= args.warmup:
                cpu.append(cpu1 - cpu0)
                latencies.append(max(got.values()) - t0)
        return _summary("ficsfen", args.members, cpu, latencies)
    finally:
        for c in conns:
            c.close()
        server.stop()


def run_floor(args: argparse.Namespace, *, direct: bool) -> dict:
    server, sender = start_floor(args, direct=direct)
    conns: list[Conn] = [sender]
    try:
        members = [Conn(args.host, server.port) for _ in range(args.members)]
        conns += members
        wait_all(conns, PROMPT, timeout=args.timeout)
        cpu: list[float] = []
        latencies: list[float] = []
        for i in range(args.tells + args.warmup):
            # The same line ficsfen writes: "GuestXXXX(U)(1): TEXT".
            line = b"GuestABCD(U)(%d): " % CHANNEL + _text(i)
            marker = b"): " + _text(i) + b"\r\n"
            cpu0 = cpu_sched_seconds(server.pid)
            t0 = time.perf_counter()
            sender.send(b"TELL " + line + b"\r\n")
            got = wait_all(members, marker, timeout=args.timeout)
            cpu1 = cpu_sched_seconds(server.pid)
            wait_all([sender], b"ok\r\n" + PROMPT, timeout=30)
            for c in members:
                c.take_until(PROMPT)
            if i >= args.warmup:
                cpu.append(cpu1 - cpu0)
                latencies.append(max(got.values()) - t0)
        return _summary("floor-direct" if direct else "floor", args.members, cpu, latencies)
    finally:
        for c in conns:
            c.close()
        server.stop()


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--members", type=int, default=1000)
    p.add_argument("--tells", type=int, default=50, help="tells measured in each run")
    p.add_argument("--warmup", type=int, default=5, help="tells sent first and not measured")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--timeout", type=float, default=60.0)
    p.add_argument("--json", action="store_true", help="print the results as JSON")
    add_server_args(p)
    return p.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    limit = raise_fd_limit()
    if limit < args.members + 100:
        print(f"open-file limit {limit} is too low for {args.members} members", file=sys.stderr)
        return 2
    results = [run_ficsfen(args), run_floor(args, direct=False), run_floor(args, direct=True)]
    ours = results[0]["cpu_us_per_line"]["p50"]
    # A tiny run can read 0 CPU on a floor (the clock's resolution): no ratio then.
    ratios = {r["target"]: (ours / r["cpu_us_per_line"]["p50"] if r["cpu_us_per_line"]["p50"] else None)
              for r in results[1:]}
    if args.json:
        print(json.dumps({"runs": results, "ratio_vs_floor": ratios}, indent=2))
        return 0
    for r in results:
        cpu, lat = r["cpu_us_per_line"], r["last_member_ms"]
        print(f"{r['target']:>12} {r['members']} members, {r['tells']} tells: server CPU per line "
              f"p50 {cpu['p50']:.2f} us (mean {cpu['mean']:.2f} us, {r['cpu_ms_per_tell_p50']:.2f} ms "
              f"per tell); last member p50 {lat['p50']:.2f} ms p99 {lat['p99']:.2f} ms")
    for target, ratio in ratios.items():
        shown = "n/a (no CPU measured)" if ratio is None else f"{ratio:.2f}x"
        print(f"ficsfen / {target} server CPU per delivered line (medians): {shown}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
